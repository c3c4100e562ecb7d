#include "dgx/core/app/launch_options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <sstream>
#include <tuple>

#include <boost/program_options.hpp>

#include "dgx/core/app/mpijob_manifest.hpp"
#include "dgx/core/app/slurm_script.hpp"
#include "dgx/core/config/cli.hpp"
#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/report/wrap.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/text.hpp"
#include "launch_shared.hpp"

namespace po = boost::program_options;

namespace dgx {

Failure launch_usage(std::string message) { return {ExitCode::usage, "dgxhost launch: " + std::move(message)}; }

bool only(const std::string& value, std::string_view allowed_punctuation) {
  if (value.empty()) {
    return false;
  }
  return std::all_of(value.begin(), value.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || allowed_punctuation.find(c) != std::string_view::npos;
  });
}

std::string comment_lines(std::string_view text) {
  std::string out;
  // printable(): a line break in a value (U+0085, U+2028, '\n', ...) would end the comment and start a line of the
  // script or manifest.
  for (const std::string& line : wrap_words(printable(text), 116)) {
    out += "# " + line + "\n";
  }
  return out;
}

namespace {

// The option values that are parsed after Program_options has read them, and which options were given at all.
struct RawOptions {
  std::string scheduler = "slurm", nodes, gpus, tasks, time, rdma_count, min_available, wait_timeout, poll_interval;
  std::vector<std::string> given;
};

po::options_description general_options(LaunchOptions& o, RawOptions& raw) {
  po::options_description d("dgxhost launch options");
  d.add_options()("help,h", po::bool_switch(&o.help), "show this help and exit")(
      "scheduler", po::value<std::string>(&raw.scheduler)->value_name("S"),
      "slurm (default: an sbatch script) or kubernetes (a Kubeflow MPI Operator MPIJob)")(
      "nodes", po::value<std::string>(&raw.nodes)->value_name("N"),
      "nodes to run on (required)")("gpus-per-node", po::value<std::string>(&raw.gpus)->value_name("G"),
                                    "GPUs per node, one rank each (default 8); 0 runs CPU-only ranks")(
      "tasks-per-node", po::value<std::string>(&raw.tasks)->value_name("T"),
      "ranks per node: the GPU count, or with --gpus-per-node 0 any number (default 1)")(
      "time", po::value<std::string>(&raw.time)->value_name("T"),
      "time limit in Slurm's format (30 = 30 minutes, 01:00:00, 2-00:00:00); kubernetes: the MPIJob's "
      "activeDeadlineSeconds")("container", po::value<std::string>(&o.container)->value_name("IMAGE"),
                               "run every rank in IMAGE (Slurm: pyxis/enroot; required for kubernetes)")(
      "job-name", po::value<std::string>(&o.job_name)->value_name("NAME"),
      "default: dgx-<plugin>")("output-dir", po::value<std::string>(&o.output_dir)->value_name("DIR"),
                               "where the script or manifest, the log and the results go (default dgx-runs)")(
      "script", po::value<std::string>(&o.script)->value_name("FILE"),
      "the sbatch script or MPIJob manifest to write; default: <output dir>/<job name>.sbatch or .yaml")(
      "dgxhost", po::value<std::string>(&o.dgxhost)->value_name("PATH"),
      "the dgxhost the ranks run; default: this one (with --container its install prefix is mounted into the "
      "image), or /usr/local/bin/dgxhost in the kubernetes image. With --container, PATH is inside the image")(
      "env", po::value<std::vector<std::string>>(&o.env)->value_name("NAME=VALUE"),
      "set NAME for every rank (repeatable), e.g. NCCL_IB_HCA=mlx5")("submit", po::bool_switch(&o.submit),
                                                                     "also submit: sbatch, or kubectl apply")(
      "dry-run", po::bool_switch(&o.dry_run), "check everything and print the script; write and submit nothing");
  return d;
}

po::options_description slurm_options(LaunchOptions& o) {
  po::options_description d("Slurm (--scheduler slurm)");
  d.add_options()("partition", po::value<std::string>(&o.partition)->value_name("P"),
                  "Slurm partition")("account", po::value<std::string>(&o.account)->value_name("A"), "Slurm account")(
      "container-mounts", po::value<std::string>(&o.container_mounts)->value_name("M"),
      "more pyxis mounts (the output directory, and dgxhost's install prefix when it runs from the host, are "
      "always mounted)");
  return d;
}

po::options_description kubernetes_options(KubernetesOptions& k, RawOptions& raw) {
  po::options_description d("Kubernetes (--scheduler kubernetes)");
  d.add_options()("namespace", po::value<std::string>(&k.name_space)->value_name("NS"),
                  "the MPIJob's namespace (default: kubectl's current one)")(
      "rdma-resource", po::value<std::string>(&k.rdma_resource)->value_name("NAME"),
      "the RDMA device resource each worker requests, as the cluster's network operator names it (rdma/ib, "
      "nvidia.com/hostdev, ...)")("rdma-count", po::value<std::string>(&raw.rdma_count)->value_name("N"),
                                  "how many of --rdma-resource per worker (default 1)")(
      "scheduler-name", po::value<std::string>(&k.scheduler_name)->value_name("NAME"),
      "the pods' schedulerName (volcano, a scheduler-plugins scheduler, ...)")(
      "priority-class", po::value<std::string>(&k.priority_class)->value_name("NAME"),
      "the pods' priorityClassName, and the gang's (runPolicy.schedulingPolicy.priorityClass)")(
      "queue", po::value<std::string>(&k.queue)->value_name("Q"), "gang scheduling: runPolicy.schedulingPolicy.queue")(
      "min-available", po::value<std::string>(&raw.min_available)->value_name("N"),
      "gang scheduling: pods to start together (--nodes, or --nodes + 1 with the launcher); default: the "
      "operator's (every worker)")("results-pvc", po::value<std::string>(&k.results_pvc)->value_name("CLAIM"),
                                   "keep the results and run folders on this PersistentVolumeClaim (mounted at "
                                   "/dgx-results in every pod; ReadWriteMany for several nodes)")(
      "image-pull-secret", po::value<std::vector<std::string>>(&k.image_pull_secrets)->value_name("SECRET"),
      "the pods' imagePullSecrets (repeatable)")("service-account",
                                                 po::value<std::string>(&k.service_account)->value_name("NAME"),
                                                 "the pods' serviceAccountName")(
      "wait", po::bool_switch(&k.wait),
      "submit, follow the MPIJob to its end, collect its results into --output-dir; exit with the run's code")(
      "wait-timeout", po::value<std::string>(&raw.wait_timeout)->value_name("T"),
      "stop waiting after T, in --time's format (default 24:00:00; 0: never)")(
      "poll-interval", po::value<std::string>(&raw.poll_interval)->value_name("S"),
      "seconds between two looks at the MPIJob (default 10)");
  return d;
}

po::options_description all_options(LaunchOptions& o, RawOptions& raw) {
  po::options_description d = general_options(o, raw);
  d.add(slurm_options(o)).add(kubernetes_options(o.k8s, raw));
  return d;
}

}  // namespace

std::string launch_help() {
  LaunchOptions scratch;
  RawOptions raw;
  std::ostringstream out;
  out << "Usage: dgxhost launch --nodes N [options] --plugin NAME [dgxhost arguments...]\n\n"
         "Runs one dgxhost rank per GPU on N nodes and collects the results of all ranks into one JSON file in\n"
         "--output-dir. Slurm (the default): writes an sbatch script running `srun --mpi=pmix`; --submit submits\n"
         "it. Kubernetes: writes a Kubeflow MPI Operator MPIJob (kubeflow.org/v2beta1) whose launcher runs mpirun;\n"
         "--submit applies it with kubectl, --wait also follows it and collects the results.\n"
         "Arguments that are not launch options are passed to every rank.\n\n"
      << all_options(scratch, raw);
  return out.str();
}

namespace {

Expected<int> parse_count(const std::string& option, const std::string& value, int minimum) {
  int n = 0;
  const auto r = std::from_chars(value.data(), value.data() + value.size(), n);
  if (r.ec != std::errc() || r.ptr != value.data() + value.size() || n < minimum) {
    return launch_usage(option + " " + printable(value) + ": expected an integer >= " + std::to_string(minimum));
  }
  return n;
}

}  // namespace

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

std::string rank_command(const LaunchOptions& o) {
  std::string command = text::shell_quote_command(o.dgxhost);
  for (const std::string& a : o.dgxhost_args) {
    command += " " + text::shell_quote(a);
  }
  return command + " --output \"$results\"";
}

namespace {

// Digits only, at most 7 of them (ten years of minutes fit): nullopt otherwise.
std::optional<long> time_field(std::string_view digits) {
  long n = 0;
  if (digits.empty() || digits.size() > 7) {
    return std::nullopt;
  }
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  return r.ec == std::errc() && r.ptr == digits.data() + digits.size() ? std::optional<long>(n) : std::nullopt;
}

}  // namespace

std::optional<long> slurm_time_seconds(const std::string& text) {
  std::string_view rest = text;
  long days = 0;
  const bool with_days = rest.find('-') != std::string_view::npos;
  if (with_days) {
    const auto d = time_field(rest.substr(0, rest.find('-')));
    if (!d) {
      return std::nullopt;
    }
    days = *d;
    rest = rest.substr(rest.find('-') + 1);
  }
  std::vector<long> fields;
  for (const std::string& part : text::split(rest, ':')) {
    const auto n = time_field(part);
    if (!n || fields.size() == 3) {
      return std::nullopt;
    }
    fields.push_back(*n);
  }
  if (fields.empty()) {
    return std::nullopt;
  }
  // Slurm: without days "M", "M:S", "H:M:S"; with days "D-H", "D-H:M", "D-H:M:S".
  static constexpr std::array<std::array<long, 3>, 3> kPlain = {{{60, 0, 0}, {60, 1, 0}, {3600, 60, 1}}};
  static constexpr std::array<std::array<long, 3>, 3> kDays = {{{3600, 0, 0}, {3600, 60, 0}, {3600, 60, 1}}};
  const auto& scale = (with_days ? kDays : kPlain)[fields.size() - 1];
  long seconds = days * 86400;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    seconds += fields[i] * scale[i];
  }
  return seconds;
}

namespace {

// Program_options parses the launch options; every other argument, in order, is for the ranks. Abbreviated
// option names are off: "--output" must not be read as --output-dir.
Expected<std::vector<std::string>> parse_launch_arguments(int argc, const char* const* argv, LaunchOptions& o,
                                                          RawOptions& raw) {
  if (auto refused = refuse_parser_placeholders(argc, argv)) {
    return *refused;
  }
  const po::options_description description = all_options(o, raw);
  try {
    const auto style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    const po::parsed_options parsed =
        po::command_line_parser(argc, argv).options(description).style(style).allow_unregistered().run();
    po::variables_map vm;
    po::store(parsed, vm);
    po::notify(vm);
    for (const auto& entry : vm) {
      if (!entry.second.defaulted()) {
        raw.given.push_back(entry.first);
      }
    }
    return po::collect_unrecognized(parsed.options, po::include_positional);
  } catch (const po::invalid_command_line_syntax& e) {
    if (e.kind() == po::invalid_syntax::missing_parameter) {
      return launch_usage(e.get_option_name() + " needs a value");
    }
    return launch_usage(e.what());
  } catch (const po::error& e) {
    return launch_usage(e.what());
  }
}

std::optional<Failure> parse_scheduler(LaunchOptions& o, const RawOptions& raw) {
  if (raw.scheduler == "slurm" || raw.scheduler == "kubernetes") {
    o.scheduler = raw.scheduler == "slurm" ? Scheduler::slurm : Scheduler::kubernetes;
    return std::nullopt;
  }
  const std::string hint = text::did_you_mean(text::close_matches(raw.scheduler, {"slurm", "kubernetes"}));
  return launch_usage("--scheduler " + printable(raw.scheduler) + ": expected slurm (the default) or kubernetes" +
                      (hint.empty() ? "" : "; " + hint));
}

// An option of one scheduler given to the other is a mistake, not something to ignore.
std::optional<Failure> refuse_other_scheduler(const LaunchOptions& o, const RawOptions& raw) {
  LaunchOptions scratch;
  RawOptions scratch_raw;
  const bool slurm = o.scheduler == Scheduler::slurm;
  const po::options_description other = slurm ? kubernetes_options(scratch.k8s, scratch_raw) : slurm_options(scratch);
  for (const std::string& name : raw.given) {
    if (other.find_nothrow(name, false) != nullptr) {
      return launch_usage("--" + name + " is an option of --scheduler " + (slurm ? "kubernetes" : "slurm") +
                          ", not of --scheduler " + (slurm ? "slurm" : "kubernetes"));
    }
  }
  return std::nullopt;
}

std::optional<Failure> parse_numbers(LaunchOptions& o, const RawOptions& raw) {
  for (const auto& [option, text, field, minimum] :
       {std::tuple{"--nodes", &raw.nodes, &o.nodes, 1}, std::tuple{"--gpus-per-node", &raw.gpus, &o.gpus_per_node, 0},
        std::tuple{"--tasks-per-node", &raw.tasks, &o.tasks_per_node, 1},
        std::tuple{"--rdma-count", &raw.rdma_count, &o.k8s.rdma_count, 1},
        std::tuple{"--min-available", &raw.min_available, &o.k8s.min_available, 1}}) {
    if (text->empty()) {
      continue;
    }
    auto n = parse_count(option, *text, minimum);
    if (!n) {
      return n.error();
    }
    *field = n.value();
  }
  return std::nullopt;
}

std::optional<Failure> parse_times(LaunchOptions& o, const RawOptions& raw) {
  o.time = raw.time;
  std::string word = raw.time;
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool unlimited = word == "unlimited" || word == "infinite";  // Slurm's words for none
  const auto time = raw.time.empty() || unlimited ? std::optional<long>(0) : slurm_time_seconds(raw.time);
  if (!time) {
    return launch_usage("--time " + printable(raw.time) +
                        ": expected a Slurm time limit such as 30 (minutes), 01:00:00 or 2-00:00:00");
  }
  o.time_s = *time;
  if (!raw.wait_timeout.empty()) {
    const auto timeout = slurm_time_seconds(raw.wait_timeout);
    if (!timeout) {
      return launch_usage("--wait-timeout " + printable(raw.wait_timeout) +
                          ": expected a time as for --time: 30 (minutes), 00:00:30, 01:00:00, 0 for none");
    }
    o.k8s.wait_timeout_s = *timeout;
  }
  if (!raw.poll_interval.empty()) {
    double s = 0;
    const auto r = std::from_chars(raw.poll_interval.data(), raw.poll_interval.data() + raw.poll_interval.size(), s);
    if (r.ec != std::errc() || r.ptr != raw.poll_interval.data() + raw.poll_interval.size() || !(s > 0) || s > 3600) {
      return launch_usage("--poll-interval " + printable(raw.poll_interval) +
                          ": expected seconds, more than 0 and at most 3600");
    }
    o.k8s.poll_interval_s = s;
  }
  return std::nullopt;
}

std::optional<Failure> check_env(const LaunchOptions& o) {
  for (const std::string& e : o.env) {
    const std::string name = e.substr(0, e.find('='));
    const bool valid_name = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) && only(name, "_");
    if (e.find('=') == std::string::npos || !valid_name) {
      return launch_usage("--env " + printable(e) +
                          ": expected NAME=VALUE, NAME of letters, digits and '_', not starting with a digit");
    }
  }
  return std::nullopt;
}

// No value may add a line to a script or a manifest; a manifest is UTF-8 text, so arguments are valid UTF-8.
std::optional<Failure> check_text(const LaunchOptions& o) {
  for (const auto& [option, value] :
       {std::pair{"--job-name", &o.job_name}, std::pair{"--partition", &o.partition},
        std::pair{"--account", &o.account}, std::pair{"--container", &o.container},
        std::pair{"--container-mounts", &o.container_mounts}, std::pair{"--output-dir", &o.output_dir},
        std::pair{"--script", &o.script}, std::pair{"--dgxhost", &o.dgxhost}}) {
    if (printable(*value) != *value) {
      return launch_usage(std::string(option) + " " + printable(*value) +
                          ": control characters and line breaks (a newline, U+0085, U+2028, U+2029) and invalid "
                          "UTF-8 are refused");
    }
  }
  if (o.output_dir.find_first_of(" \t%") != std::string::npos) {
    return launch_usage("--output-dir " + o.output_dir +
                        ": spaces and '%' are refused (the folder appears in #SBATCH lines)");
  }
  std::vector<std::string> words = o.dgxhost_args;
  words.insert(words.end(), o.env.begin(), o.env.end());
  for (const std::string& a : words) {
    if (printable(a) != a) {
      return launch_usage("argument " + printable(a) +
                          ": control characters and line breaks (a newline, U+0085, U+2028, U+2029) and invalid UTF-8 "
                          "are refused");
    }
  }
  return check_env(o);
}

// -o, -oFILE, --output, --output=FILE and the abbreviations dgxhost's own parser accepts (--out, --outp, ...).
bool names_output(const std::string& a) {
  if (text::starts_with(a, "-o")) {
    return true;
  }
  const std::string name = a.substr(0, a.find('='));
  return name.size() >= 5 && std::string_view("--output").substr(0, name.size()) == name;
}

// The rank layout: one rank per GPU, at most 2^24 of them.
std::optional<Failure> check_ranks(LaunchOptions& o, const RawOptions& raw) {
  constexpr long long kMaxRanks = 1 << 24;
  const long long per_node = raw.tasks.empty() ? std::max(o.gpus_per_node, 1) : o.tasks_per_node;
  if (static_cast<long long>(o.nodes) * per_node > kMaxRanks) {
    return launch_usage("--nodes " + std::to_string(o.nodes) + " x " + std::to_string(per_node) +
                        " rank(s) per node is more than " + std::to_string(kMaxRanks) + " ranks");
  }
  if (o.tasks_per_node < 0) {
    o.tasks_per_node = o.gpus_per_node > 0 ? o.gpus_per_node : 1;
  }
  if (o.gpus_per_node > 0 && o.tasks_per_node != o.gpus_per_node) {
    return launch_usage("--tasks-per-node " + std::to_string(o.tasks_per_node) + " differs from --gpus-per-node " +
                        std::to_string(o.gpus_per_node) + ": dgxhost runs one rank per GPU");
  }
  for (const std::string& a : o.dgxhost_args) {
    if (names_output(a)) {
      return launch_usage("do not pass " + printable(a) + ": the launcher names the results file (in --output-dir)");
    }
  }
  return std::nullopt;
}

// Defaults that depend on the scheduler and on other options.
void fill_defaults(LaunchOptions& o, const std::string& plugin) {
  const std::string this_dgxhost = (executable_directory() / "dgxhost").string();
  const bool in_image = o.scheduler == Scheduler::kubernetes;
  if (o.job_name.empty()) {
    o.job_name = in_image ? mpijob_name_for(plugin) : "dgx-" + plugin;
  }
  o.check_ranks = o.dgxhost.empty() || o.dgxhost == this_dgxhost;
  if (o.dgxhost.empty()) {
    o.dgxhost = in_image ? kImageDgxhost : this_dgxhost;
  }
  o.output_dir = std::filesystem::absolute(o.output_dir).lexically_normal().string();
  if (o.script.empty()) {
    o.script = o.output_dir + "/" + o.job_name + (in_image ? ".yaml" : ".sbatch");
  }
}

std::optional<Failure> complete(LaunchOptions& o, RawOptions& raw) {
  if (auto problem = parse_scheduler(o, raw)) {
    return problem;
  }
  if (auto problem = refuse_other_scheduler(o, raw)) {
    return problem;
  }
  if (raw.nodes.empty()) {
    return launch_usage("--nodes N is required (dgxhost launch --help)");
  }
  for (auto* step : {&parse_numbers, &parse_times}) {
    if (auto problem = step(o, raw)) {
      return problem;
    }
  }
  if (auto problem = check_ranks(o, raw)) {
    return problem;
  }
  const std::string plugin = plugin_name(o.dgxhost_args);
  if (plugin.empty()) {
    return launch_usage("--plugin NAME is required: what should the ranks run?");
  }
  fill_defaults(o, plugin);
  if (auto problem = check_text(o)) {
    return problem;
  }
  return o.scheduler == Scheduler::slurm ? complete_slurm(o) : complete_mpijob(o);
}

}  // namespace

Expected<LaunchOptions> parse_launch(int argc, const char* const* argv) {
  LaunchOptions o;
  RawOptions raw;
  auto rest = parse_launch_arguments(argc, argv, o, raw);
  if (!rest) {
    return rest.error();
  }
  if (o.help) {
    return o;
  }
  o.dgxhost_args = std::move(rest.value());
  if (auto problem = complete(o, raw)) {
    return *problem;
  }
  return o;
}

std::string results_path(const LaunchOptions& o, const std::string& job_id) {
  return o.output_dir + "/" + o.job_name + "-" + job_id + ".json";
}

}  // namespace dgx
