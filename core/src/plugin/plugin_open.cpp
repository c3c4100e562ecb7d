#include "dgx/core/plugin/plugin_open.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include <boost/dll/shared_library.hpp>
#include <dgx/sdk/error.hpp>

#include "dgx/core/plugin/secure_path.hpp"
#include "dgx/core/support/build_info.hpp"

namespace dgx {

std::string abi_version_string(std::uint32_t version) {
  return std::to_string(DGX_ABI_VERSION_MAJOR(version)) + "." + std::to_string(DGX_ABI_VERSION_MINOR(version));
}

namespace {

Failure reject(std::string reason) { return {ExitCode::no_plugin, std::move(reason)}; }

// Libraries stay loaded until the process exits: code or data a plugin handed out may still be referenced, and
// unloading C++ libraries with static state is a classic source of crashes at exit. The vector is leaked on
// purpose so that nothing runs dlclose before exit.
std::vector<boost::dll::shared_library>& retained_libraries() {
  static auto* libraries = new std::vector<boost::dll::shared_library>();
  return *libraries;
}

std::string describe_non_elf(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::array<char, 16> head{};
  in.read(head.data(), head.size());
  const auto n = static_cast<std::size_t>(in.gcount());
  if (n == 0) {
    return "an empty file";
  }
  std::string printable;
  for (std::size_t i = 0; i < std::min<std::size_t>(n, 8); ++i) {
    printable += (head[i] >= 0x20 && head[i] < 0x7f) ? head[i] : '.';
  }
  return "a file starting with \"" + printable + "\"";
}

bool is_elf(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

Expected<boost::dll::shared_library> open_library(const std::filesystem::path& file) {
  boost::dll::shared_library library;
  boost::dll::fs::error_code load_error;
  library.load(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, load_error);
  if (load_error) {
    const char* reason = ::dlerror();  // Boost.DLL keeps only a generic code; the loader's reason is better
    return reject("cannot be loaded: " + (reason != nullptr ? std::string(reason) : load_error.message()));
  }
  retained_libraries().push_back(library);
  return library;
}

// What the dynamic symbol at `address` is, when it is not a function: "data (STT_OBJECT)". Calling data crashes
// the host (or executes whatever bytes it holds), so the symbol table's type is checked first.
std::string symbol_kind(void* address) {
  Dl_info info{};
  void* entry = nullptr;
  if (::dladdr1(address, &info, &entry, RTLD_DL_SYMENT) == 0 || entry == nullptr) {
    return {};  // no symbol table entry to judge by: let the call decide
  }
  const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
  switch (ELF64_ST_TYPE(symbol->st_info)) {
  case STT_FUNC:
  case STT_GNU_IFUNC:
  case STT_NOTYPE: return {};  // assembly and some toolchains leave functions untyped
  case STT_OBJECT: return "data (STT_OBJECT)";
  case STT_TLS: return "thread-local data (STT_TLS)";
  default: return "not a function (ELF symbol type " + std::to_string(ELF64_ST_TYPE(symbol->st_info)) + ")";
  }
}

// The fields every major version of the ABI starts its plugin descriptor with (abi/v1.h: "the version lives at
// a fixed offset"), read before anything whose layout depends on the version.
struct DescriptorHead {
  std::uint32_t struct_size;
  std::uint32_t abi_version;
};

Expected<OpenedPlugin> negotiate(const std::filesystem::path& file, dgx_plugin_entry_fn entry) {
  const dgx_host_offer offer{sizeof(dgx_host_offer), kHostAbiMin, kHostAbiMax, "dgxhost", build_info::version()};
  const dgx_plugin_desc* desc = nullptr;
  const dgx_status status = entry(&offer, &desc);
  if (desc == nullptr) {
    return reject("dgx_plugin_entry returned no descriptor and " + sdk::status_symbol(status) +
                  " (expected DGX_OK and a descriptor)");
  }
  DescriptorHead head{};
  std::memcpy(&head.struct_size, desc, sizeof head.struct_size);
  if (head.struct_size >= sizeof head) {
    std::memcpy(&head, desc, sizeof head);
  }
  const bool knows_version = head.struct_size >= sizeof head;
  if (knows_version &&
      (head.abi_version < kHostAbiMin || head.abi_version > kHostAbiMax || status == DGX_ERR_VERSION)) {
    return reject("implements plugin ABI " + abi_version_string(head.abi_version) + ", this dgxhost speaks ABI " +
                  abi_version_string(kHostAbiMin) + "-" + abi_version_string(kHostAbiMax));
  }
  return OpenedPlugin{file, desc, head.struct_size, knows_version ? head.abi_version : kHostAbiMin, status};
}

}  // namespace

std::optional<Failure> check_plugin_file(const std::filesystem::path& file, bool allow_insecure) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return reject("not a regular file (expected a shared library)");
  }
  if (!allow_insecure) {
    if (std::string problem = insecure_permissions(file); !problem.empty()) {
      return reject(problem);
    }
  }
  if (!is_elf(file)) {
    return reject("not a shared library: expected an ELF shared object, found " + describe_non_elf(file));
  }
  return std::nullopt;
}

Expected<OpenedPlugin> open_plugin(const std::filesystem::path& file, bool allow_insecure) {
  if (auto problem = check_plugin_file(file, allow_insecure)) {
    return *problem;
  }
  auto library = open_library(file);
  if (!library) {
    return library.error();
  }
  if (!library->has(DGX_PLUGIN_ENTRY_SYMBOL)) {
    return reject(std::string("no entry symbol '") + DGX_PLUGIN_ENTRY_SYMBOL +
                  "' (expected a dgx plugin: DGX_PLUGIN(...) in C++, or an exported dgx_plugin_entry in C)");
  }
  void* entry = &library->get<char>(DGX_PLUGIN_ENTRY_SYMBOL);
  if (std::string kind = symbol_kind(entry); !kind.empty()) {
    return reject(std::string("entry symbol '") + DGX_PLUGIN_ENTRY_SYMBOL + "' is " + kind +
                  " (expected a function); calling it would crash");
  }
  return negotiate(file, reinterpret_cast<dgx_plugin_entry_fn>(entry));
}

}  // namespace dgx
