// dgxhost launch's writers with hostile values: the first byte picks the scheduler, the rest are NUL-separated
// values for the options that reach the sbatch script or the MPIJob (the container and its mounts, an --env value,
// the arguments passed to the ranks, the partition). A value the options accept must come back out of the script,
// as a shell reads it, as exactly the word it was, expanding nothing, with no command added; the manifest must stay
// one YAML document.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/app/launch_options.hpp"
#include "dgx/core/app/mpijob_manifest.hpp"
#include "dgx/core/app/slurm_script.hpp"
#include "dgx/core/support/text.hpp"
#include "fuzz_check.hpp"
#include "shell_words.hpp"

namespace {

using dgx::fuzz::ShellCommand;
using dgx::fuzz::ShellScript;

// Not this dgxhost: the ranks' arguments are passed on unparsed, so any bytes reach the writers.
constexpr const char* kDgxhost = "/opt/dgx/bin/dgxhost";

void require(bool holds) {
  if (!holds) {
    __builtin_trap();
  }
}

struct Values {
  bool slurm = true;
  std::string container, mounts, env, arg1, arg2, partition;
};

Values values_of(const std::uint8_t* data, std::size_t size) {
  Values v;
  v.slurm = size == 0 || (data[0] & 1) == 0;
  std::vector<std::string> parts(1);
  for (std::size_t i = 1; i < size && parts.size() <= 6; ++i) {
    if (data[i] == 0) {
      parts.emplace_back();
    } else {
      parts.back() += static_cast<char>(data[i]);
    }
  }
  parts.resize(6);
  v.container = v.slurm || !parts[0].empty() ? parts[0] : "nvcr.io/nvidia/pytorch:25.01-py3";
  v.mounts = parts[1];
  v.env = parts[2];
  v.arg1 = parts[3];
  v.arg2 = parts[4];
  v.partition = parts[5];
  return v;
}

dgx::Expected<dgx::LaunchOptions> parse(const Values& v) {
  std::vector<std::string> args{"launch",
                                "--scheduler",
                                v.slurm ? "slurm" : "kubernetes",
                                "--nodes",
                                "2",
                                "--gpus-per-node",
                                "4",
                                "--dgxhost",
                                kDgxhost,
                                "--env",
                                "FUZZ=" + v.env};
  if (!v.container.empty()) {
    args.insert(args.end(), {"--container", v.container});
  }
  if (v.slurm) {
    if (!v.mounts.empty()) {
      args.insert(args.end(), {"--container-mounts", v.mounts});
    }
    if (!v.partition.empty()) {
      args.insert(args.end(), {"--partition", v.partition});
    }
  }
  args.insert(args.end(), {"--plugin", "spin", v.arg1, v.arg2});
  std::vector<const char*> argv;
  for (const std::string& a : args) {
    argv.push_back(a.c_str());
  }
  return dgx::parse_launch(static_cast<int>(argv.size()), argv.data());
}

// The script of the same options with every value a plain placeholder: the shape it keeps whatever the values.
ShellScript placeholder_script(bool slurm) {
  const Values plain{slurm, slurm ? "image" : "nvcr.io/nvidia/pytorch:25.01-py3", "/data:/data", "v", "a1", "a2",
                     "gpu"};
  const auto o = parse(plain);
  require(o.has_value());
  return dgx::fuzz::shell_commands(slurm ? dgx::sbatch_script(o.value()) : dgx::launcher_script(o.value()));
}

const ShellScript& shape(bool slurm) {
  static const ShellScript shapes[2] = {placeholder_script(false), placeholder_script(true)};
  return shapes[slurm ? 1 : 0];
}

// Each command ends at a line's end, and there are as many as the placeholder script has (plus one per further --env
// the values made for Slurm's exports): no value added, split or ended one.
void same_shape(const ShellScript& got, const ShellScript& want, std::size_t more) {
  require(!got.unterminated);
  require(got.commands.size() == want.commands.size() + more);
  for (const ShellCommand& c : got.commands) {
    require(c.ended_by == '\n' || c.ended_by == 0);
  }
}

// The ranks' command ends with dgxhost, its arguments, --output "$results": each a word of its own, literal but the
// last.
void ends_with_rank_command(const ShellCommand& c, const dgx::LaunchOptions& o) {
  std::vector<std::string> tail{o.dgxhost};
  tail.insert(tail.end(), o.dgxhost_args.begin(), o.dgxhost_args.end());
  tail.insert(tail.end(), {"--output", "$results"});
  require(c.words.size() >= tail.size());
  const std::size_t first = c.words.size() - tail.size();
  for (std::size_t i = 0; i < tail.size(); ++i) {
    require(c.words[first + i].text == tail[i]);
    require(c.words[first + i].expands == (i + 1 == tail.size()));
  }
}

bool has_word(const ShellCommand& c, const std::string& text) {
  for (const auto& w : c.words) {
    if (w.text == text && !w.expands) {
      return true;
    }
  }
  return false;
}

const ShellCommand& command_starting(const ShellScript& s, std::string_view first) {
  for (const ShellCommand& c : s.commands) {
    if (!c.words.empty() && c.words.front().text == first) {
      return c;
    }
  }
  __builtin_trap();
}

void check_sbatch(const dgx::LaunchOptions& o) {
  const ShellScript s = dgx::fuzz::shell_commands(dgx::sbatch_script(o));
  same_shape(s, shape(true), o.env.size() - 1);
  std::size_t exports = 0;
  for (const ShellCommand& c : s.commands) {
    if (!c.words.empty() && c.words.front().text == "export") {
      require(exports < o.env.size() && c.words.size() == 2 && c.words[1].text == o.env[exports] &&
              !c.words[1].expands);
      ++exports;
    }
  }
  require(exports == o.env.size());
  const ShellCommand& srun = command_starting(s, "srun");
  ends_with_rank_command(srun, o);
  if (!o.container.empty()) {
    require(has_word(srun, "--container-image=" + o.container));
  }
}

// One YAML document: no document marker, and at the left margin only comments and the four keys of an MPIJob.
void check_one_document(const std::string& yaml) {
  int keys = 0;
  for (const std::string& line : dgx::text::split(yaml, '\n')) {
    const bool marker = line.rfind("---", 0) == 0 || line.rfind("...", 0) == 0;
    require(!marker);
    if (line.empty() || line[0] == ' ' || line[0] == '#') {
      continue;
    }
    require(line == "apiVersion: kubeflow.org/v2beta1" || line == "kind: MPIJob" || line == "metadata:" ||
            line == "spec:");
    ++keys;
  }
  require(keys == 4);
}

void check_mpijob(const dgx::LaunchOptions& o) {
  check_one_document(dgx::mpijob_yaml(o));
  const ShellScript s = dgx::fuzz::shell_commands(dgx::launcher_script(o));
  same_shape(s, shape(false), 0);
  const ShellCommand& mpirun = command_starting(s, "mpirun");
  ends_with_rank_command(mpirun, o);
  for (const std::string& e : o.env) {
    require(has_word(mpirun, e));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Values v = values_of(data, size);
  const auto o = parse(v);
  dgx::fuzz::check_rejection(o);
  // A -h among the ranks' arguments is launch's own --help: it prints the help and writes no script.
  if (!o || o.value().help) {
    return 0;
  }
  if (v.slurm) {
    check_sbatch(o.value());
  } else {
    check_mpijob(o.value());
  }
  return 0;
}
