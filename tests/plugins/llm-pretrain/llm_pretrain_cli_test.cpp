// End to end: the dgxhost executable with the llm-pretrain plugin, as a user on a machine without GPUs runs it.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "dgx/llm/step_model.hpp"
#include "llm_fixtures.hpp"
#include "plugin_cli.hpp"
#include "temp_dir.hpp"

using namespace dgx::testing;

TEST_CASE("dgxhost --plugin llama70b answers on a machine without GPUs, fast, and says what it assumed") {
  const std::string out = fast_answer({"--plugin", "llama70b"});
  CHECK(has(out, "preset llama70b  mode explore"));
  CHECK(has(out, "Assumptions:\n  Model: Llama 3.1 70B (llama3.1-70b)"));
  CHECK(has(out, "System: h100-sxm"));
  CHECK(has(out, "Price: "));
  CHECK(has(out, "the cheapest of"));
  CHECK(has(out, "calibration.md, calibration-2.md and calibration-3.md: mean "));
  CHECK(has(out, "\nexplore\n"));
  for (const char* column : {"gpus", "precision", "layout", "pareto", "recommended", "step [s]", "tok/s/GPU", "MFU %",
                             "days", "cost $", "band"}) {
    CHECK_MESSAGE(has(out, column), column);
  }
  CHECK(has(out, "TP"));
  CHECK(has(out, "Pareto front (days vs cost):"));
  CHECK(has(out, "Recommendation:"));
  CHECK(has(out, "(recommended = yes)"));
  CHECK(has(out, "These numbers are projections of dgx-llm-model 3 for h100-sxm, not measurements"));
  CHECK(out.find("Assumptions:") < out.find("\nexplore\n"));
  CHECK(out.find("\nexplore\n") < out.find("Recommendation:"));
  // The newest release has no dense run of its own: a dense model is told whose numbers it gets.
  CHECK(has(out, "for a dense model as this one its efficiencies are nemo-26.02.01's (no dense run of "
                 "nemo-26.04.01 is published)"));
}

TEST_CASE("without a GPU the run says it projects instead, and keeps the CUDA runtime's words for -v") {
  const ProcessResult r = dgxhost({"--plugin", "llama8b", "--mode", "project"});
  REQUIRE(r.exit_code == 0);
  const ProcessResult automatic = dgxhost({"--plugin", "llama8b"});
  REQUIRE(automatic.exit_code == 0);
  if (!has(automatic.err, "no GPU here")) {
    MESSAGE("a GPU measured here: the no-GPU message is not shown");
    return;
  }
  CHECK(has(automatic.err, "no GPU here: llm-pretrain:llm-pretrain projects instead (its explore mode"));
  CHECK_FALSE(has(automatic.err, "cudaError"));
  const ProcessResult verbose = dgxhost({"--plugin", "llama8b", "-v"});
  CHECK(has(verbose.err, "cannot measure here: no CUDA device found"));
}

TEST_CASE("--format json holds the same rows, each projected, with its provenance") {
  const dgx::json::Value doc = json_of(dgxhost({"--plugin", "llama70b", "--format", "json"}));
  CHECK(doc["context"]["mode"].as_string() == "explore");
  const auto& rows = doc["results"].as_array();
  REQUIRE(rows.size() == 18);
  int recommended = 0;
  for (const dgx::json::Value& row : rows) {
    CHECK(row["mode"].as_string() == "projected");
    CHECK(row["table"].as_string() == "explore");
    CHECK(row["info"]["model"].as_string() == "dgx-llm-model 3");
    CHECK(has(row["info"]["source"].as_string(), "projected"));
    CHECK(metric(row, "step_time") > 0);
    CHECK(metric(row, "breakdown.compute") > 0);
    recommended += row["info"]["recommended"].as_string() == "yes";
  }
  CHECK(recommended == 1);
  bool before = false, after = false;
  for (const dgx::json::Value& note : doc["notes"].as_array()) {
    before |= note["placement"].as_string() == "before" && note["title"].as_string() == "Assumptions";
    after |= note["placement"].as_string() == "after" && note["title"].as_string() == "Recommendation";
  }
  CHECK(before);
  CHECK(after);
}

TEST_CASE("--mode project --set gpus=... gives the model's projection of that configuration") {
  const dgx::json::Value doc =
      json_of(dgxhost({"--plugin", "llama70b", "--mode", "project", "--set", "gpus=64", "--set", "train.gbs=128",
                       "--set", "precision=fp8", "--format", "json"}));
  const auto& rows = doc["results"].as_array();
  REQUIRE(rows.size() == 1);
  const dgx::json::Value& row = rows.front();
  CHECK(row["mode"].as_string() == "projected");
  CHECK(row["config"]["gpus"].as_int() == 64);
  CHECK(row["config"]["precision"].as_string() == "fp8");
  CHECK(row["config"]["parallel.vp"].as_int() == 5);
  const auto expected = dgx::llm::project(llama70b_on_64_h100(dgx::llm::Precision::fp8));
  REQUIRE(expected.has_value());
  CHECK(metric(row, "step_time") == doctest::Approx(expected->step_time_s));
  CHECK(metric(row, "mfu") == doctest::Approx(100 * expected->mfu));
  CHECK(metric(row, "days_to_train") == doctest::Approx(expected->days_to_train));
  CHECK(metric(row, "cost_usd") == doctest::Approx(*expected->cost_usd));
  CHECK(metric(row, "memory_per_gpu") == doctest::Approx(expected->memory.total()));
  for (const char* key : {"model", "system", "calibration", "price", "mfu_peak", "flops_convention", "source"}) {
    CHECK_MESSAGE(!row["info"][key].as_string().empty(), key);
  }
}

TEST_CASE("--set framework=[...] compares software releases for the same job") {
  const ProcessResult r = dgxhost({"--plugin", "llama70b", "--set", R"(framework=["nemo-24.12","nemo-26.02.01"])",
                                   "--set", "precision=fp8", "--set", "explore.gpus=[1024]"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(has(r.out, "nemo-24.12"));
  CHECK(has(r.out, "Framework upgrade:"));
  CHECK(has(r.out, "Upgrading from nemo-24.12 to nemo-26.02.01 "));
}

TEST_CASE("invalid or infeasible input exits 2 with the reason") {
  check_config_errors(
      "llama70b",
      {
          {{"--mode", "project", "--set", "parallel.tp=16"}, "TP 16 exceeds the NVLink domain of 8"},
          {{"--mode", "project", "--set", "gpus=2048", "--set", "train.gbs=100", "--set", "parallel.vp=1"},
           "gbs 100 is not divisible by dp×mbs = 64"},
          {{"--mode", "project", "--set", "gpus=64", "--set", "parallel.tp=1", "--set", "parallel.cp=1", "--set",
            "parallel.pp=1", "--set", "parallel.vp=1"},
           "GiB per GPU, h100-sxm has 80.0 GiB"},
          {{"--set", "model=llama70b"}, "did you mean 'llama3.1-70b'"},
          {{"--set", "system=h100"}, "did you mean 'h100-nvl', 'h100-pcie' or 'h100-sxm'?"},
          {{"--set", "framework=nemo-25.10"}, "unknown framework 'nemo-25.10'"},
          {{"--set", "cost.provider=awz"}, "did you mean 'aws'"},
          {{"--set", "explore.gpus=8", "--set", "model=llama3.1-405b"}, "no feasible configuration of llama3.1-405b"},
          {{"--set", "precision=fp4"}, "'fp4' is not one of bf16, fp8, mxfp8, nvfp4"},
          {{"--set", "explore.budget_slack=-1"}, "explore.budget_slack must be a fraction >= 0"},
      });
}

TEST_CASE("--mode measure without a GPU exits with the no-device code and says why") {
  const ProcessResult r = dgxhost({"--plugin", "llama70b", "--mode", "measure"});
  CHECK(r.exit_code == 4);
  CHECK(has(r.err, "llm-pretrain:llm-pretrain cannot measure here: "));
}

TEST_CASE("the workload alone explores its defaults, and every preset answers") {
  const ProcessResult alone = dgxhost({"--plugin", "llm-pretrain"});
  REQUIRE_MESSAGE(alone.exit_code == 0, alone.err);
  CHECK(has(alone.out, "Model: Llama 3.1 8B"));
  CHECK(has(alone.out, "the workload's default"));
  for (const char* preset : {"llama8b", "llama70b", "llama405b", "nemotron15b", "nemotron340b", "gpt3-175b",
                             "mixtral8x7b", "mixtral8x22b"}) {
    const ProcessResult r = dgxhost({"--plugin", preset});
    CHECK_MESSAGE(r.exit_code == 0, preset << ": " << r.err);
    CHECK_MESSAGE(has(r.out, "Recommendation:"), preset);
  }
}

TEST_CASE("--describe documents every key with its unit and help") {
  const ProcessResult r = dgxhost({"--plugin", "llm-pretrain", "--describe"});
  REQUIRE(r.exit_code == 0);
  for (const char* key : {"parallel.tp", "train.recompute", "cost.provider", "explore.gpus", "explore.budget_slack",
                          "explore.deadline_days"}) {
    CHECK_MESSAGE(has(r.out, key), key);
  }
  CHECK(has(r.out, "tokens to train"));
}

TEST_CASE("an installed plugin needs no configs on disk: the presets are embedded") {
  // dgxhost finds plugins and configs relative to itself: a copy of it with the plugin and no configs directory.
  const dgx::testing::TempDir prefix;
  namespace fs = std::filesystem;
  const fs::path bin = prefix.path() / DGX_TEST_BINDIR;
  const fs::path plugins = prefix.path() / DGX_TEST_PLUGIN_INSTALL_DIR;
  fs::create_directories(bin);
  fs::create_directories(plugins);
  fs::copy_file(DGX_TEST_DGXHOST, bin / "dgxhost");
  const fs::path plugin = plugins / fs::path(DGX_TEST_PLUGIN_FILE).filename();
  fs::copy_file(DGX_TEST_PLUGIN_FILE, plugin);
  // The host refuses plugins that others may write to.
  const auto mode = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                    fs::perms::others_exec;
  for (const fs::path& p : {bin / "dgxhost", plugin}) {
    fs::permissions(p, mode);
  }
  for (fs::path dir = plugins; dir != prefix.path(); dir = dir.parent_path()) {
    fs::permissions(dir, mode);
  }
  fs::permissions(bin, mode);
  const ProcessResult r = dgxhost({"--plugin", "llama70b", "--format", "json"}, (bin / "dgxhost").string());
  const dgx::json::Value doc = json_of(r);
  CHECK(doc["context"]["preset"].as_string() == "llama70b");
  CHECK(doc["context"]["config"]["model"].as_string() == "llama3.1-70b");
  CHECK(doc["results"].as_array().size() == 18);
  const ProcessResult list = dgxhost({"--list"}, (bin / "dgxhost").string());
  CHECK(has(list.out, "llama405b"));
}

TEST_CASE("every projected row states its band, and explore holds the pick against the published recipe") {
  const dgx::json::Value doc =
      json_of(dgxhost({"--plugin", "llama70b", "--set", "explore.gpus=[64,1024]", "--format", "json"}));
  for (const dgx::json::Value& row : doc["results"].as_array()) {
    CHECK(row["info"]["band"].as_string().find("±") == 0);
    CHECK(metric(row, "accuracy_band") > 1);
    CHECK(metric(row, "accuracy_band") < 15);
    CHECK(row["info"]["accuracy"].as_string().find(" published runs like it") != std::string::npos);
  }
  std::string recipe, sure;
  for (const dgx::json::Value& note : doc["notes"].as_array()) {
    if (note["title"].as_string() == "Published recipe") {
      recipe = note["text"].as_string();
    }
    if (note["title"].as_string() == "How sure") {
      sure = note["text"].as_string();
    }
  }
  CHECK(has(recipe, " over the published TP"));
  CHECK((has(recipe, "band: a tie; the recipe is the safer choice") || has(recipe, "band: the pick is expected")));
  CHECK(has(sure, "Its band is ±"));
}

TEST_CASE("torchtitan beside NeMo: one explore, and the switch of framework in days and dollars") {
  const ProcessResult r = dgxhost({"--plugin", "llama70b", "--set", "framework=nemo-26.02.01,torchtitan", "--set",
                                   "precision=fp8", "--set", "explore.gpus=[512]"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(has(r.out, "Framework comparison:"));
  CHECK(has(r.out, "Switching framework from torchtitan to nemo-26.02.01 "));
  CHECK(has(r.out, " FSDP"));  // torchtitan shards with FSDP2
  check_config_errors(
      "llama70b",
      {{{"--mode", "project", "--set", "framework=torchtitan"},
        "framework torchtitan cannot express this configuration: parallel.distributed_optimizer"},
       {{"--mode", "project", "--set", "model=mixtral-8x7b", "--set", "framework=torchtitan", "--set",
         "parallel.fsdp=true"},
        "framework torchtitan cannot express this configuration: model mixtral-8x7b is a mixture-of-experts model"},
       {{"--set", "framework=torchtitn"}, "did you mean 'torchtitan'"}});
}

TEST_CASE("a system of one's own: by its path or from a config directory, checked like the catalog's") {
  const TempDir dir;
  const auto file = dir.write("systems/h100-mine.toml",
                              "name = \"h100-mine\"\ninherits = \"h100-sxm\"\ndisplay = \"our H100 at 600 W\"\n"
                              "source = \"our datasheet\"\n[gpu]\npower_cap_w = 600\n[network]\nnic_gb_s = 25\n");
  const dgx::json::Value by_path = json_of(
      dgxhost({"--plugin", "llama70b", "--mode", "project", "--format", "json", "--set", "system=" + file.string()}));
  const dgx::json::Value catalog = json_of(dgxhost({"--plugin", "llama70b", "--mode", "project", "--format", "json"}));
  const dgx::json::Value& mine = by_path["results"][0];
  const dgx::json::Value& h100 = catalog["results"][0];
  CHECK(mine["info"]["system"].as_string() == "h100-mine");
  CHECK(has(mine["info"]["accuracy"].as_string(), "outside calibration: h100-mine has no published run"));
  CHECK(metric(mine, "accuracy_band") > metric(h100, "accuracy_band"));
  CHECK(metric(mine, "step_time") > metric(h100, "step_time"));  // a lower clock and a thinner network

  const ProcessResult by_name = dgxhost(
      {"--plugin", "llama70b", "--mode", "project", "--config-dir", dir.path().string(), "--set", "system=h100-mine"});
  REQUIRE_MESSAGE(by_name.exit_code == 0, by_name.err);
  CHECK(has(by_name.out, "System: h100-mine, our H100 at 600 W"));

  (void)dir.write("systems/h100-mine.toml", "name = \"h100-mine\"\ninherits = \"h100-sxm\"\ndisplay = \"d\"\n"
                                            "source = \"s\"\n[network]\nnic_gb_s = -50\n");
  const ProcessResult bad = dgxhost({"--plugin", "llama70b", "--set", "system=" + file.string()});
  CHECK(bad.exit_code == 2);
  CHECK(has(bad.err, "h100-mine.toml:6:12: key 'network.nic_gb_s' is -50"));
}

TEST_CASE("MoE parallel folding: EP drawn from TP x CP x DP, and the MoE keys checked") {
  const ProcessResult folded =
      dgxhost({"--plugin", "qwen3-235b",     "--mode", "project",        "--set", "system=h100-sxm",
               "--set",    "gpus=256",       "--set",  "precision=fp8",  "--set", "parallel.tp=2",
               "--set",    "parallel.pp=8",  "--set",  "parallel.cp=1",  "--set", "parallel.vp=4",
               "--set",    "parallel.ep=32", "--set",  "train.gbs=8192", "--set", "train.seq_len=4096"});
  CHECK_MESSAGE(folded.exit_code == 0, folded.err);
  check_config_errors("qwen3-235b",
                      {{{"--set", "train.recompute_modules=[\"attention\"]"}, "train.recompute_modules: 'attention'"},
                       {{"--set", "parallel.moe_dispatcher=deepep"}, "'deepep' is not one of alltoall, flex"},
                       {{"--set", "explore.etp=[0]"}, "explore.etp must be at least 1"}});
}

TEST_CASE("cost.provider=aws,gcp,...: the seven clouds priced in one explore, the recommendation naming one") {
  const ProcessResult r =
      dgxhost({"--plugin", "llama70b", "--set", "cost.provider=aws,gcp,azure,oracle,coreweave,crusoe,nebius", "--set",
               "precision=fp8", "--set", "explore.gpus=[1024]"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(has(r.out, "cost.provider"));  // the column
  for (const char* provider : {"aws $", "gcp $", "azure $", "oracle $", "coreweave $", "crusoe $", "nebius $"}) {
    CHECK_MESSAGE(has(r.out, provider), provider);
  }
  CHECK(has(r.out, "Provider comparison:"));
  CHECK(has(r.out, "1024 GPUs fp8, TP2 PP4 CP2 VP20 MBS1 on nebius: "));
  CHECK(has(r.out, "(recommended = yes)"));
}

TEST_CASE("the main job's summary: scaling, FP8 against BF16, the batch rule, and TFLOP/s/GPU beside MFU") {
  const std::string out = fast_answer({"--plugin", "llama70b"});
  CHECK(has(out, "TFLOP/s/GPU"));
  CHECK(has(out, "Summary:\n  Projected (dgx-llm-model 3; ratios of projected rows, each within its band: ±"));
  CHECK(has(out, "\n  Scaling (fp8): 64 -> "));
  CHECK(has(out, "FP8 vs BF16 at "));
  CHECK(has(out, "Batch rule: this run uses a fixed global batch of 1024 sequences"));
  CHECK(has(out, "Under weak scaling"));
  CHECK(has(out, "MFU divides each row's model FLOP/s per GPU by the dense peak of the row's own precision"));
}

TEST_CASE("model names users type: llama3.3-70b and llama3-70b answer, a near miss ranks the release typed first") {
  const ProcessResult alias = dgxhost({"--plugin", "llama70b", "--set", "model=llama3.3-70b", "--set",
                                       "explore.gpus=[1024]", "--set", "precision=fp8"});
  REQUIRE_MESSAGE(alias.exit_code == 0, alias.err);
  CHECK(has(alias.out, "Model: Llama 3.1 70B, the architecture of llama3.3-70b (llama3.1-70b): 80 layers"));
  const ProcessResult llama3 = dgxhost(
      {"--plugin", "llama70b", "--set", "model=llama3-70b", "--set", "explore.gpus=[1024]", "--set", "precision=fp8"});
  REQUIRE_MESSAGE(llama3.exit_code == 0, llama3.err);
  CHECK(has(llama3.out, "Model: Llama 3 70B (llama3-70b): 80 layers"));
  check_config_errors("llama70b", {{{"--set", "model=llama3-8b"}, "did you mean 'llama3.1-8b', "}});
}

TEST_CASE("a configuration error found while projecting prints no banner after it: the error is the answer") {
  const ProcessResult r = dgxhost({"--plugin", "llama70b", "--mode", "project", "--set", "gpus=7"});
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, "dgxhost: error: llm-pretrain:llm-pretrain: invalid configuration: llama3.1-70b on 7 x h100-sxm"));
  CHECK_FALSE(has(r.out, "dgxhost 0.1.0"));
  CHECK(r.out.empty());
}

TEST_CASE("a hybrid Mamba-2 model of a --config-dir folder projects, outside calibration and saying why") {
  const std::string dir = DGX_SOURCE_DIR "/tests/fixtures/catalog";
  const std::vector<std::string> args = {"--plugin", "llm-pretrain",  "--config-dir", dir,
                                         "--mode",   "project",       "--set",        "model=nemotron-h-8b-like",
                                         "--set",    "gpus=64",       "--set",        "parallel.tp=2",
                                         "--set",    "parallel.cp=1", "--set",        "precision=fp8"};
  std::vector<std::string> json = args;
  json.insert(json.end(), {"--format", "json"});
  const dgx::json::Value doc = json_of(dgxhost(json));
  const auto& rows = doc["results"].as_array();
  REQUIRE(rows.size() == 1);
  CHECK(metric(rows.front(), "step_time") > 0);
  CHECK(metric(rows.front(), "mfu") > 10);
  const std::string out = fast_answer(args);
  CHECK(has(out, "has layer kinds no calibration run has (Mamba-2, mixer-only layers, MLP-only layers)"));
  // Context parallelism of the scan layers is refused, with the reason.
  std::vector<std::string> cp = args;
  cp[cp.size() - 3] = "parallel.cp=2";
  const ProcessResult refused = dgxhost(cp);
  CHECK(refused.exit_code == 2);
  CHECK(has(refused.err, "context parallelism (cp 2) of Mamba-2 and linear-attention layers is not modelled"));
}
