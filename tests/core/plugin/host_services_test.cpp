// The dgx_host_api table as a plugin sees it.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>

#include <dgx/sdk/host.hpp>

#include "dgx/core/plugin/host_services.hpp"
#include "temp_dir.hpp"

using namespace dgx;

namespace {

struct Fixture {
  Logger logger;
  LocalComm comm;
  std::vector<ParamSpec> schema;
  ConfigLayer layer;
  ConfigResolution resolution;
  Report report;
  HostServices services{logger, comm, {}, "test"};

  Fixture() {
    auto param = [](std::string key, ParamType type, json::Value def) {
      ParamSpec p;
      p.key = std::move(key);
      p.type = type;
      if (!def.is_null()) {
        p.default_value = std::move(def);
      }
      return p;
    };
    schema = {param("n", ParamType::integer, 3),
              param("x", ParamType::floating, 0.5),
              param("s", ParamType::string, "bf16"),
              param("b", ParamType::boolean, true),
              param("l", ParamType::int_list, json::Array{8, 16}),
              param("names", ParamType::string_list, json::Array{"a", "b"}),
              param("optional", ParamType::floating, {})};
    layer = {"--set", {parse_set_argument("n=7").value()}};
    resolution = resolve_config(schema, {&layer});
    services.bind_config(&resolution.config);
    services.bind_report(&report, "wl", "pl");
  }
  const dgx_host_api& api() const { return *services.api(); }
};

}  // namespace

TEST_CASE("config getters return typed values and say when a key is unset or of another type") {
  Fixture f;
  const dgx_host_api& api = f.api();
  std::int64_t n = 0;
  CHECK(api.config_get_int(api.ctx, "n", &n) == DGX_OK);
  CHECK(n == 7);
  double x = 0;
  CHECK(api.config_get_float(api.ctx, "x", &x) == DGX_OK);
  CHECK(x == 0.5);
  CHECK(api.config_get_float(api.ctx, "n", &x) == DGX_OK);  // an integer reads as a float
  CHECK(x == 7.0);
  const char* s = nullptr;
  CHECK(api.config_get_string(api.ctx, "s", &s) == DGX_OK);
  CHECK(std::string(s) == "bf16");
  std::int32_t b = 0;
  CHECK(api.config_get_bool(api.ctx, "b", &b) == DGX_OK);
  CHECK(b == 1);
  CHECK(api.config_get_int(api.ctx, "s", &n) == DGX_ERR_INVALID_ARGUMENT);
  CHECK(api.config_get_int(api.ctx, "nope", &n) == DGX_ERR_NOT_FOUND);
  CHECK(api.config_get_float(api.ctx, "optional", &x) == DGX_ERR_NOT_FOUND);
  CHECK(api.config_is_set(api.ctx, "n") == 1);
  CHECK(api.config_is_set(api.ctx, "x") == 0);
}

TEST_CASE("list getters report the length and fill up to the capacity") {
  Fixture f;
  const dgx_host_api& api = f.api();
  std::uint64_t count = 0;
  CHECK(api.config_get_int_list(api.ctx, "l", nullptr, 0, &count) == DGX_OK);
  CHECK(count == 2);
  std::array<std::int64_t, 1> one{};
  CHECK(api.config_get_int_list(api.ctx, "l", one.data(), one.size(), &count) == DGX_OK);
  CHECK(one[0] == 8);
  std::array<const char*, 2> names{};
  CHECK(api.config_get_string_list(api.ctx, "names", names.data(), 2, &count) == DGX_OK);
  CHECK(std::string(names[1]) == "b");
  CHECK(api.config_get_string_list(api.ctx, "l", names.data(), 2, &count) == DGX_ERR_INVALID_ARGUMENT);
}

TEST_CASE("emitted rows land in the report with parsed config values") {
  Fixture f;
  const dgx_host_api& api = f.api();
  const dgx_config_entry config[] = {{sizeof(dgx_config_entry), "gpus", "64", 0},
                                     {sizeof(dgx_config_entry), "precision", "\"fp8\"", DGX_CONFIG_HIDDEN}};
  const dgx_metric metrics[] = {{sizeof(dgx_metric), "step_time", 1.5, "s", 0, "step"},
                                {sizeof(dgx_metric), "detail", 2.0, "1", DGX_METRIC_HIDDEN, nullptr}};
  const dgx_field fields[] = {{sizeof(dgx_field), "source", "model v1", 0}};
  dgx_result_row row{
      sizeof(dgx_result_row), nullptr, DGX_RESULT_PROJECTED, "explore", config, 2, metrics, 2, fields, 1, nullptr, 0};
  REQUIRE(api.emit_row(api.ctx, &row) == DGX_OK);
  REQUIRE(f.report.rows.size() == 1);
  const ResultRow& r = f.report.rows[0];
  CHECK(r.workload == "wl");
  CHECK(r.plugin == "pl");
  CHECK(r.mode == ResultMode::projected);
  CHECK(r.table == "explore");
  CHECK(r.config.at("gpus").as_int() == 64);
  CHECK(r.config.at("precision").as_string() == "fp8");
  CHECK(r.hidden_config == std::vector<std::string>{"precision"});
  CHECK(r.find_metric("detail")->hidden);
  CHECK(r.find_metric("step_time")->label == "step");
  CHECK(r.find_field("source")->value == "model v1");
}

TEST_CASE("an emitted row carries the run's configuration after the keys it sets itself") {
  Fixture f;
  json::Object run_config;
  run_config.set("model", "llama3.1-70b");
  run_config.set("gpus", 8);
  f.services.bind_report(&f.report, "wl", "pl", run_config);
  const dgx_host_api& api = f.api();
  const dgx_config_entry config[] = {{sizeof(dgx_config_entry), "gpus", "64", 0}};
  dgx_result_row row{
      sizeof(dgx_result_row), nullptr, DGX_RESULT_PROJECTED, nullptr, config, 1, nullptr, 0, nullptr, 0, nullptr, 0};
  REQUIRE(api.emit_row(api.ctx, &row) == DGX_OK);
  const json::Object& c = f.report.rows.at(0).config;
  REQUIRE(c.size() == 2);
  CHECK(c.begin()->first == "gpus");  // the row's own key first, with its own value
  CHECK(c.at("gpus").as_int() == 64);
  CHECK(c.at("model").as_string() == "llama3.1-70b");
}

TEST_CASE("malformed rows are refused") {
  Fixture f;
  const dgx_host_api& api = f.api();
  dgx_result_row row{sizeof(dgx_result_row), nullptr, 9, nullptr, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0};
  CHECK(api.emit_row(api.ctx, &row) == DGX_ERR_INVALID_ARGUMENT);
  row.mode = DGX_RESULT_MEASURED;
  row.struct_size = 8;
  CHECK(api.emit_row(api.ctx, &row) == DGX_ERR_INVALID_ARGUMENT);
  // A stride that is no multiple of the entry's alignment would have the host read misaligned pointers.
  dgx_config_entry odd[2] = {{sizeof(dgx_config_entry) + 4, "gpus", "8", 0}, {}};
  dgx_result_row odd_row{
      sizeof(dgx_result_row), nullptr, DGX_RESULT_MEASURED, nullptr, odd, 2, nullptr, 0, nullptr, 0, nullptr, 0};
  CHECK(api.emit_row(api.ctx, &odd_row) == DGX_ERR_INVALID_ARGUMENT);
  const dgx_config_entry bad[] = {{sizeof(dgx_config_entry), "gpus", "not toml", 0}};
  dgx_result_row bad_row{
      sizeof(dgx_result_row), nullptr, DGX_RESULT_MEASURED, nullptr, bad, 1, nullptr, 0, nullptr, 0, nullptr, 0};
  CHECK(api.emit_row(api.ctx, &bad_row) == DGX_ERR_INVALID_ARGUMENT);
  CHECK(f.report.rows.empty());
}

TEST_CASE("add_metric extends the current measured row only") {
  Fixture f;
  const dgx_host_api& api = f.api();
  const dgx_metric metric{sizeof(dgx_metric), "tflops", 700.0, "TFLOP/s", 0, nullptr};
  CHECK(api.add_metric(api.ctx, &metric) == DGX_ERR_UNSUPPORTED);
  ResultRow row;
  f.services.set_current_row(&row);
  CHECK(api.add_metric(api.ctx, &metric) == DGX_OK);
  CHECK(row.find_metric("tflops")->value == 700.0);
}

TEST_CASE("a metric in a unit dgxhost does not know is refused, and the refusal is kept for the run") {
  Fixture f;
  const dgx_host_api& api = f.api();
  const dgx_metric parsecs[] = {{sizeof(dgx_metric), "distance", 12.0, "parsecs", 0, nullptr}};
  dgx_result_row row{
      sizeof(dgx_result_row), nullptr, DGX_RESULT_PROJECTED, nullptr, nullptr, 0, parsecs, 1, nullptr, 0, nullptr, 0};
  CHECK(api.emit_row(api.ctx, &row) == DGX_ERR_INVALID_ARGUMENT);
  CHECK(f.report.rows.empty());
  ResultRow measured;
  f.services.set_current_row(&measured);
  const dgx_metric no_unit{sizeof(dgx_metric), "speed", 1.0, nullptr, 0, nullptr};
  CHECK(api.add_metric(api.ctx, &no_unit) == DGX_ERR_INVALID_ARGUMENT);
  const dgx_metric prefixed{sizeof(dgx_metric), "bw", 1.0, "GiB/s", 0, nullptr};
  CHECK(api.add_metric(api.ctx, &prefixed) == DGX_OK);
  f.services.set_current_row(nullptr);
  const auto refusal = f.services.take_refusal();
  REQUIRE(refusal);  // the first refusal, however the plugin handled the status
  CHECK(refusal->code == ExitCode::run_failed);
  CHECK(refusal->message.find("pl:wl: metric 'distance' has unit 'parsecs', which dgxhost does not accept") == 0);
  CHECK(refusal->message.find("see docs/results-schema.md") != std::string::npos);
  CHECK_FALSE(f.services.take_refusal());
}

TEST_CASE("notes, ranks and collectives of a world of one") {
  Fixture f;
  const dgx_host_api& api = f.api();
  CHECK(api.emit_note(api.ctx, DGX_NOTE_BEFORE, "Assumptions", "h100-sxm") == DGX_OK);
  CHECK(f.report.notes.at(0).before);
  dgx_rank_info info{sizeof(dgx_rank_info), -1, -1, -1, -1, nullptr};
  CHECK(api.rank_info(api.ctx, &info) == DGX_OK);
  CHECK(info.rank == 0);
  CHECK(info.world_size == 1);
  double values[2] = {1.0, 2.0};
  CHECK(api.all_reduce_f64(api.ctx, values, 2, DGX_REDUCE_MAX) == DGX_OK);
  CHECK(api.broadcast(api.ctx, values, sizeof values, 1) == DGX_ERR_INVALID_ARGUMENT);  // no rank 1
  CHECK(api.barrier(api.ctx) == DGX_OK);
}

TEST_CASE("data files are found in the config directories") {
  testing::TempDir dir;
  dir.write("models/m.toml", "x = 1\n");
  Logger logger;
  LocalComm comm;
  HostServices services(logger, comm, {{dir.path(), "test", true}}, "test");
  const dgx_host_api& api = *services.api();
  std::array<char, 4096> out{};
  CHECK(api.find_data_file(api.ctx, "models/m.toml", out.data(), out.size()) == DGX_OK);
  CHECK(std::string(out.data()) == (dir.path() / "models/m.toml").string());
  CHECK(api.find_data_file(api.ctx, "models/none.toml", out.data(), out.size()) == DGX_ERR_NOT_FOUND);
  CHECK(api.find_data_file(api.ctx, "models/m.toml", out.data(), 4) == DGX_ERR_INVALID_ARGUMENT);
}

TEST_CASE("config_dir hands a plugin the folders searched for data files, highest priority first") {
  Logger logger;
  LocalComm comm;
  HostServices services(logger, comm,
                        {{"/a/mine", "--config-dir", true}, {"/usr/share/dgx/configs", "next to dgxhost"}}, "test");
  const dgx_host_api& api = *services.api();
  REQUIRE(api.struct_size >= offsetof(dgx_host_api, config_dir) + sizeof api.config_dir);
  const char* path = nullptr;
  const char* origin = nullptr;
  REQUIRE(api.config_dir(api.ctx, 0, &path, &origin) == DGX_OK);
  CHECK(std::string(path) == "/a/mine");
  CHECK(std::string(origin) == "--config-dir");
  REQUIRE(api.config_dir(api.ctx, 1, &path, &origin) == DGX_OK);
  CHECK(std::string(path) == "/usr/share/dgx/configs");
  CHECK(api.config_dir(api.ctx, 2, &path, &origin) == DGX_ERR_NOT_FOUND);
  CHECK(api.config_dir(api.ctx, 0, nullptr, &origin) == DGX_ERR_INVALID_ARGUMENT);
  const dgx::sdk::Host host(&api);
  const auto dirs = host.config_dirs();
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[1].origin == "next to dgxhost");
}

TEST_CASE("write_output_file writes into the --emit folder only, and says why it cannot") {
  Fixture f;
  std::array<char, 512> message{};
  dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(message.size()), message.data()};
  const auto write = [&](const char* name, const std::string& data, std::uint32_t mode = 0644) {
    message.fill('\0');
    return f.api().write_output_file(f.api().ctx, name, data.data(), data.size(), mode, &error);
  };
  CHECK(f.api().write_output_file(f.api().ctx, nullptr, nullptr, 0, 0, nullptr) == DGX_ERR_UNSUPPORTED);
  CHECK(write("serve.sh", "x") == DGX_ERR_UNSUPPORTED);
  CHECK(std::string(message.data()).find("--emit DIR") != std::string::npos);

  const dgx::testing::TempDir dir;
  f.services.set_output_folder((dir.path() / "deploy").string());
  CHECK(f.api().write_output_file(f.api().ctx, nullptr, nullptr, 0, 0, nullptr) == DGX_OK);  // a folder is named
  CHECK(write("serve.sh", "echo hi\n", 0755) == DGX_OK);
  CHECK(std::filesystem::file_size(dir.path() / "deploy" / "serve.sh") == 8);
  CHECK(write("../serve.sh", "x") == DGX_ERR_INVALID_ARGUMENT);
  CHECK(std::string(message.data()).find("holds '/'") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "serve.sh"));
  CHECK(write("serve.sh", "x", 04755) == DGX_ERR_INVALID_ARGUMENT);  // no setuid bit through this door
  std::filesystem::create_directory(dir.path() / "deploy" / "sub");
  CHECK(write("sub", "x") == DGX_ERR_RUNTIME);
  CHECK(std::string(message.data()).find("is a directory") != std::string::npos);
  CHECK(f.api().write_output_file(f.api().ctx, "x", nullptr, 4, 0644, &error) == DGX_ERR_INVALID_ARGUMENT);
}
