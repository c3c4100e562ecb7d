#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/model_catalog.hpp"
#include "dgx/catalog/small_file.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

using namespace dgx::catalog;

namespace {

/// A config folder of its own under the temporary directory, searched while the object lives.
struct ConfigFolder {
  std::filesystem::path dir;
  explicit ConfigFolder(const std::string& name) : dir(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "models");
    set_search_dirs({SearchDir{.path = dir, .origin = "--config-dir"}});
  }
  ConfigFolder(const ConfigFolder&) = delete;
  ConfigFolder& operator=(const ConfigFolder&) = delete;
  ~ConfigFolder() {
    set_search_dirs({});
    std::filesystem::remove_all(dir);
  }
  void write(const std::string& relative, const std::string& text) const { std::ofstream(dir / relative) << text; }
};

constexpr const char* kTinyModel = R"(name = "tiny-test"
display = "Tiny"
source = "a test"
layers = 2
hidden = 64
ffn = 128
heads = 4
kv_groups = 4
vocab = 1000
activation = "swiglu"
seq_len = 128
)";

}  // namespace

TEST_CASE("a search folder adds entries to the compiled-in catalog and lists them with it") {
  const ConfigFolder folder("dgx-catalog-files-add");
  folder.write("models/tiny-test.toml", kTinyModel);
  const std::vector<std::string> names = catalog_names("models");
  CHECK(std::find(names.begin(), names.end(), "tiny-test") != names.end());
  CHECK(std::find(names.begin(), names.end(), "llama3.1-70b") != names.end());
  auto model = find_model("tiny-test");
  REQUIRE_MESSAGE(model.has_value(), (model ? "" : model.error().message));
  CHECK(model->layers == 2);
}

TEST_CASE("a file in a search folder hides the compiled-in one of the same path, and errors name it") {
  const ConfigFolder folder("dgx-catalog-files-hide");
  std::string replaced = kTinyModel;
  replaced.replace(replaced.find("tiny-test"), 9, "llama3.1-8b");
  folder.write("models/llama3.1-8b.toml", replaced);
  auto file = find_catalog_file("models/llama3.1-8b.toml");
  REQUIRE(file.has_value());
  REQUIRE(file->has_value());
  CHECK_FALSE((*file)->embedded);
  CHECK((*file)->label == (folder.dir / "models/llama3.1-8b.toml").string());
  auto model = find_model("llama3.1-8b");
  REQUIRE(model.has_value());
  CHECK(model->layers == 2);

  folder.write("models/bad.toml", std::string(kTinyModel) + "nic_gbps = 3\n");
  set_search_dirs({SearchDir{.path = folder.dir, .origin = "--config-dir"}});  // forget what was read
  auto bad = find_model("bad");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.starts_with((folder.dir / "models/bad.toml").string() + ":12:12: unknown key 'nic_gbps'"));
}

TEST_CASE("without search folders the compiled-in copy answers") {
  set_search_dirs({});
  auto file = find_catalog_file("models/llama3.1-8b.toml");
  REQUIRE(file.has_value());
  REQUIRE(file->has_value());
  CHECK((*file)->embedded);
  CHECK((*file)->label == "configs/models/llama3.1-8b.toml");
  auto none = find_catalog_file("models/none.toml");
  REQUIRE(none.has_value());
  CHECK_FALSE(none->has_value());
}

TEST_CASE("a FIFO in a search folder is refused at once, naming it") {
  const ConfigFolder folder("dgx-catalog-files-fifo");
  const std::filesystem::path fifo = folder.dir / "models/fifo.toml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto model = find_model("fifo");
  REQUIRE_FALSE(model.has_value());
  CHECK(model.error().message == fifo.string() + " (--config-dir): is a FIFO, not a regular file");
}

TEST_CASE("an unknown name suggests the close ones and lists the catalog") {
  set_search_dirs({});
  auto model = find_model("llama3.1-7b");
  REQUIRE_FALSE(model.has_value());
  CHECK(model.error().message.starts_with("unknown model 'llama3.1-7b'; did you mean 'llama3.1-70b'"));
  CHECK(model.error().message.find("The catalog has: ") != std::string::npos);
  CHECK_FALSE(find_model("../models/llama3.1-8b").has_value());
}

TEST_CASE("read_small_file refuses a directory and a file over its limit, saying why") {
  const ConfigFolder folder("dgx-catalog-files-small");
  CHECK(read_small_file(folder.dir, 100).error().message == "is a directory, not a regular file");
  folder.write("big.toml", std::string(200, 'x'));
  CHECK(read_small_file(folder.dir / "big.toml", 100).error().message ==
        "is 200 bytes; dgxhost reads at most 100 bytes");
  CHECK(read_small_file(folder.dir / "big.toml", 1000)->size() == 200);
}

TEST_CASE("an unknown name's message names the key, the likely entries and the whole catalog") {
  const std::vector<std::string> providers = {"aws", "nebius", "owned"};
  CHECK(unknown_entry("price provider", "awz", providers, "cost.provider") ==
        "unknown price provider 'awz' (config key cost.provider); did you mean 'aws'? The catalog has: aws, nebius, "
        "owned");
  CHECK(unknown_entry("model", "zzzz", {"alpha", "beta"}, "model", "beta").find("did you mean 'beta'?") !=
        std::string::npos);
  CHECK(unknown_entry("model", "qqqq", {"a"}, "model") ==
        "unknown model 'qqqq' (config key model). The catalog has: a");
  CHECK(unknown_entry("system", "h100-sxn", {"b200", "h100-sxm"}) ==
        "unknown system 'h100-sxn'; did you mean 'h100-sxm'? The catalog has: b200, h100-sxm");
}
