#include "dgx/catalog/toml_table.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace dgx::catalog;

namespace {

/// The error of reading `text` with `read`, or "" when it reads.
template <class Read> std::string error_of(std::string_view text, Read read) {
  auto result = read_toml(text, "x.toml", read);
  return result ? std::string() : result.error().message;
}

}  // namespace

TEST_CASE("every error names the file, the line and column, and the full key") {
  const std::string_view text = "name = \"a\"\n[gpu]\nsms = \"many\"\n";
  CHECK(error_of(text, [](const TomlTable& t) { return t.table("gpu").positive_int("sms"); }) ==
        "x.toml:3:7: key 'gpu.sms' must be an integer, found string");
  CHECK(error_of(text, [](const TomlTable& t) { return t.table("gpu").positive_int("hbm"); }) ==
        "x.toml:2:1: key 'gpu.hbm' is missing");
  CHECK(error_of(text, [](const TomlTable& t) { return t.string("display"); }) == "x.toml: key 'display' is missing");
  CHECK(error_of("a = [1,\n", [](const TomlTable& t) { return t.contains("a"); }).starts_with("x.toml:1:9: "));
}

TEST_CASE("a key no reader asked for is an error naming file, line and key, with the close spelling it knows") {
  const std::string_view text = "name = \"mine\"\n[gpu]\npower_cap = 600\nsms = 132\n";
  const auto read = [](const TomlTable& t) {
    const TomlTable gpu = t.table("gpu");
    return t.string("name") + std::to_string(gpu.positive_int("sms")) +
           std::to_string(gpu.optional_number("power_cap_w").value_or(0));
  };
  CHECK(error_of(text, read) == "x.toml:3:13: unknown key 'gpu.power_cap' (did you mean 'gpu.power_cap_w'?)");
  CHECK(error_of("name = \"mine\"\n[network]\nnic_gbps = 25\n", [](const TomlTable& t) { return t.string("name"); }) ==
        "x.toml:2:1: unknown key 'network'");
  CHECK(error_of("name = \"mine\"\n", read).find("key 'gpu' is missing") != std::string::npos);
}

TEST_CASE("keys accepted as documentation, and whole accepted tables, are not unknown") {
  const std::string_view text = "name = \"a\"\nsource = \"a paper\"\n[[reference]]\nanything = 1\n";
  CHECK(error_of(text, [](const TomlTable& t) {
          t.accept({"source", "reference"});
          return t.string("name");
        }).empty());
  CHECK(error_of(text, [](const TomlTable& t) {
          t.accept({"source"});
          return t.string("name");
        }) == "x.toml:3:1: unknown key 'reference'");
}

TEST_CASE("an inherited table supplies what the file lacks, and only the file's own keys are checked") {
  const TomlTable base = TomlTable::parse("[gpu]\nsms = 132\nhbm_gib = 80\nextra = 1\n", "base.toml");
  auto mine = read_toml("[gpu]\nhbm_gib = 96\n", "mine.toml", [&](const TomlTable& own) {
    const TomlTable gpu = own.over(base).table("gpu");
    return gpu.positive_int("sms") * 1000 + static_cast<int>(gpu.number("hbm_gib"));
  });
  REQUIRE(mine.has_value());
  CHECK(*mine == 132096);
}

TEST_CASE("keys() lists a table's keys by name, then the inherited ones it lacks") {
  const TomlTable base = TomlTable::parse("a = 1\nz = 2\n", "base.toml");
  const TomlTable own = TomlTable::parse("m = 3\na = 4\n", "own.toml");
  const std::vector<std::string> keys = own.over(base).keys();
  CHECK(keys == std::vector<std::string>{"a", "m", "z"});
}

TEST_CASE("json_text hands a value or a whole table on as JSON, and counts what it holds as read") {
  auto json = read_toml("name = \"a\"\n[row]\nx = 1\ny = [1.5, \"b\"]\nz = { w = true }\n", "x.toml",
                        [](const TomlTable& t) { return t.json_text("name") + " " + t.table("row").json_text(); });
  REQUIRE_MESSAGE(json.has_value(), (json ? "" : json.error().message));
  CHECK(json->find("\"a\"") == 0);
  CHECK(json->find("\"x\" : 1") != std::string::npos);
  CHECK(json->find("\"w\" : true") != std::string::npos);
}

TEST_CASE("a text parsed once serves every reader, and each reader's unread keys are its own") {
  // The parse is shared (a run reads one catalog file several times); what a reader asked is not.
  const std::string_view text = "name = \"a\"\nsms = 132\n";
  const auto both = [](const TomlTable& t) { return t.string("name") + std::to_string(t.positive_int("sms")); };
  CHECK(error_of(text, both).empty());
  CHECK(error_of(text, [](const TomlTable& t) { return t.string("name"); }).find("unknown key 'sms'") !=
        std::string::npos);
  CHECK(error_of(text, both).empty());
}
