// Which system profile of configs/systems a measured GPU is, so that measured op times calibrate a projection of
// the same GPU.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dgx::plugins::llm_pretrain {

/// "NVIDIA H200" -> "h200-sxm", "NVIDIA H100 80GB HBM3" -> "h100-sxm", ...; nullopt for a GPU with no profile.
[[nodiscard]] std::optional<std::string> system_for_device(std::string_view device_name);

}  // namespace dgx::plugins::llm_pretrain
