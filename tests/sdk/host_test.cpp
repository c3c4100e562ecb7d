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

TEST_CASE("write_output_file hands a file to the host, which records where the user asked for files") {
  dgx::testing::FakeHost fake;
  const dgx::sdk::Host host(fake.api());
  CHECK_FALSE(host.output_files_requested());
  CHECK_THROWS_WITH_AS(host.write_output_file("run.sh", "echo"),
                       "no folder for the workload's files: dgxhost --emit DIR names one", dgx::sdk::Unsupported);
  fake.output_folder = "deploy";
  CHECK(host.output_files_requested());
  host.write_output_file("run.sh", "#!/bin/sh\necho hi\n", 0755);
  REQUIRE(fake.written_files.count("run.sh") == 1);
  CHECK(fake.written_files["run.sh"].text == "#!/bin/sh\necho hi\n");
  CHECK(fake.written_files["run.sh"].mode == 0755);
  CHECK_THROWS_AS(host.write_output_file("../run.sh", "x"), dgx::sdk::InvalidArgument);
  CHECK_THROWS_AS(host.write_output_file("..", "x"), dgx::sdk::InvalidArgument);
  CHECK(fake.written_files.size() == 1);
}

TEST_CASE("on a host table of ABI 1.0 write_output_file is Unsupported with a message that says why") {
  dgx::testing::FakeHost fake;
  fake.output_folder = "deploy";
  dgx_host_api old = *fake.api();
  old.struct_size = offsetof(dgx_host_api, config_dir);
  old.abi_version = DGX_ABI_V1_0;
  const dgx::sdk::Host host(&old);
  CHECK_FALSE(host.output_files_requested());
  try {
    host.write_output_file("run.sh", "x");
    FAIL("no exception");
  } catch (const dgx::sdk::Unsupported& e) {
    CHECK(std::string(e.what()).find("ABI 1.0") != std::string::npos);
    CHECK(std::string(e.what()).find("--emit DIR") != std::string::npos);
  }
  CHECK(fake.written_files.empty());
}

TEST_CASE("a plain file name: no '/', not . or .., no control character") {
  namespace text = dgx::sdk::text;
  CHECK(text::file_name_problem("trtllm-serve.sh").empty());
  CHECK(text::file_name_problem(".hidden").empty());
  CHECK_FALSE(text::file_name_problem("").empty());
  CHECK_FALSE(text::file_name_problem(".").empty());
  CHECK_FALSE(text::file_name_problem("..").empty());
  CHECK(text::file_name_problem("a/b").find("'/'") != std::string::npos);
  CHECK(text::file_name_problem("/etc").find("'/'") != std::string::npos);
  CHECK_FALSE(text::file_name_problem("a\nb").empty());
  CHECK_FALSE(text::file_name_problem("a\x1b[31m").empty());
  CHECK_FALSE(text::file_name_problem(std::string(256, 'a')).empty());
}
