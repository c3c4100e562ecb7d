// Test helper for plugins with a parameter schema: a FakeHost holding a workload's defaults (parsed from its
// schema) that also records what FakeHost drops: each row's table and hidden flags, and each note's placement. A
// preset's TOML text can be layered on top, as the host's preset layer would.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <dgx/sdk/workload.hpp>

#include "fake_host.hpp"

namespace dgx::testing {

class SchemaHost : public FakeHost {
public:
  explicit SchemaHost(const std::vector<dgx::sdk::Param>& params);

  /// The host API with the recording emit_row / emit_note (hides FakeHost::api()).
  [[nodiscard]] const dgx_host_api* api() const { return &api_; }

  /// Sets every key of a preset file's text (dotted keys of its tables; preset.* metadata left out).
  void apply_toml(std::string_view text);

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
  dgx_host_api api_{};
  dgx_status (*base_emit_row_)(void*, const dgx_result_row*) = nullptr;
};

}  // namespace dgx::testing
