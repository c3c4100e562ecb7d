#include "job.hpp"

#include <doctest/doctest.h>

#include "config_error.hpp"
#include "dgx/llm/catalog.hpp"
#include "llm_host.hpp"
#include "params.hpp"
#include "plugin.hpp"

using namespace dgx::plugins::llm_finetune;
using FinetuneHost = dgx::testing::LlmHost<FinetuneWorkload, finetune_params>;

namespace {

FinetuneJob job_of(const FinetuneHost& h, const char* model = "llama3.1-70b") {
  return resolve_job(read_settings(dgx::sdk::Host(h.api())), dgx::llm::find_model(model).value());
}

std::string error_of(const FinetuneHost& h, const char* model = "llama3.1-70b") {
  return dgx::testing::config_error_of([&] { (void)job_of(h, model); });
}

}  // namespace

TEST_CASE("packed samples waste half a sample per pack, the job is tokens processed, sequences and steps") {
  FinetuneHost h;
  h.use_preset("llama70b-lora");
  const FinetuneJob job = job_of(h);
  CHECK(job.seq_len == 4096);
  CHECK(job.dataset_tokens == doctest::Approx(153.6e6));
  CHECK(job.efficiency == doctest::Approx(1 - 0.5 * 512 / 4096.0));
  CHECK(job.processed_tokens == doctest::Approx(153.6e6 / job.efficiency));
  CHECK(job.sequences == doctest::Approx(job.processed_tokens / 4096));
  CHECK(job.steps == doctest::Approx(job.sequences / 32));
}

TEST_CASE("unpacked samples are padded to the sequence: the padding is processed too") {
  FinetuneHost h;
  h.use_preset("llama70b-lora");
  h.set(key::packed, false);
  const FinetuneJob job = job_of(h);
  CHECK(job.efficiency == doctest::Approx(0.125));
  CHECK(job.processed_tokens == doctest::Approx(8 * 153.6e6));
}

TEST_CASE("what the model cannot take is a config error: rank above hidden, a module it lacks, long samples") {
  FinetuneHost rank;
  rank.set(key::lora_rank, std::int64_t{20000});
  CHECK(error_of(rank, "llama3.1-8b")
            .find("LoRA rank 20000 must lie between 1 and the hidden size of llama3.1-8b "
                  "(4096)") != std::string::npos);
  FinetuneHost moe;
  moe.set(key::lora_targets, std::vector<std::string>{"qkv", "fc2"});
  CHECK(error_of(moe, "mixtral-8x7b").find("mixtral-8x7b has no fc2 module: its MLP is 8 experts") !=
        std::string::npos);
  FinetuneHost sft_only = FinetuneHost();
  sft_only.set(key::method, std::vector<std::string>{"sft"});
  sft_only.set(key::lora_targets, std::vector<std::string>{"fc2"});
  CHECK(error_of(sft_only, "mixtral-8x7b").empty());  // no LoRA asked for: its targets do not matter
  FinetuneHost long_samples;
  long_samples.set(key::avg_tokens_per_sample, 9000.0);
  CHECK(error_of(long_samples)
            .find("finetune.avg_tokens_per_sample: samples of 9000 tokens on average do not fit "
                  "sequences of 4096 tokens") != std::string::npos);
}
