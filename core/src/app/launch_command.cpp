#include "dgx/core/app/launch_command.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <tuple>

#include <boost/program_options.hpp>

#include "dgx/core/config/cli.hpp"
#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/run/context.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/text.hpp"
#include "run_command.hpp"

namespace po = boost::program_options;

namespace dgx {

namespace {

Failure usage(std::string message) { return {ExitCode::usage, "dgxhost launch: " + std::move(message)}; }

po::options_description launch_options(LaunchOptions& o, std::string& nodes, std::string& gpus, std::string& tasks) {
  po::options_description d("dgxhost launch options");
  d.add_options()("help,h", po::bool_switch(&o.help), "show this help and exit")(
      "nodes", po::value<std::string>(&nodes)->value_name("N"),
      "nodes to run on (required)")("gpus-per-node", po::value<std::string>(&gpus)->value_name("G"),
                                    "GPUs per node, one rank each (default 8); 0 runs CPU-only ranks")(
      "tasks-per-node", po::value<std::string>(&tasks)->value_name("T"),
      "ranks per node: the GPU count, or with --gpus-per-node 0 any number (default 1)")(
      "partition", po::value<std::string>(&o.partition)->value_name("P"),
      "Slurm partition")("time", po::value<std::string>(&o.time)->value_name("T"), "Slurm time limit, e.g. 01:00:00")(
      "account", po::value<std::string>(&o.account)->value_name("A"),
      "Slurm account")("container", po::value<std::string>(&o.container)->value_name("IMAGE"),
                       "run every rank in IMAGE (Slurm's pyxis/enroot plugin)")(
      "container-mounts", po::value<std::string>(&o.container_mounts)->value_name("M"),
      "pyxis mounts; default: the output directory")(
      "job-name", po::value<std::string>(&o.job_name)->value_name("NAME"),
      "default: dgx-<plugin>")("output-dir", po::value<std::string>(&o.output_dir)->value_name("DIR"),
                               "where the script, the log and the results go (default dgx-runs)")(
      "script", po::value<std::string>(&o.script)->value_name("FILE"), "default: <output dir>/<job name>.sbatch")(
      "dgxhost", po::value<std::string>(&o.dgxhost)->value_name("PATH"),
      "the dgxhost the ranks run; default: this one")("submit", po::bool_switch(&o.submit),
                                                      "also submit the script with sbatch")(
      "dry-run", po::bool_switch(&o.dry_run), "check everything and print the script; write and submit nothing");
  return d;
}

}  // namespace

std::string launch_help() {
  LaunchOptions scratch;
  std::string n, g, t;
  std::ostringstream out;
  out << "Usage: dgxhost launch --nodes N [options] --plugin NAME [dgxhost arguments...]\n\n"
         "Writes an sbatch script that runs one dgxhost rank per GPU with `srun --mpi=pmix` and collects the\n"
         "results of all ranks into one JSON file in --output-dir; --submit also submits it with sbatch.\n"
         "Arguments that are not launch options are passed to every rank.\n\n"
      << launch_options(scratch, n, g, t);
  return out.str();
}

namespace {

Expected<int> parse_count(const std::string& option, const std::string& value, int minimum) {
  int n = 0;
  const auto r = std::from_chars(value.data(), value.data() + value.size(), n);
  if (r.ec != std::errc() || r.ptr != value.data() + value.size() || n < minimum) {
    return usage(option + " " + value + ": expected an integer >= " + std::to_string(minimum));
  }
  return n;
}

std::string plugin_name(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--plugin" || args[i] == "-p") {
      return args[i + 1];
    }
  }
  for (const std::string& a : args) {
    if (text::starts_with(a, "--plugin=")) {
      return a.substr(9);
    }
  }
  return {};
}

// Runs sbatch on the script and returns its output ("Submitted batch job 42").
Expected<std::string> submit(const std::string& script) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    return Failure{ExitCode::run_failed, "cannot create a pipe for sbatch"};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::string program = "sbatch", path = script;
  char* args[] = {program.data(), path.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "sbatch", &actions, nullptr, args, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (rc != 0) {
    close(pipe_fds[0]);
    return Failure{ExitCode::run_failed,
                   "cannot run sbatch (is the Slurm client installed and on PATH?); the script is " + script +
                       ": submit it with sbatch yourself"};
  }
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) {
    out.append(buffer, static_cast<std::size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Failure{ExitCode::run_failed, "sbatch " + script + " failed (see its message above)"};
  }
  return text::trim(out);
}

}  // namespace

std::string shell_quote(const std::string& word) {
  if (!word.empty() &&
      word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
          std::string::npos) {
    return word;
  }
  std::string out = "'";
  for (const char c : word) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

namespace {

// Program_options parses the launch options; every other argument, in order, is for the ranks. Abbreviated
// option names are off: "--output" must not be read as --output-dir.
Expected<std::vector<std::string>> parse_launch_arguments(int argc, const char* const* argv, LaunchOptions& o,
                                                          std::string& nodes, std::string& gpus, std::string& tasks) {
  if (auto refused = refuse_parser_placeholders(argc, argv)) {
    return *refused;
  }
  const po::options_description description = launch_options(o, nodes, gpus, tasks);
  try {
    const auto style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    const po::parsed_options parsed =
        po::command_line_parser(argc, argv).options(description).style(style).allow_unregistered().run();
    po::variables_map vm;
    po::store(parsed, vm);
    po::notify(vm);
    return po::collect_unrecognized(parsed.options, po::include_positional);
  } catch (const po::invalid_command_line_syntax& e) {
    if (e.kind() == po::invalid_syntax::missing_parameter) {
      return usage(e.get_option_name() + " needs a value");
    }
    return usage(e.what());
  } catch (const po::error& e) {
    return usage(e.what());
  }
}

// Slurm's own rules, so that nothing but the value reaches the script: names of partitions and accounts are
// letters, digits, '_', '.', '-' (a partition list adds ','); a time limit is digits, ':' and '-'.
bool only(const std::string& value, std::string_view allowed_punctuation) {
  if (value.empty()) {
    return false;
  }
  for (const char c : value) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && allowed_punctuation.find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool has_control(const std::string& value) {
  for (const char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return true;
    }
  }
  return false;
}

std::optional<Failure> check_values(const LaunchOptions& o) {
  if (!o.partition.empty() && !only(o.partition, "_.-,")) {
    return usage("--partition " + printable(o.partition) +
                 ": expected Slurm partition names (letters, digits, '_', '.', '-', separated by ',')");
  }
  if (!o.account.empty() && !only(o.account, "_.-")) {
    return usage("--account " + printable(o.account) +
                 ": expected a Slurm account name (letters, digits, '_', "
                 "'.', '-')");
  }
  if (!o.time.empty() && !only(o.time, ":-")) {
    return usage("--time " + printable(o.time) + ": expected a Slurm time limit such as 30, 01:00:00 or 2-00:00:00");
  }
  if (!o.job_name.empty() && (!only(o.job_name, "_.-+") || o.job_name[0] == '.' || o.job_name[0] == '-')) {
    return usage("--job-name " + printable(o.job_name) +
                 ": expected letters, digits, '_', '.', '-', '+', not starting with '.' or '-' (it names files "
                 "in --output-dir)");
  }
  for (const auto& [option, value] :
       {std::pair{"--container", &o.container}, std::pair{"--container-mounts", &o.container_mounts},
        std::pair{"--output-dir", &o.output_dir}, std::pair{"--script", &o.script},
        std::pair{"--dgxhost", &o.dgxhost}}) {
    if (has_control(*value)) {
      return usage(std::string(option) + " " + printable(*value) +
                   ": control characters "
                   "(a newline) are refused");
    }
  }
  if (o.output_dir.find_first_of(" \t%") != std::string::npos) {
    return usage("--output-dir " + o.output_dir + ": spaces and '%' are refused (the folder appears in #SBATCH lines)");
  }
  for (const std::string& a : o.dgxhost_args) {
    if (has_control(a)) {
      return usage("argument " + printable(a) + ": control characters are refused");
    }
  }
  return std::nullopt;
}

// -o, -oFILE, --output, --output=FILE and the abbreviations dgxhost's own parser accepts (--out, --outp, ...).
bool names_output(const std::string& a) {
  if (text::starts_with(a, "-o")) {
    return true;
  }
  const std::string name = a.substr(0, a.find('='));
  return name.size() >= 5 && std::string_view("--output").substr(0, name.size()) == name;
}

// Defaults that depend on other options, and the combinations dgxhost cannot run.
std::optional<Failure> complete(LaunchOptions& o, const std::string& nodes, const std::string& gpus,
                                const std::string& tasks) {
  if (nodes.empty()) {
    return usage("--nodes N is required (dgxhost launch --help)");
  }
  for (const auto& [option, text, field, minimum] :
       {std::tuple{"--nodes", &nodes, &o.nodes, 1}, std::tuple{"--gpus-per-node", &gpus, &o.gpus_per_node, 0},
        std::tuple{"--tasks-per-node", &tasks, &o.tasks_per_node, 1}}) {
    if (text->empty()) {
      continue;
    }
    auto n = parse_count(option, *text, minimum);
    if (!n) {
      return n.error();
    }
    *field = n.value();
  }
  constexpr long long kMaxRanks = 1 << 24;
  const long long per_node = tasks.empty() ? std::max(o.gpus_per_node, 1) : o.tasks_per_node;
  if (static_cast<long long>(o.nodes) * per_node > kMaxRanks) {
    return usage("--nodes " + std::to_string(o.nodes) + " x " + std::to_string(per_node) +
                 " rank(s) per node is more than " + std::to_string(kMaxRanks) + " ranks");
  }
  const std::string plugin = plugin_name(o.dgxhost_args);
  if (plugin.empty()) {
    return usage("--plugin NAME is required: what should the ranks run?");
  }
  if (o.tasks_per_node < 0) {
    o.tasks_per_node = o.gpus_per_node > 0 ? o.gpus_per_node : 1;
  }
  if (o.gpus_per_node > 0 && o.tasks_per_node != o.gpus_per_node) {
    return usage("--tasks-per-node " + std::to_string(o.tasks_per_node) + " differs from --gpus-per-node " +
                 std::to_string(o.gpus_per_node) + ": dgxhost runs one rank per GPU");
  }
  for (const std::string& a : o.dgxhost_args) {
    if (names_output(a)) {
      return usage("do not pass " + printable(a) + ": the launcher names the results file (in --output-dir)");
    }
  }
  if (o.job_name.empty()) {
    o.job_name = "dgx-" + plugin;
  }
  if (o.dgxhost.empty()) {
    o.dgxhost = (executable_directory() / "dgxhost").string();
  }
  o.output_dir = std::filesystem::absolute(o.output_dir).lexically_normal().string();
  if (o.script.empty()) {
    o.script = o.output_dir + "/" + o.job_name + ".sbatch";
  }
  return check_values(o);
}

}  // namespace

Expected<LaunchOptions> parse_launch(int argc, const char* const* argv) {
  LaunchOptions o;
  std::string nodes, gpus, tasks;
  auto rest = parse_launch_arguments(argc, argv, o, nodes, gpus, tasks);
  if (!rest) {
    return rest.error();
  }
  if (o.help) {
    return o;
  }
  o.dgxhost_args = std::move(rest.value());
  if (auto problem = complete(o, nodes, gpus, tasks)) {
    return *problem;
  }
  return o;
}

std::string results_path(const LaunchOptions& o, const std::string& job_id) {
  return o.output_dir + "/" + o.job_name + "-" + job_id + ".json";
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

}  // namespace

std::string sbatch_script(const LaunchOptions& o) {
  const int ranks = o.nodes * o.tasks_per_node;
  std::string s = "#!/bin/bash\n";
  s += "# Written by `dgxhost launch` on " + utc_timestamp() + ": " + std::to_string(o.nodes) + " node(s) x " +
       std::to_string(o.tasks_per_node) + " rank(s) = " + std::to_string(ranks) + " rank(s)" +
       (o.gpus_per_node > 0 ? ", one per GPU" : ", CPU only") + ".\n";
  s += "#SBATCH --job-name=" + o.job_name + "\n";
  s += "#SBATCH --nodes=" + std::to_string(o.nodes) + "\n";
  s += "#SBATCH --ntasks-per-node=" + std::to_string(o.tasks_per_node) + "\n";
  if (o.gpus_per_node > 0) {
    s += "#SBATCH --gpus-per-node=" + std::to_string(o.gpus_per_node) + "\n";
  }
  if (!o.partition.empty()) {
    s += "#SBATCH --partition=" + o.partition + "\n";
  }
  if (!o.time.empty()) {
    s += "#SBATCH --time=" + o.time + "\n";
  }
  if (!o.account.empty()) {
    s += "#SBATCH --account=" + o.account + "\n";
  }
  s += "#SBATCH --output=" + o.output_dir + "/%x-%j.log\n";
  s += "set -euo pipefail\n\n";
  s += "results=\"" + double_quoted(o.output_dir + "/" + o.job_name + "-") + "${SLURM_JOB_ID}.json\"\n";
  // One rank per task; every rank runs dgxhost, rank 0 writes the results of all of them. --kill-on-bad-exit
  // ends the whole step when one rank fails, so nobody waits in a collective for a dead peer.
  std::string srun = "srun --mpi=pmix --kill-on-bad-exit=1";
  if (o.gpus_per_node > 0) {
    srun += " --gpus-per-task=1 --gpu-bind=closest";
  }
  if (!o.container.empty()) {
    srun += " --container-image=" + shell_quote(o.container);
    srun += " --container-mounts=" +
            shell_quote(o.container_mounts.empty() ? o.output_dir + ":" + o.output_dir : o.container_mounts);
  }
  srun += " " + shell_quote(o.dgxhost);
  for (const std::string& a : o.dgxhost_args) {
    srun += " " + shell_quote(a);
  }
  srun += " --output \"$results\"";
  s += srun + "\n";
  s += "echo \"dgxhost launch: results of all ranks in $results\"\n";
  return s;
}

int run_launch(int argc, const char* const* argv) {
  auto options = parse_launch(argc, argv);
  if (!options) {
    std::cerr << "dgxhost: error: " << options.error().message << "\n";
    return to_int(options.error().code);
  }
  const LaunchOptions& o = options.value();
  if (o.help) {
    std::cout << launch_help();
    return 0;
  }
  // What the ranks will run, checked here first: a misspelt plugin or key fails now, not in the queue.
  if (o.dgxhost == (executable_directory() / "dgxhost").string()) {
    if (auto problem = validate_run(o.dgxhost_args)) {
      std::cerr << "dgxhost: error: dgxhost launch: " << problem->message << "\n";
      return to_int(problem->code);
    }
  }
  if (o.dry_run) {
    std::cout << sbatch_script(o);
    return 0;
  }
  std::error_code ec;
  std::filesystem::create_directories(o.output_dir, ec);
  if (ec) {
    std::cerr << "dgxhost: error: dgxhost launch: cannot create --output-dir " << o.output_dir << ": " << ec.message()
              << "\n";
    return to_int(ExitCode::usage);
  }
  {
    std::ofstream out(o.script);
    out << sbatch_script(o);
    if (!out) {
      std::cerr << "dgxhost: error: dgxhost launch: cannot write " << o.script << "\n";
      return to_int(ExitCode::run_failed);
    }
  }
  std::filesystem::permissions(o.script, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add, ec);
  std::cout << "sbatch script: " << o.script << "\n";
  if (!o.submit) {
    std::cout << "submit with: sbatch " << shell_quote(o.script) << "\n";
    return 0;
  }
  auto submitted = submit(o.script);
  if (!submitted) {
    std::cerr << "dgxhost: error: " << submitted.error().message << "\n";
    return to_int(submitted.error().code);
  }
  std::cout << submitted.value() << "\n";
  std::cout << "results: " << results_path(o, "<job id>") << "\n";
  return 0;
}

}  // namespace dgx
