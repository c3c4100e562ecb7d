// `dgxhost model show PATH|NAME [--format text|toml] [--name NAME]`: reads the model through the catalog
// (catalog::find_model: a catalog name or a config.json path) and prints what was understood of it: the layers and
// their kinds, the attention, the MLP or experts, the state-space and linear-attention sizes, the vocabulary and
// context, the parameters (catalog::count_parameters) and the checkpoint's precision; or, --format toml, the
// configs/models/<name>.toml the catalog reads back. The host names no model: every word here is the catalog's.
#include "model_command.hpp"

#include <cmath>
#include <iostream>

#include <boost/program_options.hpp>

#include "dgx/catalog/model_catalog.hpp"
#include "dgx/catalog/model_params.hpp"
#include "dgx/catalog/model_toml.hpp"
#include "dgx/core/support/text.hpp"
#include "session.hpp"
#include "subcommand.hpp"

namespace po = boost::program_options;

namespace dgx {

namespace {

using catalog::LayerGroup;
using catalog::Mixer;
using catalog::Mlp;
using catalog::ModelConfig;

struct ModelCli {
  std::vector<std::string> words;  // "show", then the model
  std::string format = "text";
  std::string name;
  std::vector<std::string> config_dirs;
  bool help = false;
};

po::options_description model_options(ModelCli& c) {
  po::options_description d(
      "dgxhost model show PATH|NAME: what dgxhost understands of a model, a catalog name or a Hugging Face "
      "config.json (PATH/config.json, or the folder holding it with its hf_quant_config.json)");
  d.add_options()("help,h", po::bool_switch(&c.help), "show this help and exit")(
      "format", po::value<std::string>(&c.format)->default_value("text")->value_name("FMT"),
      "text, or toml: the configs/models/<name>.toml the catalog reads back (a --config-dir's models/ takes it)")(
      "name", po::value<std::string>(&c.name)->value_name("NAME"),
      "the model's catalog name (with --format toml, the file's stem); default: the repository's name")(
      "words", po::value<std::vector<std::string>>(&c.words), "show PATH|NAME");
  add_config_dir_option(d, c.config_dirs);
  return d;
}

Expected<ModelCli> parse_model_cli(int argc, const char* const* argv) {
  ModelCli c;
  const po::options_description d = model_options(c);
  po::positional_options_description positional;
  positional.add("words", -1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(d).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return Failure{ExitCode::usage, std::string("model: ") + e.what() + " (dgxhost model --help)"};
  }
  if (c.help) {
    return c;
  }
  if (c.words.size() != 2 || c.words[0] != "show") {
    return Failure{ExitCode::usage, "model needs what to show: dgxhost model show PATH/config.json|NAME"};
  }
  if (c.format != "text" && c.format != "toml") {
    return Failure{ExitCode::usage, "model show: --format " + c.format + ": expected text or toml"};
  }
  return c;
}

std::string count(double n) { return text::si_count(n); }

/// "mamba2, no MLP" / "attention (window 128), MoE": one group's kind.
std::string group_kind(const LayerGroup& g, const ModelConfig& m) {
  std::string kind = g.mixer == Mixer::none ? std::string("no mixer") : std::string(catalog::to_string(g.mixer));
  if (g.window > 0) {
    kind += " (window " + std::to_string(g.window) + ")";
  }
  if (g.chunk > 0) {
    kind += " (chunks of " + std::to_string(g.chunk) + ")";
  }
  if (g.kv_groups > 0) {
    kind += " (" + std::to_string(g.kv_groups) + " KV heads)";
  }
  switch (g.mlp) {
  case Mlp::none: return kind + ", no MLP";
  case Mlp::moe: return kind + ", MoE";
  case Mlp::dense: break;
  }
  return kind + ", dense MLP " + std::to_string(g.ffn > 0 ? g.ffn : m.dense_mlp_ffn());
}

std::string layers_line(const ModelConfig& m) {
  std::string line = std::to_string(m.layers);
  if (!m.grouped()) {
    return line + (m.dense_layers > 0 ? " (the first " + std::to_string(m.dense_layers) + " with a dense MLP)" : "");
  }
  line += ":";
  for (const LayerGroup& g : m.layer_groups) {
    line += "\n    " + std::to_string(g.count) + " x " + group_kind(g, m);
  }
  return line;
}

std::string attention_line(const ModelConfig& m) {
  std::string line = std::to_string(m.heads) + " heads, " + std::to_string(m.kv_heads()) + " KV heads, head dim " +
                     std::to_string(m.head_dim());
  if (m.mla()) {
    line += "; latent attention (MLA): query rank " + std::to_string(m.q_lora_rank) + ", key/value rank " +
            std::to_string(m.kv_lora_rank) + ", " + std::to_string(m.qk_nope_head_dim) + " + " +
            std::to_string(m.qk_rope_head_dim) + " rotary, value dim " + std::to_string(m.v_head_dim);
  }
  if (m.sliding_window > 0) {
    line += "; sliding window " + std::to_string(m.sliding_window) + " on " +
            std::to_string(std::lround(m.sliding_window_layers * m.layers)) + " of the " + std::to_string(m.layers) +
            " layers";
  }
  if (m.attention_chunk > 0) {
    line += "; chunks of " + std::to_string(m.attention_chunk);
  }
  if (m.sparse_topk > 0) {
    line += "; sparse: each query attends to the top " + std::to_string(m.sparse_topk) + " keys an indexer of " +
            std::to_string(m.indexer_heads) + " heads x " + std::to_string(m.indexer_head_dim) + " picks";
  }
  line += m.qk_norm ? "; q/k norms" : "";
  line += m.attention_output_gate ? "; output gate" : "";
  return line + (m.linear_bias ? "; biases" : "");
}

std::string mlp_line(const ModelConfig& m) {
  const std::string activation(catalog::to_string(m.activation));
  if (!m.moe()) {
    return activation + ", ffn " + std::to_string(m.ffn);
  }
  std::string line = activation + "; MoE: " + std::to_string(m.experts) + " experts of " + std::to_string(m.ffn) +
                     ", top-" + std::to_string(m.top_k);
  if (m.shared_experts > 0) {
    line += ", " + std::to_string(m.shared_experts) + " shared";
  }
  if (m.dense_layers > 0) {
    line += "; dense MLP " + std::to_string(m.dense_mlp_ffn());
  }
  return line + (m.glu_clamp > 0 ? "; GLU clamped at " + text::format_number(m.glu_clamp, 2) : "");
}

bool has_mixer(const ModelConfig& m, Mixer mixer) {
  if (!m.grouped()) {
    return m.mixer == mixer;
  }
  for (const LayerGroup& g : m.layer_groups) {
    if (g.mixer == mixer) {
      return true;
    }
  }
  return false;
}

std::string parameters_line(const ModelConfig& m) {
  const catalog::ParameterCount c = catalog::count_parameters(m);
  std::string line = count(c.total) + " total, " + count(c.active) + " active (" +
                     count(c.active - c.embedding - c.output_layer) + " without the embedding and output layer)";
  if (c.mtp > 0) {
    line += "; MTP modules " + count(c.mtp) + " besides";
  }
  return line + (c.extra > 0 ? "; " + count(c.extra) + " of them outside the decoder (vision)" : "");
}

std::string shown(const ModelConfig& m) {
  std::string out = "Model: " + m.display + " (" + m.name + ")\n";
  out += "Source: " + m.source + "\n";
  out += "Layers: " + layers_line(m) + "\n";
  out += "Hidden: " + std::to_string(m.hidden) + "\n";
  if (has_mixer(m, Mixer::attention)) {
    out += "Attention: " + attention_line(m) + "\n";
  }
  if (has_mixer(m, Mixer::linear_attention)) {
    const catalog::LinearAttentionSizes& la = m.linear_attention;
    out += "Linear attention: " + std::to_string(la.key_heads) + " key heads x " + std::to_string(la.key_head_dim) +
           ", " + std::to_string(la.value_heads) + " value heads x " + std::to_string(la.value_head_dim) +
           ", convolution " + std::to_string(la.conv_kernel) + "\n";
  }
  if (has_mixer(m, Mixer::mamba2)) {
    const catalog::Mamba2Sizes& s = m.mamba;
    out += "Mamba-2: " + std::to_string(s.heads) + " heads x " + std::to_string(s.head_dim) + ", state " +
           std::to_string(s.state) + ", " + std::to_string(s.groups) + " groups, convolution " +
           std::to_string(s.conv_kernel) + ", chunk " + std::to_string(s.chunk) + "\n";
  }
  out += "MLP: " + mlp_line(m) + "\n";
  if (m.mtp_layers > 0) {
    out += "Multi-token prediction: " + std::to_string(m.mtp_layers) + " module(s)\n";
  }
  out += "Vocabulary: " + std::to_string(m.vocab) + (m.tied_embeddings ? " (tied embeddings)" : "") + "\n";
  out += "Context: " + std::to_string(m.context) + " tokens; default training sequence " + std::to_string(m.seq_len) +
         "\n";
  out += "Parameters: " + parameters_line(m) + "\n";
  out += "Checkpoint: " + std::string(catalog::to_string(m.checkpoint.weights));
  if (m.checkpoint.weights != catalog::WeightFormat::bf16) {
    out += " (" + std::string(catalog::to_string(m.checkpoint.quantized)) + " quantized)";
  }
  return out + "\n";
}

}  // namespace

int run_model(int argc, const char* const* argv) {
  auto cli = parse_model_cli(argc, argv);
  if (!cli) {
    return print_failure("model", cli.error());
  }
  if (cli->help) {
    ModelCli scratch;
    std::cout << model_options(scratch)
              << "\nExit codes: 0 shown, 2 usage error, an unknown model or a config.json that cannot be read.\n";
    return 0;
  }
  if (auto paths = use_config_dirs(cli->config_dirs); !paths) {
    return print_failure("model", paths.error());
  }
  auto model = catalog::find_model(cli->words[1]);
  if (!model) {
    return print_failure("model show", Failure{ExitCode::usage, model.error().message});
  }
  if (!cli->name.empty()) {
    model->name = cli->name;
  }
  std::cout << (cli->format == "toml" ? catalog::model_toml(*model) : shown(*model)) << std::flush;
  return 0;
}

}  // namespace dgx
