#include "dgx/core/config/nccl_flags.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace dgx {

namespace {

// nccl-tests' -o values (all_reduce_perf -o sum|prod|min|max|avg|mulsum|all).
constexpr std::array<std::string_view, 7> kOps{"sum", "prod", "min", "max", "avg", "mulsum", "all"};

bool is_integer(std::string_view v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

std::optional<Expected<std::pair<std::string, std::string>>> nccl_tests_option(std::string_view letter,
                                                                               std::string_view value) {
  using Alias = std::pair<std::string, std::string>;
  if (letter == "o" && std::find(kOps.begin(), kOps.end(), value) != kOps.end()) {
    return Expected<Alias>(Alias{"o", std::string(value)});
  }
  if (letter == "c" && is_integer(value)) {
    return Expected<Alias>(Alias{"c", value.find_first_not_of('0') == std::string_view::npos ? "false" : "true"});
  }
  if (letter == "m" && is_integer(value)) {
    return Expected<Alias>(Failure{
        ExitCode::usage,
        "-m " + std::string(value) +
            ": in nccl-tests -m is the number of operations aggregated per launch (agg_iters), which dgxhost does "
            "not do: it times -n operations back to back per sample (runner.batch). dgxhost's -m is --mode "
            "(auto, measure, project, explore)"});
  }
  return std::nullopt;
}

std::string nccl_tests_hint(std::string_view letter, std::string_view value) {
  if (letter == "o") {
    return "; -o " + std::string(value) + " is nccl-tests' reduction operation (comm.op of the comm workloads), " +
           "not dgxhost's -o FILE: write --output " + std::string(value) + " for a file of that name";
  }
  if (letter == "c") {
    return "; -c with a number is nccl-tests' result check (0 off, else on: comm.check of the comm workloads), " +
           std::string("not dgxhost's -c FILE: write --config FILE for a config file named by a number");
  }
  return {};
}

}  // namespace dgx
