// Test helper: a FakeHost holding a workload's defaults (parsed from its parameter schema), that also records
// what FakeHost drops: each row's table and hidden flags, and each note's placement. The LLM plugins' tests
// drive their workloads through it.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <dgx/sdk/workload.hpp>

#include "fake_host.hpp"

namespace dgx::testing {

class WorkloadHost : public FakeHost {
public:
  explicit WorkloadHost(std::vector<dgx::sdk::Param> schema);

  /// The host API with the recording emit_row / emit_note (hides FakeHost::api()).
  [[nodiscard]] const dgx_host_api* api() const { return &api_; }

  /// Sets a key from a TOML literal ("4", "\"lora\"", "[\"qkv\", \"fc1\"]"), typed by the schema.
  void set_literal(const std::string& key, const std::string& literal);
  /// Sets every config key a preset file sets (its `key = value` lines outside preset.*), as the host's preset
  /// layer would.
  void use_preset_text(std::string_view toml);

  struct PlacedNote {
    bool after = false;
    std::string title;
    std::string text;
  };
  struct Visibility {
    std::string table;
    std::set<std::string> hidden_config, hidden_metrics, hidden_fields;
  };
  std::vector<PlacedNote> placed_notes;
  std::vector<Visibility> visibility;  ///< one per entry of rows

  /// The text of the note titled `title`, or "" when there is none.
  [[nodiscard]] std::string note(const std::string& title) const;

private:
  std::vector<dgx::sdk::Param> schema_;
  dgx_host_api api_{};
  dgx_status (*base_emit_row_)(void*, const dgx_result_row*) = nullptr;
};

}  // namespace dgx::testing
