// The configuration keys every LLM workload shares (training and serving): the model, the system, the GPUs, the
// precisions, the parallel layout's TP, PP and EP, and the price; and the readers that check an integer or the
// precision list the same way in every plugin. The training keys add to the same namespace (training_settings.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include <dgx/sdk/host.hpp>

#include "dgx/llm/catalog.hpp"

namespace dgx::llm::workload {

/// Config keys. Renaming one breaks users' scripts and presets.
namespace key {
inline constexpr const char* model = "model";
inline constexpr const char* system = "system";
inline constexpr const char* gpus = "gpus";
inline constexpr const char* precision = "precision";
inline constexpr const char* tp = "parallel.tp";
inline constexpr const char* pp = "parallel.pp";
inline constexpr const char* ep = "parallel.ep";
inline constexpr const char* provider = "cost.provider";
inline constexpr const char* usd_per_gpu_hour = "cost.usd_per_gpu_hour";
}  // namespace key

/// An integer key that must be at least `min` and fit an int; throws dgx::sdk::InvalidArgument naming it.
[[nodiscard]] int read_int(const dgx::sdk::Host& host, const char* key, std::int64_t min);
/// `value` checked the same way (an element of a list key).
[[nodiscard]] int bounded_int(const char* key, std::int64_t value, std::int64_t min);
/// The help of the `system` key: the catalog's systems, and how to name one's own system file.
[[nodiscard]] std::string system_help();
/// The `precision` list, duplicates dropped. Throws dgx::sdk::InvalidArgument for an unknown name or an empty list.
[[nodiscard]] std::vector<Precision> read_precisions(const dgx::sdk::Host& host);
/// The same for serving: the GEMM precisions and the checkpoint formats fp8-block, mxfp4 and int4.
[[nodiscard]] std::vector<Precision> read_serve_precisions(const dgx::sdk::Host& host);

}  // namespace dgx::llm::workload
