#include "dgx/llm/serve_measured.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

using namespace dgx::llm;

namespace {

constexpr const char* kHeader =
    "id,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,"
    "tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,prefill_batch_size,prefill_num_workers,prefill_tp_size,"
    "prefill_pp_size,prefill_attention_dp_size,prefill_moe_tp_size,prefill_moe_ep_size,decode_batch_size,"
    "decode_num_workers,decode_tp_size,decode_pp_size,decode_attention_dp_size,decode_moe_tp_size,decode_moe_ep_size,"
    "silicon_ttft_ms,silicon_tpot_ms,silicon_data_source\n";

}  // namespace

TEST_CASE("an aggregated row: catalog names, the weight format, attention DP and the stated concurrency") {
  const std::string csv = std::string(kHeader) +
                          "r1,trtllm,1.2.0rc6,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,1024,nvfp4,nvfp4,16,1,1,"
                          "8,1,8,,,,,,,,,,,,,,,95.5,12.25,db; silicon_concurrency=128; x\n";
  const auto rows = parse_serving_measured(csv, "m.csv");
  REQUIRE(rows);
  REQUIRE(rows->size() == 1);
  const MeasuredServing& r = rows->front();
  CHECK(r.model == "deepseek-v3");
  CHECK(r.system == "b200");
  CHECK(r.config.engine == ServeEngine::trtllm);
  CHECK(r.config.precision == Precision::nvfp4);
  CHECK(r.config.layout.tp == 8);
  CHECK(r.config.layout.ep == 8);
  CHECK(r.config.layout.attention_dp);
  CHECK(r.config.concurrency == 128);
  CHECK(r.ttft_ms == doctest::Approx(95.5));
  CHECK(r.stack() == "deepseek-v3 b200 trtllm");
  CHECK(r.concurrency_stated);
  CHECK_FALSE(r.disaggregated);
}

TEST_CASE("a row whose source states no concurrency is read and marked: its batch size is not the load") {
  const std::string csv =
      std::string(kHeader) +
      "r6,trtllm,,Qwen/Qwen3-32B,gb200,fp8,agg,4000,1000,fp8,fp8,144,1,1,,1,0,,,,,,,,,,,,,,,17542.1,"
      "47.9,source_file=(path omitted); measured=2026-01-23\n";
  const auto rows = parse_serving_measured(csv, "m.csv");
  REQUIRE(rows);
  CHECK_FALSE(rows->front().concurrency_stated);
  CHECK(rows->front().config.concurrency == 144);
  CHECK(rows->front().system == "gb200-nvl72");
}

TEST_CASE("a disaggregated row splits the deployment's concurrency over its decode workers") {
  const std::string csv = std::string(kHeader) +
                          "r2,sglang,0.5.9,Qwen/Qwen3-32B,h200_sxm,fp8,disagg,8192,1024,fp8,fp8,,,,,,,,2,2,1,1,1,0,"
                          ",4,4,1,1,1,0,500,20,db; silicon_concurrency=256\n";
  const auto rows = parse_serving_measured(csv, "m.csv");
  REQUIRE(rows);
  const MeasuredServing& r = rows->front();
  CHECK(r.disaggregated);
  CHECK(r.prefill.tp == 2);
  CHECK(r.config.layout.tp == 4);
  CHECK(r.config.layout.ep == 1);  // 0 in the source: no expert parallel for a dense model
  const DisaggConfig d = disaggregated_config(r);
  CHECK(d.prefill_workers == 2);
  CHECK(d.decode_workers == 4);
  CHECK(d.decode.concurrency == 64);
}

TEST_CASE("a malformed row names the file, the line and the column") {
  const auto bad = parse_serving_measured(std::string(kHeader) +
                                              "r3,tgi,1,meta-llama/Llama-3.1-70B,h100_sxm,fp8,agg,1024,128,fp8,,8,2,1,1"
                                              ",,,,,,,,,,,,,,,,,10,5,x\n",
                                          "m.csv");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("m.csv:2: column backend") != std::string::npos);
  const auto model = parse_serving_measured(std::string(kHeader) +
                                                "r4,vllm,1,nobody/None-1B,h100_sxm,fp8,agg,1024,128,fp8,,8,2,1,1,,,,,,,"
                                                ",,,,,,,,,,10,5,x\n",
                                            "m.csv");
  REQUIRE_FALSE(model);
  CHECK(model.error().message.find("model_path") != std::string::npos);
  const auto ms = parse_serving_measured(std::string(kHeader) +
                                             "r5,vllm,1,meta-llama/Llama-3.1-70B,h100_sxm,fp8,agg,1024,128,fp8,,8,2,1,1"
                                             ",,,,,,,,,,,,,,,,,-3,5,x\n",
                                         "m.csv");
  REQUIRE_FALSE(ms);
  CHECK(ms.error().message.find("silicon_ttft_ms") != std::string::npos);
  CHECK_FALSE(parse_serving_measured("a,b\n1,2\n", "other.csv"));
}

TEST_CASE("the repository's measured set reads whole: 3,862 rows of three engines") {
  std::ifstream in(std::string(DGX_SOURCE_DIR) + "/configs/baselines/serving-measured.csv");
  std::stringstream text;
  text << in.rdbuf();
  const auto rows = parse_serving_measured(text.str(), "serving-measured.csv");
  REQUIRE(rows);
  CHECK(rows->size() == 3862);
}
