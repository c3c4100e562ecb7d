// End to end: the dgxhost executable with the llm-inference plugin, as a user on a machine without GPUs runs it.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "plugin_cli.hpp"
#include "temp_dir.hpp"

using namespace dgx::testing;

TEST_CASE("dgxhost --plugin llama70b-serve answers on a machine without GPUs, fast, with its assumptions") {
  const std::string out = fast_answer({"--plugin", "llama70b-serve"});
  CHECK(has(out, "preset llama70b-serve  mode explore"));
  CHECK(has(out, "Assumptions:\n  Model: Llama 3.1 70B (llama3.1-70b)"));
  CHECK(has(out, "configs/baselines/inference.md: mean "));
  for (const char* column :
       {"layout", "load", "pareto", "recommended", "TTFT", "TPOT", "tok/s/GPU", "tok/s/user", "MBU %", "$/Mtok"}) {
    CHECK_MESSAGE(has(out, column), column);
  }
  CHECK(has(out, "(recommended = yes)"));
  CHECK(has(out, "These numbers are projections of dgx-llm-serve 2 for h100-sxm"));
}

TEST_CASE("--mode project --format json: one projected row with the interface's metric names") {
  const dgx::json::Value doc =
      json_of(dgxhost({"--plugin", "llama70b-serve", "--mode", "project", "--format", "json"}));
  const auto& rows = doc["results"].as_array();
  REQUIRE(rows.size() == 1);
  const dgx::json::Value& row = rows.front();
  CHECK(row["mode"].as_string() == "projected");
  CHECK(row["config"]["parallel.tp"].as_int() == 2);
  CHECK(metric(row, "tpot") > 0);
  CHECK(metric(row, "output_tokens_per_s_per_user") == doctest::Approx(1 / metric(row, "tpot")));
  CHECK(metric(row, "kv_cache_tokens") > 100000);
  CHECK(has(row["info"]["tpot_definition"].as_string(), "AIPerf's ITL"));
}

TEST_CASE("--describe defines TPOT as trtllm-bench and AIPerf do") {
  const ProcessResult r =
      run_process(DGX_TEST_DGXHOST, {"--plugin", "llm-inference", "--describe"}, {{"COLUMNS", "0"}});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(has(r.out, "TPOT = (E2E - TTFT) / (output tokens - 1), trtllm-bench's TPOT and AIPerf's ITL"));
  CHECK(has(r.out, "mbu = (weight bytes + KV bytes read per decode iteration) / TPOT / HBM peak"));
}

TEST_CASE("bad input exits 2 with the reason") {
  check_config_errors(
      "llama70b-serve",
      {
          {{"--mode", "project", "--set", "model=llama3.1-405b", "--set", "parallel.tp=4", "--set", "precision=bf16"},
           "needs 189.0 GiB of weights per GPU; h100-sxm has 80.0 GiB"},
          {{"--set", "serve.isl=200000"}, "ISL 200000 exceeds the context of llama3.1-70b (131072 tokens)"},
          {{"--mode", "project", "--set", "parallel.tp=1", "--set", "serve.max_batch_tokens=65536"},
           "no memory left for a KV cache"},
          {{"--mode", "project", "--set", "precision=nvfp4"},
           "nvfp4 needs block-scaled FP4/FP8 tensor cores (Blackwell: b200, gb200-nvl72, gb300-nvl72); h100-sxm has "
           "none"},
          {{"--set", "model=llama70b"}, "did you mean 'llama3.1-70b'"},
          {{"--mode", "project", "--set", "serve.request_rate=0"}, "serve.request_rate must be > 0 requests/s"},
          {{"--set", "serve.checkpoint=org/model\ntouch PWNED"},
           "serve.checkpoint: the checkpoint holds a line break (U+000A)"},
          {{"--mode", "project", "--set", "serve.lengths=" DGX_SOURCE_DIR "/configs/lengths/none.csv"},
           "none.csv: cannot open the lengths file"},
          {{"--mode", "project", "--set", "serve.mode=disaggregated", "--set", "serve.prefill_workers=1"},
           "needs at least one prefill and one decode worker"},
          {{"--mode", "project", "--set", "parallel.tp=8", "--set", "parallel.attention_dp=true"},
           "attention data parallelism needs a mixture-of-experts model: llama3.1-70b is dense"},
          {{"--mode", "project", "--set", "serve.speculative=eagle", "--set", "serve.draft_tokens=2", "--set",
            "serve.acceptance=3"},
           "at most the draft length of 2 tokens can be accepted"},
          {{"--mode", "project", "--set", "serve.speculative=eagle", "--set", "serve.engine=vllm", "--set",
            "parallel.pp=2"},
           "vLLM's speculative decoding does not run with pipeline parallelism"},
          {{"--mode", "project", "--set", "serve.engine=tgi"}, "'tgi' is not one of trtllm, vllm, sglang"},
          {{"--set", "serve.fleet_rate=-1"}, "serve.fleet_rate must be >= 0 requests/s"},
          {{"--mode", "project", "--set", "serve.engine=sglang", "--set", "serve.engine_version=0.4.0"},
           "serve.engine_version: 0.4.0 is not a release of SGLang"},
      });
}

TEST_CASE("--set serve.engine=sglang: SGLang's calibration corrects the latencies and its band is the row's") {
  const dgx::json::Value doc =
      json_of(dgxhost({"--plugin", "llama70b-serve", "--mode", "project", "--set", "serve.engine=sglang", "--set",
                       "serve.concurrency=32", "--format", "json"}));
  const auto& rows = doc["results"].as_array();
  REQUIRE(rows.size() == 1);
  CHECK(rows.front()["config"]["serve.engine"].as_string() == "sglang");
  CHECK(metric(rows.front(), "tpot") > 0);
  const std::string out = fast_answer({"--plugin", "llm-inference", "--set", "serve.engine=sglang"});
  CHECK(has(out, "(recommended = yes)"));
}

TEST_CASE("serve.fleet_rate: explore sizes the fleet, and its launch files offer the fleet's rate") {
  const TempDir dir;
  const std::string target = (dir.path() / "deploy").string();
  const ProcessResult r = dgxhost(
      {"--plugin", "llama70b-serve", "--set", "serve.fleet_rate=20", "--set", "serve.fleet_gpus=64", "--emit", target});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(has(r.out, "Fleet:\n  "));
  CHECK(has(r.out, "carry 20.00 requests/s within the SLOs"));
  std::ifstream in(dir.path() / "deploy" / "aiperf.sh");
  const std::string aiperf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(has(aiperf, "--request-rate 20 "));
  CHECK(has(aiperf, "# The fleet: "));
  const ProcessResult small = dgxhost({"--plugin", "llama70b-serve", "--set", "serve.fleet_rate=2000"});
  CHECK(small.exit_code == 2);
  CHECK(has(small.err, "serve.fleet_rate: 2000.00 requests/s within the SLOs needs"));
  CHECK(has(small.err, "serve.fleet_gpus 8"));
}

TEST_CASE("--emit DIR: dgxhost writes the recommendation's trtllm-serve, its YAML and the aiperf command there") {
  const TempDir dir;
  const std::string target = (dir.path() / "deploy").string();
  const ProcessResult r = dgxhost({"--plugin", "llama70b-serve", "--emit", target});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(has(r.out, "Launch files:\n  Written for "));
  for (const char* file : {"trtllm-serve.sh", "aiperf.sh"}) {
    CHECK_MESSAGE(std::filesystem::exists(dir.path() / "deploy" / file), file);
  }
  CHECK((std::filesystem::status(dir.path() / "deploy" / "trtllm-serve.sh").permissions() &
         std::filesystem::perms::owner_exec) != std::filesystem::perms::none);
}

TEST_CASE("--emit DIR: a hostile serve.checkpoint is written as one single-quoted shell word") {
  const TempDir dir;
  const std::string target = (dir.path() / "deploy").string();
  const ProcessResult r =
      dgxhost({"--plugin", "llama8b-serve", "--set", "serve.checkpoint=x'$(touch PWNED)'", "--emit", target});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::ifstream in(dir.path() / "deploy" / "trtllm-serve.sh");
  const std::string script((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(has(script, R"(trtllm-serve 'x'\''$(touch PWNED)'\''' --backend pytorch)"));
}

TEST_CASE("--emit DIR: a link or FIFO planted where a launch file goes is refused and what it points to is unchanged") {
  const TempDir dir;
  const auto outside = dir.write("outside/precious.txt", "precious");
  const auto folder = dir.path() / "deploy";
  std::filesystem::create_directory(folder);
  std::string planted;
  SUBCASE("a symbolic link") {
    std::filesystem::create_symlink(outside, folder / "trtllm-serve.sh");
    planted = "is a symbolic link";
  }
  SUBCASE("a hard link") {
    std::filesystem::create_hard_link(outside, folder / "aiperf.sh");
    planted = "has 2 hard links";
  }
  SUBCASE("a FIFO") {
    REQUIRE(::mkfifo((folder / "extra_llm_api_options.yaml").c_str(), 0600) == 0);
    planted = "is a FIFO";
  }
  const ProcessResult r = dgxhost({"--plugin", "llama8b-serve", "--emit", folder.string()});
  CHECK(r.exit_code != 0);
  CHECK_MESSAGE(has(r.err, planted), r.err);
  std::ifstream in(outside);
  CHECK(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()) == "precious");
}

TEST_CASE("--emit-launch DIR still writes them, and says once that it is the deprecated --emit") {
  const TempDir dir;
  const std::string target = (dir.path() / "deploy").string();
  const ProcessResult r = dgxhost({"--plugin", "llama70b-serve", "--emit-launch", target});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(std::filesystem::exists(dir.path() / "deploy" / "aiperf.sh"));
  const auto said = r.err.find("--emit-launch is deprecated: use --emit");
  CHECK(said != std::string::npos);
  CHECK(r.err.find("--emit-launch is deprecated", said + 1) == std::string::npos);
}

TEST_CASE("without a GPU, --mode measure and the decode loop exit with the no-device code") {
  // A CUDA build finds no device; a CPU-only build (presets cpu, asan) says it was built without CUDA.
  const auto says_why = [](const std::string& err) {
    return has(err, "no CUDA device") || has(err, "built without CUDA and cuDNN");
  };
  const ProcessResult measure = dgxhost({"--plugin", "llama70b-serve", "--mode", "measure"});
  CHECK(measure.exit_code == 4);
  CHECK(says_why(measure.err));
  const ProcessResult decode = dgxhost({"--plugin", "llm-decode"});
  CHECK(decode.exit_code == 4);
  CHECK(says_why(decode.err));
}

TEST_CASE("gpt-oss-120b serves in its checkpoint's MXFP4 by default: W4A16 on Hopper, W4A8 on Blackwell, said") {
  const std::vector<std::pair<std::string, std::string>> systems = {
      {"h100-sxm", "MXFP4 experts run as W4A16 on h100-sxm: no FP4 tensor cores"},
      {"h200-sxm", "MXFP4 experts run as W4A16 on h200-sxm: no FP4 tensor cores"},
      {"b200", "MXFP4 experts run as W4A8 on b200: MXFP4 weights x MXFP8 activations at the FP8 peak"}};
  // Named members, not a structured binding: CAPTURE's lambda captures them, which clang 14 rejects.
  for (const auto& entry : systems) {
    const std::string& system = entry.first;
    const std::string& assumption = entry.second;
    CAPTURE(system);
    const std::string set_system = "system=" + system;
    const dgx::json::Value doc = json_of(dgxhost({"--plugin", "llm-inference", "--mode", "project", "--set",
                                                  "model=gpt-oss-120b", "--set", set_system, "--format", "json"}));
    const auto& rows = doc["results"].as_array();
    REQUIRE(rows.size() == 1);
    CHECK(rows.front()["config"]["precision"].as_string() == "mxfp4");
    CHECK(metric(rows.front(), "output_tokens_per_s") > 0);
    CHECK(has(rows.front()["info"]["precision_assumption"].as_string(), assumption));
    // The text report's notes say it too, and that the checkpoint's format was the default.
    const std::string out = fast_answer(
        {"--plugin", "llm-inference", "--mode", "project", "--set", "model=gpt-oss-120b", "--set", set_system});
    CHECK(has(out, assumption));
    CHECK(has(out, "the checkpoint's own format, precision unset"));
    CHECK(has(out, "attention, router and the other linear layers stay BF16"));
  }
  // Named explicitly, the same; another precision quantizes every linear layer and says so.
  const std::string explicit_mxfp4 = fast_answer(
      {"--plugin", "llm-inference", "--mode", "project", "--set", "model=gpt-oss-120b", "--set", "precision=mxfp4"});
  CHECK(has(explicit_mxfp4, "MXFP4 experts run as W4A16 on h100-sxm"));
  const std::string fp8 = fast_answer({"--plugin", "llm-inference", "--mode", "project", "--set", "model=gpt-oss-120b",
                                       "--set", "precision=fp8", "--set", "parallel.tp=2"});
  CHECK(has(fp8, "gpt-oss-120b's checkpoint ships mxfp4: fp8 quantizes every linear layer anew"));
}

TEST_CASE("qwen3-30b-a3b serves 8K-token prompts with 1K-token outputs (its context is 40960)") {
  const dgx::json::Value doc =
      json_of(dgxhost({"--plugin", "llm-inference", "--mode", "project", "--set", "model=qwen3-30b-a3b", "--set",
                       "serve.isl=8192", "--set", "serve.osl=1024", "--set", "parallel.tp=2", "--format", "json"}));
  const auto& rows = doc["results"].as_array();
  REQUIRE(rows.size() == 1);
  CHECK(metric(rows.front(), "ttft") > 0);
  CHECK(metric(rows.front(), "output_tokens_per_s") > 0);
}

TEST_CASE("hybrid models of a --config-dir folder serve: Mamba-2 and Gated DeltaNet states in the KV notes") {
  const std::string dir = DGX_SOURCE_DIR "/tests/fixtures/catalog";
  const std::string nemotron = fast_answer({"--plugin", "llm-inference", "--config-dir", dir, "--mode", "project",
                                            "--set", "model=nemotron-h-8b-like", "--set", "serve.isl=4000"});
  CHECK(has(nemotron, "layers: 24 mamba2 (no MLP), 4 attention (no MLP), 24 MLP-only"));
  CHECK(has(nemotron, "MiB of recurrent state per request"));
  const std::string qwen = fast_answer({"--plugin", "llm-inference", "--config-dir", dir, "--mode", "project", "--set",
                                        "model=qwen3.5-27b-like", "--set", "parallel.tp=4", "--set", "precision=fp8"});
  CHECK(has(qwen, "48 linear-attention, 16 attention"));
  CHECK(has(qwen, "layer kinds with no published serving run (linear attention, attention output gates)"));
}
