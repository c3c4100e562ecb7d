#include "dgx/core/report/wrap.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <dgx/sdk/text.hpp>

namespace dgx {

namespace {

constexpr std::size_t kNarrowest = 40;  // below this a wrapped help column reads worse than a long line

}  // namespace

std::size_t stdout_width() {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    char* end = nullptr;
    const unsigned long value = std::strtoul(columns, &end, 10);
    if (end != nullptr && *end == '\0') {
      return value == 0 ? 0 : std::max<std::size_t>(value, kNarrowest);
    }
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) == 1 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return std::max<std::size_t>(size.ws_col, kNarrowest);
  }
  return 0;
}

std::size_t reading_width(std::size_t piped) {
  const char* columns = std::getenv("COLUMNS");
  if ((columns != nullptr && *columns != '\0') || isatty(STDOUT_FILENO) == 1) {
    return stdout_width();
  }
  return piped;
}

std::vector<std::string> wrap_words(std::string_view text, std::size_t width) {
  namespace sdk_text = dgx::sdk::text;
  if (width == 0 || sdk_text::display_width(text) <= width) {
    return {std::string(text)};
  }
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t space = text.find(' ', start);
    const std::string_view word =
        text.substr(start, space == std::string_view::npos ? std::string_view::npos : space - start);
    if (!line.empty() && sdk_text::display_width(line) + 1 + sdk_text::display_width(word) > width) {
      lines.push_back(std::move(line));
      line.clear();
    }
    std::string_view rest = word;
    while (line.empty() && rest.size() > width) {  // a path longer than the width: cut after a '/' where it can be
      const std::size_t slash = rest.rfind('/', width - 1);
      const std::size_t cut = slash != std::string_view::npos && slash > width / 2 ? slash + 1 : width;
      lines.emplace_back(rest.substr(0, cut));
      rest.remove_prefix(cut);
    }
    line += (line.empty() ? "" : " ") + std::string(rest);
    if (space == std::string_view::npos) {
      break;
    }
    start = space + 1;
  }
  lines.push_back(std::move(line));
  return lines;
}

}  // namespace dgx
