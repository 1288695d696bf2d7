#include "phylogeny/newick.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "strata/base/error.hpp"

namespace strata::apps::phylogeny {
namespace {

bool is_delimiter(char c) {
  return c == '(' || c == ')' || c == ',' || c == ':' || c == ';' || c == '[' || c == '\'' ||
         std::isspace(static_cast<unsigned char>(c)) != 0;
}

void append_name(std::string& out, const std::string& name) {
  bool plain = !name.empty();
  for (const char c : name)
    if (is_delimiter(c) || c == ']') plain = false;
  if (plain) {
    out += name;
    return;
  }
  if (name.empty()) return;
  out += '\'';
  for (const char c : name) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
}

// Reads the text one token at a time.
class NewickParser {
 public:
  NewickParser(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  Tree parse() {
    Tree tree;
    NodeIndex current = tree.root();
    bool labelled = false;  // the current node is complete: only ',', ')' or ';' may follow
    skip_blanks();
    for (;;) {
      if (at_end()) fail("the tree does not end with ';'");
      const char c = text_[position_];
      if (c == '(') {
        if (labelled) fail("'(' after a name or length");
        ++position_;
        current = tree.add_child(current, 0);
      } else if (c == ',') {
        if (current == tree.root()) fail("',' outside parentheses");
        ++position_;
        current = tree.add_child(tree.node(current).parent, 0);
        labelled = false;
      } else if (c == ')') {
        if (current == tree.root()) fail("unbalanced ')'");
        ++position_;
        current = tree.node(current).parent;
        read_label(tree.node(current));
        labelled = true;
      } else if (c == ';') {
        if (current != tree.root()) fail("unbalanced '(' before ';'");
        ++position_;
        skip_blanks();
        if (!at_end()) fail("text after the end of the tree");
        return tree;
      } else {
        if (labelled) fail(fmt::format("unexpected '{}'", c));
        read_label(tree.node(current));
        labelled = true;
      }
      skip_blanks();
    }
  }

 private:
  bool at_end() const { return position_ >= text_.size(); }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}: malformed Newick at offset {}: {}", origin_, position_, what));
  }

  void skip_blanks() {
    while (!at_end()) {
      const char c = text_[position_];
      if (std::isspace(static_cast<unsigned char>(c)) != 0) {
        ++position_;
      } else if (c == '[') {
        const auto close = text_.find(']', position_);
        if (close == std::string_view::npos) fail("unterminated [comment]");
        position_ = close + 1;
      } else {
        return;
      }
    }
  }

  // An optional name, then an optional ":length", for `node`.
  void read_label(TreeNode& node) {
    skip_blanks();
    if (!at_end() && text_[position_] == '\'') {
      node.name = read_quoted();
    } else {
      const std::size_t begin = position_;
      while (!at_end() && !is_delimiter(text_[position_]))
        ++position_;
      if (position_ > begin) node.name = std::string(text_.substr(begin, position_ - begin));
    }
    skip_blanks();
    if (!at_end() && text_[position_] == ':') {
      ++position_;
      skip_blanks();
      node.length = read_length();
    }
  }

  std::string read_quoted() {
    std::string name;
    ++position_;  // the opening quote
    for (;;) {
      if (at_end()) fail("unterminated quoted name");
      const char c = text_[position_++];
      if (c != '\'') {
        name += c;
      } else if (!at_end() && text_[position_] == '\'') {
        name += '\'';
        ++position_;
      } else {
        return name;
      }
    }
  }

  double read_length() {
    const std::size_t begin = position_;
    while (!at_end() && !is_delimiter(text_[position_]))
      ++position_;
    double value = 0;
    const char* first = text_.data() + begin;
    const char* last = text_.data() + position_;
    const auto [end, error] = std::from_chars(first, last, value);
    if (begin == position_ || error != std::errc() || end != last || !std::isfinite(value)) {
      position_ = begin;
      fail("a branch length is not a number");
    }
    return value;
  }

  std::string_view text_;
  const std::string& origin_;
  std::size_t position_ = 0;
};

void write_node(const Tree& tree, NodeIndex index, std::string& out) {
  const TreeNode& node = tree.node(index);
  if (!node.is_leaf()) {
    out += '(';
    for (std::size_t i = 0; i < node.children.size(); ++i) {
      if (i > 0) out += ',';
      write_node(tree, node.children[i], out);
    }
    out += ')';
  }
  append_name(out, node.name);
  if (index != tree.root()) out += fmt::format(":{:.6g}", node.length);
}

}  // namespace

std::string to_newick(const Tree& tree) {
  std::string out;
  write_node(tree, tree.root(), out);
  out += ';';
  return out;
}

Tree parse_newick(std::string_view text, const std::string& origin) {
  return NewickParser(text, origin).parse();
}

}  // namespace strata::apps::phylogeny
