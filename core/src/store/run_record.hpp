// Private to the store: a report as the store keeps it. The run's context as columns (where it ran, with what
// software), and each row's metrics as points of the series they belong to (store.hpp's SeriesKey).
#pragma once

#include <string>
#include <vector>

#include "dgx/core/store/store.hpp"

namespace dgx::detail {

struct RecordedPoint {
  SeriesKey key;
  double value = 0;
  std::string timing, verdict;
};

struct RunRecord {
  RunContext context;
  std::string document_hash;  // of the whole document: the same file added twice is one run
  std::vector<RecordedPoint> points;
  std::size_t rows = 0;
};

/// The record of `report`; `source` names where it came from. Rows whose metrics are all hidden spread or
/// reference values still count: every metric of every row is a point.
RunRecord record_of(const Report& report, const std::string& source);

/// The hash of a series key: its identity in the store.
std::string series_hash(const SeriesKey& key);

/// FNV-1a, 64 bits, as 16 hex digits: an identity, not a secret.
std::string fnv1a_hex(std::string_view bytes);

}  // namespace dgx::detail
