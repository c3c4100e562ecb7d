#include "decode_workload.hpp"

#include <doctest/doctest.h>

#include "fake_serve_probe.hpp"
#include "llm_host.hpp"
#include "params.hpp"
#include "plugin.hpp"

using namespace dgx;
using namespace dgx::plugins::llm_inference;
using DecodeHost = dgx::testing::LlmHost<DecodeWorkload, decode_params>;
namespace fakes = dgx::plugins::llm_inference::testing;

TEST_CASE("the decode loop reports TPOT, tokens/s and MBU per batch size, against the GPU's HBM peak") {
  fakes::fake_decode_tpot() = [](std::int64_t batch) { return 0.004 + 1e-5 * double(batch); };
  DecodeHost h;
  sdk::Host host(h.api());
  DecodeWorkload w(host);
  w.setup();
  REQUIRE(w.case_count() == 9);
  const sdk::Case c = w.begin_case(0);
  CHECK(c.label == "llama3.1-8b decode, batch 1");
  sdk::SampleResult r;
  w.run(sdk::SampleRequest{.iterations = 10}, r);
  CHECK(r.seconds == doctest::Approx(10 * 0.00401));
  w.end_case(0, sdk::Stats{.samples = 5, .median = 0.00401});
  CHECK(h.added_metrics.at("tpot").first == doctest::Approx(0.00401));
  CHECK(h.added_metrics.at("output_tokens_per_s").first == doctest::Approx(1 / 0.00401));
  // 16.1 GB of BF16 weights + 1024 tokens of KV cache, over 4.01 ms, against the H200's 4.8 TB/s.
  const double mbu = h.added_metrics.at("mbu").first;
  CHECK(mbu > 80);
  CHECK(mbu < 90);
  CHECK(h.note("Measured").find("The whole llama3.1-8b (32 layers") == 0);
  fakes::fake_decode_tpot() = nullptr;
}

TEST_CASE("the decode loop refuses what it cannot run, naming the reason") {
  DecodeHost moe;
  moe.set(decode_key::model, std::string("mixtral-8x7b"));
  CHECK_THROWS_AS(DecodeWorkload(*std::make_unique<sdk::Host>(moe.api())), sdk::Unsupported);
  DecodeHost precision;
  precision.set(decode_key::precision, std::string("nvfp4"));
  sdk::Host host(precision.api());
  CHECK_THROWS_WITH_AS(DecodeWorkload{host}, "precision: 'nvfp4' is not one of bf16, fp8", sdk::InvalidArgument);
  DecodeHost batches;
  batches.set(decode_key::batches, std::vector<std::int64_t>{});
  sdk::Host empty(batches.api());
  CHECK_THROWS_AS(DecodeWorkload{empty}, sdk::InvalidArgument);
}
