#include <doctest/doctest.h>

#include "dgx/core/app/platform_check.hpp"

using namespace dgx;

namespace {

constexpr const char* kCheck = R"(
[[step]]
name = "GEMM"
why = "the tensor cores"
workload = "gemm"
set = ['gemm.precisions=["bf16", "fp8"]']

[[step]]
name = "copy"
workload = "hbm_copy"
set = ["hbm.bytes=1073741824"]
)";

constexpr const char* kReferences = R"(
[[reference]]
workload = "gemm"
where = { kind = "gemm" }
match = ["system", "precision"]
keys = { system = "info.system" }
values = [{ column = "tflops", metric = "tflops", unit = "TFLOP/s", per_gpu = true }]

[[reference]]
workload = "hbm_copy"
where = { kind = "copy" }
match = ["system", "hbm.bytes"]
keys = { system = "info.system" }
values = [{ column = "bandwidth", metric = "bandwidth", unit = "GB/s", per_gpu = true }]

[[row]]
kind = "gemm"
label = "bf16 ceiling"
system = "h200-sxm"
precision = "bf16"
tflops = 790

[[row]]
kind = "copy"
label = "copy ceiling"
system = "h200-sxm"
"hbm.bytes" = { min = 268435456 }
bandwidth = 4300

[[row]]
kind = "copy"
label = "small copies"
system = "h200-sxm"
"hbm.bytes" = { max = 1048576 }
bandwidth = 1000
)";

PlatformCheck check() {
  auto c = parse_platform_check(kCheck, "check.toml");
  REQUIRE(c);
  return c.value();
}

}  // namespace

TEST_CASE("a check file yields its steps, each with the command that runs it alone") {
  const PlatformCheck c = check();
  CHECK(c.needs_gpu);
  REQUIRE(c.steps.size() == 2);
  CHECK(c.steps[0].workload == "gemm");
  CHECK(c.steps[0].command() ==
        "dgxhost --plugin gemm --set 'gemm.precisions=[\"bf16\", \"fp8\"]' --baseline published");
  CHECK(parse_platform_check("requires = \"none\"\n[[step]]\nname = \"a\"\nworkload = \"spin\"\n", "f")->needs_gpu ==
        false);
}

TEST_CASE("a step without a workload, a set that is not KEY=VALUE, an unknown key or no step at all is an error "
          "naming the file, the line and the key") {
  CHECK(parse_platform_check("[[step]]\nname = \"a\"\n", "f.toml").error().message ==
        "f.toml:1:1: key 'step[0].workload' is missing");
  CHECK(parse_platform_check("[[step]]\nname = \"a\"\nworkload = \"w\"\nset = [\"novalue\"]\n", "f").error().message ==
        "f:4:7: key 'step[0].set': \"novalue\" is not KEY=VALUE, as --set takes it");
  CHECK(parse_platform_check("[[step]]\nname = \"a\"\nworkload = \"w\"\nwhy_ = \"x\"\n", "f").error().message ==
        "f:4:8: unknown key 'step[0].why_' (did you mean 'step[0].why'?)");
  CHECK(parse_platform_check("", "f").error().message == "f: no [[step]] tables");
  CHECK(!parse_platform_check("requires = \"tpu\"\n[[step]]\nname = \"a\"\nworkload = \"w\"\n", "f"));
}

TEST_CASE("the plan lists the references a step would meet and what only the measurement settles") {
  auto refs = parse_references(kReferences, "ceilings.toml");
  REQUIRE(refs);
  const std::vector<ResultRow> gemm = planned_references(check().steps[0], refs.value());
  REQUIRE(gemm.size() == 1);
  CHECK(gemm[0].mode == ResultMode::reference);
  CHECK(gemm[0].label == "bf16 ceiling");
  CHECK(gemm[0].find_metric("tflops")->value == 790);
  CHECK(gemm[0].find_field("applies when")->value == "system h200-sxm, precision bf16");
  // The step's size selects among the references: 1 GiB is no small copy.
  const std::vector<ResultRow> copy = planned_references(check().steps[1], refs.value());
  REQUIRE(copy.size() == 1);
  CHECK(copy[0].label == "copy ceiling");
  CHECK(copy[0].find_field("applies when")->value == "system h200-sxm");
}

TEST_CASE("without a GPU the plan exits 4 and says why nothing was measured") {
  auto refs = parse_references(kReferences, "ceilings.toml");
  REQUIRE(refs);
  const Report plan = platform_check_plan(check(), refs.value(), {}, "none (no CUDA driver)");
  CHECK(plan.exit_code == 4);
  CHECK(plan.rows.size() == 2);
  CHECK(plan.error.find("no CUDA driver") != std::string::npos);
  REQUIRE(!plan.notes.empty());
  CHECK(plan.notes[0].text.find("1. GEMM (the tensor cores): dgxhost --plugin gemm") == 0);
}

TEST_CASE("merged steps: one verdict, a failed row exits 5, a step that could not run outranks it") {
  auto step = [](const std::string& verdict, int exit_code) {
    Report r;
    r.context.set("workload", "spin");
    ResultRow row;
    row.workload = "spin";
    row.add_field({"verdict", verdict, false});
    r.rows.push_back(row);
    r.notes.push_back({false, "Verdict", "per step"});
    r.exit_code = exit_code;
    if (exit_code != 0) {
      r.error = "step failed";
    }
    return r;
  };
  Report ok = merge_check_reports(check(), {step("pass", 0), step("no reference", 0)});
  CHECK(ok.exit_code == 0);
  CHECK(ok.rows.size() == 2);
  CHECK(ok.context.at("workload").as_string() == "platform-check");
  CHECK(ok.context.at("platform_check").as_array().size() == 2);
  REQUIRE(ok.notes.size() == 1);  // the steps' Verdict notes are summed into one
  CHECK(ok.notes[0].text.find("1 pass, 0 fail, 1 no reference over 2 steps") == 0);
  CHECK(merge_check_reports(check(), {step("fail", 5), step("pass", 0)}).exit_code == 5);
  const Report broken = merge_check_reports(check(), {step("fail", 5), step("pass", 4)});
  CHECK(broken.exit_code == 4);
  CHECK(broken.error == "GEMM: step failed; copy: step failed");
}

TEST_CASE("on a system of the catalog the plan settles the system: that system's references, none on another") {
  auto refs = parse_references(kReferences, "ceilings.toml");
  REQUIRE(refs);
  const std::vector<ResultRow> h200 = planned_references(check().steps[0], refs.value(), "h200-sxm");
  REQUIRE(h200.size() == 1);
  CHECK(h200[0].find_field("applies when")->value == "precision bf16");
  CHECK(planned_references(check().steps[0], refs.value(), "b200").empty());
  CHECK(planned_references(check().steps[1], refs.value(), "h200-sxm")[0].find_field("applies when")->value ==
        "always");
}

TEST_CASE("the plan groups the systems that share references and says no reference for the others") {
  constexpr const char* shared = R"(
[[reference]]
workload = "hbm_copy"
match = ["system"]
keys = { system = "info.system" }
values = [{ column = "bandwidth", metric = "bandwidth", unit = "GB/s", per_gpu = true }]

[[row]]
label = "copy of two systems"
system = ["h100-sxm", "h200-sxm"]
bandwidth = 4000
source = "derived: a rule"
)";
  auto refs = parse_references(shared, "ceilings.toml");
  REQUIRE(refs);
  const Report plan = platform_check_plan(check(), refs.value(), {"b200", "h100-sxm", "h200-sxm"}, "none");
  REQUIRE(plan.rows.size() == 3);  // GEMM: no reference anywhere; copy: one group and b200
  CHECK(plan.rows[0].label == "no reference");
  CHECK(plan.rows[0].find_field("systems")->value == "b200, h100-sxm, h200-sxm");
  CHECK(plan.rows[1].label == "copy of two systems");
  CHECK(plan.rows[1].find_field("systems")->value == "h100-sxm, h200-sxm");
  CHECK(plan.rows[1].find_field("source")->value == "derived: a rule");
  CHECK(plan.rows[2].find_field("systems")->value == "b200");
  const std::string& note = plan.notes[0].text;
  CHECK(note.find("on h100-sxm, h200-sxm: 1 reference row(s)\n   no reference for b200") != std::string::npos);
}

TEST_CASE("a step's on.SYSTEM sets are added on that system alone, after the step's own") {
  auto c = parse_platform_check(R"(
[[step]]
name = "e2e"
workload = "llm-pretrain"
set = ["gpus=512", "parallel.tp=8"]

[step.on.b200]
set = ["gpus=128", "parallel.tp=4"]
)",
                                "check.toml");
  REQUIRE(c);
  const CheckStep& step = c->steps[0];
  CHECK(step.sets_on("h100-sxm") == std::vector<std::string>{"gpus=512", "parallel.tp=8"});
  CHECK(step.sets_on("b200") == std::vector<std::string>{"gpus=512", "parallel.tp=8", "gpus=128", "parallel.tp=4"});
  CHECK(step.command("b200").find("--set 'gpus=128'") != std::string::npos);
  CHECK(step.command().find("gpus=128") == std::string::npos);
  CHECK(describe_steps(c.value()).find("on b200 it adds: --set 'gpus=128' --set 'parallel.tp=4'") != std::string::npos);
  CHECK(!parse_platform_check("[[step]]\nname = \"a\"\nworkload = \"w\"\n[step.on]\nb200 = 1\n", "f"));
}

TEST_CASE("a step whose configuration settles every column meets only the reference the run would pick") {
  constexpr const char* runs = R"(
[[reference]]
workload = "llm-pretrain"
match = ["model", "system"]
near = ["gpus", "tp"]
keys = { tp = "parallel.tp" }
values = [{ column = "step", metric = "step_time", unit = "s" },
          { column = "tps", metric = "tokens_per_s_per_gpu", unit = "tokens/s", per_gpu = true }]

[[row]]
label = "8 GPUs"
model = "m"
system = ["h100-sxm", "b200"]
gpus = 8
tp = 1
step = 10
tps = 100

[[row]]
label = "64 GPUs"
model = "m"
system = "h100-sxm"
gpus = 64
tp = 1
step = 12
tps = 90
)";
  auto refs = parse_references(runs, "calibration.toml");
  REQUIRE(refs);
  auto step = [](const std::string& sets) {
    auto c = parse_platform_check("[[step]]\nname = \"e2e\"\nworkload = \"llm-pretrain\"\nset = [" + sets + "]\n",
                                  "check.toml");
    REQUIRE(c);
    return c->steps[0];
  };
  // The published layout: that run alone, with every value.
  const std::vector<ResultRow> exact =
      planned_references(step("'model=\"m\"', 'gpus=64', 'parallel.tp=1'"), refs.value(), "h100-sxm");
  REQUIRE(exact.size() == 1);
  CHECK(exact[0].label == "64 GPUs");
  CHECK(exact[0].find_field("applies when")->value == "always");
  CHECK(exact[0].metrics.size() == 2);
  // Another layout: the nearest run, its per-GPU values only, and what differs.
  const std::vector<ResultRow> near =
      planned_references(step("'model=\"m\"', 'gpus=64', 'parallel.tp=2'"), refs.value(), "h100-sxm");
  REQUIRE(near.size() == 1);
  CHECK(near[0].label == "64 GPUs");
  CHECK(near[0].find_field("applies when")->value == "nearest published run: parallel.tp 1");
  REQUIRE(near[0].metrics.size() == 1);
  CHECK(near[0].metrics[0].name == "tokens_per_s_per_gpu");
  // The system decides among the runs: b200 has the 8-GPU one only, beyond comparable scale from 64 GPUs.
  CHECK(planned_references(step("'model=\"m\"', 'gpus=8', 'parallel.tp=1'"), refs.value(), "b200")[0].label ==
        "8 GPUs");
  CHECK(planned_references(step("'model=\"m\"', 'gpus=64', 'parallel.tp=1'"), refs.value(), "b200").empty());
}

TEST_CASE("a list a reference constrains is one case per element in the plan") {
  constexpr const char* layer = R"(
[[reference]]
workload = "llm-layer"
match = ["precision"]
near = ["system"]
keys = { system = "info.system" }
values = [{ column = "mfu", metric = "mfu", unit = "1", per_gpu = true }]

[[row]]
label = "bf16 step"
system = "h100-sxm"
precision = "bf16"
mfu = 0.6

[[row]]
label = "fp8 step"
system = "h100-sxm"
precision = "fp8"
mfu = 0.4
)";
  auto refs = parse_references(layer, "calibration.toml");
  REQUIRE(refs);
  auto c = parse_platform_check(
      "[[step]]\nname = \"layer\"\nworkload = \"llm-layer\"\nset = ['precision=[\"bf16\", \"fp8\"]']\n", "f");
  REQUIRE(c);
  const std::vector<ResultRow> b200 = planned_references(c->steps[0], refs.value(), "b200");
  REQUIRE(b200.size() == 2);
  CHECK(b200[0].find_field("applies when")->value == "precision bf16, nearest published run: system h100-sxm");
  CHECK(b200[1].find_metric("mfu")->value == doctest::Approx(40));
  CHECK(planned_references(c->steps[0], refs.value(), "h100-sxm")[1].find_field("applies when")->value ==
        "precision fp8");
}

TEST_CASE("the merged verdict names the system a step found no reference for") {
  Report copy;
  ResultRow row;
  row.workload = "hbm_copy";
  row.add_field({"system", "b200", false});
  row.add_field({"verdict", "no reference", false});
  copy.rows.push_back(row);
  CHECK(system_of({copy}) == "b200");
  CHECK(system_of({Report{}}).empty());
  const Report merged = merge_check_reports(check(), {Report{}, copy});
  REQUIRE(!merged.notes.empty());
  CHECK(merged.notes.back().text.find("\ncopy: no reference for b200 (1 row)") != std::string::npos);
  CHECK(merged.context.at("platform_check").as_array()[1].as_object().at("command").as_string().find("hbm_copy") !=
        std::string::npos);
}
