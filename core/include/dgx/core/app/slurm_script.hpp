// `dgxhost launch --scheduler slurm` (the default): an sbatch script that starts one dgxhost rank per GPU with
// `srun --mpi=pmix` (GPU-bound, killed together if one fails) and has rank 0 write the results of all ranks into
// one JSON file; with --container every rank runs in the image through pyxis/enroot.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "dgx/core/app/launch_options.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// Slurm's checks of `options` (partition, account and job names, the time limit) and, with --container and no
/// --dgxhost, sets `dgxhost_prefix` to this dgxhost's install prefix, which the script mounts into the image.
std::optional<Failure> complete_slurm(LaunchOptions& options);

/// The install prefix of the dgxhost in `exe_dir`, for mounting into an image at the same path: the common parent
/// of `exe_dir`, its plugin folder and its config folder (search_paths.hpp), which must exist. A usage failure
/// for a prefix the image needs for itself (/usr, /usr/local, /opt, /, ...): mounting it would hide the image's
/// own files.
Expected<std::string> dgxhost_install_prefix(const std::filesystem::path& exe_dir);

/// The sbatch script for `options`.
std::string sbatch_script(const LaunchOptions& options);

/// Submits `script` with sbatch; its output ("Submitted batch job 42").
Expected<std::string> submit_sbatch(const std::string& script);

}  // namespace dgx
