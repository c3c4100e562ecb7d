// Reading TOML config documents, presets and value literals.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "dgx/core/config/toml_reader.hpp"
#include "temp_dir.hpp"

using namespace dgx;

TEST_CASE("TOML tables flatten to dotted keys with their locations") {
  auto parsed =
      parse_toml_config("model = \"llama3.1-70b\"\ntrain.mbs = 2\n[parallel]\ntp = 4\n", "config file", "run.toml");
  REQUIRE(parsed);
  const auto& entries = parsed->layer.entries;
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].key == "model");
  CHECK(entries[1].key == "train.mbs");
  CHECK(entries[2].key == "parallel.tp");
  CHECK(entries[2].value.as_int() == 4);
  CHECK(entries[2].where.describe() == "run.toml:4:6");  // where the value is
}

TEST_CASE("the preset table is metadata, not config") {
  auto parsed =
      parse_toml_config("preset.workload = \"spin\"\npreset.summary = \"fast\"\nspin.us = 10\n", "preset", "p.toml");
  REQUIRE(parsed);
  CHECK(parsed->preset.at("workload").as_string() == "spin");
  REQUIRE(parsed->layer.entries.size() == 1);
  CHECK(parsed->layer.entries[0].key == "spin.us");
}

TEST_CASE("config keys written after a [preset] header are reported, not swallowed") {
  auto parsed = parse_toml_config("[preset]\nworkload = \"spin\"\nspin.us = 10\n", "preset", "p.toml");
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().message.find("p.toml:3:") == 0);
  CHECK(parsed.error().message.find("'spin' is not a preset field") != std::string::npos);
}

TEST_CASE("invalid TOML is reported with file, line and column") {
  auto parsed = parse_toml_config("a = 1\nb = = 2\n", "config file", "bad.toml");
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().code == ExitCode::usage);
  CHECK(parsed.error().message.find("bad.toml:2:") == 0);
}

TEST_CASE("a missing config file is a usage error naming it") {
  auto parsed = load_toml_config("/nonexistent/run.toml", "config file");
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().message.find("/nonexistent/run.toml") != std::string::npos);
}

TEST_CASE("TOML literals convert both ways") {
  CHECK(parse_toml_value("[8, 16]").value()[1].as_int() == 16);
  CHECK(parse_toml_value("\"bf16\"").value().as_string() == "bf16");
  CHECK_FALSE(parse_toml_value("bf16"));
  CHECK(to_toml_literal(json::Value(2.0)) == "2.0");
  CHECK(to_toml_literal(json::Array{"a", 1}) == "[\"a\", 1]");
}

TEST_CASE("a document nested deeper than any config is refused before toml++ parses it") {
  std::string key = "a";
  for (int i = 0; i < 15000; ++i) {
    key += ".a";
  }
  auto deep = parse_toml_config(key + " = 1\n", "test", "deep.toml");
  REQUIRE_FALSE(deep);
  CHECK(deep.error().code == ExitCode::usage);
  CHECK(deep.error().message.find("deep.toml: line 1: a dotted key has more than 32 parts") != std::string::npos);
  std::string header = "[a";
  for (int i = 0; i < 100000; ++i) {
    header += ".a";
  }
  CHECK_FALSE(parse_toml_config("x = 1\n" + header + "]\n", "test", "h.toml"));
  CHECK_FALSE(parse_toml_config("x = " + std::string(40, '[') + std::string(40, ']') + "\n", "test", {}));
  CHECK_FALSE(parse_toml_value(std::string(40, '{')));
}

TEST_CASE("the nesting check counts neither dots in strings, comments and numbers, nor ordinary tables") {
  const std::string dots(200, '.');
  const std::string text = "name = \"" + dots + "\"  # " + dots + "\n" + "lit = '" + dots + "'\n" + "multi = \"\"\"\n" +
                           dots + "\n\"\"\"\"\n" + "raw = '''" + dots + "''''\n" +
                           "floats = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5, "
                           "16.5, 17.5, 18.5, 19.5, 20.5, 21.5, 22.5, 23.5, 24.5, 25.5, 26.5, 27.5, 28.5, 29.5, 30.5, "
                           "31.5, 32.5, 33.5, 34.5]\n" +
                           "[parallel.inner.deeper]\ntp = 4\nx.y.z = { a.b = 1, c = [1, 2] }\n";
  auto parsed = parse_toml_config(text, "test", {});
  REQUIRE_MESSAGE(parsed, (parsed ? "" : parsed.error().message));
  CHECK(parsed->layer.entries.size() == 8);
}

TEST_CASE("a config file must be a small regular file: no FIFO, directory or device is read") {
  testing::TempDir dir;
  const auto fifo = dir.path() / "fifo.toml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto r = load_toml_config(fifo.string(), "config file");  // would block forever on a FIFO without a writer
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("is a FIFO, not a regular file") != std::string::npos);
  r = load_toml_config(dir.path().string(), "config file");
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("is a directory") != std::string::npos);
  r = load_toml_config("/dev/zero", "config file");
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("is a character device") != std::string::npos);
  const auto big = dir.write("big.toml", "# " + std::string(kMaxConfigFileBytes, 'x') + "\n");
  r = load_toml_config(big.string(), "config file");
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("dgxhost reads at most") != std::string::npos);
}
