#include "dgx/llm/serve_config.hpp"

#include "dgx/llm/serve_ops.hpp"

#include "catalog_fixtures.hpp"
#include "serve_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using namespace dgx::llm::testing;

namespace {

std::string config_error_of(const char* model, const char* system, const ServeConfig& c) {
  const auto e = serve_config_error(catalog_model(model), catalog_system(system), c);
  return e ? e->message : "";
}

}  // namespace

TEST_CASE("a valid serving layout passes and the defaults of the budget, batch size and KV fraction apply") {
  const ServeConfig c = serve_config({.tp = 2}, 1000, 1000, 0);
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c).empty());
  CHECK(c.batch_tokens() == 8192);
  CHECK(c.batch_size() == 2048);
  CHECK(c.kv_fraction() == doctest::Approx(0.9));
  CHECK(layout_label({.tp = 2}, false) == "TP2 PP1");
  CHECK(layout_label({.tp = 4, .pp = 1, .ep = 2}, true) == "TP4 PP1 EP2");
}

TEST_CASE("layouts the model or the system cannot run name the reason") {
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 16}, 128, 128, 0)) ==
        "TP 16 exceeds the NVLink domain of 8 on h100-sxm (its all-reduces run twice per layer and token)");
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 3}, 128, 128, 0)) ==
        "TP 3 does not divide the 64 attention heads of llama3.1-70b");
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 2, .pp = 1, .ep = 2}, 128, 128, 0)) ==
        "EP 2 needs a mixture-of-experts model; llama3.1-70b is dense");
  CHECK(config_error_of("mixtral-8x7b", "h100-sxm", serve_config({.tp = 2, .pp = 1, .ep = 4}, 128, 128, 0))
            .find("EP 4 must divide TP 2 (experts are spread inside the TP group); for DeepSeek-style wide EP over 4 "
                  "GPUs set TP 4 with attention DP") == 0);
  CHECK(config_error_of("mixtral-8x7b", "h100-sxm", serve_config({.tp = 4, .pp = 1, .ep = 4}, 128, 128, 0)).empty());
}

TEST_CASE("nvfp4 is refused on Hopper and accepted on Blackwell") {
  const ServeConfig c = serve_config({.tp = 2}, 128, 128, 0, Precision::nvfp4);
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c) ==
        "nvfp4 needs block-scaled FP4/FP8 tensor cores (Blackwell: b200, gb200-nvl72, gb300-nvl72); h100-sxm has none");
  CHECK(config_error_of("llama3.1-70b", "b200", c).empty());
  ServeConfig kv = serve_config({.tp = 2}, 128, 128, 0);
  kv.kv_precision = Precision::nvfp4;
  CHECK(config_error_of("llama3.1-70b", "h200-sxm", kv) ==
        "an nvfp4 KV cache needs Blackwell's FP4 formats; h200-sxm has none");
}

TEST_CASE("request lengths must fit the model's context") {
  CHECK(catalog_model("llama3.1-70b").context == 131072);
  CHECK(catalog_model("llama2-70b").context == 4096);  // no `context` key: the sequence length
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 2}, 200000, 128, 0)) ==
        "ISL 200000 exceeds the context of llama3.1-70b (131072 tokens)");
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 2}, 131000, 128, 0)) ==
        "ISL 131000 + OSL 128 exceeds the context of llama3.1-70b (131072 tokens)");
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", serve_config({.tp = 2}, 0, 128, 0)).find("at least 1 token") !=
        std::string::npos);
}

TEST_CASE("attention DP spreads a MoE model's experts over all GPUs, across NVLink domains, and is named DEP") {
  const ServeLayout dep8{.tp = 8, .pp = 1, .ep = 8, .attention_dp = true};
  CHECK(config_error_of("deepseek-v3", "h200-sxm", serve_config(dep8, 1000, 1000, 0)).empty());
  CHECK(layout_label(dep8, true) == "DEP8 PP1");
  CHECK(dep8.attention_tp() == 1);
  CHECK(dep8.attention_dp_ranks() == 8);
  // Wide EP over two 8-GPU nodes: the all-to-all crosses the scale-out network, no TP all-reduce does.
  CHECK(config_error_of("deepseek-v3", "h200-sxm",
                        serve_config({.tp = 16, .pp = 1, .ep = 16, .attention_dp = true}, 1000, 1000, 0))
            .empty());
  CHECK(layout_label({.tp = 8, .pp = 1, .ep = 4, .attention_dp = true}, true) == "DEP8 PP1 EP4");
}

TEST_CASE("attention DP on a dense model is refused as meaningless") {
  CHECK(config_error_of("llama3.1-70b", "h100-sxm",
                        serve_config({.tp = 8, .pp = 1, .ep = 1, .attention_dp = true}, 128, 128, 0))
            .find("attention data parallelism needs a mixture-of-experts model: llama3.1-70b is dense") == 0);
}

TEST_CASE("speculative decoding names what it needs: an acceptance within the draft length, the MTP module, an engine "
          "that runs it") {
  ServeConfig c = serve_config({.tp = 8}, 1000, 1000, 0);
  c.speculative = SpeculativeConfig{.kind = Speculation::eagle, .draft_tokens = 3, .accepted = 3.5, .draft_model = {}};
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c) ==
        "the acceptance (3.50 draft tokens accepted per step) must lie in [0, 3]: at most the draft length of 3 tokens "
        "can be accepted");
  c.speculative.accepted = 2;
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c).empty());
  CHECK(c.speculative.tokens_per_step() == 3);
  CHECK(c.speculative.verify_tokens() == 4);
  c.speculative.kind = Speculation::mtp;
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c) ==
        "speculative = mtp needs the model's multi-token-prediction module; llama3.1-70b has none (DeepSeek-V3/R1 have "
        "one): use eagle or draft");
  c.speculative.kind = Speculation::draft;
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c).find("needs the draft model") != std::string::npos);
  c.speculative.draft_model = std::make_shared<const ModelConfig>(catalog_model("llama2-7b"));
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c).find("a draft must share the model's tokenizer") !=
        std::string::npos);
  c.speculative.kind = Speculation::eagle;
  c.layout = {.tp = 4, .pp = 2};
  c.engine = ServeEngine::vllm;
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c)
            .find("vLLM's speculative decoding does not run with pipeline "
                  "parallelism") == 0);
  c.engine = ServeEngine::trtllm;
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c).empty());
}

TEST_CASE("an open-loop load needs a positive rate and excludes a concurrency") {
  ServeConfig c = serve_config({.tp = 2}, 1000, 1000, 0);
  c.request_rate = 4;
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c).empty());
  CHECK(c.open_loop());
  c.request_rate = -1;
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c) == "the request rate must be > 0 requests/s, got -1.000");
  c.request_rate = 2;
  c.concurrency = 8;
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c).find("exclude each other") != std::string::npos);
  c.concurrency = 0;
  c.request_rate = 0;
  c.arrival = Arrival::burst;
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c).empty());
  CHECK(c.open_loop());
}

TEST_CASE("a lengths table with no rows, or a request beyond the context, is refused naming the file") {
  ServeConfig c = serve_config({.tp = 2}, 1000, 1000, 0);
  auto table = std::make_shared<LengthTable>();
  table->source = "chats.csv";
  c.lengths = table;
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c).find("chats.csv: no requests") == 0);
  table->rows = {{.isl = 100, .osl = 50}, {.isl = 131000, .osl = 500}};
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c) ==
        "chats.csv: a request of ISL 131000 + OSL 500 exceeds the context of llama3.1-70b (131072 tokens)");
  table->rows = {{.isl = 100, .osl = 50, .weight = 3}, {.isl = 500, .osl = 250}};
  CHECK(config_error_of("llama3.1-70b", "h100-sxm", c).empty());
  CHECK(table->mean_isl() == doctest::Approx(200));
  CHECK(table->mean_osl() == doctest::Approx(100));
  CHECK(c.reserved_tokens() == 2000);  // the fixed means' 1000 + 1000 exceed the table's longest
}

TEST_CASE("the engine's profile gives the scheduler's defaults a configuration leaves at 0") {
  ServeConfig c = serve_config({.tp = 2}, 1000, 1000, 0);
  c.engine = ServeEngine::vllm;
  CHECK(c.batch_size() == 1024);  // vLLM's max_num_seqs
  CHECK(c.batch_tokens() == 8192);
  c.engine = ServeEngine::sglang;
  CHECK(c.cuda_graph_max_batch() == 256);
  CHECK(serve_shape(c).graph_max_batch == 256);
  c.max_batch_size = 64;  // a configured limit wins
  CHECK(c.batch_size() == 64);
  c.engine = ServeEngine::trtllm;
  c.max_batch_size = 0;
  CHECK(c.batch_size() == 2048);
  CHECK(c.cuda_graph_max_batch() == 512);
}
