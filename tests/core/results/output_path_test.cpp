// Results files are written only where they must be: never through a link, never over a device or folder, never
// leaving a temporary behind, and a target that cannot be written is known before any work.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "dgx/core/results/output_path.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using dgx::testing::TempDir;

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t entries(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("a results file is replaced atomically and no temporary is left") {
  TempDir dir;
  const auto target = dir.write("r.json", "old");
  REQUIRE_FALSE(write_file_atomically(target.string(), "new"));
  CHECK(read(target) == "new");
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("a symlink at the old temporary name is never followed") {
  TempDir dir;
  const auto victim = dir.write("victim", "precious");
  std::filesystem::create_symlink(victim, dir.path() / "r.json.tmp");
  REQUIRE_FALSE(write_file_atomically((dir.path() / "r.json").string(), "results"));
  CHECK(read(victim) == "precious");
  CHECK(read(dir.path() / "r.json") == "results");
}

TEST_CASE("a symlink, a FIFO or a folder at the target is refused, not replaced") {
  TempDir dir;
  const auto victim = dir.write("victim", "precious");
  std::filesystem::create_symlink(victim, dir.path() / "link.json");
  auto problem = write_file_atomically((dir.path() / "link.json").string(), "x");
  REQUIRE(problem);
  CHECK(problem->find("is a symbolic link") != std::string::npos);
  CHECK(std::filesystem::is_symlink(dir.path() / "link.json"));
  CHECK(read(victim) == "precious");

  REQUIRE(::mkfifo((dir.path() / "fifo.json").c_str(), 0600) == 0);
  problem = write_file_atomically((dir.path() / "fifo.json").string(), "x");
  REQUIRE(problem);
  CHECK(problem->find("is a FIFO") != std::string::npos);

  std::filesystem::create_directory(dir.path() / "folder.json");
  problem = write_file_atomically((dir.path() / "folder.json").string(), "x");
  REQUIRE(problem);
  CHECK(problem->find("is a directory") != std::string::npos);
  CHECK(entries(dir.path()) == 4);  // victim, link, fifo, folder: no stale temporary
}

TEST_CASE("a device node is refused as a target") {
  const auto problem = check_output_path("/dev/null");
  REQUIRE(problem);
  CHECK(problem->code == ExitCode::usage);
  CHECK(problem->message.find("is a character device") != std::string::npos);
}

TEST_CASE("a missing folder is a usage error with the OS reason, before any work") {
  TempDir dir;
  const auto problem = check_output_path((dir.path() / "nodir" / "x.json").string());
  REQUIRE(problem);
  CHECK(problem->code == ExitCode::usage);
  CHECK(problem->message.find("No such file or directory") != std::string::npos);
  CHECK(entries(dir.path()) == 0);
}

TEST_CASE("checking an output path leaves nothing behind") {
  TempDir dir;
  CHECK_FALSE(check_output_path((dir.path() / "x.json").string()));
  CHECK(entries(dir.path()) == 0);
  CHECK_FALSE(check_output_path("-"));
}

TEST_CASE("the format follows the extension, an unknown extension is an error, none takes --format") {
  CHECK(output_format("r.json", Format::table).value() == Format::json);
  CHECK(output_format("out.d/results", Format::csv).value() == Format::csv);
  CHECK(output_format("-", Format::markdown).value() == Format::markdown);
  CHECK(output_format("r.html", Format::table).value() == Format::html);
  CHECK(output_format("r.xml", Format::json).value() == Format::junit);
  CHECK(output_format("r.prom", Format::table).value() == Format::prometheus);
  const auto pdf = output_format("r.pdf", Format::table);
  REQUIRE_FALSE(pdf);
  CHECK(pdf.error().code == ExitCode::usage);
  CHECK(pdf.error().message.find("unknown extension '.pdf'") != std::string::npos);
  CHECK(pdf.error().message.find(".xml .prom") != std::string::npos);
}

TEST_CASE("a new results file gets the permissions the umask allows") {
  TempDir dir;
  const mode_t old = ::umask(027);
  const auto target = dir.path() / "r.json";
  REQUIRE_FALSE(write_file_atomically(target.string(), "x"));
  ::umask(old);
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
}

// --emit DIR: the files a workload asks the host to write (dgx_host_api::write_output_file) --------------------------

TEST_CASE("a workload's file is written into the folder, created when absent, with its mode and no temporary left") {
  TempDir dir;
  const auto folder = dir.path() / "deploy";
  const mode_t old = ::umask(022);
  const auto problem = write_file_in_folder(folder.string(), "serve.sh", "#!/bin/sh\n", 0755);
  ::umask(old);
  REQUIRE_FALSE(problem);
  CHECK(read(folder / "serve.sh") == "#!/bin/sh\n");
  struct stat st {};
  REQUIRE(::stat((folder / "serve.sh").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0755);
  REQUIRE_FALSE(write_file_in_folder(folder.string(), "serve.sh", "#!/bin/sh\necho again\n", 0644));
  CHECK(read(folder / "serve.sh") == "#!/bin/sh\necho again\n");  // a regular file of one link is replaced
  CHECK(entries(folder) == 1);
}

TEST_CASE("a symbolic link planted in the folder is refused and the file it points to outside is unchanged") {
  TempDir dir;
  const auto outside = dir.write("outside/precious.txt", "precious");
  const auto folder = dir.path() / "deploy";
  std::filesystem::create_directory(folder);
  std::filesystem::create_symlink(outside, folder / "serve.sh");
  const auto problem = write_file_in_folder(folder.string(), "serve.sh", "rm -rf ~\n", 0755);
  REQUIRE(problem);
  CHECK(problem->find("is a symbolic link") != std::string::npos);
  CHECK(read(outside) == "precious");
  CHECK(std::filesystem::is_symlink(folder / "serve.sh"));
  CHECK(entries(folder) == 1);  // no temporary left behind
}

TEST_CASE("a hard link to a file outside the folder is refused and that file is unchanged") {
  TempDir dir;
  const auto outside = dir.write("outside/precious.txt", "precious");
  const auto folder = dir.path() / "deploy";
  std::filesystem::create_directory(folder);
  std::filesystem::create_hard_link(outside, folder / "serve.sh");
  const auto problem = write_file_in_folder(folder.string(), "serve.sh", "rm -rf ~\n", 0755);
  REQUIRE(problem);
  CHECK(problem->find("has 2 hard links") != std::string::npos);
  CHECK(read(outside) == "precious");
  CHECK(read(folder / "serve.sh") == "precious");
}

TEST_CASE("a FIFO in the folder is refused at once: inspected, never opened") {
  TempDir dir;
  const auto folder = dir.path() / "deploy";
  std::filesystem::create_directory(folder);
  const auto fifo = folder / "serve.sh";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A reader holds the FIFO open, so that a writer's open would succeed instead of blocking forever: a host that
  // opened it would not hang this test but write into the FIFO, which the read below would see.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  const auto problem = write_file_in_folder(folder.string(), "serve.sh", "data", 0644);
  REQUIRE(problem);  // the call returned: it did not wait for the FIFO
  CHECK(problem->find("is a FIFO") != std::string::npos);
  char byte = 0;
  CHECK(::read(reader, &byte, 1) <= 0);  // nothing was written into it
  ::close(reader);
  CHECK(std::filesystem::is_fifo(fifo));
}

TEST_CASE("a name that is no plain file name is refused and nothing is written anywhere") {
  TempDir dir;
  const auto folder = dir.path() / "deploy";
  std::filesystem::create_directory(folder);
  for (const char* name : {"../escape.sh", "sub/serve.sh", "/tmp/serve.sh", "..", ".", "", "bad\nname"}) {
    CAPTURE(name);
    const auto problem = write_file_in_folder(folder.string(), name, "x", 0644);
    CHECK(problem);
  }
  CHECK(write_file_in_folder(folder.string(), "a/b", "x", 0644)->find("holds '/'") != std::string::npos);
  CHECK(entries(folder) == 0);
  CHECK(entries(dir.path()) == 1);  // the folder alone: nothing escaped it
}

TEST_CASE("--emit DIR is checked before any work: a folder, or absent in one that exists") {
  TempDir dir;
  CHECK_FALSE(check_emit_folder(""));
  CHECK_FALSE(check_emit_folder(dir.path().string()));
  CHECK_FALSE(check_emit_folder((dir.path() / "new").string()));
  CHECK_FALSE(check_emit_folder((dir.path() / "new").string() + "/"));
  const auto file = dir.write("file", "x");
  const auto not_folder = check_emit_folder(file.string());
  REQUIRE(not_folder);
  CHECK(not_folder->code == ExitCode::usage);
  CHECK(not_folder->message.find("not a folder") != std::string::npos);
  const auto deep = check_emit_folder((dir.path() / "a" / "b").string());
  REQUIRE(deep);
  CHECK(deep->message.find("No such file or directory") != std::string::npos);
}
