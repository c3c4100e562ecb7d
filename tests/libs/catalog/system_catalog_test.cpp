#include "dgx/catalog/framework.hpp"
#include "dgx/catalog/model_catalog.hpp"
#include "dgx/catalog/precision.hpp"
#include "dgx/catalog/pricing.hpp"
#include "dgx/catalog/system_catalog.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

using namespace dgx::catalog;

namespace {

// A complete system file with made-up values (the real ones live in configs/systems only).
constexpr const char* kSystem = R"(name = "x"
display = "X"
source = "test"
device_names = ["X 1000", "X"]
[peak_tflops]
bf16 = 100
fp8 = 200
fp4 = 0
[gpu]
sms = 10
hbm_gib = 16
hbm_tb_s = 1.5
tdp_w = 300
[network]
nvlink_gb_s = 50
nvlink_domain = 4
nic_gb_s = 12.5
[efficiency]
gemm_ceiling_bf16 = 0.8
gemm_ceiling_fp8 = 0.7
gemm_ceiling_fp4 = 0
sustained_compute = 0.9
gpu_speed_cv = 0.02
gemm_tile_m = 128
gemm_tile_n = 256
attention_fwd = 0.6
attention_bwd = 0.5
memory_bw = 0.8
kernel_overhead_us = 4
nvlink_bus = 0.8
nvlink_p2p = 0.9
nic = 0.9
nvlink_hop_latency_us = 1
network_hop_latency_us = 5
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("the embedded system catalog holds every system with its required fields and device names") {
  const std::vector<std::string> expected = {
      "a100-sxm-80gb", "b200",     "b300",      "gb200-nvl72", "gb300-nvl72",
      "gh200",         "h100-nvl", "h100-pcie", "h100-sxm",    "h100-sxm-96gb-hbm2e-500w",
      "h200-sxm",      "h800"};
  // A variant of a product run differently (a power limit) reports its product's CUDA device name, so device-name
  // matching cannot tell it apart: it names no device and is chosen by name.
  const std::vector<std::string> variants = {"h100-sxm-96gb-hbm2e-500w"};
  CHECK(system_names() == expected);
  for (const std::string& name : expected) {
    CAPTURE(name);
    const auto s = find_system(name);
    REQUIRE_MESSAGE(s.has_value(), (s ? "" : s.error().message));
    CHECK(s->name == name);
    CHECK_FALSE(s->source.empty());
    const bool variant = std::find(variants.begin(), variants.end(), name) != variants.end();
    CHECK(s->device_names.empty() == variant);
    CHECK(s->peak_bf16_tflops > 0);
    CHECK(s->hbm_gib > 0);
    CHECK(s->hbm_tb_s > 0);
    CHECK(s->nvlink_gb_s > 0);
    CHECK(s->nvlink_domain >= 2);
    CHECK(s->nic_gb_s > 0);
    CHECK(s->tdp_w > 0);
    CHECK(s->efficiency.gemm_ceiling_bf16 > 0);
    CHECK(s->efficiency.memory_bw > 0);
  }
}

TEST_CASE("a system file's keys land in the profile") {
  const auto s = parse_system(kSystem, "x.toml");
  REQUIRE_MESSAGE(s.has_value(), (s ? "" : s.error().message));
  CHECK(s->display == "X");
  CHECK(s->device_names == std::vector<std::string>{"X 1000", "X"});
  CHECK(s->dense_peak_flops(Precision::bf16) == doctest::Approx(100e12));
  CHECK(s->dense_peak_flops(Precision::fp8) == doctest::Approx(200e12));
  CHECK(s->sms == 10);
  CHECK(s->hbm_bytes() == doctest::Approx(16.0 * (1 << 30)));
  CHECK(s->hbm_tb_s == doctest::Approx(1.5));
  CHECK(s->nvlink_gb_s == 50);
  CHECK(s->nvlink_domain == 4);
  CHECK(s->nic_gb_s == doctest::Approx(12.5));
  CHECK(s->tdp_w == 300);
  CHECK(s->efficiency.sustained_compute == doctest::Approx(0.9));
  CHECK(s->efficiency.network_hop_latency_us == 5);
}

TEST_CASE("precision support follows the tensor cores: no FP8 on A100, block-scaled formats only on Blackwell") {
  CHECK_FALSE(find_system("a100-sxm-80gb")->supports(Precision::fp8));
  CHECK(find_system("h100-sxm")->supports(Precision::fp8));
  CHECK_FALSE(find_system("h100-sxm")->supports(Precision::nvfp4));
  CHECK_FALSE(find_system("h200-sxm")->supports(Precision::mxfp8));
  CHECK(find_system("b200")->supports(Precision::mxfp8));
  CHECK(find_system("gb300-nvl72")->dense_peak_flops(Precision::nvfp4) >
        find_system("gb200-nvl72")->dense_peak_flops(Precision::nvfp4));
  CHECK(find_system("gb200-nvl72")->nvlink_domain == 72);
}

TEST_CASE("a system that inherits takes what it does not set from its base, key by key") {
  const std::string child = R"(name = "child"
inherits = "h100-sxm"
display = "Child"
source = "test"
device_names = ["Child GPU"]
[peak_tflops]
bf16 = 500
[gpu]
hbm_gib = 40
[efficiency]
gemm_ceiling_fp8 = 0.5
)";
  const auto s = parse_system(child, "child.toml");
  REQUIRE_MESSAGE(s.has_value(), (s ? "" : s.error().message));
  const auto base = find_system("h100-sxm");
  CHECK(s->name == "child");
  CHECK(s->display == "Child");
  CHECK(s->device_names == std::vector<std::string>{"Child GPU"});  // never inherited
  CHECK(s->peak_bf16_tflops == 500);
  CHECK(s->peak_fp8_tflops == base->peak_fp8_tflops);
  CHECK(s->hbm_gib == 40);
  CHECK(s->sms == base->sms);
  CHECK(s->nvlink_domain == base->nvlink_domain);
  CHECK(s->efficiency.gemm_ceiling_fp8 == 0.5);
  CHECK(s->efficiency.gemm_ceiling_bf16 == base->efficiency.gemm_ceiling_bf16);
  CHECK(s->efficiency.sustained_compute == base->efficiency.sustained_compute);
}

TEST_CASE("the catalog's inheriting systems have H100's efficiencies except where they say otherwise") {
  const Efficiency h100 = find_system("h100-sxm")->efficiency;
  for (const char* name : {"h200-sxm", "h100-pcie", "h100-nvl", "gh200", "h800", "b200", "a100-sxm-80gb"}) {
    CAPTURE(name);
    const Efficiency e = find_system(name)->efficiency;
    CHECK(e.gemm_ceiling_bf16 == h100.gemm_ceiling_bf16);
    if (std::string_view(name) != "b200") {
      CHECK(e.sustained_compute == h100.sustained_compute);
    }
    CHECK(e.gpu_speed_cv == h100.gpu_speed_cv);
    CHECK(e.attention_fwd == h100.attention_fwd);
    CHECK(e.nvlink_bus == h100.nvlink_bus);
    CHECK(e.network_hop_latency_us == h100.network_hop_latency_us);
  }
  CHECK(find_system("a100-sxm-80gb")->efficiency.gemm_ceiling_fp8 == 0);
  // B200 sets its own sustained compute and FP4 ceiling, calibrated on configs/baselines/calibration-2.toml.
  CHECK(find_system("b200")->efficiency.sustained_compute != h100.sustained_compute);
  CHECK(find_system("b200")->efficiency.gemm_ceiling_fp4 != h100.gemm_ceiling_fp8);
}

TEST_CASE("an unknown base or an inheritance cycle is an error naming the file and the key") {
  const auto unknown = parse_system(replaced(kSystem, "display", "inherits = \"tpu-v5\"\ndisplay"), "x.toml");
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().message.starts_with("x.toml:"));
  CHECK(unknown.error().message.find(": key 'inherits': unknown system 'tpu-v5'") != std::string::npos);
  const auto cycle = parse_system(replaced(kSystem, "display", "inherits = \"x\"\ndisplay"), "x.toml");
  REQUIRE_FALSE(cycle.has_value());
  CHECK(cycle.error().message == "x.toml:2:12: key 'inherits' is \"x\", which inherits back: x -> x");
}

TEST_CASE("a malformed system file reports the file and the key") {
  const auto s = parse_system("name = \"x\"\ndisplay = \"x\"\nsource = \"x\"\n[peak_tflops]\nbf16 = 10\n", "x.toml");
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().message == "x.toml:4:1: key 'peak_tflops.fp8' is missing");
  const auto empty = parse_system(replaced(kSystem, "[\"X 1000\", \"X\"]", "[\"\"]"), "x.toml");
  REQUIRE_FALSE(empty.has_value());
  CHECK(empty.error().message.starts_with("x.toml:"));
  CHECK(empty.error().message.find(": key 'device_names' holds an empty pattern") != std::string::npos);
}

TEST_CASE("an efficiency outside its physical range is rejected with the range") {
  const auto s = parse_system(replaced(kSystem, "gemm_ceiling_bf16 = 0.8", "gemm_ceiling_bf16 = 1.5"), "x.toml");
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().message.starts_with("x.toml:"));
  CHECK(s.error().message.find(": key 'efficiency.gemm_ceiling_bf16' is 1.5") != std::string::npos);
}

TEST_CASE("an unknown system is an error that lists the catalog") {
  const auto s = find_system("tpu-v5");
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().message.find("unknown system 'tpu-v5'. The catalog has: a100-sxm-80gb") == 0);
}

TEST_CASE("a device name pattern matches whole words, ignoring case") {
  CHECK(device_name_matches("NVIDIA H100 80GB HBM3", "H100"));
  CHECK(device_name_matches("NVIDIA H100 PCIe", "h100 pcie"));
  CHECK(device_name_matches("NVIDIA A100-SXM4-80GB", "A100"));
  CHECK(device_name_matches("NVIDIA A100-PCIE-40GB", "A100"));
  CHECK_FALSE(device_name_matches("NVIDIA GH200 480GB", "H200"));
  CHECK_FALSE(device_name_matches("NVIDIA GB200", "B200"));
  CHECK_FALSE(device_name_matches("NVIDIA RTX A1000", "A100"));
  CHECK_FALSE(device_name_matches("NVIDIA H100", "H100 PCIe"));
  CHECK_FALSE(device_name_matches("NVIDIA H100", ""));
}

TEST_CASE("a CUDA device name finds its system profile, the most specific pattern winning") {
  const std::pair<const char*, const char*> cases[] = {{"NVIDIA H100 80GB HBM3", "h100-sxm"},
                                                       {"NVIDIA H100 PCIe", "h100-pcie"},
                                                       {"NVIDIA H100 NVL", "h100-nvl"},
                                                       {"NVIDIA H200", "h200-sxm"},
                                                       {"NVIDIA GH200 480GB", "gh200"},
                                                       {"NVIDIA H800", "h800"},
                                                       {"NVIDIA B200", "b200"},
                                                       {"NVIDIA GB200", "gb200-nvl72"},
                                                       {"NVIDIA GB300", "gb300-nvl72"},
                                                       {"NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"},
                                                       {"NVIDIA A100-PCIE-40GB", "a100-sxm-80gb"}};
  for (const auto& c : cases) {
    const auto& device = c.first;  // not a structured binding: clang 14 cannot CAPTURE one
    const auto& system = c.second;
    CAPTURE(device);
    const auto found = find_system_for_device(device);
    REQUIRE_MESSAGE(found.has_value(), (found ? "" : found.error().message));
    CHECK(found->name == system);
  }
  const auto unknown = find_system_for_device("NVIDIA RTX A1000");
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().message ==
        "no system profile in configs/systems lists a device name matching 'NVIDIA RTX A1000' (device_names)");
}

TEST_CASE("no two systems of the catalog claim the same device name pattern") {
  std::set<std::string> seen;
  for (const std::string& name : system_names()) {
    const auto system = find_system(name);
    REQUIRE(system.has_value());
    for (std::string pattern : system->device_names) {
      std::transform(pattern.begin(), pattern.end(), pattern.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      CAPTURE(name);
      CAPTURE(pattern);
      CHECK(seen.insert(pattern).second);
    }
  }
}

TEST_CASE("b300: Blackwell Ultra in an 8-GPU node, its architecture, host link and faster FP4") {
  const SystemProfile b300 = *find_system("b300");
  CHECK(b300.architecture == "blackwell-ultra");
  CHECK(b300.nvlink_domain == 8);
  CHECK(b300.nic_gb_s == 100);  // ConnectX-8, 800 Gb/s per GPU
  CHECK(b300.peak_fp4_tflops > 1.4 * find_system("b200")->peak_fp4_tflops);
  CHECK(b300.host_link_gb_s == 128);
  CHECK(find_system("h100-sxm")->architecture == "hopper");  // derived from the formats it supports
  CHECK(find_system("h100-sxm")->host_link_gb_s == 64);      // PCIe 5.0 x16 unless the file names one
  CHECK(find_system("gb200-nvl72")->host_link_gb_s == 225);  // NVLink-C2C
}

TEST_CASE("a power limit below the TDP slows the sustained compute clock by the cube root of the power ratio") {
  CHECK(power_clock_scale(700, 700) == 1);
  CHECK(power_clock_scale(800, 700) == 1);
  CHECK(power_clock_scale(500, 700) == doctest::Approx(0.8939).epsilon(1e-3));
  const SystemProfile meta = find_system("h100-sxm-96gb-hbm2e-500w").value();
  const SystemProfile h100 = find_system("h100-sxm").value();
  CHECK(meta.power_cap_w == 500);
  CHECK(meta.tdp_w == 700);
  CHECK(meta.efficiency.sustained_compute ==
        doctest::Approx(h100.efficiency.sustained_compute * power_clock_scale(500, 700)));
  CHECK(meta.hbm_gib == 95);
  CHECK(meta.hbm_tb_s == 2.4);
  CHECK(meta.peak_bf16_tflops == h100.peak_bf16_tflops);  // the same GH100 compute
  CHECK(meta.efficiency.memory_bw == h100.efficiency.memory_bw);
}

namespace {
/// A folder of user system files under the test's temporary directory, removed at the end.
struct SystemFolder {
  std::filesystem::path dir;
  explicit SystemFolder(std::string_view name)
      : dir(std::filesystem::temp_directory_path() / ("dgx-systems-" + std::string(name))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~SystemFolder() { std::filesystem::remove_all(dir); }
  SystemFolder(const SystemFolder&) = delete;
  SystemFolder& operator=(const SystemFolder&) = delete;
  std::filesystem::path write(std::string_view file, std::string_view text) const {
    const std::filesystem::path path = dir / file;
    std::ofstream(path) << text;
    return path;
  }
};
constexpr std::string_view kVariant = R"(name = "h100-mine"
inherits = "h100-sxm"
display = "our H100 at 600 W with 200 Gb/s per GPU"
source = "our datasheet"
[gpu]
tdp_w = 700
power_cap_w = 600
[network]
nic_gb_s = 25
)";
}  // namespace

TEST_CASE("a user's system file inherits a catalog system and changes what differs") {
  const SystemFolder folder("variant");
  const auto path = folder.write("h100-mine.toml", kVariant);
  const auto mine = load_system_file(path);
  REQUIRE_MESSAGE(mine.has_value(), (mine ? "" : mine.error().message));
  CHECK(mine->nic_gb_s == 25);
  CHECK(mine->hbm_gib == 80);  // H100 SXM's
  CHECK(mine->efficiency.sustained_compute ==
        doctest::Approx(find_system("h100-sxm")->efficiency.sustained_compute * power_clock_scale(600, 700)));
  // By name from the folder, by path, and a sibling inheriting it; catalog names still resolve.
  CHECK(find_system("h100-mine", {folder.dir})->name == "h100-mine");
  CHECK(find_system(path.string(), {})->name == "h100-mine");
  folder.write("h100-mine-400w.toml", "name = \"h100-mine-400w\"\ninherits = \"h100-mine\"\ndisplay = \"x\"\n"
                                      "source = \"x\"\n[gpu]\npower_cap_w = 400\n");
  const auto sibling = find_system("h100-mine-400w", {folder.dir});
  REQUIRE_MESSAGE(sibling.has_value(), (sibling ? "" : sibling.error().message));
  CHECK(sibling->nic_gb_s == 25);
  CHECK(find_system("b200", {folder.dir})->name == "b200");
  CHECK(user_system_names(folder.dir) == std::vector<std::string>{"h100-mine", "h100-mine-400w"});
}

TEST_CASE("a user's system file with a missing field or a non-physical value is an error naming file and key") {
  const SystemFolder folder("bad");
  const std::string head = (folder.dir / "h100-mine.toml").string();
  const auto error_of = [&](const std::string& text) {
    const auto s = load_system_file(folder.write("h100-mine.toml", text));
    REQUIRE_FALSE(s.has_value());
    return s.error().message;
  };
  CHECK(error_of(replaced(std::string(kVariant), "nic_gb_s = 25", "nic_gb_s = -50")) ==
        head +
            ":9:12: key 'network.nic_gb_s' is -50, outside its physical range [0.1, 100000] (a non-physical value: it "
            "must be positive)");
  CHECK(error_of(replaced(std::string(kVariant), "power_cap_w = 600", "hbm_gib = 0")) ==
        head +
            ":7:11: key 'gpu.hbm_gib' is 0, outside its physical range [1, 100000] (a non-physical value: it must be "
            "positive)");
  CHECK(error_of(replaced(std::string(kVariant), "power_cap_w = 600", "power_cap_w = 900")) ==
        head + ":7:15: key 'gpu.power_cap_w' is 900, outside its physical range [1, 700]");
  // Without a base every section must be there.
  CHECK(error_of("name = \"h100-mine\"\ndisplay = \"x\"\nsource = \"x\"\n[peak_tflops]\nbf16 = 989\nfp8 = 1979\n"
                 "fp4 = 0\n") == head + ": key 'gpu' is missing");
  CHECK(error_of(replaced(std::string(kVariant), "name = \"h100-mine\"", "name = \"other\"")) ==
        head + ": key 'name' is \"other\", expected \"h100-mine\" (the file name)");
  const std::string unknown_base = error_of(replaced(std::string(kVariant), "\"h100-sxm\"", "\"h100-sxn\""));
  CHECK(unknown_base.starts_with(head + ":2:12: key 'inherits': unknown system 'h100-sxn'; did you mean 'h100-sxm'"));
  const auto missing = load_system_file(folder.dir / "none.toml");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message == (folder.dir / "none.toml").string() + ": No such file or directory");
}

TEST_CASE("an unknown catalog name suggests the close ones") {
  CHECK(find_system("h100").error().message.find("unknown system 'h100'; did you mean 'h100-nvl'") == 0);
  const std::string gb200 = find_system("gb200").error().message;
  CHECK(gb200.find("'gb200-nvl72'") < gb200.find("the catalog has"));
}
