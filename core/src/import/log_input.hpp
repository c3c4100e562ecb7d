// Private to import/: the raw lines of a log, read from the file a block at a time (a 100 MB log is never held
// whole) or from a text in memory, as often as the import needs to pass over them. A file is read as it was when
// opened: a log still being written is read up to the size it had then, the same lines on every pass.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "dgx/core/support/expected.hpp"

namespace dgx::detail {

class LogInput {
public:
  /// `path`, which must be a regular file of at most `max_bytes` (opened without blocking: a FIFO is refused, not
  /// waited on); `what` names it in the failure ("file to import").
  static Expected<LogInput> open(const std::string& path, std::size_t max_bytes, const std::string& what);
  /// A text in memory (verdict's and the tests' logs).
  explicit LogInput(std::string text);

  LogInput(LogInput&& other) noexcept;
  LogInput& operator=(LogInput&& other) noexcept;
  LogInput(const LogInput&) = delete;
  LogInput& operator=(const LogInput&) = delete;
  ~LogInput();

  /// Back to the first line.
  void rewind();
  /// The next line, without its line break (`line_break` says whether it had one), valid until the next call; false
  /// past the last line or when the file cannot be read further (error() says why).
  bool next(std::string_view& line, bool& line_break);
  /// Why the last pass stopped early; empty when it did not.
  [[nodiscard]] const std::string& error() const { return error_; }

private:
  LogInput(int fd, std::size_t size);
  /// Reads more of the file behind what is left of the buffer; false at the end or on an error.
  bool fill();

  int fd_ = -1;               // the file, or -1 for a text in memory
  std::size_t size_ = 0;      // the file's size when opened: what every pass reads
  std::size_t consumed_ = 0;  // bytes of the file read into the buffer so far
  std::string buffer_;        // the text in memory, or a window of the file
  std::size_t begin_ = 0;     // the next line starts here in buffer_
  std::size_t end_ = 0;       // buffer_'s bytes in use
  std::string error_;
};

}  // namespace dgx::detail
