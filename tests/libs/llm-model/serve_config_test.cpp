#include "dgx/llm/serve_config.hpp"

#include "catalog_fixtures.hpp"
#include "serve_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using namespace dgx::llm::testing;

namespace {

std::string error_of(const char* model, const char* system, const ServeConfig& c) {
  const auto e = serve_config_error(catalog_model(model), catalog_system(system), c);
  return e ? e->message : "";
}

}  // namespace

TEST_CASE("a valid serving layout passes and the defaults of the budget, batch size and KV fraction apply") {
  const ServeConfig c = serve_config({.tp = 2}, 1000, 1000, 0);
  CHECK(error_of("llama3.1-70b", "h100-sxm", c).empty());
  CHECK(c.batch_tokens() == 8192);
  CHECK(c.batch_size() == 2048);
  CHECK(c.kv_fraction() == doctest::Approx(0.9));
  CHECK(layout_label({.tp = 2}, false) == "TP2 PP1");
  CHECK(layout_label({.tp = 4, .pp = 1, .ep = 2}, true) == "TP4 PP1 EP2");
}

TEST_CASE("layouts the model or the system cannot run name the reason") {
  CHECK(error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 16}, 128, 128, 0)) ==
        "TP 16 exceeds the NVLink domain of 8 on h100-sxm (its all-reduces run twice per layer and token)");
  CHECK(error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 3}, 128, 128, 0)) ==
        "TP 3 does not divide the 64 attention heads of llama3.1-70b");
  CHECK(error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 2, .pp = 1, .ep = 2}, 128, 128, 0)) ==
        "EP 2 needs a mixture-of-experts model; llama3.1-70b is dense");
  CHECK(error_of("mixtral-8x7b", "h100-sxm", serve_config({.tp = 2, .pp = 1, .ep = 4}, 128, 128, 0)) ==
        "EP 4 must divide TP 2 (experts are spread inside the TP group)");
  CHECK(error_of("mixtral-8x7b", "h100-sxm", serve_config({.tp = 4, .pp = 1, .ep = 4}, 128, 128, 0)).empty());
}

TEST_CASE("nvfp4 is refused on Hopper and accepted on Blackwell") {
  const ServeConfig c = serve_config({.tp = 2}, 128, 128, 0, Precision::nvfp4);
  CHECK(error_of("llama3.1-70b", "h100-sxm", c) ==
        "nvfp4 needs block-scaled FP4/FP8 tensor cores (Blackwell: b200, gb200-nvl72, gb300-nvl72); h100-sxm has none");
  CHECK(error_of("llama3.1-70b", "b200", c).empty());
  ServeConfig kv = serve_config({.tp = 2}, 128, 128, 0);
  kv.kv_precision = Precision::nvfp4;
  CHECK(error_of("llama3.1-70b", "h200-sxm", kv) ==
        "an nvfp4 KV cache needs Blackwell's FP4 formats; h200-sxm has none");
}

TEST_CASE("request lengths must fit the model's context") {
  CHECK(catalog_model("llama3.1-70b").context == 131072);
  CHECK(catalog_model("llama2-70b").context == 4096);  // no `context` key: the sequence length
  CHECK(error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 2}, 200000, 128, 0)) ==
        "ISL 200000 exceeds the context of llama3.1-70b (131072 tokens)");
  CHECK(error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 2}, 131000, 128, 0)) ==
        "ISL 131000 + OSL 128 exceeds the context of llama3.1-70b (131072 tokens)");
  CHECK(error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 2}, 0, 128, 0)).find("at least 1 token") !=
        std::string::npos);
}
