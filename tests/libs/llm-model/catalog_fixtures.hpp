// Shared by the llm-model tests: catalog entries that must exist (a missing one fails the test that asks).
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/layout.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace dgx::llm::testing {

inline ModelConfig catalog_model(std::string_view name) {
  auto found = find_model(name);
  REQUIRE_MESSAGE(found.has_value(), (found ? "" : found.error().message));
  return found.value();
}

/// A model of the test fixtures' catalog folder (tests/fixtures/catalog/models: the hybrid models no catalog entry
/// describes yet).
inline ModelConfig fixture_model(std::string_view name) {
  const std::string file =
      std::string(DGX_SOURCE_DIR) + "/tests/fixtures/catalog/models/" + std::string(name) + ".toml";
  std::ifstream in(file);
  REQUIRE_MESSAGE(in.good(), "cannot open " << file);
  std::ostringstream text;
  text << in.rdbuf();
  auto parsed = parse_model(text.str(), file);
  REQUIRE_MESSAGE(parsed.has_value(), (parsed ? "" : parsed.error().message));
  return parsed.value();
}

inline SystemProfile catalog_system(std::string_view name) {
  auto found = find_system(name);
  REQUIRE_MESSAGE(found.has_value(), (found ? "" : found.error().message));
  return found.value();
}

/// A catalog system as the newest framework release runs it (what projections use by default).
inline SystemProfile released_system(std::string_view name) {
  auto framework = find_framework(default_framework());
  REQUIRE_MESSAGE(framework.has_value(), (framework ? "" : framework.error().message));
  return apply_framework(catalog_system(name), *framework);
}

/// A BF16 training configuration with the given layout.
inline TrainConfig train(Layout layout, int mbs, int gbs, int seq_len, Precision precision = Precision::bf16) {
  TrainConfig t;
  t.layout = layout;
  t.mbs = mbs;
  t.gbs = gbs;
  t.seq_len = seq_len;
  t.precision = precision;
  return t;
}

}  // namespace dgx::llm::testing
