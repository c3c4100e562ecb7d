// The system catalog: configs/systems/<name>.toml, embedded in the library. The only home of a GPU's facts (peaks,
// memory, links) and of the CUDA device names each profile describes.
//
// A file may start from another: `inherits = "h100-sxm"` takes every key of [peak_tflops], [gpu], [network] and
// [efficiency] it does not set from that system (recursively); name, display, source and device_names are the
// file's own.
#pragma once

#include "dgx/catalog/expected.hpp"
#include "dgx/catalog/system_profile.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::catalog {

/// Parses one system file; a system it inherits from comes from the embedded catalog. Errors name the file and
/// the key (and line:column for syntax errors).
[[nodiscard]] Expected<SystemProfile> parse_system(std::string_view toml_text, std::string_view file);

/// The sustained compute clock of a GPU held at `power_cap_w` instead of its TDP, relative to the TDP's: under a
/// training step's GEMMs the GPU runs at its power limit, dynamic power goes as f·V² and the voltage follows the
/// clock along the DVFS curve, so P ~ f³ and f scales by (cap / tdp)^(1/3); 1 at or above the TDP. A system file's
/// gpu.power_cap_w multiplies its sustained_compute by this (memory-bound ops and links keep their speed).
[[nodiscard]] double power_clock_scale(double power_cap_w, double tdp_w);

/// A system of the embedded catalog by name ("h100-sxm").
[[nodiscard]] Expected<SystemProfile> find_system(std::string_view name);

/// A user's own system file on disk (a variant of a catalog system: other memory, bandwidth, power limit,
/// interconnect), validated as the catalog's are: every required key present after inheritance, every value in its
/// physical range; `inherits` may name a file in the same folder or a catalog system. The file's stem must equal
/// its `name`. Errors name the file, the key and why ("h100-mine.toml: key 'gpu.hbm_tb_s' is -2, outside its
/// physical range [0.1, 1000] (a non-physical value: it must be positive)").
[[nodiscard]] Expected<SystemProfile> load_system_file(const std::filesystem::path& path);

/// A system by name, from the first of `dirs` (folders of user system files) holding `<name>.toml`, else from the
/// embedded catalog; a name ending in ".toml" is a file path (load_system_file). Unknown names list both.
[[nodiscard]] Expected<SystemProfile> find_system(std::string_view name,
                                                  const std::vector<std::filesystem::path>& dirs);

/// The system names (file stems) of a folder of user system files, sorted; empty when it cannot be read.
[[nodiscard]] std::vector<std::string> user_system_names(const std::filesystem::path& dir);

/// Names of the embedded systems, sorted.
[[nodiscard]] std::vector<std::string> system_names();

/// Does `pattern` (one of a profile's device_names) describe the CUDA device `device_name`? It must occur in the
/// name, ignoring case, as whole words: "H100" matches "NVIDIA H100 80GB HBM3" and "NVIDIA H100 PCIe", not
/// "NVIDIA GH100"; "A100" matches "NVIDIA A100-SXM4-80GB", not "NVIDIA RTX A1000".
[[nodiscard]] bool device_name_matches(std::string_view device_name, std::string_view pattern);

/// Whether system `system` answers to the CUDA device name `device` by its own device_names or, for a variant without
/// names of its own (another memory, a power cap), by those of the system it inherits: a log that names an H100 may
/// be said to have run on an H100 variant, not on a B200. False for an unknown system.
[[nodiscard]] bool system_answers_to_device(std::string_view system, std::string_view device);

/// The profile of a CUDA device, by name as cudaGetDeviceProperties reports it ("NVIDIA H100 PCIe" -> h100-pcie):
/// the system with the longest matching device_names pattern, so "H100 PCIe" wins over "H100". An error when no
/// profile matches, or when two systems match equally well (a catalog mistake).
[[nodiscard]] Expected<SystemProfile> find_system_for_device(std::string_view device_name);

}  // namespace dgx::catalog
