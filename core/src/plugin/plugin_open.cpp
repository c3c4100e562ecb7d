#include "dgx/core/plugin/plugin_open.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <boost/dll/shared_library.hpp>
#include <dgx/sdk/error.hpp>

#include "dgx/core/plugin/call_guard.hpp"
#include "dgx/core/plugin/secure_path.hpp"
#include "dgx/core/support/build_info.hpp"
#include "dgx/core/support/files.hpp"

namespace dgx {

std::string abi_version_string(std::uint32_t version) {
  return std::to_string(DGX_ABI_VERSION_MAJOR(version)) + "." + std::to_string(DGX_ABI_VERSION_MINOR(version));
}

namespace {

// Libraries stay loaded until the process exits: code or data a plugin handed out may still be referenced, and
// unloading C++ libraries with static state is a classic source of crashes at exit. The vector is leaked on
// purpose so that nothing runs dlclose before exit.
std::vector<boost::dll::shared_library>& retained_libraries() {
  static auto* libraries = new std::vector<boost::dll::shared_library>();
  return *libraries;
}

std::string describe_non_elf(std::string_view head) {
  if (head.empty()) {
    return "an empty file";
  }
  std::string printable;
  for (std::size_t i = 0; i < std::min<std::size_t>(head.size(), 8); ++i) {
    printable += (head[i] >= 0x20 && head[i] < 0x7f) ? head[i] : '.';
  }
  return "a file starting with \"" + printable + "\"";
}

bool is_elf(std::string_view head) {
  return head.size() >= 4 && head.substr(0, 4) == "\x7f"
                                                  "ELF";
}

// Up to `size` bytes at `offset`.
std::string read_at(int fd, std::size_t size, off_t offset) {
  std::string out(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, out.data() + done, size - done, offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return out;
}

std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
  for (const unsigned char c : bytes) {
    hash = (hash ^ c) * 1099511628211ULL;
  }
  return hash;
}

std::int64_t nanoseconds(const struct timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

Expected<boost::dll::shared_library> open_library(const CheckedFile& file, const detail::LoadRecovery& recovery) {
  boost::dll::shared_library library;
  boost::dll::fs::error_code load_error;
  {
    const CallGuard guard(file.file.string() + ": opening the library (its static constructors)", recovery);
    library.load(file.resolved.string(), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local,
                 load_error);
  }
  if (load_error) {
    const char* reason = ::dlerror();  // Boost.DLL keeps only a generic code; the loader's reason is better
    return plugin_failure("cannot be loaded: " + (reason != nullptr ? std::string(reason) : load_error.message()));
  }
  retained_libraries().push_back(library);
  register_plugin_library(file.file, library.native());
  // What was loaded must be what was checked: the resolved path's folders are safe, so only root or this user
  // could have swapped the file since, but a rebuild in between would otherwise go unnoticed.
  struct stat st {};
  if (::stat(file.resolved.c_str(), &st) != 0 || st.st_dev != file.identity.device ||
      st.st_ino != file.identity.inode) {
    return plugin_failure("was replaced between its check and its loading (" + file.resolved.string() +
                          " is another file now): not loaded; run the command again");
  }
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

Expected<OpenedPlugin> negotiate(const std::filesystem::path& file, dgx_plugin_entry_fn entry,
                                 const detail::LoadRecovery& recovery) {
  const dgx_host_offer offer{sizeof(dgx_host_offer), kHostAbiMin, kHostAbiMax, "dgxhost", build_info::version()};
  const dgx_plugin_desc* desc = nullptr;
  dgx_status status = DGX_OK;
  {
    const CallGuard guard(file.string() + ": " + DGX_PLUGIN_ENTRY_SYMBOL + "()", recovery);
    status = entry(&offer, &desc);
  }
  if (desc == nullptr) {
    return plugin_failure("dgx_plugin_entry returned no descriptor and " + sdk::status_symbol(status) +
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
    return plugin_failure("implements plugin ABI " + abi_version_string(head.abi_version) +
                          ", this dgxhost speaks ABI " + abi_version_string(kHostAbiMin) + "-" +
                          abi_version_string(kHostAbiMax));
  }
  return OpenedPlugin{file, desc, head.struct_size, knows_version ? head.abi_version : kHostAbiMin, status};
}

}  // namespace

std::string FileIdentity::key() const {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return "dev " + std::to_string(device) + " ino " + std::to_string(inode) + " size " + std::to_string(size) +
         " mtime " + std::to_string(mtime_ns) + " ctime " + std::to_string(ctime_ns) + " hash " + hex;
}

Expected<CheckedFile> check_plugin_file(const std::filesystem::path& file, bool allow_insecure) {
  const ResolvedPath path = resolve_plugin_path(file, !allow_insecure);
  if (!path.problem.empty()) {
    return plugin_failure(path.problem);
  }
  const UniqueFd fd(::open(path.resolved.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    return plugin_failure("cannot be read: " + os_reason(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return plugin_failure("not a regular file (expected a shared library)");
  }
  constexpr std::size_t kEnds = std::size_t{64} * 1024;
  const auto size = static_cast<std::size_t>(st.st_size);
  const std::string head = read_at(fd.get(), std::min(size, kEnds), 0);
  if (!is_elf(head)) {
    return plugin_failure("not a shared library: expected an ELF shared object, found " + describe_non_elf(head));
  }
  const std::string tail = size > kEnds ? read_at(fd.get(), kEnds, static_cast<off_t>(size - kEnds)) : std::string();
  const FileIdentity identity{static_cast<std::uint64_t>(st.st_dev),
                              static_cast<std::uint64_t>(st.st_ino),
                              static_cast<std::uint64_t>(st.st_size),
                              nanoseconds(st.st_mtim),
                              nanoseconds(st.st_ctim),
                              fnv1a(fnv1a(1469598103934665603ULL, head), tail)};
  return CheckedFile{file, path.resolved, identity};
}

Expected<OpenedPlugin> open_plugin(const CheckedFile& file, const detail::LoadRecovery& recovery) {
  auto library = open_library(file, recovery);
  if (!library) {
    return library.error();
  }
  if (!library->has(DGX_PLUGIN_ENTRY_SYMBOL)) {
    return plugin_failure(std::string("no entry symbol '") + DGX_PLUGIN_ENTRY_SYMBOL +
                          "' (expected a dgx plugin: DGX_PLUGIN(...) in C++, or an exported dgx_plugin_entry in C)");
  }
  void* entry = &library->get<char>(DGX_PLUGIN_ENTRY_SYMBOL);
  if (std::string kind = symbol_kind(entry); !kind.empty()) {
    return plugin_failure(std::string("entry symbol '") + DGX_PLUGIN_ENTRY_SYMBOL + "' is " + kind +
                          " (expected a function); calling it would crash");
  }
  return negotiate(file.file, reinterpret_cast<dgx_plugin_entry_fn>(entry), recovery);
}

Expected<OpenedPlugin> open_plugin(const std::filesystem::path& file, bool allow_insecure) {
  auto checked = check_plugin_file(file, allow_insecure);
  if (!checked) {
    return checked.error();
  }
  return open_plugin(checked.value());
}

}  // namespace dgx
