#include "dgx/llm/workload_preset.hpp"

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/toml_table.hpp"

namespace dgx::llm {

namespace {

using catalog::ConfigError;
using catalog::TomlTable;

/// The table holding the configuration keys: [preset] in the files as written, else the top level.
TomlTable config_table(const TomlTable& root) {
  const TomlTable preset = root.table("preset");
  return preset.contains("model") ? preset : root;
}

WorkloadPreset read_preset(const TomlTable& root) {
  const TomlTable meta = root.table("preset");
  const TomlTable t = config_table(root);
  WorkloadPreset p;
  p.workload = meta.string("workload");
  p.summary = meta.string("summary");
  p.model = t.string("model");
  p.system = t.string("system");
  for (const std::string& text : t.strings("precision")) {
    const auto precision = parse_precision(text);
    if (!precision) {
      throw ConfigError(t.where("precision") + " has \"" + text + "\", expected bf16, fp8, mxfp8 or nvfp4");
    }
    p.precisions.push_back(*precision);
  }
  if (p.precisions.empty()) {
    throw ConfigError(t.where("precision") + " must name at least one precision");
  }
  p.gpus = t.positive_int("gpus");

  const TomlTable train = t.table("train");
  p.train.precision = p.precisions.front();
  if (train.contains("tokens")) {  // pretraining presets; fine-tuning ones size their job with finetune.*
    p.train.tokens = train.number("tokens");
  }
  p.train.seq_len = train.positive_int("seq_len");
  p.train.mbs = train.positive_int("mbs");
  p.train.gbs = train.positive_int("gbs");
  p.train.recompute = catalog::parse_enum(train, "recompute", parse_recompute, "none, selective, full");

  const TomlTable parallel = t.table("parallel");
  p.train.layout = Layout{.tp = parallel.positive_int("tp"),
                          .pp = parallel.positive_int("pp"),
                          .cp = parallel.positive_int("cp"),
                          .vp = parallel.positive_int("vp"),
                          .ep = parallel.positive_int("ep")};

  const TomlTable explore = t.table("explore");
  p.explore_gpus_min = explore.positive_int("gpus_min");
  p.explore_gpus_max = explore.positive_int("gpus_max");
  const auto per_gpu = explore.contains("gbs_per_gpu") ? explore.integer("gbs_per_gpu") : 0;
  p.explore_batch = per_gpu > 0 ? BatchRule{.kind = BatchRule::Kind::per_gpu, .value = static_cast<int>(per_gpu)}
                                : BatchRule{.kind = BatchRule::Kind::fixed, .value = p.train.gbs};
  return p;
}

}  // namespace

Expected<WorkloadPreset> parse_workload_preset(std::string_view toml_text, std::string_view file) {
  return catalog::read_toml(toml_text, file, read_preset, catalog::UnreadKeys::allow);
}

Expected<WorkloadPreset> find_workload_preset(std::string_view name) {
  auto file = catalog::catalog_file("workloads", "workload preset", name);
  if (!file) {
    return file.error();
  }
  auto preset = parse_workload_preset(file->text, file->label);
  if (preset) {
    preset->name = std::string(name);
  }
  return preset;
}

std::vector<std::string> workload_preset_names() { return catalog::catalog_names("workloads"); }

Expected<PresetHeader> find_preset_header(std::string_view name) {
  auto file = catalog::catalog_file("workloads", "workload preset", name);
  if (!file) {
    return file.error();
  }
  return catalog::read_toml(
      file->text, file->label,
      [](const TomlTable& root) {
        const TomlTable meta = root.table("preset");
        return PresetHeader{.workload = meta.string("workload"), .summary = meta.string("summary")};
      },
      catalog::UnreadKeys::allow);
}

}  // namespace dgx::llm
