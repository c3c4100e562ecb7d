#include "dgx/llm/serve_engine.hpp"

#include "baseline_rows.hpp"
#include "dgx/catalog/toml_table.hpp"
#include "dgx/sdk/text.hpp"

#include <algorithm>
#include <array>

namespace dgx::llm {

namespace {

using catalog::TomlTable;

EngineCalibration read_calibration(const TomlTable& t) {
  t.accept({"tpot_scale", "tpot_offset_ms", "tpot_per_kernel_us", "ttft_scale", "ttft_wave", "ttft_iterations",
            "ttft_offset_ms", "rows", "stacks", "cv_ttft", "cv_tpot", "band_ttft", "band_tpot"});
  EngineCalibration c;
  c.tpot_scale = t.number("tpot_scale");
  c.tpot_offset = t.number("tpot_offset_ms") * 1e-3;
  c.tpot_per_kernel = t.number("tpot_per_kernel_us") * 1e-6;
  c.ttft_scale = t.number("ttft_scale");
  c.ttft_wave = t.number("ttft_wave");
  c.ttft_iterations = t.number("ttft_iterations");
  c.ttft_offset = t.number("ttft_offset_ms") * 1e-3;
  c.rows = t.positive_int("rows");
  c.stacks = t.positive_int("stacks");
  c.cv_ttft = t.number("cv_ttft");
  c.cv_tpot = t.number("cv_tpot");
  c.band_ttft = t.number("band_ttft");
  c.band_tpot = t.number("band_tpot");
  for (const double v : {c.tpot_scale, c.tpot_per_kernel, c.ttft_scale, c.ttft_wave, c.ttft_iterations, c.cv_ttft,
                         c.cv_tpot, c.band_ttft, c.band_tpot}) {
    if (!(v >= 0)) {
      throw catalog::ConfigError(t.position() + ": calibration values must be non-negative numbers");
    }
  }
  return c;
}

EngineProfile read_profile(const TomlTable& t) {
  EngineProfile p;
  p.name = t.string("name");
  const auto engine = parse_serve_engine(p.name);
  if (!engine) {
    throw catalog::ConfigError(t.where("name") + " is \"" + p.name + "\", expected trtllm, vllm or sglang");
  }
  p.engine = *engine;
  p.display = t.string("display");
  p.source = t.string("source");
  for (const TomlTable& r : t.tables("release")) {
    p.releases.push_back(EngineRelease{.version = r.string("version"),
                                       .released = r.string("released"),
                                       .runtime = r.optional_string("runtime").value_or("")});
  }
  if (p.releases.empty()) {
    throw catalog::ConfigError(t.position() + ": an engine profile needs at least one [[release]]");
  }
  std::stable_sort(p.releases.begin(), p.releases.end(),
                   [](const EngineRelease& a, const EngineRelease& b) { return a.released < b.released; });
  p.max_batch_tokens = t.positive_int("max_batch_tokens");
  p.max_batch_size = t.positive_int("max_batch_size");
  p.cuda_graph_max_batch = t.positive_int("cuda_graph_max_batch");
  p.overlap_scheduler = t.boolean("overlap_scheduler", true);
  p.attention_dp = t.boolean("attention_dp", true);
  p.pipeline_parallel = t.boolean("pipeline_parallel", true);
  for (const std::string& s : t.strings("speculative")) {
    const auto kind = parse_speculation(s);
    if (!kind || *kind == Speculation::none) {
      throw catalog::ConfigError(t.where("speculative") + " holds \"" + s + "\", expected mtp, eagle or draft");
    }
    p.speculative.push_back(*kind);
  }
  if (t.contains("calibration")) {
    p.calibration = read_calibration(t.table("calibration").table("aggregated"));
  }
  return p;
}

}  // namespace

double calibrated_ttft(const EngineCalibration& c, const ServeFeatures& f) {
  return c.ttft_scale * f.ttft + c.ttft_wave * f.wave + c.ttft_iterations * f.tpot + c.ttft_offset;
}

double calibrated_tpot(const EngineCalibration& c, const ServeFeatures& f) {
  return c.tpot_scale * f.tpot + c.tpot_per_kernel * f.kernels + c.tpot_offset;
}

const EngineRelease& EngineProfile::newest() const {
  const auto own =
      std::find_if(releases.rbegin(), releases.rend(), [](const EngineRelease& r) { return r.runtime.empty(); });
  return own != releases.rend() ? *own : releases.back();
}

Expected<EngineProfile> parse_engine_profile(std::string_view toml_text, std::string_view file) {
  return catalog::read_toml(toml_text, file, read_profile);
}

Expected<EngineProfile> find_engine(ServeEngine engine) {
  return detail::parse_embedded("engines/" + std::string(to_string(engine)) + ".toml", parse_engine_profile);
}

const EngineProfile* engine_profile(ServeEngine engine) {
  static const std::array<std::optional<EngineProfile>, 3> kProfiles = [] {
    std::array<std::optional<EngineProfile>, 3> profiles;
    for (const ServeEngine e : {ServeEngine::trtllm, ServeEngine::vllm, ServeEngine::sglang}) {
      if (auto p = find_engine(e)) {
        profiles[static_cast<std::size_t>(e)] = std::move(*p);
      }
    }
    return profiles;
  }();
  const auto& p = kProfiles[static_cast<std::size_t>(engine)];
  return p ? &*p : nullptr;
}

std::vector<std::string> engine_names() { return {"trtllm", "vllm", "sglang"}; }

std::optional<Error> engine_version_error(const EngineProfile& profile, std::string_view version) {
  if (version.empty()) {
    return std::nullopt;
  }
  std::vector<std::string> known;
  for (const EngineRelease& r : profile.releases) {
    if (r.version == version) {
      return std::nullopt;
    }
    known.push_back(r.version);
  }
  return Error{"serve.engine_version: " + std::string(version) + " is not a release of " + profile.display +
               " in configs/engines/" + profile.name + ".toml; known: " + sdk::text::join(known) +
               sdk::text::did_you_mean(sdk::text::close_matches(version, known))};
}

std::optional<Error> engine_feature_error(const EngineProfile& profile, const ServeConfig& config) {
  if (config.layout.attention_dp && !profile.attention_dp) {
    return Error{"serve.attention_dp: " + profile.display + " has no data-parallel attention"};
  }
  if (config.layout.pp > 1 && !profile.pipeline_parallel) {
    return Error{"serve.pp: " + profile.display + " does not serve with pipeline parallelism"};
  }
  const Speculation kind = config.speculative.kind;
  if (kind != Speculation::none &&
      std::find(profile.speculative.begin(), profile.speculative.end(), kind) == profile.speculative.end()) {
    return Error{"serve.speculative: " + profile.display + " does not implement " + std::string(to_string(kind)) +
                 " speculative decoding"};
  }
  return std::nullopt;
}

}  // namespace dgx::llm
