// llm-inference's launch files (dgxhost --emit DIR) with hostile names: the first byte picks the deployment
// (trtllm-serve, vllm serve or sglang.launch_server, one replica or disaggregated) and whether the first value is
// serve.checkpoint or the
// model's name that stands for it; the rest are NUL-separated values for the checkpoint, the model's, the system's,
// the draft model's and the lengths file's names. A name is either refused (it holds a line break, a control
// character or invalid UTF-8: InvalidArgument) or comes back out of every script, as a shell reads it, as exactly
// one literal word where the engine and aiperf take it, with no line or command added; in the YAML it is one
// double-quoted scalar.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>
#include <dgx/sdk/toml_literal.hpp>

#include "launch_files.hpp"
#include "llm_host.hpp"
#include "params.hpp"
#include "plugin.hpp"
#include "shell_words.hpp"

namespace {

namespace inference = dgx::plugins::llm_inference;
namespace key = inference::key;
namespace text = dgx::sdk::text;
using dgx::fuzz::ShellCommand;
using InferenceHost = dgx::testing::LlmHost<inference::InferenceWorkload, inference::inference_params>;

void require(bool holds) {
  if (!holds) {
    __builtin_trap();
  }
}

struct Deployment {
  inference::InferenceSettings settings;
  dgx::llm::workload::ServeAssumptions assumptions;
  dgx::llm::ServeProjection projection;
  inference::LaunchFiles files;  // with the catalog's own names: the shape every hostile variant keeps
};

Deployment deployment(const char* engine, bool disaggregated) {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::speculative, std::string("draft"));
  h.set(key::draft_model, std::string("llama3.1-8b"));
  h.set(key::draft_tokens, std::int64_t{2});
  h.set(key::engine, std::string(engine));
  if (disaggregated) {
    h.set(key::mode, std::string("disaggregated"));
    h.set(key::prefill_tp, std::int64_t{4});
    h.set(key::prefill_workers, std::int64_t{1});
    h.set(key::tp, std::int64_t{4});
    h.set(key::decode_workers, std::int64_t{1});
  }
  const inference::Serving serving{dgx::sdk::Host(h.api())};
  Deployment d{serving.settings(), serving.assumptions(), serving.project_configuration(), {}};
  d.projection.config.lengths =
      std::make_shared<dgx::llm::LengthTable>(dgx::llm::LengthTable{"lengths.csv", {{100, 100, 1}}});
  d.files = inference::launch_files(d.settings, d.assumptions, d.projection);
  return d;
}

const Deployment& base(int which) {
  static const std::vector<Deployment> all{deployment("trtllm", false), deployment("trtllm", true),
                                           deployment("vllm", false),   deployment("vllm", true),
                                           deployment("sglang", false), deployment("sglang", true)};
  return all[static_cast<std::size_t>(which)];
}

struct Names {
  std::string checkpoint, model, system, draft, lengths;
};

Names names_of(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> parts(1);
  for (std::size_t i = 1; i < size && parts.size() <= 5; ++i) {
    if (data[i] == 0) {
      parts.emplace_back();
    } else {
      parts.back() += static_cast<char>(data[i]);
    }
  }
  parts.resize(5);
  return {parts[0], parts[1], parts[2], parts[3], parts[4]};
}

std::size_t lines(const std::string& s) { return text::split(s, '\n').size(); }

const std::string* word_after(const ShellCommand& c, const std::string& flag) {
  for (std::size_t i = 0; i + 1 < c.words.size(); ++i) {
    if (c.words[i].text == flag) {
      return &c.words[i + 1].text;
    }
  }
  return nullptr;
}

// The engine's and aiperf's commands of a script: the checkpoint a literal word where each takes it, nothing
// expanding, no command ended by anything but a line's end or '&', and as many commands as the catalog's names give.
void check_script(const std::string& script, const std::string& shape, const std::string& checkpoint,
                  const std::string& draft) {
  const auto s = dgx::fuzz::shell_commands(script);
  require(!s.unterminated);
  require(s.commands.size() == dgx::fuzz::shell_commands(shape).commands.size());
  for (const ShellCommand& c : s.commands) {
    require(c.ended_by == '\n' || c.ended_by == '&' || c.ended_by == 0);
    for (const auto& w : c.words) {
      require(!w.expands);
    }
    std::size_t first = 0;
    while (first < c.words.size() && text::starts_with(c.words[first].text, "CUDA_VISIBLE_DEVICES=")) {
      ++first;
    }
    require(first < c.words.size());
    const std::string& program = c.words[first].text;
    if (program == "trtllm-serve" && c.words[first + 1].text != "disaggregated") {
      require(c.words[first + 1].text == checkpoint);
    } else if (program == "vllm") {
      require(c.words[first + 1].text == "serve" && c.words[first + 2].text == checkpoint);
      const std::string* json = word_after(c, "--speculative-config");
      require(json != nullptr && text::starts_with(*json, "{\"model\": " + dgx::sdk::toml_literal(draft) + ", "));
    } else if (program == "python3" && c.words.size() > first + 2 &&
               c.words[first + 2].text == "sglang.launch_server") {
      require(c.words[first + 1].text == "-m");
      const std::string* model = word_after(c, "--model-path");
      const std::string* drafter = word_after(c, "--speculative-draft-model-path");
      require(model != nullptr && *model == checkpoint && drafter != nullptr && *drafter == draft);
    } else if (program == "python3") {
      require(c.words.size() > first + 2 && c.words[first + 2].text == "sglang_router.launch_router");
    } else if (program == "aiperf") {
      const std::string* model = word_after(c, "--model");
      const std::string* tokenizer = word_after(c, "--tokenizer");
      require(model != nullptr && *model == checkpoint && tokenizer != nullptr && *tokenizer == checkpoint);
    } else {
      require(program == "set" || program == "wait" || program == "trtllm-serve");
    }
  }
}

// One YAML document with as many lines as the catalog's names give, the draft checkpoint one double-quoted scalar.
void check_yaml(const std::string& yaml, const std::string& shape, const std::string& draft) {
  require(lines(yaml) == lines(shape));
  for (const std::string& line : text::split(yaml, '\n')) {
    require(line.rfind("---", 0) != 0 && line.rfind("...", 0) != 0);
    if (text::starts_with(text::trim(line), "speculative_model_dir:")) {
      require(line == "  speculative_model_dir: " + dgx::sdk::toml_literal(draft));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Bits 0-1: trtllm / trtllm disaggregated / vllm / vllm disaggregated; bit 3 turns either into SGLang's.
  const int which = size > 0 ? ((data[0] & 8) != 0 ? 4 + (data[0] & 1) : data[0] & 3) : 0;
  const bool as_model = size > 0 && (data[0] & 4) != 0;
  const Names n = names_of(data, size);
  Deployment d = base(which);
  (as_model ? d.settings.model : d.settings.checkpoint) = n.checkpoint;
  if (as_model) {
    d.settings.checkpoint.clear();
  }
  d.assumptions.model.name = n.model;
  d.assumptions.system.name = n.system;
  auto draft = std::make_shared<dgx::llm::ModelConfig>(d.assumptions.model);
  draft->name = n.draft;
  d.settings.config.speculative.draft_model = draft;
  d.projection.config.lengths = std::make_shared<dgx::llm::LengthTable>(dgx::llm::LengthTable{n.lengths, {{1, 1, 1}}});
  const std::string checkpoint = d.settings.checkpoint.empty()
                                     ? inference::default_checkpoint(d.settings.model, d.projection.config.precision)
                                     : d.settings.checkpoint;
  const std::string draft_checkpoint = inference::default_checkpoint(n.draft, d.settings.config.precision);
  bool refusable = false;
  for (const std::string* name : {&checkpoint, &n.model, &n.system, &n.draft, &draft_checkpoint, &n.lengths}) {
    refusable = refusable || !text::one_line_problem(*name).empty();
  }
  // A checkpoint the engine's command line would read as an option.
  refusable = refusable || text::starts_with(checkpoint, "-") || text::starts_with(draft_checkpoint, "-");
  inference::LaunchFiles files;
  try {
    files = inference::launch_files(d.settings, d.assumptions, d.projection);
  } catch (const dgx::sdk::InvalidArgument& e) {
    require(refusable && std::string(e.what()).find("cannot carry") != std::string::npos);
    return 0;
  }
  require(!refusable);
  const inference::LaunchFiles& shape = base(which).files;
  require(files.files.size() == shape.files.size());
  for (std::size_t i = 0; i < files.files.size(); ++i) {
    const auto& [name, content] = files.files[i];
    require(name == shape.files[i].first && lines(content) == lines(shape.files[i].second));
    if (inference::launch_file_mode(name) == 0755) {
      check_script(content, shape.files[i].second, checkpoint, draft_checkpoint);
    } else {
      check_yaml(content, shape.files[i].second, draft_checkpoint);
    }
  }
  return 0;
}
