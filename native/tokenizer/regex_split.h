// Pre-tokenization: splitting text into words with llama.cpp's regexes.
//
// A small backtracking regex engine over codepoints, with exactly the subset
// the BPE pre-tokenizer patterns use: alternation, groups ((?:..), (..),
// (?=..), (?!..)), classes with ranges and \p{L} \p{N} \p{P} \p{S} \p{M}
// (\p{Lu}.. count as \p{L}, as in llama.cpp), \s \S \d, quantifiers ? * +
// {n} {n,m}, and $. Semantics are ECMAScript's (leftmost match, first
// alternative that succeeds), which is what llama.cpp gets from std::regex;
// \s is Unicode White_Space, the category tests use the tables of
// unicode_tables.h.
//
// Like llama.cpp's unicode_regex_split, a list of regexes is applied in
// turn: each splits every piece of the previous split into its matches and
// the text between them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wasmlm {

class Regex {
 public:
  // Throws Error(Unsupported) on syntax outside the subset.
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;

  // The first match in cpts[begin, end) (the regex sees `end` as the end of
  // input): sets *match_begin, *match_end. False if none.
  bool search(const uint32_t* cpts, size_t begin, size_t end, size_t* match_begin,
              size_t* match_end) const;

 private:
  struct Program;
  std::unique_ptr<Program> prog_;
};

// Splits `cpts` into word lengths, applying the regexes in order.
std::vector<size_t> regex_split(const std::vector<uint32_t>& cpts, const std::vector<Regex>& regexes);

}  // namespace wasmlm
