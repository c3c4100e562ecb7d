// The C++ Host wrapper: typed config access, row emission, errors that name the key.
#include <doctest/doctest.h>

#include <dgx/sdk.hpp>

#include <cstddef>

#include "fake_host.hpp"

TEST_CASE("typed getters read the host's config") {
  dgx::testing::FakeHost fake;
  fake.set("a.int", std::int64_t{42});
  fake.set("a.float", 2.5);
  fake.set("a.bool", true);
  fake.set("a.string", std::string("bf16"));
  fake.set("a.ints", std::vector<std::int64_t>{8, 16, 32});
  fake.set("a.strings", std::vector<std::string>{"bf16", "fp8"});
  const dgx::sdk::Host host(fake.api());
  CHECK(host.get_int("a.int") == 42);
  CHECK(host.get_float("a.float") == 2.5);
  CHECK(host.get_float("a.int") == 42.0);  // integers read as floats
  CHECK(host.get_bool("a.bool"));
  CHECK(host.get_string("a.string") == "bf16");
  CHECK(host.get_int_list("a.ints") == std::vector<std::int64_t>{8, 16, 32});
  CHECK(host.get_string_list("a.strings") == std::vector<std::string>{"bf16", "fp8"});
  CHECK(host.is_set("a.int"));
  CHECK_FALSE(host.find_float("missing").has_value());
}

TEST_CASE("getter errors name the key and the expected type") {
  dgx::testing::FakeHost fake;
  fake.set("a.string", std::string("x"));
  const dgx::sdk::Host host(fake.api());
  CHECK_THROWS_WITH_AS((void)host.get_int("a.string"), "config key 'a.string' is not an integer", dgx::sdk::Error);
  CHECK_THROWS_WITH_AS((void)host.get_int("nope"), "config key 'nope' has no value", dgx::sdk::Error);
}

TEST_CASE("rows carry config, metrics and fields to the host") {
  dgx::testing::FakeHost fake;
  const dgx::sdk::Host host(fake.api());
  host.emit(dgx::sdk::Row(dgx::sdk::ResultMode::reference)
                .config("model", std::string("llama3.1-8b"))
                .config("gpus", std::int64_t{8})
                .config("precision", std::vector<std::string>{"bf16"})
                .metric("step_time", 12.78, "s")
                .field("source", "NVIDIA dgxc-benchmarking"));
  REQUIRE(fake.rows.size() == 1);
  const auto& row = fake.rows[0];
  CHECK(row.mode == DGX_RESULT_REFERENCE);
  CHECK(row.config.at("model") == "\"llama3.1-8b\"");
  CHECK(row.config.at("gpus") == "8");
  CHECK(row.config.at("precision") == "[\"bf16\"]");
  CHECK(row.metrics.at("step_time").first == 12.78);
  CHECK(row.metrics.at("step_time").second == "s");
  CHECK(row.fields.at("source") == "NVIDIA dgxc-benchmarking");
}

TEST_CASE("cancellation is visible to plugin code") {
  dgx::testing::FakeHost fake;
  const dgx::sdk::Host host(fake.api());
  CHECK_NOTHROW(host.throw_if_cancelled());
  fake.cancel = true;
  CHECK_THROWS_AS(host.throw_if_cancelled(), dgx::sdk::Cancelled);
}

TEST_CASE("config_dirs lists the host's data folders, and is empty on a host table of ABI 1.0") {
  dgx::testing::FakeHost fake;
  fake.config_dirs = {{"/mine", "--config-dir"}, {"/usr/share/dgx/configs", "next to dgxhost"}};
  const dgx::sdk::Host host(fake.api());
  const auto dirs = host.config_dirs();
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[0].path == "/mine");
  CHECK(dirs[0].origin == "--config-dir");
  dgx_host_api old = *fake.api();
  old.struct_size = offsetof(dgx_host_api, config_dir);  // what a host of ABI 1.0 hands out
  CHECK(dgx::sdk::Host(&old).config_dirs().empty());
}
