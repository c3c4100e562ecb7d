#include "command_line.hpp"

namespace dgx::logs {

namespace {

// The words of a shell line, split at blanks ("a b  c" -> a, b, c); quotes are kept as part of their word.
void add_words(std::string_view text, int line, std::vector<CommandArgument>& to) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t start = text.find_first_not_of(" \t", at);
    if (start == std::string_view::npos) {
      break;
    }
    const std::size_t end = std::min(text.find_first_of(" \t", start), text.size());
    std::string word(text.substr(start, end - start));
    if (word.size() >= 2 && (word.front() == '"' || word.front() == '\'') && word.back() == word.front()) {
      word = word.substr(1, word.size() - 2);
    }
    to.push_back({std::move(word), line});
    at = end;
  }
}

bool continues(std::string_view text) { return !text.empty() && text.back() == '\\'; }

}  // namespace

std::optional<CommandArgument> CommandLine::option(std::initializer_list<std::string_view> names) const {
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (std::string_view name : names) {
      const std::string& a = args[i].text;
      if (a == name && i + 1 < args.size() && args[i + 1].text.rfind("--", 0) != 0) {
        return args[i + 1];
      }
      if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=') {
        return CommandArgument{a.substr(name.size() + 1), args[i].line};
      }
    }
  }
  return std::nullopt;
}

std::optional<double> CommandLine::number(std::initializer_list<std::string_view> names) const {
  const auto value = option(names);
  return value ? parse_number(value->text) : std::nullopt;
}

CommandFinder::CommandFinder(std::initializer_list<std::string_view> programs) : programs_(programs) {}

void CommandFinder::read(const Line& line) {
  const std::string_view text = trim(line.text);
  if (continuing_) {
    add_words(continues(text) ? text.substr(0, text.size() - 1) : text, line.number, command_->args);
    continuing_ = continues(text);
    return;
  }
  if (command_) {
    return;
  }
  for (std::string_view program : programs_) {
    const std::size_t at = text.find(program);
    if (at == std::string_view::npos || (at > 0 && text[at - 1] != ' ' && text[at - 1] != '/')) {
      continue;
    }
    const std::string_view rest = text.substr(at + program.size());
    command_.emplace();
    add_words(continues(rest) ? rest.substr(0, rest.size() - 1) : rest, line.number, command_->args);
    continuing_ = continues(rest);
    return;
  }
}

std::optional<CommandLine> find_command(const std::vector<Line>& lines,
                                        std::initializer_list<std::string_view> programs) {
  CommandFinder finder(programs);
  for (const Line& line : lines) {
    finder.read(line);
  }
  return finder.command();
}

}  // namespace dgx::logs
