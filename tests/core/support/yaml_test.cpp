// The YAML writer: block layout as kubectl writes it, and every string read back as itself (the manifests it writes
// are also parsed by PyYAML in tests/integration/mpijob_schema_test.py).
#include <doctest/doctest.h>

#include "dgx/core/support/yaml.hpp"

using namespace dgx;

namespace {

json::Object object(std::initializer_list<json::Member> members) {
  json::Object o;
  for (const json::Member& m : members) {
    o.set(m.first, m.second);
  }
  return o;
}

}  // namespace

TEST_CASE("strings that a YAML reader could take for a boolean, a number, null or syntax are double-quoted") {
  for (const char* text : {"yes",
                           "No",
                           "ON",
                           "off",
                           "y",
                           "n",
                           "true",
                           "False",
                           "null",
                           "~",
                           "",
                           "1",
                           "1.0",
                           "0x1f",
                           "1e3",
                           ".inf",
                           "-x",
                           "--plugin",
                           "a: b",
                           "a #b",
                           "#c",
                           "*ref",
                           "&a",
                           "!tag",
                           "@x",
                           "%x",
                           "[a]",
                           "{a}",
                           "a b",
                           "'q'",
                           "nvcr.io/nvidia/pytorch:24.05-py3",
                           "8G",
                           "2024-01-01"}) {
    CHECK_MESSAGE(yaml::quoted(text).front() == '"', text);
  }
  for (const char* text : {"MPIJob", "kubeflow.org/v2beta1", "nvidia.com/gpu", "rdma/ib", "/usr/local/bin/dgxhost",
                           "dgx-all-reduce", "all_reduce", "Memory", "IPC_LOCK", "yesterday", "nope"}) {
    CHECK_MESSAGE(yaml::quoted(text) == text, text);
  }
}

TEST_CASE("double-quoted strings escape quotes, backslashes, control characters and YAML's own line breaks") {
  CHECK(yaml::quoted("say \"hi\"\\") == R"("say \"hi\"\\")");
  CHECK(yaml::quoted("a\tb\x01") == R"("a\tb\x01")");
  CHECK(yaml::quoted("next\xc2\x85line") == R"("next\u0085line")");
  CHECK(yaml::quoted("a\xe2\x80\xa8"
                     "b") == R"("a\u2028b")");
  CHECK(yaml::quoted("γ → 8×H100") == "\"γ → 8×H100\"");
}

TEST_CASE("a manifest is written in block style with sequences at their key's indentation") {
  const json::Value doc = object({
      {"apiVersion", "kubeflow.org/v2beta1"},
      {"spec", object({{"slotsPerWorker", 8},
                       {"containers", json::Array{object({{"name", "worker"}, {"args", json::Array{"-np", "16"}}})}},
                       {"limits", object({{"nvidia.com/gpu", 8}})},
                       {"emptyDir", json::Object{}},
                       // A Value around the inner array: clang reads Array{Array{...}} as a copy of the inner one.
                       {"nested", json::Array{json::Value{json::Array{"a", "b"}}}},
                       {"ratio", 0.5},
                       {"on", true},
                       {"none", nullptr}})},
  });
  CHECK(yaml::write(doc) == "apiVersion: kubeflow.org/v2beta1\n"
                            "spec:\n"
                            "  slotsPerWorker: 8\n"
                            "  containers:\n"
                            "  - name: worker\n"
                            "    args:\n"
                            "    - \"-np\"\n"
                            "    - \"16\"\n"
                            "  limits:\n"
                            "    nvidia.com/gpu: 8\n"
                            "  emptyDir: {}\n"
                            "  nested:\n"
                            "  - - a\n"
                            "    - b\n"
                            "  ratio: 0.5\n"
                            "  \"on\": true\n"
                            "  none: null\n");
}

TEST_CASE("a multi-line script is a literal block, kept exactly, and falls back to quotes when a block cannot") {
  const json::Value script = object({{"command", json::Array{"/bin/sh", "-c", "set -u\nmpirun \"$x\"\n\nexit 0"}}});
  CHECK(yaml::write(script) == "command:\n"
                               "- /bin/sh\n"
                               "- \"-c\"\n"
                               "- |-\n"
                               "  set -u\n"
                               "  mpirun \"$x\"\n"
                               "\n"
                               "  exit 0\n");
  CHECK(yaml::write(object({{"s", "a\nb\n"}})) == "s: |\n  a\n  b\n");
  CHECK(yaml::write(object({{"s", " indented\nb"}})) == "s: \" indented\\nb\"\n");
  CHECK(yaml::write(object({{"s", "trailing \nb"}})) == "s: \"trailing \\nb\"\n");
  CHECK(yaml::write(object({{"s", "a\n\n"}})) == "s: \"a\\n\\n\"\n");
  CHECK(yaml::write(object({{"s", "é\nb"}})) == "s: \"é\\nb\"\n");
}

TEST_CASE("a scalar or an empty document is one line") {
  CHECK(yaml::write(json::Value("yes")) == "\"yes\"\n");
  CHECK(yaml::write(json::Object{}) == "{}\n");
  CHECK(yaml::write(json::Array{}) == "[]\n");
}
