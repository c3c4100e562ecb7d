// Software-release profiles (configs/frameworks/<name>.toml): the framework as a dimension of a projection, beside
// the GPU count and the precision. A release changes what the same hardware delivers (kernels, quantization
// recipes, communication overlap, memory layout of low-precision parameters); a profile holds the few physical
// parameters of the model that describe that, fitted to the release's published runs, and inherits the rest
// from the profile it names (`inherits`). The default is the newest release.
#pragma once

#include "dgx/catalog/expected.hpp"
#include "dgx/catalog/precision.hpp"
#include "dgx/catalog/system_profile.hpp"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::catalog {

/// Kernel efficiencies of a release on one GPU architecture; unset values inherit.
struct KernelEfficiency {
  /// Fraction of the system's hardware GEMM rate (ceiling · sustained) reached, per precision (Precision index).
  std::array<std::optional<double>, 4> gemm;
  /// Multiplies the system's flash-attention fractions (attention_fwd, attention_bwd).
  std::optional<double> attention;
  /// Efficiency::grouped_gemm: the experts' grouped GEMMs against a dense GEMM.
  std::optional<double> grouped_gemm;
  /// Efficiency::grouped_gemm_tokens: the tokens per expert at which a grouped GEMM reaches half its fraction.
  std::optional<double> grouped_gemm_tokens;
};

struct FrameworkProfile {
  std::string name;      ///< catalog key, e.g. "nemo-26.02"
  std::string display;   ///< e.g. "NeMo 26.02 (Megatron-Bridge)"
  std::string released;  ///< "YYYY-MM", orders the releases
  std::string inherits;  ///< the profile this one starts from; empty for the base
  std::string source;    ///< the published runs its parameters were fitted to
  /// The release whose numbers this profile keeps for dense models, where no dense run of its own is published
  /// (`dense_from` of the file, never inherited); empty: its own.
  std::string dense_from;
  /// The framework the release belongs to ("nemo", "torchtitan"); a profile inherits its parent's, the base is
  /// "nemo". Releases of one family are compared as upgrades; the default projection uses the newest "nemo" one.
  std::string family;
  Software software;
  std::map<std::string, KernelEfficiency, std::less<>> kernels;  ///< by SystemProfile::architecture
};

/// Parses one profile file over `base` (the profile it inherits; its values stand where the file is silent).
[[nodiscard]] Expected<FrameworkProfile> parse_framework(std::string_view toml_text, std::string_view file,
                                                         const FrameworkProfile& base = {});

/// A profile of the embedded catalog by name, with its inheritance resolved.
[[nodiscard]] Expected<FrameworkProfile> find_framework(std::string_view name);

/// Names of the embedded profiles, oldest release first.
[[nodiscard]] std::vector<std::string> framework_names();

/// The family whose newest release a projection uses unless told otherwise: NeMo / Megatron-Bridge, the framework
/// the systems' hardware fractions were calibrated with.
inline constexpr std::string_view kDefaultFamily = "nemo";

/// The newest release of the default family: what a projection uses unless told otherwise.
[[nodiscard]] std::string default_framework();

/// The system as this release runs it: the release's kernel efficiencies for the system's architecture (or its
/// family: "blackwell-ultra" falls back to "blackwell") and its software behaviour applied to the hardware profile.
[[nodiscard]] SystemProfile apply_framework(SystemProfile system, const FrameworkProfile& framework);

}  // namespace dgx::catalog
