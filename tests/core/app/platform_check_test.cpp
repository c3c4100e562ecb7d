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

TEST_CASE("a step without a workload, a set that is not KEY=VALUE or no step at all is an error naming the file") {
  CHECK(parse_platform_check("[[step]]\nname = \"a\"\n", "f.toml").error().message.find("f.toml [[step]] 1") == 0);
  CHECK(!parse_platform_check("[[step]]\nname = \"a\"\nworkload = \"w\"\nset = [\"novalue\"]\n", "f"));
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
  const Report plan = platform_check_plan(check(), refs.value(), "none (no CUDA driver)");
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
