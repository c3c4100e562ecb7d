// dgxhost verdict (issue 25): a real run held against the projection of exactly its configuration and the nearest
// published reference. The runs are dgx.results/1 documents as `dgxhost import -o` writes them; the logs
// themselves are read by tests/integration/import_verdict_test.cpp.
#include <doctest/doctest.h>

#include <string>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

// An imported NeMo run of Llama 3.1 70B on 64 H100 in FP8 (TP4 PP4 CP2 VP5, GBS 128) at `tokens` per GPU.
std::string imported_70b(double tokens, const std::string& extra_config = {}) {
  const double step = 8192.0 * 128 / (tokens * 64);
  return R"({"schema": "dgx.results/1", "status": {"exit_code": 0, "ok": true}, "context": {"workload": "import"},
  "results": [{"workload": "llm-pretrain", "plugin": "import", "mode": "measured", "table": "imported nemo",
    "label": "train.log", "config": {"model": "llama3.1-70b", "system": "h100-sxm", "framework": "nemo-26.02.01",
    "gpus": 64, "precision": "fp8", "parallel.tp": 4, "parallel.pp": 4, "parallel.cp": 2, "parallel.vp": 5,
    "train.mbs": 1, "train.gbs": 128, "train.seq_len": 8192)" +
         extra_config + R"(},
    "metrics": {"step_time": {"value": )" +
         std::to_string(step) + R"(, "unit": "s"}, "tokens_per_s_per_gpu": {"value": )" + std::to_string(tokens) +
         R"(, "unit": "tokens/s"}},
    "info": {"source": "imported: nemo 26.02.01", "tool": "nemo"}, "sample_times": []}],
  "notes": []})";
}

const json::Object& first_measured(const json::Value& doc) {
  for (const json::Value& row : doc.as_object().find("results")->as_array()) {
    if (row.as_object().find("mode")->as_string() == "measured") {
      return row.as_object();
    }
  }
  FAIL("no measured row");
  throw std::logic_error("unreachable");
}

std::string info(const json::Object& row, const char* key) {
  const json::Value* v = row.find("info")->as_object().find(key);
  return v != nullptr ? v->as_string() : std::string();
}

}  // namespace

TEST_CASE("a run far below the projection of its configuration is slower than it should run: exit 5") {
  TempDir dir;
  const auto run = dir.write("run.json", imported_70b(1300));
  const ProcessResult r = dgxhost({"verdict", run.string(), "-q"});
  CHECK(r.exit_code == 5);
  CHECK(r.out.find("measured (imported: nemo 26.02.01)") != std::string::npos);
  CHECK(r.out.find("below the projection (band \u00b1") != std::string::npos);
  CHECK(r.out.find("slower than this configuration should run") != std::string::npos);
  CHECK(r.out.find("the projected step (") != std::string::npos);
  CHECK(r.out.find("to settle it:") != std::string::npos);
  CHECK(r.out.find("dgxhost --plugin gemm") != std::string::npos);
  // The nearest published run: 64 H100 in FP8 under NeMo 25.09, each difference named.
  CHECK(r.out.find("published llama3.1-70b h100-sxm fp8 64 GPUs") != std::string::npos);
  CHECK(r.out.find("framework nemo-26.02.01 (reference nemo-25.09)") != std::string::npos);
}

TEST_CASE("a run at its projection passes, and JSON carries both judgements") {
  TempDir dir;
  const auto run = dir.write("run.json", imported_70b(1650));
  const ProcessResult r = dgxhost({"verdict", run.string(), "--format", "json", "-q"});
  REQUIRE(r.exit_code == 0);
  const json::Value doc = json::parse(r.out);
  const json::Object& row = first_measured(doc);
  CHECK(info(row, "verdict.projection") == "as projected");
  CHECK(info(row, "verdict") == "pass");
  const std::string projection = info(row, "projection");
  CHECK(projection.find("(dgxhost --plugin llm-pretrain --mode project --set ") != std::string::npos);
  CHECK(projection.find("--set 'model=\"llama3.1-70b\"'") != std::string::npos);
  const json::Object& metrics = row.find("metrics")->as_object();
  CHECK(metrics.find("ratio_to_projection")->as_object().find("value")->as_number() ==
        doctest::Approx(1650.0 / 1660).epsilon(0.03));
  CHECK(doc.as_object().find("context")->as_object().find("workload")->as_string() == "verdict");
}

TEST_CASE("what the run does not say is named as the projection's assumption") {
  TempDir dir;
  std::string text = imported_70b(1650);
  const std::string framework = R"("framework": "nemo-26.02.01",)";
  text.erase(text.find(framework), framework.size());
  const auto run = dir.write("run.json", text);
  const ProcessResult r = dgxhost({"verdict", run.string(), "-q"});
  CHECK(r.out.find("not in the run's output, the projection assumed framework = ") != std::string::npos);
}

TEST_CASE("a configuration the model refuses gets no projection, said, and the reference still judges it") {
  TempDir dir;
  const auto run = dir.write("run.json", imported_70b(1650, R"(, "parallel.ep": 3)"));
  const ProcessResult r = dgxhost({"verdict", run.string(), "-q"});
  CHECK(r.out.find("without a projection") != std::string::npos);
  CHECK(r.out.find("no projection (") != std::string::npos);
  CHECK(r.out.find("published llama3.1-70b h100-sxm fp8 64 GPUs") != std::string::npos);
}

TEST_CASE("verdict refuses what it cannot judge: exit 2 and no verdict") {
  TempDir dir;
  CHECK(dgxhost({"verdict"}).exit_code == 2);
  const ProcessResult missing = dgxhost({"verdict", (dir.path() / "absent.json").string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("absent.json") != std::string::npos);
  const auto projected_only =
      dir.write("projected.json", R"({"schema": "dgx.results/1", "status": {"exit_code": 0, "ok": true}, "context": {},
      "results": [{"workload": "llm-pretrain", "plugin": "llm-pretrain", "mode": "projected", "config": {},
      "metrics": {}, "info": {}}], "notes": []})");
  const ProcessResult none = dgxhost({"verdict", projected_only.string()});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("a verdict judges runs, not projections") != std::string::npos);
  const auto failed = dir.write("failed.json", R"({"schema": "dgx.results/1", "status": {"exit_code": 1, "ok": false,
      "error": "rank 3 crashed"}, "context": {}, "results": [], "notes": []})");
  const ProcessResult crashed = dgxhost({"verdict", failed.string()});
  CHECK(crashed.exit_code == 2);
  CHECK(crashed.err.find("rank 3 crashed") != std::string::npos);
  CHECK(crashed.out.find("Against the projection") == std::string::npos);
  const ProcessResult bad_threshold = dgxhost({"verdict", failed.string(), "--threshold", "0"});
  CHECK(bad_threshold.exit_code == 2);
}

TEST_CASE("the HTML verdict draws each run against its projection band and its reference") {
  TempDir dir;
  const auto run = dir.write("run.json", imported_70b(1300));
  const auto html = dir.path() / "verdict.html";
  const ProcessResult r = dgxhost({"verdict", run.string(), "-q", "-o", html.string()});
  CHECK(r.exit_code == 5);
  const ProcessResult page = dgxhost({"verdict", run.string(), "-q", "--format", "html"});
  CHECK(page.out.find("Each run against its projection and its reference") != std::string::npos);
  CHECK(page.out.find("projection band") != std::string::npos);
}

namespace {

std::string import_data(const std::string& relative) { return std::string(DGX_TEST_IMPORT_DATA) + "/" + relative; }

struct LogCase {
  const char* file;
  std::vector<std::string> sets;
  const char* expected;  // a line of the verdict
};

}  // namespace

TEST_CASE("dgxhost verdict judges a log of each format against its projection and the published reference") {
  const LogCase cases[] = {
      // torchtitan's 8B on a 96 GB H100 at 500 W: within its projection's band, 0.99 of torchtitan's published run.
      {"torchtitan/llama3_8b.log", {"system=h100-sxm-96gb-hbm2e-500w"}, "0.5% below the projection, inside its band"},
      {"mlperf/llama31_405b_result_0.txt",
       {"system=h100-sxm", "gpus=512", "precision=fp8", "parallel.tp=8", "parallel.pp=8", "parallel.cp=2",
        "parallel.vp=8", "framework=nemo-24.12"},
       "above the projection, inside its band"},
      {"megatron-lm/llama70b_tp4pp4.log", {"system=h100-sxm", "model=llama3.1-70b"}, "slower than this configuration"},
      {"nemo/llama3_70b.log",
       {"precision=fp8", "system=h100-sxm", "gpus=64", "model=llama3.1-70b", "train.seq_len=8192", "parallel.tp=4",
        "parallel.pp=8", "parallel.vp=5", "framework=nemo-25.09"},
       "slower than this configuration"},
      {"nccl-tests/all_reduce_8xh100.txt",
       {},
       "18 rows: all_reduce nccl-tests (imported: nccl-tests 2.13.11): no projection (all_reduce only "
       "measures"},
      {"aiperf/profile_export_aiperf.json",
       {"system=h100-sxm", "gpus=4", "parallel.tp=4", "precision=fp8"},
       "output_tokens_per_s_per_gpu 487.9 tokens/s against"},
      {"vllm-bench/vllm-1000-64.json",
       {"system=h200-sxm", "gpus=1", "parallel.tp=1", "precision=bf16"},
       "the projected decode iteration ("},
      {"trtllm-bench/llama3.1-8b_fp8_throughput.txt", {"system=b200"}, "output_tokens_per_s_per_gpu 18669 tokens/s"},
  };
  for (const LogCase& c : cases) {
    CAPTURE(c.file);
    std::vector<std::string> args = {"verdict", import_data(c.file), "-q"};
    for (const std::string& s : c.sets) {
      args.insert(args.end(), {"--set", s});
    }
    const ProcessResult r = dgxhost(args);
    CAPTURE(r.out);
    CHECK((r.exit_code == 0 || r.exit_code == 5));
    CHECK(r.out.find("Against the projection") != std::string::npos);
    CHECK(r.out.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("a log that does not say how the run was laid out gets no projection at a layout of the plugin's choosing") {
  const ProcessResult training =
      dgxhost({"verdict", import_data("nemo/llama3_70b.log"), "-q", "--set", "precision=fp8", "--set",
               "system=h100-sxm", "--set", "gpus=64", "--set", "model=llama3.1-70b", "--set", "train.seq_len=8192"});
  CHECK(training.out.find("no projection (the run does not say its parallel layout (parallel.tp, parallel.pp)") !=
        std::string::npos);
  const ProcessResult serving = dgxhost({"verdict", import_data("aiperf/profile_export_aiperf.json"), "-q", "--set",
                                         "system=h100-sxm", "--set", "gpus=4"});
  CHECK(serving.out.find("the run does not say how the server ran (parallel.tp, precision)") != std::string::npos);
}

TEST_CASE("a log verdict refuses bad input before any projection: exit 2, the file named, no verdict") {
  for (const char* file : {"bad/empty.txt", "bad/binary.bin", "bad/unknown.txt", "torchtitan/crashed.log",
                           "torchtitan/two_runs.log", "aiperf/cancelled.json", "mlperf/truncated.txt"}) {
    CAPTURE(file);
    const ProcessResult r = dgxhost({"verdict", import_data(file), "--set", "precision=bf16"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(file) != std::string::npos);
    CHECK(r.out.find("Against the projection") == std::string::npos);
  }
  const ProcessResult contradiction = dgxhost(
      {"verdict", import_data("megatron-lm/llama70b_tp4pp4.log"), "--set", "gpus=128", "--set", "system=h100-sxm"});
  CHECK(contradiction.exit_code == 2);
  CHECK(contradiction.err.find("the log says gpus=64 but --set gpus=128 contradicts it") != std::string::npos);
}
