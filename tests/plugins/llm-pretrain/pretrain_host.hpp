// Test helper: a FakeHost holding the llm-pretrain workload's defaults (parsed from its parameter schema), that
// also records what FakeHost drops: each row's table and hidden flags, and each note's placement.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "fake_host.hpp"

namespace dgx::pretrain::testing {

class PretrainHost : public dgx::testing::FakeHost {
public:
  PretrainHost();

  /// The host API with the recording emit_row / emit_note (hides FakeHost::api()).
  [[nodiscard]] const dgx_host_api* api() const { return &api_; }

  /// Sets every config key of an embedded preset (llama70b, ...), as the host's preset layer would.
  void use_preset(const std::string& name);

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

}  // namespace dgx::pretrain::testing
