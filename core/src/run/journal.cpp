#include "dgx/core/run/journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>

namespace dgx {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxJournalBytes = std::size_t{1} << 30;

std::string utc_stamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y%m%dT%H%M%SZ", &tm);
  return buffer;
}

// A workload name as a folder name: letters, digits, '.', '_' and '-' kept, anything else '_'.
std::string folder_safe(const std::string& name) {
  std::string out;
  for (const char c : name) {
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
  }
  return out.empty() ? "run" : out;
}

json::Value metric_json(const Metric& m) {
  json::Object o;
  o.set("name", m.name);
  o.set("value", m.value);
  o.set("unit", m.unit);
  if (m.hidden) {
    o.set("hidden", true);
  }
  if (!m.label.empty()) {
    o.set("label", m.label);
  }
  return o;
}

ResultMode mode_from(const json::Cursor& mode) {
  for (const ResultMode m : {ResultMode::measured, ResultMode::projected, ResultMode::reference}) {
    if (to_string(m) == mode.string()) {
      return m;
    }
  }
  mode.fail("\"measured\", \"projected\" or \"reference\"");
}

bool optional_bool(const json::Cursor& o, std::string_view key) {
  const auto member = o.find(key);
  return member && member->boolean();
}

}  // namespace

fs::path runs_root() {
  const char* root_env = std::getenv("DGX_RUNS_DIR");
  if (root_env != nullptr && std::string_view(root_env) == "off") {
    return {};
  }
  return root_env != nullptr && *root_env != '\0' ? fs::path(root_env) : fs::path("dgx-runs");
}

fs::path default_run_dir(const std::string& workload) {
  const fs::path root = runs_root();
  if (root.empty()) {
    return {};
  }
  const fs::path base = root / (utc_stamp() + "-" + folder_safe(workload));
  fs::path dir = base;
  std::error_code ec;
  for (int n = 2; fs::exists(dir, ec) && n < 1000; ++n) {
    dir = base.string() + "-" + std::to_string(n);
  }
  return dir;
}

json::Value row_to_journal(const ResultRow& row) {
  json::Object o;
  o.set("workload", row.workload);
  o.set("plugin", row.plugin);
  o.set("mode", std::string(to_string(row.mode)));
  o.set("table", row.table);
  o.set("label", row.label);
  o.set("config", row.config);
  o.set("hidden_config", json::Array(row.hidden_config.begin(), row.hidden_config.end()));
  json::Array metrics;
  for (const Metric& m : row.metrics) {
    metrics.push_back(metric_json(m));
  }
  o.set("metrics", std::move(metrics));
  json::Array fields;
  for (const Field& f : row.fields) {
    json::Object fo;
    fo.set("key", f.key);
    fo.set("value", f.value);
    if (f.hidden) {
      fo.set("hidden", true);
    }
    fields.push_back(std::move(fo));
  }
  o.set("fields", std::move(fields));
  o.set("sample_times", json::Array(row.sample_times.begin(), row.sample_times.end()));
  return o;
}

ResultRow row_from_journal(const json::Cursor& v) {
  ResultRow row;
  row.workload = v["workload"].string();
  row.plugin = v["plugin"].string();
  row.mode = mode_from(v["mode"]);
  row.table = v["table"].string();
  row.label = v["label"].string();
  row.config = v["config"].object();
  for (const json::Cursor& k : v["hidden_config"].elements()) {
    row.hidden_config.push_back(k.string());
  }
  for (const json::Cursor& m : v["metrics"].elements()) {
    // A non-finite value was written as null: it reads back as NaN, as it was.
    row.metrics.push_back({m["name"].string(), m["value"].number_or_null(), m["unit"].string(),
                           optional_bool(m, "hidden"), m.string_or("label")});
  }
  for (const json::Cursor& f : v["fields"].elements()) {
    row.fields.push_back({f["key"].string(), f["value"].string(), optional_bool(f, "hidden")});
  }
  row.sample_times = v["sample_times"].numbers();
  return row;
}

Expected<Journal> Journal::create(const fs::path& dir, const json::Object& header) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return usage_failure("cannot create the run folder " + dir.string() + ": " + ec.message());
  }
  const fs::path file = dir / kJournalFile;
  UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!fd) {
    return usage_failure("cannot create the journal " + file.string() + ": " + os_reason(errno) +
                         (errno == EEXIST ? " (continue that run with --resume " + dir.string() + ")" : ""));
  }
  Journal journal(dir, std::move(fd));
  json::Object full = header;
  full.set("schema", kJournalSchema);
  const std::string line = json::write(full, 0) + "\n";
  if (const int err = write_all(journal.fd_.get(), line.data(), line.size()); err != 0) {
    return usage_failure("cannot write the journal " + file.string() + ": " + os_reason(err));
  }
  ::fdatasync(journal.fd_.get());
  journal.header_ = std::move(full);
  return journal;
}

Expected<json::Object> Journal::read_header(const fs::path& dir) {
  const fs::path file = dir / kJournalFile;
  auto text = read_regular_file(file.string(), kMaxJournalBytes, "journal");
  if (!text) {
    return text.error();
  }
  const std::string first = text->substr(0, text->find('\n'));
  try {
    json::Value header = json::parse(first);
    if (!header.is_object() || header.as_object().find("schema") == nullptr ||
        header["schema"] != json::Value(kJournalSchema)) {
      return usage_failure("--resume " + dir.string() + ": " + file.string() + " does not start with a " +
                           kJournalSchema + " header");
    }
    return header.as_object();
  } catch (const std::exception& e) {
    return usage_failure("--resume " + dir.string() + ": cannot read the header of " + file.string() + ": " + e.what());
  }
}

Expected<Journal> Journal::resume(const fs::path& dir) {
  auto header = read_header(dir);
  if (!header) {
    return header.error();
  }
  const fs::path file = dir / kJournalFile;
  auto text = read_regular_file(file.string(), kMaxJournalBytes, "journal");
  if (!text) {
    return text.error();
  }
  // Cut a last line that a crash left half-written, so that appending starts on a fresh line.
  const std::size_t complete = text->rfind('\n') + 1;
  if (complete < text->size() && ::truncate(file.c_str(), static_cast<off_t>(complete)) != 0) {
    return usage_failure("cannot repair the journal " + file.string() + ": " + os_reason(errno));
  }
  UniqueFd fd(::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) {
    return usage_failure("cannot append to the journal " + file.string() + ": " + os_reason(errno));
  }
  Journal journal(dir, std::move(fd));
  journal.header_ = std::move(header.value());
  std::size_t start = text->find('\n') + 1;
  for (std::size_t line_no = 2; start < complete; ++line_no) {
    const std::size_t end = text->find('\n', start);
    const std::string_view line(text->data() + start, end - start);
    start = end + 1;
    try {
      const json::Value value = json::parse(line);
      const json::Cursor entry(value);
      const std::int64_t index = entry["case"].integer();
      if (index < 0 || index > UINT32_MAX) {
        entry["case"].fail("a case index in 0.." + std::to_string(UINT32_MAX));
      }
      journal.finished_[static_cast<std::uint32_t>(index)] = row_from_journal(entry["row"]);
    } catch (const std::exception& e) {
      return usage_failure("--resume " + dir.string() + ": " + file.string() + ":" + std::to_string(line_no) +
                           ": not a journal entry: " + e.what());
    }
  }
  return journal;
}

std::optional<std::string> Journal::append(std::uint32_t index, const ResultRow& row) {
  json::Object entry;
  entry.set("case", index);
  entry.set("row", row_to_journal(row));
  const std::string line = json::write(entry, 0) + "\n";
  if (const int err = write_all(fd_.get(), line.data(), line.size()); err != 0) {
    return os_reason(err);
  }
  if (::fdatasync(fd_.get()) != 0) {
    return os_reason(errno);
  }
  finished_[index] = row;
  return std::nullopt;
}

std::string run_difference(const json::Object& a, const json::Object& b, const std::string& a_name,
                           const std::string& b_name) {
  auto both = [&](const std::string& what, const json::Value& x, const json::Value& y) {
    return what + ": " + a_name + " is " + json::write(x, 0) + ", " + b_name + " " + json::write(y, 0);
  };
  for (const char* key : {"workload", "mode"}) {
    const json::Value* x = a.find(key);
    const json::Value* y = b.find(key);
    if (x != nullptr && y != nullptr && !(*x == *y)) {
      return both(key, *x, *y);
    }
  }
  const json::Value* x = a.find("config");
  const json::Value* y = b.find("config");
  if (x == nullptr || y == nullptr || !x->is_object() || !y->is_object()) {
    return "no config to compare";
  }
  for (const auto& [key, value] : y->as_object()) {
    const json::Value* old = x->as_object().find(key);
    if (old == nullptr) {
      return "config key " + key + ": not in " + a_name + ", " + b_name + " is " + json::write(value, 0);
    }
    if (!(*old == value)) {
      return both("config key " + key, *old, value);
    }
  }
  for (const auto& [key, value] : x->as_object()) {
    if (y->as_object().find(key) == nullptr) {
      return "config key " + key + ": in " + a_name + ", not in " + b_name;
    }
  }
  return {};
}

namespace {

// "2 ranks (mpi)" from a header's {"world_size": 2, "transport": "mpi"}.
std::string ranks_text(const json::Value& ranks) {
  const json::Object* o = ranks.is_object() ? &ranks.as_object() : nullptr;
  const json::Value* size = o != nullptr ? o->find("world_size") : nullptr;
  const json::Value* transport = o != nullptr ? o->find("transport") : nullptr;
  const std::string n = size != nullptr ? json::write(*size, 0) : "?";
  return n + (n == "1" ? " rank" : " ranks") + " (" +
         (transport != nullptr && transport->is_string() ? transport->as_string() : "?") + ")";
}

}  // namespace

std::string resume_mismatch(const json::Object& header, const json::Object& now) {
  // A journal written before the header named its ranks says nothing about them: nothing to compare.
  const json::Value* then = header.find("ranks");
  const json::Value* here = now.find("ranks");
  if (then != nullptr && here != nullptr && !(*then == *here)) {
    return "ranks: the journal's run had " + ranks_text(*then) + ", this run has " + ranks_text(*here);
  }
  return run_difference(header, now, "the journal's", "this run's");
}

}  // namespace dgx
