#include "comm_workload.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <dgx/sdk/text.hpp>

namespace dgx::plugins::comm {

using sdk::Param;

namespace {

std::string dtype_choices() {
  std::string out;
  for (const sdk::DType t : sdk::kAllDTypes) {
    out += (out.empty() ? "" : "|") + std::string(sdk::dtype_name(t));
  }
  return out + "|float|half|bfloat16|double|f8e4m3|f8e5m2";
}

double median_of(std::vector<double> values) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

std::vector<Param> comm_params(bool multi) {
  std::vector<Param> params{
      Param::bytes("comm.min_bytes", 8, "smallest message size (nccl-tests -b)").with_alias("b"),
      Param::bytes("comm.max_bytes", 64 << 20, "largest message size (nccl-tests -e)").with_alias("e"),
      Param::integer("comm.step_factor", 2, "multiply the size by this from one case to the next (nccl-tests -f)")
          .with_alias("f"),
      Param::bytes("comm.step_bytes", 0, "add this to the size instead, when non-zero (nccl-tests -i)").with_alias("i"),
      Param::string("comm.dtype", "fp32", "element type (nccl-tests -d)", dtype_choices()).with_alias("d"),
      Param::string("comm.op", "sum", "reduction of all_reduce, reduce_scatter and reduce (nccl-tests -o)",
                    "sum|prod|max|min|avg")
          .with_alias("o"),
      Param::integer("comm.root", 0, "root rank of broadcast and reduce (nccl-tests -r)").with_alias("r"),
      Param::string("comm.placement", "both", "out-of-place, in-place, or both (in-place where defined)",
                    "both|out-of-place|in-place"),
      Param::boolean("comm.check", true,
                     "check every result against exactly predictable values, untimed (nccl-tests -c 0|1)")
          .with_alias("c"),
      Param::integer("comm.warmup", 5, "untimed operations before each case's samples (nccl-tests -w)").with_alias("w"),
      Param::string("comm.transport", "auto", "auto: NCCL on GPUs when there are any, else the host's MPI",
                    "auto|nccl|host"),
      Param::floating("comm.link_bandwidth", 0.0,
                      "per-direction link bandwidth for '% of peak'; 0: NVLink of the GPU when known", "GB/s"),
      // Per-size sampling like nccl-tests: a few timed samples of -n operations each, instead of the runner's
      // defaults for kernels.
      Param::integer("runner.batch", 20, "operations per timed sample (nccl-tests -n)").with_alias("n"),
      Param::integer("runner.warmup", 0, "warm-up samples (comm.warmup operations run first anyway)"),
      Param::integer("runner.min_samples", 3, "minimum timed samples per case"),
      Param::floating("runner.min_time", 0.0, "minimum measured time per case", "s"),
      Param::floating("runner.noise", 0.02, "target relative standard error of the median time; 0 disables"),
      Param::floating("runner.max_time", 5.0, "wall-clock limit of the timed phase of a case", "s"),
  };
  if (multi) {
    std::vector<std::string> all;
    for (const Collective c : kAllCollectives) {
      all.emplace_back(name(c));
    }
    std::string choices;
    for (const std::string& n : all) {
      choices += (choices.empty() ? "" : "|") + n;
    }
    params.insert(params.begin(), Param::string_list("comm.collectives", all, "collectives to run, in order", choices));
  }
  return params;
}

CommConfig read_comm_config(const sdk::Host& host, const std::vector<Collective>& collectives) {
  CommConfig c;
  c.collectives = collectives;
  if (c.collectives.empty()) {
    for (const std::string& n : host.get_string_list("comm.collectives")) {
      c.collectives.push_back(*collective_from_name(n));
    }
  }
  auto non_negative = [&](const char* key) {
    const std::int64_t v = host.get_int(key);
    if (v < 0) {
      throw sdk::InvalidArgument(std::string(key) + " must be >= 0, got " + std::to_string(v));
    }
    return static_cast<std::uint64_t>(v);
  };
  c.sweep = {non_negative("comm.min_bytes"), non_negative("comm.max_bytes"), non_negative("comm.step_factor"),
             non_negative("comm.step_bytes")};
  const std::string type = host.get_string("comm.dtype");
  c.type = *sdk::dtype_from_name(type);  // the host checked the choices
  c.op = *sdk::op_from_name(host.get_string("comm.op"));
  const std::int64_t root = host.get_int("comm.root");  // checked before it becomes an int: 2^32 is not rank 0
  const int ranks = host.ranks().world_size;
  if (root < 0 || root >= ranks) {
    throw sdk::InvalidArgument("comm.root " + std::to_string(root) + " is not a rank of this run (" +
                               std::to_string(ranks) + " rank(s))");
  }
  c.root = static_cast<int>(root);
  const std::string placement = host.get_string("comm.placement");
  c.out_of_place = placement != "in-place";
  c.in_place = placement != "out-of-place";
  c.check = host.get_bool("comm.check");
  const std::uint64_t warmup = non_negative("comm.warmup");
  if (warmup > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    throw sdk::InvalidArgument("comm.warmup must be <= " + std::to_string(std::numeric_limits<int>::max()) + ", got " +
                               std::to_string(warmup));
  }
  c.warmup_ops = static_cast<int>(warmup);
  c.max_time = host.get_float("runner.max_time");
  c.transport = host.get_string("comm.transport");
  c.link_bandwidth = host.get_float("comm.link_bandwidth");
  if (c.link_bandwidth < 0) {
    throw sdk::InvalidArgument("comm.link_bandwidth must be >= 0");
  }
  sweep_sizes(c.sweep);  // validates now, before any device work
  return c;
}

void comm_can_measure(sdk::Host& host) {
  if (host.get_string("comm.transport") != "nccl") {
    return;  // the host transport always works
  }
  if (const std::string reason = nccl_unavailable_reason(); !reason.empty()) {
    throw sdk::NoDevice("comm.transport = nccl: " + reason);
  }
}

CommWorkload::CommWorkload(sdk::Host& host, const std::vector<Collective>& collectives)
    : host_(host), config_(read_comm_config(host, collectives)) {
  const sdk::RankInfo ranks = host.ranks();
  rank_ = ranks.rank;
  ranks_ = ranks.world_size;
  for (const Collective c : config_.collectives) {
    for (const std::uint64_t size : sweep_sizes(config_.sweep)) {
      for (const bool in_place : {false, true}) {
        if ((in_place && (!config_.in_place || !has_in_place(c))) || (!in_place && !config_.out_of_place)) {
          continue;
        }
        const Shape shape = shape_for(c, size, config_.type, ranks_);
        if (shape.count == 0) {
          continue;  // smaller than one element per rank
        }
        cases_.push_back({c, size, in_place, shape});
      }
    }
  }
  if (cases_.empty()) {
    throw sdk::InvalidArgument("no case to run: every size of the sweep is smaller than one " +
                               std::string(sdk::dtype_name(config_.type)) + " element per rank");
  }
  summaries_.resize(std::size(kAllCollectives));
  check_host_memory(host.get_int("comm.max_bytes"));
}

// The largest send and receive buffers any case needs, in bytes.
std::pair<std::size_t, std::size_t> CommWorkload::largest_buffers() const {
  std::size_t send_bytes = 0, recv_bytes = 0;
  const std::size_t element = sdk::dtype_size(config_.type);
  for (const CaseSpec& c : cases_) {
    send_bytes = std::max(send_bytes, c.shape.send_elems * element);
    recv_bytes = std::max(recv_bytes, c.shape.recv_elems * element);
  }
  return {send_bytes, recv_bytes};
}

// A sweep whose buffers cannot fit in this machine's memory is a configuration error, named before any work:
// the host images of the send and receive buffers (what the check compares) always live in host memory, and
// with the host transport the buffers themselves too.
void CommWorkload::check_host_memory(std::int64_t max_bytes) const {
  const auto [send_bytes, recv_bytes] = largest_buffers();
  const bool host_buffers =
      config_.transport == "host" || (config_.transport == "auto" && !nccl_unavailable_reason().empty());
  const double needed =
      (host_buffers ? 2.0 : 1.0) * (static_cast<double>(send_bytes) + static_cast<double>(recv_bytes));
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) {
    return;
  }
  const double memory = static_cast<double>(pages) * static_cast<double>(page);
  if (needed > memory) {
    throw sdk::InvalidArgument("comm.max_bytes (-e) " + std::to_string(max_bytes) + ": the largest case needs " +
                               sdk::text::gib(needed) + " of host memory (its send and receive buffers" +
                               (host_buffers ? " and their copies for the check" : "' copies for the check") +
                               "), more than this machine's " + sdk::text::gib(memory) + "; lower comm.max_bytes");
  }
}

void CommWorkload::setup() {
  const std::string unavailable = nccl_unavailable_reason();
  const bool nccl = config_.transport == "nccl" || (config_.transport == "auto" && unavailable.empty());
  if (nccl && !unavailable.empty()) {
    throw sdk::NoDevice("comm.transport = nccl: " + unavailable);
  }
  backend_ = nccl ? make_nccl_backend(host_) : make_host_backend(host_);
  const auto [send_bytes, recv_bytes] = largest_buffers();
  send_ = backend_->allocate(send_bytes);
  recv_ = backend_->allocate(recv_bytes);
  send_image_.resize(send_bytes);
  recv_image_.resize(recv_bytes);
  host_.info(std::string(name(config_.collectives.front())) + (config_.collectives.size() > 1 ? " and others" : "") +
             " on " + backend_->comm().name() + ", " + std::to_string(ranks_) + " rank(s), buffers on " +
             backend_->device() + ", " + std::to_string(cases_.size()) + " cases");
}

Buffers CommWorkload::buffers(const CaseSpec& c) {
  return place(c.collective, c.shape, config_.type, rank_, c.in_place, send_, recv_);
}

void CommWorkload::prepare_buffers(const CaseSpec& c, const Pattern& pattern) {
  const std::size_t element = sdk::dtype_size(config_.type);
  pattern.prepare(send_image_.data(), recv_image_.data(), c.shape, rank_, c.in_place);
  backend_->upload(send_, send_image_.data(), c.shape.send_elems * element);
  backend_->upload(recv_, recv_image_.data(), c.shape.recv_elems * element);
}

sdk::Case CommWorkload::begin_case(std::size_t index) {
  current_ = &cases_[index];
  const CaseSpec& c = *current_;
  prepare_buffers(c, Pattern(c.collective, config_.type, config_.op, ranks_, config_.root));
  const Buffers b = buffers(c);
  // The untimed operations are bounded like the timed phase: by runner.max_time and by Ctrl-C. Every rank must
  // issue the same number of collectives, so rank 0 decides when to stop and tells the others every 64.
  const double start = host_.now();
  for (int i = 0; i < config_.warmup_ops; ++i) {
    if (i % 64 == 63) {
      backend_->synchronize();
      if (agreed_stop(host_.cancelled() || host_.now() - start > config_.max_time)) {
        break;
      }
    }
    issue(backend_->comm(), c.collective, b, c.shape, config_.type, config_.op, config_.root);
  }
  backend_->synchronize();
  local_times_.clear();

  sdk::Case out;
  out.flags = DGX_CASE_TIMING_IN_JSON_ONLY;  // "time" below is the nccl-tests time; time.* stay in the JSON
  if (config_.collectives.size() > 1) {
    out.set("comm.collective", std::string(name(c.collective)));
  }
  out.set("comm.placement", std::string(c.in_place ? "in-place" : "out-of-place"));
  out.set("transport", backend_->comm().name());
  out.set("world_size", static_cast<std::int64_t>(ranks_));
  return out;
}

bool CommWorkload::agreed_stop(bool mine) {
  std::int32_t stop = mine ? 1 : 0;
  host_.broadcast(&stop, sizeof stop, 0);
  return stop != 0;
}

void CommWorkload::issue_in_chunks(const CaseSpec& c, const Buffers& b) {
  const std::size_t element = sdk::dtype_size(config_.type);
  const std::size_t per_chunk = std::max<std::size_t>(1, kHostChunkBytes / element);
  for (std::size_t done = 0; done < c.shape.count; done += per_chunk) {
    if (done > 0 && agreed_stop(host_.cancelled())) {
      throw sdk::Cancelled("stopped between chunks of a host collective: the runner's time or Ctrl-C");
    }
    Shape chunk = c.shape;
    chunk.count = std::min(per_chunk, c.shape.count - done);
    const Buffers part{static_cast<const char*>(b.send) + done * element, static_cast<char*>(b.recv) + done * element};
    issue(backend_->comm(), c.collective, part, chunk, config_.type, config_.op, config_.root);
  }
}

void CommWorkload::run(const sdk::SampleRequest& request, sdk::SampleResult& result) {
  const CaseSpec& c = *current_;
  const Buffers b = buffers(c);
  sdk::Communicator& comm = backend_->comm();
  // A host collective of a gigabyte on a loaded machine can outlast the runner's grace after its time is up: one whose
  // elements reduce or copy independently runs in chunks, every rank agreeing between them whether to stop (MPI
  // pipelines such a message in chunks of its own, so the bandwidth is that of one operation).
  const bool chunked = backend_->timing() == sdk::Timing::plugin_wall && c.shape.bytes > kHostChunkBytes &&
                       (c.collective == Collective::all_reduce || c.collective == Collective::broadcast ||
                        c.collective == Collective::reduce);
  result.seconds = backend_->time(
      request.iterations,
      [&] {
        if (chunked) {
          issue_in_chunks(c, b);
        } else {
          issue(comm, c.collective, b, c.shape, config_.type, config_.op, config_.root);
        }
      },
      [&] { return agreed_stop(host_.cancelled()); });
  result.timing = backend_->timing();
  if (!request.warmup) {
    local_times_.push_back(result.seconds / request.iterations);
  }
}

std::string CommWorkload::check(const CaseSpec& c, std::uint64_t& wrong) {
  wrong = 0;
  if (!config_.check) {
    return "off";
  }
  const Pattern pattern(c.collective, config_.type, config_.op, ranks_, config_.root);
  if (!pattern.checkable()) {
    return "skipped: " + pattern.why_not();
  }
  // Outside the timed region: fresh inputs, one operation, results compared element by element.
  prepare_buffers(c, pattern);
  issue(backend_->comm(), c.collective, buffers(c), c.shape, config_.type, config_.op, config_.root);
  backend_->synchronize();
  const std::size_t element = sdk::dtype_size(config_.type);
  const std::size_t offset = pattern.result_offset(c.shape, rank_, c.in_place) * element;
  void* source = pattern.result_in_send(c.in_place) ? send_ : recv_;
  const std::size_t result_bytes = c.shape.recv_elems * element;
  backend_->download(recv_image_.data(), static_cast<char*>(source) + offset, result_bytes);
  double local_wrong = static_cast<double>(pattern.count_wrong(recv_image_.data(), c.shape, rank_));
  host_.all_reduce({&local_wrong, 1}, DGX_REDUCE_SUM);
  wrong = static_cast<std::uint64_t>(local_wrong);
  return wrong == 0 ? "ok" : "FAILED: " + std::to_string(wrong) + " wrong element(s) over all ranks";
}

double CommWorkload::peak_link() const {
  if (config_.link_bandwidth > 0) {
    return config_.link_bandwidth;
  }
  // NVLink is the link only when every rank is on one node.
  if (host_.ranks().local_size != ranks_) {
    return 0;
  }
  return backend_->nvlink_bandwidth().value_or(0);
}

void CommWorkload::end_case(std::size_t /*index*/, const sdk::Stats& /*stats*/) {
  const CaseSpec& c = *current_;
  // nccl-tests reports the time per operation averaged over ranks; the fastest and slowest rank come with it.
  const double mine = median_of(local_times_);
  double sum = mine, fastest = mine, slowest = mine;
  host_.all_reduce({&sum, 1}, DGX_REDUCE_SUM);
  host_.all_reduce({&fastest, 1}, DGX_REDUCE_MIN);
  host_.all_reduce({&slowest, 1}, DGX_REDUCE_MAX);
  const double time = sum / ranks_;
  const double algbw = time > 0 ? static_cast<double>(c.shape.bytes) / time / 1e9 : 0;
  const double busbw = algbw * busbw_factor(c.collective, ranks_);
  std::uint64_t wrong = 0;
  const std::string result = check(c, wrong);

  host_.add_metric("size", static_cast<double>(c.shape.bytes), "B");
  host_.add_metric("count", static_cast<double>(c.shape.count), "count");
  host_.add_metric("time", time, "s");
  host_.add_metric("time.rank_min", fastest, "s", DGX_METRIC_HIDDEN);
  host_.add_metric("time.rank_max", slowest, "s", DGX_METRIC_HIDDEN);
  host_.add_metric("algbw", algbw, "GB/s");
  host_.add_metric("busbw", busbw, "GB/s");
  if (const double peak = peak_link(); peak > 0) {
    host_.add_metric("busbw.peak", 100.0 * busbw / peak, "%");
  }
  host_.add_metric("wrong", static_cast<double>(wrong), "count");
  host_.add_field("check", result);
  host_.add_field("time_definition", "per operation, median of samples per rank, averaged over ranks",
                  DGX_FIELD_HIDDEN);
  host_.add_field("table_layout", "nccl-tests", DGX_FIELD_HIDDEN);  // the terminal table reads like nccl-tests'
  if (const std::string system = backend_->system(); !system.empty()) {
    host_.add_field("system", system, DGX_FIELD_HIDDEN);  // --baseline published keeps bus bandwidths per system
  }

  Summary& s = summaries_[static_cast<std::size_t>(c.collective)];
  s.busbw_sum += busbw;
  s.wrong += wrong;
  ++s.cases;
  if (wrong != 0) {
    failures_.push_back(std::string(name(c.collective)) + " " + format_bytes(c.size) + " " +
                        (c.in_place ? "in-place" : "out-of-place") + ": " + result);
  }
}

void CommWorkload::finalize() {
  // nccl-tests' closing lines: wrong elements over every case, and the arithmetic mean of the bus bandwidth of
  // every line it printed (every size, out-of-place and in-place), per collective.
  std::string text;
  const bool several = config_.collectives.size() > 1;
  for (const Collective c : config_.collectives) {
    const Summary& s = summaries_[static_cast<std::size_t>(c)];
    if (s.cases == 0) {
      continue;
    }
    const std::string who = several ? std::string(name(c)) + ": " : "";
    char line[200];
    std::snprintf(line, sizeof line, "%s%sOut of bounds values : %llu %s\n%sAvg bus bandwidth    : %g",
                  text.empty() ? "" : "\n", who.c_str(), static_cast<unsigned long long>(s.wrong),
                  s.wrong == 0 ? "OK" : "FAILED", who.c_str(), s.busbw_sum / s.cases);
    text += line;
  }
  const double peak = peak_link();
  text += "\n(" + backend_->comm().name() + ", " + std::to_string(ranks_) + " rank(s), " +
          std::string(sdk::dtype_name(config_.type)) + ", buffers on " + backend_->device() +
          (peak > 0 ? ", busbw.peak in % of " + std::to_string(static_cast<int>(peak)) + " GB/s per direction" : "") +
          "; the average is over every size, out-of-place and in-place, in GB/s; busbw = algbw x 2(n-1)/n for "
          "all_reduce, (n-1)/n for all_gather, reduce_scatter, alltoall, 1 otherwise)";
  host_.note(sdk::NotePlacement::after, "Avg bus bandwidth", text);
  if (!failures_.empty()) {
    std::string message = std::to_string(failures_.size()) + " case(s) returned wrong results: " + failures_.front();
    if (failures_.size() > 1) {
      message += " (and " + std::to_string(failures_.size() - 1) + " more)";
    }
    throw sdk::CheckFailed(message);
  }
}

}  // namespace dgx::plugins::comm
