#include "dgx/llm/workload/keys.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>

#include "dgx/llm/catalog.hpp"

namespace dgx::llm::workload {

namespace {

using dgx::sdk::InvalidArgument;

}  // namespace

std::string system_help() {
  return "GPU system projected for (not this machine's GPUs), from the system catalog: " +
         dgx::sdk::text::join(system_names()) +
         "; or your own: a system file's path (NAME.toml), or NAME for systems/NAME.toml in a config directory "
         "(configs/systems/README.md)";
}

int bounded_int(const char* key, std::int64_t value, std::int64_t min) {
  if (value < min) {
    throw InvalidArgument(std::string(key) + " must be at least " + std::to_string(min) + ", got " +
                          std::to_string(value));
  }
  if (value > std::numeric_limits<int>::max()) {
    throw InvalidArgument(std::string(key) + " " + std::to_string(value) + " is too large");
  }
  return static_cast<int>(value);
}

int read_int(const dgx::sdk::Host& host, const char* key, std::int64_t min) {
  return bounded_int(key, host.get_int(key), min);
}

namespace {

std::vector<Precision> read_precision_list(const dgx::sdk::Host& host,
                                           std::optional<Precision> (*parse)(std::string_view), const char* choices) {
  std::vector<Precision> out;
  for (const std::string& text : host.get_string_list(key::precision)) {
    const auto precision = parse(text);
    if (!precision) {
      throw InvalidArgument(std::string(key::precision) + ": '" + text + "' is not one of " + choices);
    }
    if (std::find(out.begin(), out.end(), *precision) == out.end()) {
      out.push_back(*precision);
    }
  }
  if (out.empty()) {
    throw InvalidArgument(std::string(key::precision) + " must name at least one precision");
  }
  return out;
}

}  // namespace

std::vector<Precision> read_precisions(const dgx::sdk::Host& host) {
  return read_precision_list(host, parse_precision, "bf16, fp8, mxfp8, nvfp4");
}

std::vector<Precision> read_serve_precisions(const dgx::sdk::Host& host) {
  return read_precision_list(host, parse_serve_precision, "bf16, fp8, mxfp8, nvfp4, fp8-block, mxfp4, int4");
}

}  // namespace dgx::llm::workload
