#include "postgres_server.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "process.hpp"

namespace dgx::testing {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPort = "5432";  // only a socket file's name: the server listens on no TCP port

// The command line that runs `program` as the server's user: itself, or through runuser as root.
std::pair<std::string, std::vector<std::string>> as_user(const std::string& user, const std::string& program,
                                                         std::vector<std::string> args) {
  if (user.empty()) {
    return {program, std::move(args)};
  }
  std::vector<std::string> all{"-u", user, "--", program};
  all.insert(all.end(), args.begin(), args.end());
  return {"/usr/sbin/runuser", std::move(all)};  // util-linux, on every Debian
}

}  // namespace

std::optional<std::string> PostgresServer::binaries() {
  std::error_code ec;
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    if (fs::exists(entry.path() / "bin" / "initdb", ec) && fs::exists(entry.path() / "bin" / "pg_ctl", ec)) {
      found.push_back(entry.path() / "bin");
    }
  }
  if (found.empty()) {
    return std::nullopt;
  }
  std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
    return std::stoi(a.parent_path().filename().string()) < std::stoi(b.parent_path().filename().string());
  });
  return found.back().string();
}

PostgresServer::PostgresServer() {
  auto bin = binaries();
  if (!bin) {
    error_ = kNoPostgres;
    return;
  }
  bin_ = *bin;
  if (geteuid() == 0) {
    if (getpwnam("postgres") == nullptr) {
      error_ = "running as root and there is no postgres user to run the server as";
      return;
    }
    user_ = "postgres";
    // The server's user must reach its folder: the temp folder is root's, mode 0700.
    fs::permissions(dir_.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  }
  data_ = (dir_.path() / "data").string();
  sockets_ = (dir_.path() / "sockets").string();
  fs::create_directories(sockets_);
  if (!user_.empty()) {
    const passwd* pw = getpwnam(user_.c_str());
    if (chown(sockets_.c_str(), pw->pw_uid, pw->pw_gid) != 0 ||
        chown(dir_.path().c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      error_ = "cannot give " + dir_.path().string() + " to the postgres user";
      return;
    }
  }
  const auto [init, init_args] =
      as_user(user_, bin_ + "/initdb", {"-D", data_, "--auth=trust", "--no-sync", "-U", "dgx", "-E", "UTF8"});
  const ProcessResult initdb = run_process(init, init_args, {{"LC_ALL", "C"}});
  if (initdb.exit_code != 0) {
    error_ = "initdb failed: " + initdb.err + initdb.out;
    return;
  }
  const std::string options = "-c listen_addresses='' -c unix_socket_directories=" + sockets_ + " -p " + kPort +
                              " -c fsync=off -c full_page_writes=off";
  const auto [ctl, ctl_args] = as_user(
      user_, bin_ + "/pg_ctl", {"-D", data_, "-o", options, "-l", data_ + "/server.log", "-w", "-t", "60", "start"});
  const ProcessResult start = run_process(ctl, ctl_args, {{"LC_ALL", "C"}});
  if (start.exit_code != 0) {
    error_ = "pg_ctl start failed: " + start.err + start.out;
    return;
  }
  running_ = true;
}

PostgresServer::~PostgresServer() { stop(); }

void PostgresServer::stop() {
  if (!running_) {
    return;
  }
  const auto [ctl, args] = as_user(user_, bin_ + "/pg_ctl", {"-D", data_, "-m", "immediate", "-w", "stop"});
  run_process(ctl, args, {{"LC_ALL", "C"}});
  running_ = false;
}

std::string PostgresServer::url(const std::string& db) const {
  return "postgresql://dgx@/" + db + "?host=" + sockets_ + "&port=" + kPort;
}

bool PostgresServer::create_database(const std::string& name) {
  const ProcessResult r = run_process(bin_ + "/createdb", {"-h", sockets_, "-p", kPort, "-U", "dgx", name});
  if (r.exit_code != 0) {
    error_ = "createdb " + name + " failed: " + r.err;
    return false;
  }
  return true;
}

}  // namespace dgx::testing
