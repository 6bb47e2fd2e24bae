// Codepoints for the tokenizers: UTF-8 decoding/encoding, the category of a
// codepoint (as llama.cpp's pre-tokenizer regexes see it), and GPT-2's
// byte <-> printable-codepoint mapping used by byte-level BPE vocabularies.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wasmlm {

enum class CptCategory : uint8_t {
  Undefined = 0, Number = 1, Letter = 2, Separator = 3, Mark = 4, Punctuation = 5, Symbol = 6,
  Control = 7,
};

struct CptFlags {
  CptCategory category = CptCategory::Undefined;
  bool whitespace = false;  // Unicode White_Space (what \s matches)

  bool is_letter() const { return category == CptCategory::Letter; }
  bool is_number() const { return category == CptCategory::Number; }
  bool is_punctuation() const { return category == CptCategory::Punctuation; }
  bool is_symbol() const { return category == CptCategory::Symbol; }
  bool is_mark() const { return category == CptCategory::Mark; }
};

CptFlags cpt_flags(uint32_t cpt);

constexpr uint32_t kReplacementChar = 0xFFFD;

// Decodes the UTF-8 sequence at text[*pos] and advances *pos. An invalid or
// truncated sequence yields U+FFFD and advances by one byte (llama.cpp does
// the same).
uint32_t utf8_next(std::string_view text, size_t* pos);
std::vector<uint32_t> utf8_to_cpts(std::string_view text);
void append_utf8(uint32_t cpt, std::string* out);
std::string cpts_to_utf8(const std::vector<uint32_t>& cpts, size_t begin, size_t end);

// Length of the UTF-8 sequence announced by a lead byte (1 for continuation
// bytes, like llama.cpp's unicode_len_utf8).
size_t utf8_len_from_lead(uint8_t lead);

// Byte-level BPE: GPT-2 maps each byte to a printable codepoint (printable
// Latin-1 bytes map to themselves, the rest to U+0100 + n).
uint32_t gpt2_byte_to_cpt(uint8_t byte);
// -1 when the codepoint is not one of the 256 mapped ones.
int gpt2_cpt_to_byte(uint32_t cpt);

// Length of the longest prefix of `bytes` that is complete, valid UTF-8 up to
// its end, where an incomplete (but so far valid) sequence at the end is not
// counted. *invalid_at is set to the offset of the first invalid byte, or
// bytes.size() when none.
size_t utf8_valid_prefix(std::string_view bytes, size_t* invalid_at);

}  // namespace wasmlm
