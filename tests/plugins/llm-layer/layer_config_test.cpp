// The llm-layer workload's configuration: defaults, the mapping of keys onto the layer spec, and the errors.
#include <doctest/doctest.h>

#include "config_error.hpp"
#include "fake_host.hpp"
#include "layer_config.hpp"

#include <stdexcept>

using namespace dgx::plugins::llm_layer;
using dgx::testing::FakeHost;
namespace kernels = dgx::llm::kernels;

namespace {

/// A fake host holding every parameter at its default (the schema's TOML literal, decoded).
void set_defaults(FakeHost& host) {
  for (const dgx::sdk::Param& p : layer_params()) {
    const std::string& v = p.default_value;
    switch (p.type) {
    case DGX_PARAM_INT: host.set(p.key, std::int64_t{std::stoll(v)}); break;
    case DGX_PARAM_FLOAT: host.set(p.key, std::stod(v)); break;
    case DGX_PARAM_BOOL: host.set(p.key, v == "true"); break;
    case DGX_PARAM_STRING: host.set(p.key, v.substr(1, v.size() - 2)); break;
    case DGX_PARAM_STRING_LIST: {
      std::vector<std::string> items;
      for (std::size_t at = v.find('"'); at != std::string::npos; at = v.find('"', v.find('"', at + 1) + 1)) {
        items.push_back(v.substr(at + 1, v.find('"', at + 1) - at - 1));
      }
      host.set(p.key, items);
      break;
    }
    default: FAIL("unexpected parameter type for " << p.key);
    }
  }
}

std::string error_of(FakeHost& host) {
  dgx::sdk::Host h(host.api());
  return dgx::testing::config_error_of([&] { (void)read_layer_config(h); });
}

}  // namespace

TEST_CASE("the defaults describe one Llama 3.1 70B layer at TP1, seq 8192, MBS 1, BF16") {
  FakeHost fake;
  set_defaults(fake);
  const LayerConfig c = read_layer_config(dgx::sdk::Host(fake.api()));
  CHECK(c.model == "llama3.1-70b");
  CHECK(c.spec.arch.hidden == 8192);
  CHECK(c.spec.arch.ffn == 28672);
  CHECK(c.spec.arch.heads == 64);
  CHECK(c.spec.arch.kv_groups == 8);
  CHECK(c.spec.seq_len == 8192);
  CHECK(c.spec.micro_batch == 1);
  CHECK(c.spec.layout.tp == 1);
  CHECK(c.spec.recompute == kernels::Recompute::none);
  REQUIRE(c.precisions.size() == 1);
  CHECK(c.precisions[0] == kernels::Precision::bf16);
}

TEST_CASE("keys map onto the spec, one case per precision") {
  FakeHost fake;
  set_defaults(fake);
  fake.set("parallel.tp", std::int64_t{8});
  fake.set("parallel.cp", std::int64_t{2});
  fake.set("train.recompute", std::string("selective"));
  fake.set("precision", std::vector<std::string>{"bf16", "fp8"});
  fake.set("fp8.scaling", std::string("current"));
  fake.set("layer.activation", std::string("squared_relu"));
  const LayerConfig c = read_layer_config(dgx::sdk::Host(fake.api()));
  CHECK(c.spec.layout.tp == 8);
  CHECK(c.spec.layout.cp == 2);
  CHECK(c.spec.recompute == kernels::Recompute::selective);
  CHECK(c.spec.scaling == kernels::Fp8Scaling::current);
  CHECK(c.spec.arch.activation == kernels::Activation::squared_relu);
  REQUIRE(c.precisions.size() == 2);
  CHECK(c.case_spec(1).precision == kernels::Precision::fp8);
  CHECK(c.case_spec(0).precision == kernels::Precision::bf16);
}

TEST_CASE("invalid values are configuration errors that name the key or the inconsistency") {
  FakeHost fake;
  set_defaults(fake);
  fake.set("parallel.tp", std::int64_t{3});
  CHECK(error_of(fake).find("heads (64) must be a multiple of tp (3)") != std::string::npos);
  set_defaults(fake);
  fake.set("layer.activation", std::string("relu6"));
  CHECK(error_of(fake) == "layer.activation: unknown value 'relu6'");
  set_defaults(fake);
  fake.set("precision", std::vector<std::string>{"fp16"});
  CHECK(error_of(fake).find("precision: unknown value 'fp16'") == 0);
  set_defaults(fake);
  fake.set("parallel.ep", std::int64_t{0});
  CHECK(error_of(fake).find("parallel.ep must be in 1..1024") == 0);
}

TEST_CASE("the presets name the calibration models' layers") {
  const auto presets = layer_presets();
  REQUIRE(presets.size() == 3);
  CHECK(presets[1].name == "llama3.1-70b-layer");
  CHECK(presets[1].workload == "llm-layer");
  CHECK(presets[1].config_toml.find("layer.hidden = 8192") != std::string::npos);
  CHECK(presets[2].config_toml.find("layer.experts = 8") != std::string::npos);
}
