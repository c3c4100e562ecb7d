#include "dgx/core/run/time_left.hpp"

#include <algorithm>
#include <cmath>

namespace dgx {

void TimeLeft::add(double seconds, double bytes, bool capped) {
  cases_.push_back({std::max(0.0, seconds), std::max(0.0, bytes), capped});
}

std::vector<double> TimeLeft::next_sizes(std::size_t left) const {
  // Distinct sizes in order and how often each came (in-place and out-of-place cases repeat a size).
  std::vector<double> sizes;
  std::vector<std::size_t> repeats;
  for (const Case& c : cases_) {
    if (c.bytes <= 0) {
      return {};
    }
    if (!sizes.empty() && c.bytes == sizes.back()) {
      ++repeats.back();
    } else {
      sizes.push_back(c.bytes);
      repeats.push_back(1);
    }
  }
  if (sizes.size() < 2) {
    return {};
  }
  const double growth = sizes.back() / sizes[sizes.size() - 2];
  const std::size_t per_size = *std::max_element(repeats.begin(), repeats.end() - 1);
  std::vector<double> out;
  double size = sizes.back();
  std::size_t done_of_size = repeats.back();
  while (out.size() < left) {
    if (done_of_size >= per_size) {
      size *= growth;
      done_of_size = 0;
    }
    out.push_back(size);
    ++done_of_size;
  }
  return out;
}

double TimeLeft::steady_estimate(double elapsed, std::size_t left) {
  constexpr std::size_t kKept = 5;
  finishes_.push_back(elapsed + estimate(left));
  if (finishes_.size() > kKept) {
    finishes_.erase(finishes_.begin());
  }
  std::vector<double> sorted = finishes_;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double finish = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return std::max(0.0, finish - elapsed);
}

double TimeLeft::estimate(std::size_t left) const {
  if (cases_.empty() || left == 0) {
    return 0;
  }
  double total = 0;
  for (const Case& c : cases_) {
    total += c.seconds;
  }
  const double mean = total / static_cast<double>(cases_.size());
  const std::vector<double> sizes = next_sizes(left);
  if (sizes.empty()) {
    return mean * static_cast<double>(left);
  }
  // A case costs what the quickest one took (latency, the runner's minimum time) plus its bytes at the time per
  // byte the largest sizes so far took beyond that: the bandwidth-bound cost each larger message scales.
  double floor = cases_.front().seconds;
  for (const Case& c : cases_) {
    floor = std::min(floor, c.seconds);
  }
  // The time per byte: the median over the cases of the two largest sizes so far (one slow case, a first touch of
  // new buffers, does not set it alone).
  std::vector<double> per_bytes;
  const double largest = cases_.back().bytes;
  double before = largest;  // the size before the largest
  for (auto c = cases_.rbegin(); c != cases_.rend() && before == largest; ++c) {
    before = c->bytes;
  }
  for (const Case& c : cases_) {
    if (c.bytes >= std::min(before, largest)) {
      per_bytes.push_back((c.seconds - floor) / c.bytes);
    }
  }
  std::sort(per_bytes.begin(), per_bytes.end());
  const std::size_t m = per_bytes.size();
  const double per_byte = m == 0 ? 0 : (m % 2 == 1 ? per_bytes[m / 2] : (per_bytes[m / 2 - 1] + per_bytes[m / 2]) / 2);
  double cap = INFINITY;  // the runner's maximum time, as a case it stopped there took
  for (const Case& c : cases_) {
    if (c.capped) {
      cap = std::min(cap, c.seconds);
    }
  }
  double out = 0;
  for (const double bytes : sizes) {
    out += std::min(cap, floor + per_byte * bytes);
  }
  return out;
}

}  // namespace dgx
