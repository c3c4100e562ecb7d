#include "dgx/core/app/slurm_script.hpp"

#include <algorithm>
#include <array>

#include "dgx/core/app/external_program.hpp"
#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/run/context.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/text.hpp"
#include "launch_shared.hpp"

namespace dgx {

namespace fs = std::filesystem;

namespace {

// The longest common leading part of two normalized absolute paths.
fs::path common_parent(const fs::path& a, const fs::path& b) {
  fs::path out;
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end() && *i == *j; ++i, ++j) {
    out /= *i;
  }
  return out;
}

// Folders an image keeps its own files in (CUDA lives in /usr/local): mounting over one breaks the image.
bool image_needs(const fs::path& prefix) {
  static constexpr std::array<std::string_view, 10> kSystem = {"/",    "/usr", "/usr/local", "/opt", "/home",
                                                               "/tmp", "/var", "/srv",       "/mnt", "/root"};
  const std::string p = prefix.string();
  return std::find(kSystem.begin(), kSystem.end(), p) != kSystem.end();
}

std::optional<Failure> check_names(const LaunchOptions& o) {
  // Slurm's own rules, so that nothing but the value reaches the script: names of partitions and accounts are
  // letters, digits, '_', '.', '-' (a partition list adds ',').
  if (!o.partition.empty() && !only(o.partition, "_.-,")) {
    return launch_usage("--partition " + printable(o.partition) +
                        ": expected Slurm partition names (letters, digits, '_', '.', '-', separated by ',')");
  }
  if (!o.account.empty() && !only(o.account, "_.-")) {
    return launch_usage("--account " + printable(o.account) +
                        ": expected a Slurm account name (letters, digits, '_', '.', '-')");
  }
  if (!only(o.job_name, "_.-+") || o.job_name[0] == '.' || o.job_name[0] == '-') {
    return launch_usage("--job-name " + printable(o.job_name) +
                        ": expected letters, digits, '_', '.', '-', '+', not starting with '.' or '-' (it names files "
                        "in --output-dir)");
  }
  return std::nullopt;
}

}  // namespace

Expected<std::string> dgxhost_install_prefix(const fs::path& exe_dir) {
  const fs::path bin = fs::absolute(exe_dir).lexically_normal();
  const fs::path plugins = plugin_search_paths({}, nullptr, bin).back().path;
  const fs::path configs = config_search_paths({}, nullptr, bin).back().path;
  const fs::path prefix = common_parent(common_parent(bin, plugins), configs);
  if (image_needs(prefix)) {
    return launch_usage("--container: this dgxhost is installed under " + prefix.string() +
                        ", which cannot be mounted over the image's own " + prefix.string() +
                        " (it would hide the image's files); install dgxhost into the image and pass --dgxhost "
                        "PATH (its path inside the image), or install it under a prefix of its own "
                        "(cmake --install BUILD --prefix /opt/dgx)");
  }
  std::error_code ec;
  if (!fs::is_directory(plugins, ec)) {
    return launch_usage("--container: the ranks would run this dgxhost (" + (bin / "dgxhost").string() +
                        ") from its install prefix mounted into the image, but its plugin folder " + plugins.string() +
                        " is missing; install dgxhost (cmake --install BUILD --prefix DIR), or pass --dgxhost PATH, "
                        "its path inside the image");
  }
  return prefix.string();
}

std::optional<Failure> complete_slurm(LaunchOptions& o) {
  if (auto problem = check_names(o)) {
    return problem;
  }
  if (o.container.empty()) {
    return std::nullopt;
  }
  if (o.dgxhost != (executable_directory() / "dgxhost").string()) {  // --dgxhost: its path inside the image
    if (!fs::path(o.dgxhost).is_absolute()) {
      return launch_usage("--dgxhost " + printable(o.dgxhost) + ": expected an absolute path inside the image");
    }
    return std::nullopt;
  }
  auto prefix = dgxhost_install_prefix(executable_directory());
  if (!prefix) {
    return prefix.error();
  }
  o.dgxhost_prefix = prefix.value();
  return std::nullopt;
}

namespace {

// Escapes for a double-quoted shell word, so that only the ${SLURM_JOB_ID} we add expands.
std::string double_quoted(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\' || c == '$' || c == '`') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

std::string header(const LaunchOptions& o) {
  const int ranks = o.nodes * o.tasks_per_node;
  std::string s = "#!/bin/bash\n";
  s += comment_lines("Written by `dgxhost launch` on " + utc_timestamp() + ": " + std::to_string(o.nodes) +
                     " node(s) x " + std::to_string(o.tasks_per_node) + " rank(s) = " + std::to_string(ranks) +
                     " rank(s)" + (o.gpus_per_node > 0 ? ", one per GPU." : ", CPU only."));
  if (!o.dgxhost_prefix.empty()) {
    s += comment_lines("The ranks run " + o.dgxhost + " from its install prefix " + o.dgxhost_prefix +
                       ", mounted read-only into the image at the same path (with its plugins and configs): the "
                       "image must provide the shared libraries it links (ldd " +
                       o.dgxhost + " lists them).");
  } else if (!o.container.empty()) {
    s += comment_lines("The image must hold dgxhost at " + o.dgxhost +
                       ", installed with its plugins and configs (cmake --install BUILD --prefix PREFIX).");
  }
  s += "#SBATCH --job-name=" + o.job_name + "\n";
  s += "#SBATCH --nodes=" + std::to_string(o.nodes) + "\n";
  s += "#SBATCH --ntasks-per-node=" + std::to_string(o.tasks_per_node) + "\n";
  if (o.gpus_per_node > 0) {
    s += "#SBATCH --gpus-per-node=" + std::to_string(o.gpus_per_node) + "\n";
  }
  for (const auto& [name, value] :
       {std::pair{"partition", &o.partition}, std::pair{"time", &o.time}, std::pair{"account", &o.account}}) {
    if (!value->empty()) {
      s += std::string("#SBATCH --") + name + "=" + *value + "\n";
    }
  }
  s += "#SBATCH --output=" + o.output_dir + "/%x-%j.log\n";
  return s;
}

std::string container_options(const LaunchOptions& o) {
  if (o.container.empty()) {
    return {};
  }
  std::string mounts = o.output_dir + ":" + o.output_dir;
  if (!o.dgxhost_prefix.empty()) {
    mounts += "," + o.dgxhost_prefix + ":" + o.dgxhost_prefix + ":ro";
  }
  if (!o.container_mounts.empty()) {
    mounts += "," + o.container_mounts;
  }
  return " --container-image=" + text::shell_quote(o.container) + " --container-mounts=" + text::shell_quote(mounts);
}

}  // namespace

std::string sbatch_script(const LaunchOptions& o) {
  std::string s = header(o);
  s += "set -euo pipefail\n\n";
  for (const std::string& e : o.env) {
    const std::size_t eq = e.find('=');
    s += "export " + e.substr(0, eq) + "=" + text::shell_quote(e.substr(eq + 1)) + "\n";
  }
  s += "results=\"" + double_quoted(o.output_dir + "/" + o.job_name + "-") + "${SLURM_JOB_ID}.json\"\n";
  // One rank per task; every rank runs dgxhost, rank 0 writes the results of all of them. --kill-on-bad-exit
  // ends the whole step when one rank fails, so nobody waits in a collective for a dead peer.
  std::string srun = "srun --mpi=pmix --kill-on-bad-exit=1";
  if (o.gpus_per_node > 0) {
    srun += " --gpus-per-task=1 --gpu-bind=closest";
  }
  s += srun + container_options(o) + " " + rank_command(o) + "\n";
  s += "echo \"dgxhost launch: results of all ranks in $results\"\n";
  return s;
}

Expected<std::string> submit_sbatch(const std::string& script) {
  auto ran = run_program({"sbatch", script});
  if (!ran) {
    return Failure{ExitCode::run_failed, "cannot run sbatch (is the Slurm client installed and on PATH?); the "
                                         "script is " +
                                             script + ": submit it with sbatch yourself"};
  }
  if (ran->exit_code != 0) {
    return Failure{ExitCode::run_failed, "sbatch " + script + " failed (see its message above)"};
  }
  return text::trim(ran->out);
}

}  // namespace dgx
