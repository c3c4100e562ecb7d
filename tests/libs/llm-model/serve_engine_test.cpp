#include "dgx/llm/serve_engine.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace dgx::llm;

namespace {

constexpr const char* kProfile = R"(name = "sglang"
display = "SGLang"
source = "test"
max_batch_tokens = 8192
max_batch_size = 1024
cuda_graph_max_batch = 256
attention_dp = false
speculative = ["eagle"]

[[release]]
version = "0.5.9"
released = "2026-03"

[[release]]
version = "0.5.5.post2"
released = "2025-12"

[calibration.aggregated]
tpot_scale = 1.2
tpot_per_kernel_us = 2
tpot_offset_ms = 3
ttft_scale = 0.5
ttft_wave = 0.1
ttft_iterations = 1.5
ttft_offset_ms = 200
rows = 10
stacks = 2
cv_ttft = 0.3
cv_tpot = 0.2
band_ttft = 0.6
band_tpot = 0.3
)";

}  // namespace

TEST_CASE("an engine profile reads its releases oldest first, its features and its calibration per mode") {
  const auto p = parse_engine_profile(kProfile, "sglang.toml");
  REQUIRE(p);
  CHECK(p->engine == ServeEngine::sglang);
  REQUIRE(p->releases.size() == 2);
  CHECK(p->releases.front().version == "0.5.5.post2");
  CHECK(p->newest().version == "0.5.9");
  CHECK_FALSE(p->attention_dp);
  CHECK(p->calibration.fitted());
  CHECK(p->calibration.tpot_offset == doctest::Approx(0.003));
  const ServeFeatures f{.ttft = 0.1, .tpot = 0.01, .wave = 1.0, .kernels = 1000};
  CHECK(calibrated_tpot(p->calibration, f) == doctest::Approx(1.2 * 0.01 + 1000 * 2e-6 + 0.003));
  CHECK(calibrated_ttft(p->calibration, f) == doctest::Approx(0.5 * 0.1 + 0.1 * 1.0 + 1.5 * 0.01 + 0.2));
}

TEST_CASE("a profile with a misspelt key, an unknown engine or no release is refused naming it") {
  std::string text = kProfile;
  text.replace(text.find("max_batch_size"), 14, "max_batch_sise");
  const auto misspelt = parse_engine_profile(text, "sglang.toml");
  REQUIRE_FALSE(misspelt);
  CHECK(misspelt.error().message.find("sglang.toml") != std::string::npos);
  CHECK(misspelt.error().message.find("max_batch_s") != std::string::npos);

  std::string unknown = kProfile;
  unknown.replace(unknown.find("\"sglang\""), 8, "\"tgi\"");
  const auto engine = parse_engine_profile(unknown, "tgi.toml");
  REQUIRE_FALSE(engine);
  CHECK(engine.error().message.find("tgi") != std::string::npos);

  const auto none = parse_engine_profile(R"(name = "vllm"
display = "vLLM"
source = "test"
max_batch_tokens = 8192
max_batch_size = 1024
cuda_graph_max_batch = 512
speculative = []
)",
                                         "vllm.toml");
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("[[release]]") != std::string::npos);
}

TEST_CASE("the embedded profiles: every engine has releases and a calibration fitted on measured rows") {
  for (const ServeEngine e : {ServeEngine::trtllm, ServeEngine::vllm, ServeEngine::sglang}) {
    const EngineProfile* p = engine_profile(e);
    REQUIRE(p != nullptr);
    CHECK_FALSE(p->releases.empty());
    CHECK(p->calibration.fitted());
    CHECK(p->calibration.rows > 100);
    CHECK(p->calibration.band_tpot > 0);
  }
  CHECK(engine_profile(ServeEngine::trtllm)->newest().runtime.empty());
}

TEST_CASE("an engine version not in the profile and a feature the engine lacks are errors naming the key") {
  const auto p = parse_engine_profile(kProfile, "sglang.toml");
  REQUIRE(p);
  CHECK_FALSE(engine_version_error(*p, "0.5.9"));
  CHECK_FALSE(engine_version_error(*p, ""));
  const auto version = engine_version_error(*p, "0.5.99");
  REQUIRE(version);
  CHECK(version->message.find("serve.engine_version") != std::string::npos);
  CHECK(version->message.find("0.5.5.post2") != std::string::npos);

  ServeConfig c;
  c.layout = {.tp = 8, .ep = 8, .attention_dp = true};
  const auto dp = engine_feature_error(*p, c);
  REQUIRE(dp);
  CHECK(dp->message.find("serve.attention_dp") != std::string::npos);
  c.layout = {.tp = 8};
  c.speculative.kind = Speculation::mtp;
  const auto mtp = engine_feature_error(*p, c);
  REQUIRE(mtp);
  CHECK(mtp->message.find("mtp") != std::string::npos);
  c.speculative.kind = Speculation::eagle;
  CHECK_FALSE(engine_feature_error(*p, c));
}
