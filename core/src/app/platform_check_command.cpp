#include "platform_check_command.hpp"

#include <algorithm>
#include <iostream>

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/system_catalog.hpp"
#include "dgx/core/app/platform_check.hpp"
#include "dgx/core/app/plugin_option.hpp"
#include "dgx/core/run/context.hpp"
#include "dgx/core/run/run_layers.hpp"
#include "dgx/core/support/text.hpp"
#include "run_command.hpp"

namespace dgx {

namespace {

json::Object plan_context(const Session& s, const DeviceReport& devices) {
  json::Object c;
  c.set("dgxhost", dgxhost_identity());
  c.set("time", utc_timestamp());
  c.set("host", host_info());
  c.set("gpus", devices.gpus_json());
  c.set("gpu_summary", devices.summary());
  c.set("workload", std::string(kPlatformCheck));
  c.set("mode", "plan");
  c.set("argv", json::Array(s.options.argv.begin(), s.options.argv.end()));
  return c;
}

// The command line's --set entries a step takes: runner.* and verdict.* always, others when its workload has the
// key (so --set hbm.bytes=2G reaches the HBM step and no other).
std::vector<std::string> step_sets(const Session& s, const CheckStep& step, const std::string& system) {
  std::vector<std::string> sets = step.sets_on(system);
  auto target = resolve_name(s.registry, step.workload);
  const std::vector<ParamSpec> schema = target ? schema_for(*target->workload) : std::vector<ParamSpec>{};
  for (const std::string& set : s.options.sets) {
    auto entry = parse_set_argument(set);
    if (!entry) {
      continue;
    }
    const bool everywhere = text::starts_with(entry->key, "runner.") || text::starts_with(entry->key, "verdict.");
    if (everywhere ||
        std::any_of(schema.begin(), schema.end(), [&](const ParamSpec& p) { return p.key == entry->key; })) {
      sets.push_back(set);
    }
  }
  return sets;
}

// One step through the ordinary run path, with --baseline published and --mode measure; `system`: the GPUs' system
// as the steps before named it (its [step.on.SYSTEM] sets apply).
Report run_check_step(Session& s, const CliOptions& user, const CheckStep& step, const std::string& system) {
  s.options = user;
  s.options.plugin = step.workload;
  s.options.sets = step_sets(s, step, system);
  s.options.aliases.clear();
  s.options.baseline = "published";
  s.options.mode = RequestedMode::measure;
  Report report;
  auto resolved = resolve_run(s);
  if (auto code = agree_or_exit(s, failure_of(resolved))) {
    report.exit_code = *code;
    report.error = resolved ? "exit code " + std::to_string(*code) : resolved.error().message;
    return report;
  }
  const auto& [target, resolution] = resolved.value();
  if (auto code = run_to_report(s, target, resolution.config, report, nullptr)) {  // steps keep no run folder
    report.exit_code = *code;
    if (report.error.empty()) {
      report.error = "ended with exit code " + std::to_string(*code);
    }
  }
  return report;
}

// --set system=NAME: the plan for that system of the catalog alone; else for every system of the catalog.
Expected<std::vector<std::string>> plan_systems(const Session& s) {
  std::vector<std::string> catalog = catalog::system_names();
  for (const std::string& set : s.options.sets) {
    auto entry = parse_set_argument(set);
    if (!entry || entry->key != "system") {
      continue;
    }
    const std::string name = entry->value.is_string() ? entry->value.as_string() : json::write(entry->value, 0);
    if (std::find(catalog.begin(), catalog.end(), name) == catalog.end()) {
      return Failure{ExitCode::usage,
                     "platform-check: --set system=" + name + ": " + catalog::unknown_entry("system", name, catalog)};
    }
    return std::vector<std::string>{name};
  }
  return catalog;
}

}  // namespace

int describe_platform_check(const Session& s) {
  auto check = load_platform_check();
  if (!check) {
    return fail(s, check.error());
  }
  if (s.comm->ranks().rank == 0) {
    std::cout << "platform-check (" << check->origin << "): each step with --mode measure --baseline published, "
              << "one report and one verdict; without a GPU the plan and exit 4\n\n"
              << describe_steps(check.value()) << "\n";
  }
  return 0;
}

int run_platform_check(Session& s) {
  auto check = load_platform_check();
  if (!check) {
    return fail(s, check.error());
  }
  const DeviceReport devices = probe_devices(s.registry, s.plugin_services->api(), s.logger);
  if (check->needs_gpu && devices.devices.empty()) {  // a plan: what it would run, against which references
    auto references = load_published_references();
    if (!references) {
      return fail(s, references.error());
    }
    auto systems = plan_systems(s);
    if (!systems) {
      return fail(s, systems.error());
    }
    Report plan = platform_check_plan(check.value(), references.value(), systems.value(), devices.summary());
    plan.context = plan_context(s, devices);
    s.logger.error(plan.error);
    return emit_report(s, plan);
  }
  const CliOptions user = s.options;
  std::vector<Report> reports;
  for (const CheckStep& step : check->steps) {
    const std::string system = system_of(reports);
    s.logger.info("platform-check: " + step.name + (system.empty() ? "" : " (on " + system + ")"));
    if (!step.on.empty() && system.empty()) {
      s.logger.warn("platform-check: no step before \"" + step.name +
                    "\" named the GPUs' system: it runs with its own sets, none of a system's");
    }
    reports.push_back(run_check_step(s, user, step, system));
  }
  s.options = user;
  Report merged = merge_check_reports(check.value(), std::move(reports));
  if (merged.exit_code != 0) {
    s.logger.error("platform-check: " + merged.error);
  }
  return emit_report(s, merged);
}

}  // namespace dgx
