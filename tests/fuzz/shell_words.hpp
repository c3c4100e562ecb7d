// What a POSIX shell reads from a generated script, for the fuzz targets of the script writers: its simple commands,
// each a list of words with the quoting removed, and whether a word expands (a $ or ` outside single quotes, or an
// unquoted glob or ~). A value a writer quoted correctly comes back as one word, equal to the value, that expands
// nothing; a value it quoted badly splits, expands or ends the command. Enough of the grammar for what the writers
// emit (words, quotes, backslashes, comments, continuations, ; & | and newlines); no here-documents.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dgx::fuzz {

struct ShellWord {
  std::string text;
  bool expands = false;
};

struct ShellCommand {
  std::vector<ShellWord> words;
  char ended_by = 0;  // '\n', ';', '&', '|', '<', '>', '(', ')', or 0 at the end of the script
};

struct ShellScript {
  std::vector<ShellCommand> commands;
  bool unterminated = false;  // a quote left open at the end
};

namespace detail {

class ShellLexer {
public:
  explicit ShellLexer(std::string_view text) : text_(text) {}

  ShellScript run() {
    while (at_ < text_.size()) {
      step(text_[at_++]);
    }
    end_command(0);
    return std::move(out_);
  }

private:
  void end_word() {
    if (in_word_) {
      command_.words.push_back(std::move(word_));
    }
    word_ = {};
    in_word_ = false;
  }

  void end_command(char by) {
    end_word();
    if (!command_.words.empty() || (by != '\n' && by != 0)) {
      command_.ended_by = by;
      out_.commands.push_back(std::move(command_));
    }
    command_ = {};
  }

  void add(char c, bool expands = false) {
    word_.text += c;
    word_.expands = word_.expands || expands;
    in_word_ = true;
  }

  void single_quoted() {
    in_word_ = true;
    while (at_ < text_.size() && text_[at_] != '\'') {
      word_.text += text_[at_++];
    }
    out_.unterminated = out_.unterminated || at_ == text_.size();
    ++at_;
  }

  void double_quoted() {
    in_word_ = true;
    while (at_ < text_.size() && text_[at_] != '"') {
      const char c = text_[at_++];
      if (c == '\\' && at_ < text_.size() && std::string_view("$`\"\\\n").find(text_[at_]) != std::string_view::npos) {
        if (text_[at_] != '\n') {
          word_.text += text_[at_];
        }
        ++at_;
        continue;
      }
      add(c, c == '$' || c == '`');
    }
    out_.unterminated = out_.unterminated || at_ == text_.size();
    ++at_;
  }

  // $(command) or ${parameter...}: one expanding part of the word, to its matching parenthesis or brace.
  void substitution(char dollar) {
    const char open = text_[at_];
    const char close = open == '(' ? ')' : '}';
    add(dollar, true);
    int depth = 0;
    while (at_ < text_.size()) {
      const char c = text_[at_++];
      add(c, true);
      depth += c == open ? 1 : c == close ? -1 : 0;
      if (depth == 0) {
        return;
      }
    }
    out_.unterminated = true;
  }

  void step(char c) {
    if (c == '#' && !in_word_) {
      while (at_ < text_.size() && text_[at_] != '\n') {
        ++at_;
      }
    } else if (c == ' ' || c == '\t') {
      end_word();
    } else if (std::string_view("\n;&|<>()").find(c) != std::string_view::npos) {
      end_command(c);
    } else if (c == '\\') {
      if (at_ < text_.size() && text_[at_] != '\n') {
        add(text_[at_]);
      }
      ++at_;
    } else if (c == '$' && at_ < text_.size() && (text_[at_] == '(' || text_[at_] == '{')) {
      substitution(c);
    } else if (c == '\'') {
      single_quoted();
    } else if (c == '"') {
      double_quoted();
    } else {
      add(c, c == '$' || c == '`' || c == '*' || c == '?' || c == '[' || (c == '~' && !in_word_));
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
  ShellScript out_;
  ShellCommand command_;
  ShellWord word_;
  bool in_word_ = false;
};

}  // namespace detail

inline ShellScript shell_commands(std::string_view script) { return detail::ShellLexer(script).run(); }

/// The words of `command` as text, for comparing with what the writer was given.
inline std::vector<std::string> texts(const ShellCommand& command) {
  std::vector<std::string> out;
  for (const ShellWord& w : command.words) {
    out.push_back(w.text);
  }
  return out;
}

}  // namespace dgx::fuzz
