#include "settings.hpp"

#include <doctest/doctest.h>

#include "config_error.hpp"
#include "job.hpp"
#include "llm_host.hpp"
#include "params.hpp"
#include "plugin.hpp"

using namespace dgx::plugins::llm_finetune;
using FinetuneHost = dgx::testing::LlmHost<FinetuneWorkload, finetune_params>;

namespace {

FinetuneSettings read(const FinetuneHost& h) { return read_settings(dgx::sdk::Host(h.api())); }

std::string settings_error_of(const FinetuneHost& h) {
  return dgx::testing::config_error_of([&] { (void)read(h); });
}

}  // namespace

TEST_CASE("the llama70b-lora preset reads into methods, adapters, the data set and the shared training keys") {
  FinetuneHost h;
  h.use_preset("llama70b-lora");
  const FinetuneSettings s = read(h);
  CHECK(s.model == "llama3.1-70b");
  CHECK(s.methods ==
        std::vector<dgx::llm::FineTuneMethod>{dgx::llm::FineTuneMethod::lora, dgx::llm::FineTuneMethod::sft});
  CHECK(s.finetune.method == dgx::llm::FineTuneMethod::lora);  // project uses the first
  CHECK(s.finetune.lora.rank == 16);
  CHECK(s.finetune.lora.alpha == 32);
  CHECK(s.finetune.lora.targets == std::vector<dgx::llm::LoraTarget>{dgx::llm::LoraTarget::qkv});
  CHECK(s.finetune.packed);
  CHECK(s.finetune.avg_tokens_per_sample == 512);
  CHECK(s.dataset.tokens == doctest::Approx(100000.0 * 512 * 3));
  CHECK_FALSE(s.dataset.from_tokens);
  CHECK(s.train.gbs == 32);
  CHECK(s.train.seq_len == 4096);
  CHECK(s.gbs_per_gpu == 0);
}

TEST_CASE("finetune.tokens, when given, sizes the job instead of samples x average x epochs") {
  FinetuneHost h;
  h.set(key::tokens, 2e9);
  const FinetuneSettings s = read(h);
  CHECK(s.dataset.tokens == 2e9);
  CHECK(s.dataset.from_tokens);
}

TEST_CASE("bad input is a config error naming the key and the reason") {
  const std::pair<const char*, dgx::testing::FakeHost::Value> cases[] = {
      {key::method, std::vector<std::string>{"qlora"}},
      {key::method, std::vector<std::string>{}},
      {key::lora_rank, std::int64_t{0}},
      {key::lora_alpha, 0.0},
      {key::lora_targets, std::vector<std::string>{"lm_head"}},
      {key::lora_targets, std::vector<std::string>{}},
      {key::avg_tokens_per_sample, 0.0},
      {key::epochs, -1.0},
      {key::tokens, -5.0},
      {key::deadline_hours, 0.0},
      {key::tp, std::int64_t{0}}};
  for (const auto& c : cases) {
    const auto& k = c.first;  // not a structured binding: clang 14 (sanitizer build) cannot capture one
    const auto& value = c.second;
    FinetuneHost h;
    h.set(k, value);
    const std::string message = settings_error_of(h);
    CHECK_MESSAGE(message.find(k) != std::string::npos, k << ": " << message);
  }
  FinetuneHost empty;
  empty.set(key::samples, std::int64_t{0});
  CHECK(settings_error_of(empty) ==
        "the data set has no tokens: finetune.tokens is 0 and finetune.samples x "
        "finetune.avg_tokens_per_sample x finetune.epochs = 0 x 512 x 3 = 0; give the job's size "
        "in either");
  FinetuneHost target;
  target.set(key::lora_targets, std::vector<std::string>{"lm_head"});
  CHECK(settings_error_of(target).find("'lm_head' is not a module LoRA can wrap: qkv (attention QKV projection)") !=
        std::string::npos);
}
