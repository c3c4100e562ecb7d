#include "dgx/llm/calibration.hpp"
#include "dgx/llm/layout.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace dgx::llm;

namespace {
const std::vector<CalibrationOutcome>& outcomes() {
  static const std::vector<CalibrationOutcome> all = [] {
    auto rows = load_calibration();
    REQUIRE_MESSAGE(rows.has_value(), (rows ? "" : rows.error().message));
    return run_calibration(*rows);
  }();
  return all;
}
/// The rows of calibration.toml and calibration-2.toml (NeMo / Megatron-Bridge dense pretraining, sets 1 and 2).
bool first_two_sets(const CalibrationRow& row) {
  for (const char* section : {"A", "B", "25.09", "25.11", "26.02", "26.02.01"}) {
    if (row.section == section) {
      return true;
    }
  }
  return false;
}
std::vector<CalibrationOutcome> of_first_two_sets() {
  std::vector<CalibrationOutcome> kept;
  for (const CalibrationOutcome& o : outcomes()) {
    if (first_two_sets(o.row)) {
      kept.push_back(o);
    }
  }
  return kept;
}
}  // namespace

TEST_CASE("the calibration sets hold every row of calibration.md and calibration-2.md, each with its release") {
  std::map<std::string, int> per_section;
  int fsdp = 0;
  for (const CalibrationOutcome& o : outcomes()) {
    ++per_section[o.row.section];
    CHECK_FALSE(o.row.source.empty());
    CHECK((o.row.framework.find("nemo-") == 0 || o.row.framework.find("torchtitan") == 0));
    CHECK_FALSE(o.row.finetune.has_value());
    fsdp += o.row.train.fsdp ? 1 : 0;
  }
  CHECK(per_section["A"] == 10);
  CHECK(per_section["B"] == 7);
  CHECK(per_section["25.09"] + per_section["25.11"] + per_section["26.02"] + per_section["26.02.01"] == 55);
  // calibration-3.toml's pretraining rows: 18 torchtitan (all FSDP2), 9 MLPerf 405B, 11 Megatron-Bridge MoE.
  CHECK(per_section["torchtitan 2024-12"] == 18);
  CHECK(per_section["MLPerf v5.0"] == 9);
  CHECK(per_section["26.04.01"] == 11);
  CHECK(fsdp == 10 + 18);
  CHECK(outcomes().size() == 72 + 38);
}

TEST_CASE("every published layout is projected (valid and fitting in memory)") {
  for (const CalibrationOutcome& o : outcomes()) {
    CAPTURE(o.row.label);
    CAPTURE(o.row.section);
    CHECK(o.failure == "");
  }
}

TEST_CASE("two corrected rows: as printed they fit only by offloading and project far slower, the recipe's fit") {
  // calibration-2.toml notes: 26.02.01 GB300 70B NVFP4 printed as TP1 PP1 MBS2 without FSDP, MXFP8 as PP4 VP1
  // MBS2; without offloading both need far more than 279 GiB per GPU, so they were corrected to the public
  // recipe's PP4 VP5 MBS1.
  int corrected = 0;
  for (const CalibrationOutcome& o : outcomes()) {
    if (o.row.note.find("corrected to the layout of the release's public recipe") == std::string::npos) {
      continue;
    }
    ++corrected;
    CalibrationRow printed = o.row;
    printed.train.mbs = 2;
    printed.train.layout.vp = 1;
    printed.train.layout.pp = o.row.train.precision == Precision::nvfp4 ? 1 : 4;
    const auto as_printed = run_calibration({printed});
    REQUIRE(as_printed.size() == 1);
    CHECK(as_printed.front().failure.find("needs ") == 0);
    // The printed layouts stay expressible: under dgxhost's default (train.offload_layers automatic) GB300's
    // NVLink-C2C offloads the activations that do not fit, yet the step is then 20-30% slower than published
    // (PP4 VP1 idles in the bubble, PP1 offloads most layers): the reason the recipe's layout is calibrated.
    printed.train.offload_layers = kAutoOffload;
    const auto offloaded = run_calibration({printed});
    REQUIRE(offloaded.size() == 1);
    CAPTURE(offloaded.front().failure);
    CHECK(offloaded.front().failure == "");
    CHECK(offloaded.front().error < -0.15);
  }
  CHECK(corrected == 2);
}

TEST_CASE("calibration error over both sets: mean at most 5%, every row within 12%") {
  const std::vector<ErrorStats> stats = error_stats(of_first_two_sets());
  REQUIRE(stats.back().section == "all");
  for (const ErrorStats& s : stats) {
    CAPTURE(s.section);
    CHECK(s.failed == 0);
    CHECK(s.max_abs <= 0.12);
  }
  CHECK(stats.back().mean_abs <= 0.05);
}

TEST_CASE("every class (system × precision) of the calibration sets is within 10% on average") {
  // Sets 1 and 2 (calibration-3's classes are checked by the set-3 tests below).
  const std::vector<ErrorStats> classes = class_stats(of_first_two_sets());
  REQUIRE(classes.size() == 11);  // 10 classes and "all"
  for (const ErrorStats& s : classes) {
    CAPTURE(s.section);
    CHECK(s.mean_abs <= 0.10);
  }
  // class_accuracy covers every pretraining set: H100 FP8 has 21 rows in sets 1-2, 5 MLPerf and 2 MoE in set 3.
  const auto h100 = class_accuracy("h100-sxm", Precision::fp8);
  REQUIRE(h100.has_value());
  CHECK(h100->rows == 28);
  CHECK_FALSE(class_accuracy("gb300-nvl72", Precision::bf16).has_value());
}

TEST_CASE("set 3: MLPerf 405B within 8%, torchtitan within 5% without context parallelism and 16% with it") {
  int mlperf = 0, titan = 0;
  for (const CalibrationOutcome& o : outcomes()) {
    CAPTURE(o.row.label);
    if (o.row.section == "MLPerf v5.0") {
      ++mlperf;
      CHECK(std::abs(o.error) <= 0.08);
    }
    if (o.row.section == "torchtitan 2024-12") {
      ++titan;
      CHECK(std::abs(o.error) <= (o.row.train.layout.cp > 1 || o.row.train.seq_len > 8192 ? 0.16 : 0.05));
    }
  }
  CHECK(mlperf == 9);
  CHECK(titan == 18);
}

TEST_CASE("set 3: the MoE rows project within 55% (the open gap: libs/llm-model/README.md, Accuracy)") {
  // Megatron-Bridge 26.04.01 MoE pretraining, with the host-bound eager MoE layers, the recipes' CUDA graphs and the
  // grouped GEMMs' loss at few tokens per expert: the rows within 30 %, but gpt-oss 120B on Blackwell, whose expert
  // path runs 35-70 % slower than projected (the open gap); this bound guards the mechanisms against regressions.
  double sum = 0;
  int rows = 0;
  for (const CalibrationOutcome& o : outcomes()) {
    if (o.row.section == "26.04.01") {
      CAPTURE(o.row.label);
      const bool open_gap = o.row.model == "gpt-oss-120b" && o.row.system != "h100-sxm";
      CHECK(std::abs(o.error) <= (open_gap ? 0.70 : 0.30));
      sum += std::abs(o.error);
      ++rows;
    }
  }
  REQUIRE(rows == 11);
  CHECK(sum / rows <= 0.20);
}

TEST_CASE("weak scaling of section C: Llama 3.1 8B loses 1-6% of per-GPU throughput from 8 to 128 GPUs") {
  for (const Precision precision : {Precision::bf16, Precision::fp8}) {
    std::map<int, double> step;
    for (const CalibrationOutcome& o : outcomes()) {
      if (o.row.section == "A" && o.row.train.precision == precision) {
        step[o.row.gpus] = o.projected;
      }
    }
    REQUIRE(step.count(8) == 1);
    REQUIRE(step.count(128) == 1);
    const double loss = step[128] / step[8] - 1;  // same per-GPU work: longer step = lower throughput per GPU
    CAPTURE(loss);
    CHECK(loss > 0.01);
    CHECK(loss < 0.06);
    CHECK(step[16] >= step[8]);
  }
}

TEST_CASE("the error statistics average absolute errors per section") {
  const auto outcome = [](std::string section, double error, std::string failure) {
    CalibrationOutcome o;
    o.row.section = std::move(section);
    o.error = error;
    o.failure = std::move(failure);
    return o;
  };
  const std::vector<CalibrationOutcome> made = {outcome("X", 0.02, ""), outcome("X", -0.06, ""),
                                                outcome("Y", 0, "boom")};
  const auto stats = error_stats(made);
  REQUIRE(stats.size() == 3);
  CHECK(stats[0].mean_abs == doctest::Approx(0.04));
  CHECK(stats[0].max_abs == doctest::Approx(0.06));
  CHECK(stats[1].failed == 1);
  CHECK(stats[2].rows == 3);
}

TEST_CASE("the accuracy groups are framework × system × precision, sorted, then all") {
  const auto outcome = [](std::string framework, std::string system, Precision precision, double error) {
    CalibrationOutcome o;
    o.row.framework = std::move(framework);
    o.row.system = std::move(system);
    o.row.train.precision = precision;
    o.error = error;
    return o;
  };
  const std::vector<CalibrationOutcome> made = {outcome("torchtitan", "h100-sxm", Precision::fp8, 0.10),
                                                outcome("nemo-24.12", "h100-sxm", Precision::fp8, -0.02),
                                                outcome("nemo-24.12", "h100-sxm", Precision::fp8, 0.04)};
  const auto groups = group_stats(made);
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].section == "nemo-24.12 h100-sxm fp8");
  CHECK(groups[0].rows == 2);
  CHECK(groups[0].mean_abs == doctest::Approx(0.03));
  CHECK(groups[1].section == "torchtitan h100-sxm fp8");
  CHECK(groups[2].section == "all");
  CHECK(calibration_group("nemo-26.02.01", "gb200-nvl72", Precision::mxfp8) == "nemo-26.02.01 gb200-nvl72 mxfp8");
}

TEST_CASE("the accuracy targets hold for most groups, MLPerf 405B on GB200 among them") {
  // Issue 24's targets per framework x system x precision group: mean at most 4 %, max at most 12 %. 28 of the 41
  // pretraining groups met them with the context-parallel ring's per-step kernels counted (27 before); the misses and
  // why: libs/llm-model/README.md, Accuracy.
  const std::vector<ErrorStats> groups = group_stats(outcomes());
  int met = 0;
  for (const ErrorStats& s : groups) {
    if (s.section != "all" && s.mean_abs <= 0.04 && s.max_abs <= 0.12) {
      ++met;
    }
  }
  CHECK(groups.size() == 41 + 1);
  CHECK(met >= 28);
  const auto mlperf_gb200 = std::find_if(groups.begin(), groups.end(),
                                         [](const ErrorStats& s) { return s.section == "nemo-24.12 gb200-nvl72 fp8"; });
  REQUIRE(mlperf_gb200 != groups.end());
  CHECK(mlperf_gb200->mean_abs <= 0.04);
  CHECK(mlperf_gb200->max_abs <= 0.12);
}
