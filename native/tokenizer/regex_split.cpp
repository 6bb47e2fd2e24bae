#include "tokenizer/regex_split.h"

#include <utility>

#include "core/error.h"
#include "tokenizer/unicode.h"

namespace wasmlm {

namespace {

// ---------------------------------------------------------------------------
// Character classes

struct CharClass {
  bool negate = false;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;  // inclusive
  uint8_t categories = 0;  // bit (1 << CptCategory)
  bool space = false;      // \s
  bool non_space = false;  // \S
  bool non_digit = false;  // \D
  std::vector<CharClass> also;  // all of these must match too (from (?=[A])[B])

  bool matches(uint32_t c) const {
    bool r = false;
    for (const auto& range : ranges)
      if (c >= range.first && c <= range.second) { r = true; break; }
    if (!r && (categories || space || non_space)) {
      const CptFlags f = cpt_flags(c);
      r = (categories >> static_cast<int>(f.category)) & 1;
      if (space && f.whitespace) r = true;
      if (non_space && !f.whitespace) r = true;
    }
    if (!r && non_digit && !(c >= '0' && c <= '9')) r = true;
    if (negate) r = !r;
    for (const auto& a : also)
      if (r) r = a.matches(c);
    return r;
  }
};

uint8_t category_bit(CptCategory c) { return static_cast<uint8_t>(1u << static_cast<int>(c)); }

// ---------------------------------------------------------------------------
// Syntax tree

enum class Kind { Class, Seq, Alt, Repeat, Look, End, Empty };

struct Node {
  Kind kind = Kind::Empty;
  CharClass cls;          // Class
  std::vector<int> kids;  // Seq, Alt; Repeat/Look: kids[0]
  int min = 0, max = 0;   // Repeat; max < 0: unbounded
  bool negative = false;  // Look
};

constexpr int kUnbounded = -1;

class Parser {
 public:
  Parser(std::string_view pattern, std::vector<Node>* nodes) : p_(utf8_to_cpts(pattern)), nodes_(nodes) {}

  int parse() {
    const int root = alternation();
    if (i_ != p_.size()) error("unexpected ')'");
    return root;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    fail(ErrorCode::Unsupported, kNoOffset,
         "pre-tokenizer regex: " + what + " at pattern offset " + std::to_string(i_));
  }
  bool more() const { return i_ < p_.size(); }
  uint32_t peek(size_t k = 0) const { return i_ + k < p_.size() ? p_[i_ + k] : 0; }
  bool eat(uint32_t c) {
    if (peek() == c && more()) { ++i_; return true; }
    return false;
  }
  int add(Node n) {
    nodes_->push_back(std::move(n));
    return static_cast<int>(nodes_->size()) - 1;
  }

  int alternation() {
    std::vector<int> alts{sequence()};
    while (eat('|')) alts.push_back(sequence());
    if (alts.size() == 1) return alts[0];
    Node n;
    n.kind = Kind::Alt;
    n.kids = std::move(alts);
    return add(std::move(n));
  }

  int sequence() {
    std::vector<int> items;
    while (more() && peek() != '|' && peek() != ')') items.push_back(quantified());
    if (items.size() == 1) return items[0];
    Node n;
    n.kind = items.empty() ? Kind::Empty : Kind::Seq;
    n.kids = std::move(items);
    return add(std::move(n));
  }

  int number() {
    int v = 0;
    bool any = false;
    while (peek() >= '0' && peek() <= '9') { v = v * 10 + static_cast<int>(peek() - '0'); ++i_; any = true; }
    if (!any) error("expected a number");
    return v;
  }

  int quantified() {
    int atom_id = atom();
    int min, max;
    if (eat('?')) { min = 0; max = 1; }
    else if (eat('*')) { min = 0; max = kUnbounded; }
    else if (eat('+')) { min = 1; max = kUnbounded; }
    else if (peek() == '{' && peek(1) >= '0' && peek(1) <= '9') {
      ++i_;
      min = max = number();
      if (eat(',')) max = peek() == '}' ? kUnbounded : number();
      if (!eat('}')) error("expected '}'");
    } else {
      return atom_id;
    }
    if (peek() == '?' || peek() == '+') error("lazy/possessive quantifiers are not supported");
    Node n;
    n.kind = Kind::Repeat;
    n.kids = {atom_id};
    n.min = min;
    n.max = max;
    return add(std::move(n));
  }

  int atom() {
    const uint32_t c = p_[i_++];
    if (c == '(') {
      bool look = false, negative = false;
      if (eat('?')) {
        if (eat(':')) {}
        else if (eat('=')) look = true;
        else if (eat('!')) { look = true; negative = true; }
        else error("unsupported group");
      }
      const int inner = alternation();
      if (!eat(')')) error("expected ')'");
      if (look) {
        Node n;
        n.kind = Kind::Look;
        n.negative = negative;
        n.kids = {inner};
        return add(std::move(n));
      }
      return simplify_group(inner);
    }
    if (c == '[') return add(class_node(bracket()));
    if (c == '$') { Node n; n.kind = Kind::End; return add(std::move(n)); }
    if (c == '.') {
      CharClass cc;
      cc.negate = true;
      cc.ranges.push_back({'\n', '\n'});
      cc.ranges.push_back({'\r', '\r'});
      return add(class_node(cc));
    }
    if (c == '\\') return add(class_node(escape()));
    if (c == ')' || c == '*' || c == '+' || c == '?') error("unexpected metacharacter");
    CharClass cc;
    cc.ranges.push_back({c, c});
    return add(class_node(cc));
  }

  static Node class_node(CharClass cc) {
    Node n;
    n.kind = Kind::Class;
    n.cls = std::move(cc);
    return n;
  }

  // `(?=[A])[B]` is one character in A and B: fold it into a class so that a
  // repeated group costs no recursion per character (llama.cpp's gpt-4o and
  // tekken patterns use ((?=[\p{L}])([^a-z]))*).
  int simplify_group(int id) {
    Node& n = (*nodes_)[id];
    if (n.kind == Kind::Seq && n.kids.size() == 2) {
      const Node& look = (*nodes_)[n.kids[0]];
      const Node& cls = (*nodes_)[n.kids[1]];
      if (look.kind == Kind::Look && !look.negative && (*nodes_)[look.kids[0]].kind == Kind::Class &&
          cls.kind == Kind::Class) {
        CharClass merged = cls.cls;
        merged.also.push_back((*nodes_)[look.kids[0]].cls);
        return add(class_node(std::move(merged)));
      }
    }
    return id;
  }

  // After a backslash, outside or inside brackets.
  CharClass escape() {
    if (!more()) error("trailing backslash");
    const uint32_t c = p_[i_++];
    CharClass cc;
    switch (c) {
      case 's': cc.space = true; return cc;
      case 'S': cc.non_space = true; return cc;
      case 'd': cc.ranges.push_back({'0', '9'}); return cc;
      case 'D': cc.non_digit = true; return cc;
      case 'r': cc.ranges.push_back({'\r', '\r'}); return cc;
      case 'n': cc.ranges.push_back({'\n', '\n'}); return cc;
      case 't': cc.ranges.push_back({'\t', '\t'}); return cc;
      case 'p': {
        if (!eat('{')) error("expected '{' after \\p");
        std::string name;
        while (more() && peek() != '}') name.push_back(static_cast<char>(p_[i_++]));
        if (!eat('}')) error("expected '}'");
        if (name.empty()) error("empty \\p{}");
        switch (name[0]) {
          case 'L': cc.categories = category_bit(CptCategory::Letter); break;
          case 'N': cc.categories = category_bit(CptCategory::Number); break;
          case 'P': cc.categories = category_bit(CptCategory::Punctuation); break;
          case 'S': cc.categories = category_bit(CptCategory::Symbol); break;
          case 'M': cc.categories = category_bit(CptCategory::Mark); break;
          default: error("unsupported category \\p{" + name + "}");
        }
        if (name.size() > 1 && name[0] != 'L') error("unsupported category \\p{" + name + "}");
        return cc;
      }
      default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
          error("unsupported escape");
        cc.ranges.push_back({c, c});  // escaped literal
        return cc;
    }
  }

  // After '['.
  CharClass bracket() {
    CharClass cc;
    if (eat('^')) cc.negate = true;
    bool first = true;
    while (more() && (peek() != ']' || first)) {
      first = false;
      uint32_t lo;
      if (peek() == '\\') {
        ++i_;
        CharClass e = escape();
        if (e.ranges.size() == 1 && e.ranges[0].first == e.ranges[0].second && !e.categories && !e.space &&
            !e.non_space && !e.non_digit) {  // a single (escaped) character: may start a range
          lo = e.ranges[0].first;
        } else {
          cc.ranges.insert(cc.ranges.end(), e.ranges.begin(), e.ranges.end());
          cc.categories |= e.categories;
          cc.space |= e.space;
          cc.non_space |= e.non_space;
          cc.non_digit |= e.non_digit;
          continue;
        }
      } else {
        lo = p_[i_++];
      }
      if (peek() == '-' && peek(1) != ']' && i_ + 1 < p_.size()) {
        ++i_;
        uint32_t hi;
        if (peek() == '\\') {
          ++i_;
          CharClass e = escape();
          if (e.ranges.size() != 1) error("bad range end");
          hi = e.ranges[0].first;
        } else {
          hi = p_[i_++];
        }
        if (hi < lo) error("reversed range");
        cc.ranges.push_back({lo, hi});
      } else {
        cc.ranges.push_back({lo, lo});
      }
    }
    if (!eat(']')) error("expected ']'");
    return cc;
  }

  std::vector<uint32_t> p_;
  size_t i_ = 0;
  std::vector<Node>* nodes_;
};

// ---------------------------------------------------------------------------
// Matching: backtracking with an explicit continuation chain. A frame says
// "match node (at sequence index / repeat count `state`), then the rest".

struct Frame {
  int node;
  int state;
  size_t start;  // Repeat: where the current iteration began
  const Frame* next;
};

}  // namespace

struct Regex::Program {
  std::vector<Node> nodes;
  int root = 0;
};

namespace {

// One search over text[.., end): the program plus the text (kept apart from
// the Program so that one Regex can be used from several threads).
struct Matcher {
  const std::vector<Node>& nodes;
  const uint32_t* text;
  size_t end;

  bool run(size_t pos, const Frame* k, size_t* match_end) const {
    if (!k) {
      *match_end = pos;
      return true;
    }
    const Node& n = nodes[k->node];
    switch (n.kind) {
      case Kind::Empty:
        return run(pos, k->next, match_end);
      case Kind::Class:
        return pos < end && n.cls.matches(text[pos]) && run(pos + 1, k->next, match_end);
      case Kind::End:
        return pos == end && run(pos, k->next, match_end);
      case Kind::Seq: {
        if (k->state == static_cast<int>(n.kids.size())) return run(pos, k->next, match_end);
        const Frame rest{k->node, k->state + 1, 0, k->next};
        const Frame item{n.kids[k->state], 0, 0, &rest};
        return run(pos, &item, match_end);
      }
      case Kind::Alt:
        for (int kid : n.kids) {
          const Frame f{kid, 0, 0, k->next};
          if (run(pos, &f, match_end)) return true;
        }
        return false;
      case Kind::Look: {
        const Frame f{n.kids[0], 0, 0, nullptr};
        size_t ignored;
        const bool found = run(pos, &f, &ignored);
        return found != n.negative && run(pos, k->next, match_end);
      }
      case Kind::Repeat: {
        const Node& child = nodes[n.kids[0]];
        if (child.kind == Kind::Class) {
          // Greedy run of one class, then give back one character at a time.
          size_t count = 0;
          while (pos + count < end && (n.max < 0 || static_cast<int>(count) < n.max) &&
                 child.cls.matches(text[pos + count]))
            ++count;
          for (size_t c = count + 1; c-- > static_cast<size_t>(n.min);) {
            if (run(pos + c, k->next, match_end)) return true;
          }
          return false;
        }
        // General case; state counts finished iterations. An iteration that
        // consumed nothing ends the loop (ECMAScript's empty-check).
        if (k->state > 0 && pos == k->start && k->state >= n.min) return run(pos, k->next, match_end);
        if (n.max < 0 || k->state < n.max) {
          const Frame again{k->node, k->state + 1, pos, k->next};
          const Frame f{n.kids[0], 0, 0, &again};
          if (run(pos, &f, match_end)) return true;
        }
        return k->state >= n.min && run(pos, k->next, match_end);
      }
    }
    return false;
  }
};

}  // namespace

Regex::Regex(std::string_view pattern) : prog_(std::make_unique<Program>()) {
  Parser parser(pattern, &prog_->nodes);
  prog_->root = parser.parse();
}
Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

bool Regex::search(const uint32_t* cpts, size_t begin, size_t end, size_t* match_begin,
                   size_t* match_end) const {
  const Matcher m{prog_->nodes, cpts, end};
  const Frame top{prog_->root, 0, 0, nullptr};
  for (size_t start = begin; start < end; ++start) {
    if (m.run(start, &top, match_end) && *match_end > start) {
      *match_begin = start;
      return true;
    }
  }
  return false;
}

std::vector<size_t> regex_split(const std::vector<uint32_t>& cpts, const std::vector<Regex>& regexes) {
  std::vector<size_t> offsets;
  if (!cpts.empty()) offsets.push_back(cpts.size());
  for (const Regex& re : regexes) {
    std::vector<size_t> next;
    next.reserve(offsets.size());
    size_t start = 0;
    for (size_t len : offsets) {
      const size_t end = start + len;
      size_t pos = start, mb, me;
      while (pos < end && re.search(cpts.data(), pos, end, &mb, &me)) {
        if (mb > pos) next.push_back(mb - pos);
        next.push_back(me - mb);
        pos = me;
      }
      if (pos < end) next.push_back(end - pos);
      start = end;
    }
    offsets = std::move(next);
  }
  return offsets;
}

}  // namespace wasmlm
