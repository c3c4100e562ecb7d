// The catalog's data as the model speaks of it: models, systems, frameworks, precisions and prices are read by
// libs/catalog (dgx::catalog), and the performance model names them without the prefix.
#pragma once

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/embedded_configs.hpp"
#include "dgx/catalog/framework.hpp"
#include "dgx/catalog/model_catalog.hpp"
#include "dgx/catalog/model_config.hpp"
#include "dgx/catalog/precision.hpp"
#include "dgx/catalog/pricing.hpp"
#include "dgx/catalog/system_catalog.hpp"
#include "dgx/catalog/system_profile.hpp"
#include "dgx/llm/expected.hpp"

namespace dgx::llm {

using catalog::Activation;
using catalog::AttentionKind;
using catalog::CheckpointFormat;
using catalog::Efficiency;
using catalog::EmbeddedFile;
using catalog::FrameworkProfile;
using catalog::FsdpKind;
using catalog::KernelEfficiency;
using catalog::LayerGroup;
using catalog::LinearAttentionSizes;
using catalog::Mamba2Sizes;
using catalog::Mixer;
using catalog::Mlp;
using catalog::ModelConfig;
using catalog::OwnedClusterModel;
using catalog::PeakColumn;
using catalog::Precision;
using catalog::PriceChoice;
using catalog::PriceEntry;
using catalog::PricingCatalog;
using catalog::QuantizedPart;
using catalog::SelectivePolicy;
using catalog::Software;
using catalog::SystemProfile;
using catalog::WeightFormat;

using catalog::kAllPrecisions;
using catalog::kServePrecisions;

using catalog::apply_framework;
using catalog::casts_gemm_inputs;
using catalog::default_framework;
using catalog::device_name_matches;
using catalog::embedded_config;
using catalog::embedded_configs;
using catalog::find_framework;
using catalog::find_model;
using catalog::find_system;
using catalog::find_system_for_device;
using catalog::framework_names;
using catalog::gemm_operand_bytes;
using catalog::is_gemm_precision;
using catalog::load_system_file;
using catalog::model_aliases;
using catalog::model_names;
using catalog::parse_activation;
using catalog::parse_attention_kind;
using catalog::parse_framework;
using catalog::parse_model;
using catalog::parse_precision;
using catalog::parse_serve_precision;
using catalog::parse_system;
using catalog::peak_column;
using catalog::power_clock_scale;
using catalog::system_names;
using catalog::to_string;
using catalog::user_system_names;

}  // namespace dgx::llm
