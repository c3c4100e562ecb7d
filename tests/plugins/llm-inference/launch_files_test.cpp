#include "launch_files.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string_view>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/toml_literal.hpp>

#include "llm_host.hpp"
#include "params.hpp"
#include "plugin.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

using namespace dgx::plugins::llm_inference;
using InferenceHost = dgx::testing::LlmHost<InferenceWorkload, inference_params>;

namespace {

bool has(const std::string* text, const std::string& part) {
  return text != nullptr && text->find(part) != std::string::npos;
}

// Everything a shell would read into an unquoted or badly quoted word: quotes of both kinds, a command substitution
// in both spellings, a separator, a variable, a glob, a backslash and a comment.
constexpr std::string_view kHostile = "x'$(touch PWNED)'\"`touch PWNED`\"; touch PWNED & $HOME * \\' #";

// One deployment's inputs, copied out of a Serving, so that a test can put hostile values where users put names.
struct Deployment {
  InferenceSettings settings;
  dgx::llm::workload::ServeAssumptions assumptions;
  dgx::llm::ServeProjection projection;
};

Deployment deployment(const InferenceHost& h) {
  const Serving serving{dgx::sdk::Host(h.api())};
  return {serving.settings(), serving.assumptions(), serving.project_configuration()};
}

// Every value a user names that reaches a launch file, set to `value`: the checkpoint (or, with none, the model's
// name that stands for it), the model's and system's names, the draft model's and the lengths file's names.
void put_everywhere(Deployment& d, const std::string& value, bool as_checkpoint) {
  (as_checkpoint ? d.settings.checkpoint : d.settings.model) = value;
  d.assumptions.model.name = value;
  d.assumptions.system.name = value;
  auto draft = std::make_shared<dgx::llm::ModelConfig>(d.assumptions.model);
  draft->name = value;
  d.settings.config.speculative.draft_model = draft;
  d.projection.config.lengths = std::make_shared<dgx::llm::LengthTable>(dgx::llm::LengthTable{value, {{100, 100, 1}}});
}

// Writes the files into a folder and runs each script there with bash, trtllm-serve, vllm and aiperf being stubs
// that write their arguments (one per line, in <>) into a file of their own. Returns what every stub received;
// fails the test when bash -n rejects a script or a script creates a file that is not a stub's log.
std::string run_scripts(const LaunchFiles& f) {
  const dgx::testing::TempDir dir;
  const auto bin = dir.path() / "bin";
  const auto argv = dir.path() / "argv";
  const auto work = dir.path() / "work";
  std::filesystem::create_directories(argv);
  for (const char* tool : {"trtllm-serve", "vllm", "aiperf", "python3"}) {  // python3: SGLang's -m modules
    const auto stub = dir.write(bin / tool, "#!/bin/sh\n{ printf '%s\\n' \"$(basename \"$0\")\"; for a in \"$@\"; do "
                                            "printf '<%s>\\n' \"$a\"; done; } > \"$ARGV_DIR/$$\"\n");
    std::filesystem::permissions(stub, std::filesystem::perms::owner_all);
  }
  for (const auto& [name, text] : f.files) {
    dir.write(work / name, text);
  }
  for (const auto& file : f.files) {
    const std::string& name = file.first;
    if (launch_file_mode(name) != 0755) {
      continue;
    }
    CAPTURE(name);
    const auto syntax = dgx::testing::run_process("/usr/bin/env", {"bash", "-n", (work / name).string()});
    CHECK_MESSAGE(syntax.exit_code == 0, syntax.err);
    const char* path = std::getenv("PATH");  // the stubs first, then the tools a payload would run
    const auto run = dgx::testing::run_process(
        "/usr/bin/env", {"bash", "-c", "cd \"$1\" && bash \"$2\"", "script", work.string(), name},
        {{"PATH", bin.string() + ":" + (path != nullptr ? path : "/usr/bin:/bin")}, {"ARGV_DIR", argv.string()}});
    CHECK_MESSAGE(run.exit_code == 0, run.err);
  }
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(work)) {
    ++files;
  }
  CHECK_MESSAGE(files == f.files.size(), "a script created a file");
  CHECK_FALSE(std::filesystem::exists(work / "PWNED"));
  std::string received;
  for (const auto& entry : std::filesystem::directory_iterator(argv)) {
    std::ifstream in(entry.path());
    received += std::string(std::istreambuf_iterator<char>(in), {});
  }
  return received;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("trtllm-serve and its extra_llm_api_options hold the projected layout, limits, KV format and drafts") {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.set(key::tp, std::int64_t{4});
  h.set(key::concurrency, std::int64_t{32});
  h.set(key::speculative, std::string("eagle"));
  h.set(key::draft_tokens, std::int64_t{3});
  const Serving serving{dgx::sdk::Host(h.api())};
  const dgx::llm::ServeProjection p = serving.project_configuration();
  const LaunchFiles f = launch_files(serving.settings(), serving.assumptions(), p);
  REQUIRE(f.files.front().first == "trtllm-serve.sh");
  const std::string* serve = f.find("trtllm-serve.sh");
  CHECK(has(serve, "trtllm-serve nvidia/Llama-3.1-70B-Instruct-FP8 --backend pytorch"));
  CHECK(has(serve, "--tp_size 4 --pp_size 1 --ep_size 1"));
  CHECK(has(serve, "--max_batch_size 32 --max_num_tokens 8192"));
  CHECK(has(serve, "--extra_llm_api_options extra_llm_api_options.yaml"));
  const std::string* yaml = f.find("extra_llm_api_options.yaml");
  CHECK(has(yaml, "max_batch_size: 32\n"));
  CHECK(has(yaml, "enable_attention_dp: false\n"));
  CHECK(has(yaml, "kv_cache_config:\n  free_gpu_memory_fraction: 0.900\n  dtype: fp8\n"));
  CHECK(has(yaml, "speculative_config:\n  decoding_type: Eagle3\n  max_draft_len: 3\n"));
  const std::string* aiperf = f.find("aiperf.sh");
  CHECK(has(aiperf, "--synthetic-input-tokens-mean 1000"));
  CHECK(has(aiperf, "--output-tokens-mean 1000"));
  CHECK(has(aiperf, "--concurrency 32 --request-count 320"));
  CHECK(has(aiperf, "--goodput \"time_to_first_token:2000 inter_token_latency:50\""));
}

TEST_CASE("with serve.engine = vllm the launch file is vllm serve's flags, attention DP as data-parallel ranks") {
  InferenceHost h;
  h.set(key::model, std::string("deepseek-r1"));
  h.set(key::system, std::string("h200-sxm"));
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::tp, std::int64_t{8});
  h.set(key::ep, std::int64_t{8});
  h.set(key::attention_dp, true);
  h.set(key::engine, std::string("vllm"));
  h.set(key::request_rate, 2.0);
  h.set(key::requests, std::int64_t{200});
  const Serving serving{dgx::sdk::Host(h.api())};
  const LaunchFiles f = launch_files(serving.settings(), serving.assumptions(), serving.project_configuration());
  const std::string* serve = f.find("vllm-serve.sh");
  CHECK(has(serve, "vllm serve deepseek-ai/DeepSeek-R1 --host"));
  CHECK(has(serve, "--data-parallel-size 8 --tensor-parallel-size 1 --enable-expert-parallel"));
  CHECK(has(serve, "--kv-cache-dtype fp8"));
  CHECK(f.find("trtllm-serve.sh") == nullptr);
  CHECK(has(f.find("aiperf.sh"), "--request-rate 2 --request-count 200"));
}

TEST_CASE("with serve.engine = sglang the launch file is sglang.launch_server's flags, DP attention and EP") {
  InferenceHost h;
  h.set(key::model, std::string("deepseek-r1"));
  h.set(key::system, std::string("h200-sxm"));
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::tp, std::int64_t{8});
  h.set(key::ep, std::int64_t{8});
  h.set(key::attention_dp, true);
  h.set(key::engine, std::string("sglang"));
  h.set(key::speculative, std::string("mtp"));
  h.set(key::concurrency, std::int64_t{64});
  const Serving serving{dgx::sdk::Host(h.api())};
  const LaunchFiles f = launch_files(serving.settings(), serving.assumptions(), serving.project_configuration());
  const std::string* serve = f.find("sglang-serve.sh");
  CHECK(has(serve, "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --host"));
  CHECK(has(serve, "--tp-size 8 --pp-size 1 --dp-size 8 --enable-dp-attention --ep-size 8"));
  CHECK(has(serve, "--chunked-prefill-size 8192"));
  CHECK(has(serve, "--kv-cache-dtype fp8_e4m3"));
  CHECK(has(serve, "--speculative-algorithm NEXTN --speculative-num-steps 3"));
  CHECK(f.find("trtllm-serve.sh") == nullptr);
  CHECK(has(f.find("aiperf.sh"), "--concurrency 64"));
}

TEST_CASE("explore hands the recommendation's launch files to the host (--emit DIR), scripts executable, and notes "
          "them") {
  InferenceHost h;
  h.use_preset("llama8b-serve");
  h.output_folder = "deploy";
  h.project(dgx::sdk::Mode::explore);
  CHECK(h.note("Launch files").find("Written for ") == 0);
  REQUIRE(h.written_files.count("trtllm-serve.sh") == 1);
  CHECK(h.written_files.count("aiperf.sh") == 1);
  CHECK(h.written_files["trtllm-serve.sh"].text.find("trtllm-serve nvidia/Llama-3.1-8B-Instruct-FP8 ") !=
        std::string::npos);
  CHECK(h.written_files["trtllm-serve.sh"].mode == 0755);
  CHECK(h.written_files["extra_llm_api_options.yaml"].mode == 0644);
}

TEST_CASE("without --emit no launch file is written and no note says so") {
  InferenceHost h;
  h.use_preset("llama8b-serve");
  h.project(dgx::sdk::Mode::explore);
  CHECK(h.written_files.empty());
  CHECK(h.note("Launch files").empty());
}

TEST_CASE("a disaggregated deployment: each worker on GPUs of its own, the router over every context and generation "
          "worker") {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::isl, std::int64_t{8000});
  h.set(key::mode, std::string("disaggregated"));
  h.set(key::prefill_tp, std::int64_t{1});
  h.set(key::prefill_workers, std::int64_t{4});
  h.set(key::tp, std::int64_t{4});
  h.set(key::decode_workers, std::int64_t{1});
  const Serving serving{dgx::sdk::Host(h.api())};
  const LaunchFiles f = launch_files(serving.settings(), serving.assumptions(), serving.project_configuration());
  const std::string* serve = f.find("trtllm-serve.sh");
  for (const char* worker : {"CUDA_VISIBLE_DEVICES=0 trtllm-serve", "CUDA_VISIBLE_DEVICES=3 trtllm-serve",
                             "CUDA_VISIBLE_DEVICES=4,5,6,7 trtllm-serve"}) {
    CAPTURE(worker);
    CHECK(has(serve, worker));
  }
  CHECK_FALSE(has(serve, "CUDA_VISIBLE_DEVICES=8"));
  CHECK(has(serve, "--tp_size 4 --pp_size 1"));
  CHECK(has(serve, "trtllm-serve disaggregated -c disagg_config.yaml"));
  const std::string* router = f.find("disagg_config.yaml");
  CHECK(has(router, "context_servers:\n  num_instances: 4\n"));
  CHECK(has(router, "generation_servers:\n  num_instances: 1\n  urls:\n    - \"localhost:8005\"\n"));
  CHECK(has(f.find("gen_extra_llm_api_options.yaml"), "cache_transceiver_config:"));
}

TEST_CASE("a hostile checkpoint, model, draft or file name reaches every engine and aiperf as one literal argument "
          "and runs nothing") {
  const std::string hostile(kHostile);
  const std::string literal = "\n<" + hostile + ">\n";
  SUBCASE("trtllm-serve, one replica with a draft model, the name as serve.checkpoint") {
    InferenceHost h;
    h.use_preset("llama70b-serve");
    h.set(key::speculative, std::string("draft"));
    h.set(key::draft_model, std::string("llama3.1-8b"));
    h.set(key::draft_tokens, std::int64_t{2});
    Deployment d = deployment(h);
    put_everywhere(d, hostile, true);
    const LaunchFiles f = launch_files(d.settings, d.assumptions, d.projection);
    const std::string received = run_scripts(f);
    CHECK(count(received, "trtllm-serve\n" + literal.substr(1)) == 1);  // the checkpoint, its first argument
    CHECK(count(received, literal) == 3);                               // and aiperf's --model and --tokenizer
    CHECK(
        has(f.find("extra_llm_api_options.yaml"), "speculative_model_dir: " + dgx::sdk::toml_literal(hostile) + "\n"));
  }
  SUBCASE("trtllm-serve disaggregated, the model's name standing for the checkpoint") {
    InferenceHost h;
    h.use_preset("llama70b-serve");
    h.set(key::precision, std::vector<std::string>{"fp8"});
    h.set(key::isl, std::int64_t{8000});
    h.set(key::mode, std::string("disaggregated"));
    h.set(key::prefill_tp, std::int64_t{1});
    h.set(key::prefill_workers, std::int64_t{2});
    h.set(key::tp, std::int64_t{4});
    h.set(key::decode_workers, std::int64_t{1});
    Deployment d = deployment(h);
    put_everywhere(d, hostile, false);
    const std::string received = run_scripts(launch_files(d.settings, d.assumptions, d.projection));
    CHECK(count(received, literal) == 3 + 2);  // three workers, aiperf's two
  }
  SUBCASE("vllm serve, prefill and decode instances with a draft model") {
    InferenceHost h;
    h.use_preset("llama70b-serve");
    h.set(key::engine, std::string("vllm"));
    h.set(key::speculative, std::string("draft"));
    h.set(key::draft_model, std::string("llama3.1-8b"));
    h.set(key::draft_tokens, std::int64_t{2});
    h.set(key::mode, std::string("disaggregated"));
    h.set(key::prefill_tp, std::int64_t{4});
    h.set(key::prefill_workers, std::int64_t{1});
    h.set(key::tp, std::int64_t{4});
    h.set(key::decode_workers, std::int64_t{1});
    Deployment d = deployment(h);
    put_everywhere(d, hostile, true);
    const std::string received = run_scripts(launch_files(d.settings, d.assumptions, d.projection));
    CHECK(count(received, literal) == 2 + 2);
    CHECK(count(received, "<{\"model\": " + dgx::sdk::toml_literal(hostile) + ", \"num_speculative_tokens\": 2}>") ==
          2);
  }
  SUBCASE("sglang.launch_server, prefill and decode servers and the router, with a draft model") {
    InferenceHost h;
    h.use_preset("llama70b-serve");
    h.set(key::engine, std::string("sglang"));
    h.set(key::speculative, std::string("draft"));
    h.set(key::draft_model, std::string("llama3.1-8b"));
    h.set(key::draft_tokens, std::int64_t{2});
    h.set(key::mode, std::string("disaggregated"));
    h.set(key::prefill_tp, std::int64_t{4});
    h.set(key::prefill_workers, std::int64_t{1});
    h.set(key::tp, std::int64_t{4});
    h.set(key::decode_workers, std::int64_t{1});
    Deployment d = deployment(h);
    put_everywhere(d, hostile, true);
    const LaunchFiles f = launch_files(d.settings, d.assumptions, d.projection);
    CHECK(has(f.find("sglang-serve.sh"), "--disaggregation-mode prefill"));
    CHECK(has(f.find("sglang-serve.sh"), "python3 -m sglang_router.launch_router --pd-disaggregation"));
    const std::string received = run_scripts(f);
    CHECK(count(received, literal) == 2 * 2 + 2);  // each server's model and draft paths, aiperf's two
    CHECK(count(received, "python3\n<-m>\n<sglang.launch_server>\n") == 2);
  }
}

TEST_CASE("a name with a line break of any kind or a control character is refused, naming which value holds it") {
  InferenceHost h;
  h.use_preset("llama8b-serve");
  const Deployment clean = deployment(h);
  for (const std::string& bad : {std::string("a\ntouch PWNED"), std::string("a\rb"), std::string("a\0b", 3),
                                 std::string("a\xc2\x85"
                                             "b"),
                                 std::string("a\xe2\x80\xa8"
                                             "b"),
                                 std::string("a\xe2\x80\xa9"
                                             "b"),
                                 std::string("a\xff")}) {
    CAPTURE(bad);
    Deployment d = clean;
    d.settings.checkpoint = bad;
    CHECK_THROWS_WITH_AS((void)launch_files(d.settings, d.assumptions, d.projection),
                         doctest::Contains("cannot carry serve.checkpoint: it holds "), dgx::sdk::InvalidArgument);
    d = clean;
    d.assumptions.system.name = bad;
    CHECK_THROWS_WITH_AS((void)launch_files(d.settings, d.assumptions, d.projection),
                         doctest::Contains("cannot carry the system's name"), dgx::sdk::InvalidArgument);
    d = clean;
    d.projection.config.lengths = std::make_shared<dgx::llm::LengthTable>(dgx::llm::LengthTable{bad, {{1, 1, 1}}});
    CHECK_THROWS_WITH_AS((void)launch_files(d.settings, d.assumptions, d.projection),
                         doctest::Contains("cannot carry the lengths file's name"), dgx::sdk::InvalidArgument);
  }
  // A checkpoint the engine would read as an option (`vllm serve --speculative-config ...`), found by the fuzzer.
  Deployment d = clean;
  d.settings.checkpoint = "--speculative-config";
  CHECK_THROWS_WITH_AS((void)launch_files(d.settings, d.assumptions, d.projection),
                       doctest::Contains("cannot carry serve.checkpoint '--speculative-config': it begins with '-'"),
                       dgx::sdk::InvalidArgument);
}
