// Test helper: an in-process dgx_host_api backed by plain maps, for testing plugin code and the SDK layer
// without the host. Collects emitted rows, metrics and log lines for assertions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <dgx/plugin.h>

namespace dgx::testing {

class FakeHost {
public:
  using Value = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>,
                             std::vector<std::string>>;

  FakeHost();
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;

  void set(const std::string& key, Value value) { config[key] = std::move(value); }
  [[nodiscard]] const dgx_host_api* api() const { return &api_; }

  std::map<std::string, Value> config;
  struct Row {
    dgx_result_mode mode;
    std::map<std::string, std::string> config;  // TOML literals
    std::map<std::string, std::pair<double, std::string>> metrics;
    std::map<std::string, std::string> fields;
  };
  std::vector<Row> rows;
  std::map<std::string, std::pair<double, std::string>> added_metrics;  ///< add_metric: name -> (value, unit)
  std::map<std::string, std::string> added_fields;                      ///< add_field: key -> value
  std::vector<std::string> notes;
  std::vector<std::string> logs;
  bool cancel = false;

private:
  dgx_host_api api_{};
};

}  // namespace dgx::testing
