#include "opencl_array_offsets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

namespace strata::device {
namespace {

// `source` with comments and string or character literals blanked (same length, newlines kept),
// so that searching it finds code alone.
std::string code_only(std::string_view source) {
  std::string code(source);
  for (std::size_t i = 0; i < code.size();) {
    const char c = code[i];
    const char next = i + 1 < code.size() ? code[i + 1] : '\0';
    std::size_t end = i;
    if (c == '/' && next == '/') {
      end = code.find('\n', i);
    } else if (c == '/' && next == '*') {
      end = code.find("*/", i + 2);
      end = end == std::string::npos ? end : end + 2;
    } else if (c == '"' || c == '\'') {
      end = i + 1;
      while (end < code.size() && code[end] != c && code[end] != '\n')
        end += code[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, code.size());
    } else {
      ++i;
      continue;
    }
    if (end == std::string::npos) end = code.size();
    for (std::size_t j = i; j < end; ++j)
      if (code[j] != '\n') code[j] = ' ';
    i = end;
  }
  return code;
}

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The position of the bracket that closes the one at `open` in `code`, or npos.
std::size_t closing(const std::string& code, std::size_t open) {
  const char up = code[open];
  const char down = up == '(' ? ')' : '}';
  int depth = 0;
  for (std::size_t i = open; i < code.size(); ++i) {
    depth += code[i] == up ? 1 : code[i] == down ? -1 : 0;
    if (depth == 0) return i;
  }
  return std::string::npos;
}

// The start of the first whole-word occurrence of `word` in `code` at or after `from`, or npos.
std::size_t find_word(const std::string& code, std::string_view word, std::size_t from) {
  for (auto at = code.find(word, from); at != std::string::npos; at = code.find(word, at + 1)) {
    const bool starts = at == 0 || !identifier_char(code[at - 1]);
    const bool ends = at + word.size() >= code.size() || !identifier_char(code[at + word.size()]);
    if (starts && ends) return at;
  }
  return std::string::npos;
}

int line_at(std::string_view text, std::size_t position) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + position, '\n'));
}

}  // namespace

std::optional<std::string> with_array_offsets(const KernelDefinition& kernel) {
  const auto& params = kernel.params();
  if (std::none_of(params.begin(), params.end(), [](const auto& p) { return p.is_array; }))
    return {};
  const std::string& source = kernel.opencl_source();
  const std::string code = code_only(source);
  // The declaration: the kernel's name followed by '(' after the word kernel or __kernel.
  std::size_t open = std::string::npos;
  for (auto at = find_word(code, kernel.name(), 0); at != std::string::npos;
       at = find_word(code, kernel.name(), at + 1)) {
    const auto paren = code.find_first_not_of(" \t\r\n", at + kernel.name().size());
    const auto before = code.find_last_of(";}", at);
    const std::string head = code.substr(before == std::string::npos ? 0 : before + 1,
                                         at - (before == std::string::npos ? 0 : before + 1));
    if (paren != std::string::npos && code[paren] == '(' &&
        (find_word(head, "kernel", 0) != std::string::npos ||
         find_word(head, "__kernel", 0) != std::string::npos)) {
      open = paren;
      break;
    }
  }
  if (open == std::string::npos) return {};
  const auto close = closing(code, open);
  if (close == std::string::npos) return {};
  // The body's brace, after any __attribute__((...)) that follows the parameters.
  auto body = code.find_first_not_of(" \t\r\n", close + 1);
  while (body != std::string::npos && code.compare(body, 13, "__attribute__") == 0) {
    const auto paren = code.find_first_not_of(" \t\r\n", body + 13);
    if (paren == std::string::npos || code[paren] != '(') return {};
    const auto after = closing(code, paren);
    if (after == std::string::npos) return {};
    body = code.find_first_not_of(" \t\r\n", after + 1);
  }
  if (body == std::string::npos || code[body] != '{') return {};
  const auto body_end = closing(code, body);
  if (body_end == std::string::npos) return {};
  // The declared parameters, split at commas outside brackets.
  std::vector<std::pair<std::size_t, std::size_t>> declared;  // [begin, end) in source
  int depth = 0;
  std::size_t begin = open + 1;
  for (std::size_t i = open + 1; i <= close; ++i) {
    depth += code[i] == '(' ? 1 : code[i] == ')' ? -1 : 0;
    if ((code[i] == ',' && depth == 0) || i == close) {
      declared.emplace_back(begin, i);
      begin = i + 1;
    }
  }
  if (declared.size() != params.size()) return {};
  // Each array parameter's declared name: the last identifier of its declaration.
  std::vector<std::pair<std::size_t, std::string>> renamed;  // position in source, name
  std::string trailing;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!params[i].is_array) continue;
    auto end = declared[i].second;
    while (end > declared[i].first && !identifier_char(code[end - 1]))
      --end;
    auto start = end;
    while (start > declared[i].first && identifier_char(code[start - 1]))
      --start;
    if (start == end) return {};
    renamed.emplace_back(start, code.substr(start, end - start));
    trailing += fmt::format(", ulong {}{}", array_offset_prefix, params[i].name);
  }
  std::string defines;
  std::string undefines;
  std::size_t a = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!params[i].is_array) continue;
    const std::string& name = renamed[a++].second;
    defines += fmt::format("#define {0} (strata_array_{0} + {1}{2})\n", name, array_offset_prefix,
                           params[i].name);
    undefines += fmt::format("#undef {}\n", name);
  }
  const std::string file = fmt::format("\"{}.cl\"", kernel.name());
  std::string out = fmt::format("#line 1 {}\n", file);
  std::size_t copied = 0;
  for (const auto& [position, name] : renamed) {
    out += source.substr(copied, position - copied) + "strata_array_" + name;
    copied = position + name.size();
  }
  out += source.substr(copied, close - copied) + trailing;
  out += source.substr(close, body + 1 - close);
  out += fmt::format("\n{}#line {} {}\n", defines, line_at(source, body), file);
  out += source.substr(body + 1, body_end - body - 1);
  out += fmt::format("\n{}#line {} {}\n", undefines, line_at(source, body_end), file);
  out += source.substr(body_end);
  return out;
}

}  // namespace strata::device
