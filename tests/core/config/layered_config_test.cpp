#include <doctest/doctest.h>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/config/toml_reader.hpp"

using namespace dgx;

namespace {

ParamSpec spec(std::string key, ParamType type, json::Value def = {}, std::vector<std::string> choices = {}) {
  ParamSpec p;
  p.key = std::move(key);
  p.type = type;
  if (!def.is_null()) {
    p.default_value = std::move(def);
  }
  p.choices = std::move(choices);
  return p;
}

ConfigEntry set(const std::string& argument) { return parse_set_argument(argument).value(); }

}  // namespace

TEST_CASE("--set values are read as TOML, else as strings or comma lists") {
  CHECK(set("spin.us=2000").value.as_int() == 2000);
  CHECK(set("train.tokens=1e12").value.as_number() == 1e12);
  CHECK(set("runner.cold=true").value.as_bool());
  CHECK(set("model=llama3.1-70b").value.as_string() == "llama3.1-70b");
  CHECK(set("model=\"quoted\"").value.as_string() == "quoted");
  const json::Value list = set("precision=bf16,fp8").value;
  REQUIRE(list.is_array());
  CHECK(list[1].as_string() == "fp8");
  CHECK(set("explore.gpus=[64, 128]").value[1].as_int() == 128);
  CHECK(set("explore.gpus=64,128").value[0].as_int() == 64);
  CHECK(set(" spin.us = 5 ").key == "spin.us");
}

TEST_CASE("malformed --set arguments are usage errors that say what was expected") {
  CHECK(parse_set_argument("spin.us").error().message.find("expected KEY=VALUE") != std::string::npos);
  CHECK(parse_set_argument("spin.us=").error().message.find("no value") != std::string::npos);
  CHECK(parse_set_argument("bad key=1").error().message.find("not a config key") != std::string::npos);
  CHECK(parse_set_argument("a..b=1").error().code == ExitCode::usage);
}

TEST_CASE("values are coerced to the parameter's type where that is lossless") {
  CHECK(coerce(spec("n", ParamType::integer), set("n=2e3")).value().as_int() == 2000);
  CHECK_FALSE(coerce(spec("n", ParamType::integer), set("n=2.5")));
  CHECK(coerce(spec("x", ParamType::floating), set("x=3")).value().is_double());
  CHECK(coerce(spec("s", ParamType::string), set("s=123")).value().as_string() == "123");
  CHECK(coerce(spec("l", ParamType::int_list), set("l=64")).value()[0].as_int() == 64);
  CHECK(coerce(spec("l", ParamType::string_list), set("l=bf16")).value()[0].as_string() == "bf16");
  CHECK_FALSE(coerce(spec("b", ParamType::boolean), set("b=1")));
}

TEST_CASE("keys in bytes take size suffixes, other integers say how sizes work instead") {
  ParamSpec bytes = spec("comm.max_bytes", ParamType::integer);
  bytes.unit = "B";
  CHECK(coerce(bytes, set("comm.max_bytes=64K")).value().as_int() == 65536);
  CHECK(coerce(bytes, set("comm.max_bytes=2G")).value().as_int() == std::int64_t{2} << 30);
  ParamSpec sizes = spec("sizes", ParamType::int_list);
  sizes.unit = "B";
  CHECK(coerce(sizes, set("sizes=1K,1M")).value()[1].as_int() == 1 << 20);
  ParamSpec micros = spec("spin.us", ParamType::integer);
  micros.unit = "us";
  const auto refused = coerce(micros, set("spin.us=64K"));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message ==
        "config key 'spin.us' expects an integer, got string \"64K\" (--set spin.us=64K); size suffixes (K, M, G, "
        "T) are accepted only by keys in bytes (unit B), and spin.us is in us: write the number itself");
  CHECK(coerce(spec("n", ParamType::integer), set("n=1M")).error().message.find("n is a plain number") !=
        std::string::npos);
  CHECK(coerce(spec("n", ParamType::integer), set("n=fast")).error().message.find("suffix") == std::string::npos);
}

TEST_CASE("type errors name the key, the expected type, the value and where it came from") {
  auto file = parse_toml_config("spin.us = \"fast\"\n", "config file", "run.toml").value();
  auto result = coerce(spec("spin.us", ParamType::integer), file.layer.entries[0]);
  REQUIRE_FALSE(result);
  CHECK(result.error().message == "config key 'spin.us' expects an integer, got string \"fast\" (run.toml:1:11)");
}

TEST_CASE("choices are enforced with a suggestion") {
  const ParamSpec precision = spec("precision", ParamType::string_list, json::Array{"bf16"}, {"bf16", "fp8"});
  CHECK(coerce(precision, set("precision=fp8,bf16")));
  auto bad = coerce(precision, set("precision=fp9"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("'fp9' is not one of bf16, fp8; did you mean 'fp8'?") != std::string::npos);
}

TEST_CASE("layers resolve in precedence order: default < preset < file < --set") {
  const std::vector<ParamSpec> schema{spec("a", ParamType::integer, 1), spec("b", ParamType::integer, 1),
                                      spec("c", ParamType::integer, 1), spec("d", ParamType::integer, 1)};
  const ConfigLayer preset = parse_toml_config("a = 2\nb = 2\nc = 2\n", "preset 'p'", "p.toml")->layer;
  const ConfigLayer file = parse_toml_config("b = 3\nc = 3\n", "config file", "f.toml")->layer;
  const ConfigLayer sets{"--set", {set("c=4")}};
  const ConfigResolution r = resolve_config(schema, {&preset, &file, &sets});
  REQUIRE(r.errors.empty());
  CHECK(r.config.find("a")->value.as_int() == 2);
  CHECK(r.config.find("b")->value.as_int() == 3);
  CHECK(r.config.find("c")->value.as_int() == 4);
  CHECK(r.config.find("d")->value.as_int() == 1);
  CHECK_FALSE(r.config.find("d")->is_set);
  CHECK(r.config.sources_to_json().at("c").as_string() == "--set c=4");
  CHECK(r.config.sources_to_json().at("b").as_string() == "f.toml:1:5");
  CHECK_FALSE(r.config.sources_to_json().contains("d"));
  CHECK(r.config.overrides() == std::vector<std::string>{"a=2", "b=3", "c=4"});
}

TEST_CASE("an unknown key is an error with the closest keys suggested") {
  const std::vector<ParamSpec> schema{spec("spin.us", ParamType::integer, 1000),
                                      spec("spin.cases", ParamType::integer, 1)};
  const ConfigLayer sets{"--set", {set("spin.nosuchkey=1"), set("spin.uss=3")}};
  const ConfigResolution r = resolve_config(schema, {&sets}, "see --describe");
  REQUIRE(r.errors.size() == 2);
  CHECK(r.errors[0] ==
        "unknown config key 'spin.nosuchkey' (--set spin.nosuchkey=1): did you mean 'spin.us' or 'spin.cases'? "
        "(see --describe)");
  CHECK(r.errors[1].find("did you mean 'spin.us'") != std::string::npos);
}

TEST_CASE("a required key without a value is an error") {
  ParamSpec model = spec("model", ParamType::string);
  model.required = true;
  const std::vector<ParamSpec> schema{model};
  const ConfigResolution r = resolve_config(schema, {});
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].find("config key 'model' is required") == 0);
}

TEST_CASE("a size whose suffix overflows 64 bits is an error, not a wrapped number") {
  ParamSpec bytes = spec("comm.max_bytes", ParamType::integer, json::Value(std::int64_t{8}));
  bytes.unit = "B";
  CHECK(coerce(bytes, set("comm.max_bytes=8E")).error().code == ExitCode::usage);  // not a suffix at all
  CHECK(coerce(bytes, set("comm.max_bytes=8388607T")).value().as_int() == std::int64_t{8388607} << 40);
  const auto overflow = coerce(bytes, set("comm.max_bytes=99999999999T"));
  REQUIRE_FALSE(overflow);
  CHECK(overflow.error().message.find("99999999999T is more bytes than a 64-bit integer holds") != std::string::npos);
}

TEST_CASE("numbers beyond 64 bits say so instead of 'got string', nan is no number") {
  const ParamSpec f = spec("runner.max_time", ParamType::floating, json::Value(1.0));
  const ParamSpec i = spec("runner.warmup", ParamType::integer, json::Value(std::int64_t{1}));
  auto r = coerce(f, set("runner.max_time=1e309"));
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("1e309 is beyond the range of a 64-bit float") != std::string::npos);
  CHECK(r.error().message.find("got string") == std::string::npos);
  r = coerce(i, set("runner.warmup=9223372036854775808"));
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("beyond the range of a 64-bit integer") != std::string::npos);
  CHECK(r.error().message.find("got string") == std::string::npos);
  CHECK_FALSE(coerce(f, set("runner.max_time=nan")));
  CHECK(coerce(f, set("runner.max_time=inf")));  // a range check decides whether inf is acceptable
}
