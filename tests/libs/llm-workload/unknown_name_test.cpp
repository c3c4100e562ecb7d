#include "dgx/llm/workload/unknown_name.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include <dgx/sdk/text.hpp>

using namespace dgx::llm::workload;

namespace {

/// The suggestions of the catalog lookups: the SDK's close matches, a swap counting as two edits.
std::vector<std::string> suggestions(std::string_view name, const std::vector<std::string>& candidates) {
  return dgx::sdk::text::close_matches(name, candidates, 3, dgx::sdk::text::Swaps::two_edits);
}

}  // namespace

TEST_CASE("abbreviated and misspelt catalog names find their entry") {
  const std::vector<std::string> models = {"llama2-7b", "llama2-70b", "llama3.1-70b", "llama3.1-8b", "gpt3-175b"};
  const auto matches = suggestions("llama70b", models);
  CHECK(std::find(matches.begin(), matches.end(), "llama3.1-70b") != matches.end());
  CHECK(std::find(matches.begin(), matches.end(), "gpt3-175b") == matches.end());
  CHECK(suggestions("gpt3175b", models) == std::vector<std::string>{"gpt3-175b"});
  const std::vector<std::string> systems = {"a100-sxm-80gb", "b200", "h100-sxm", "h200-sxm"};
  CHECK(suggestions("h100", systems) == std::vector<std::string>{"h100-sxm"});
  CHECK(suggestions("zzz", systems).empty());
  CHECK(suggestions("", systems).empty());
}

TEST_CASE("an unknown name's message names the key, the likely entries and the whole catalog") {
  const std::vector<std::string> providers = {"aws", "nebius", "owned"};
  const std::string m = unknown_name_message("price provider", "awz", "cost.provider", providers);
  CHECK(m == "unknown price provider 'awz' (config key cost.provider); did you mean 'aws'? The catalog has: aws, "
             "nebius, owned");
  const std::string likely = unknown_name_message("model", "zzzz", "model", {"alpha", "beta"}, "beta");
  CHECK(likely.find("did you mean 'beta'?") != std::string::npos);
  CHECK(unknown_name_message("model", "qqqq", "model", {"a"}).find("did you mean") == std::string::npos);
}
