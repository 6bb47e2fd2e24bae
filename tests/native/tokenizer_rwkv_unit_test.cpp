// The RWKV tokenizer on synthetic input (no test data needed): a hand-made
// vocabulary in GGUF metadata as llama.cpp stores it, the escaping of token
// bytes, and typed errors for damaged rwkv_vocab_*.txt files.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/metadata.h"
#include "tokenizer/rwkv_token_text.h"
#include "tokenizer/rwkv_trie.h"
#include "tokenizer/rwkv_vocab_reader.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_file.h"

using namespace wasmlm;

namespace {

MetaValue strings(std::vector<std::string> v) {
  MetaArray a;
  a.elem_type = MetaType::String;
  a.count = v.size();
  a.strings = std::move(v);
  return MetaValue::of_array(std::move(a));
}

MetaValue int32s(const std::vector<int32_t>& v) {
  MetaArray a;
  a.elem_type = MetaType::I32;
  a.count = v.size();
  a.packed.resize(v.size() * sizeof(int32_t));
  std::memcpy(a.packed.data(), v.data(), a.packed.size());
  return MetaValue::of_array(std::move(a));
}

// A small vocabulary written as convert_hf_to_gguf.py writes RWKV tokens:
// repr(bytes)[2:-1], so \n, \xNN, \\ and \' appear escaped.
const std::vector<std::string> kTokens = {
    "<s>", "a", "b", "c", "d", "ab", "bcd", "\\n", "\\n\\n", "\\xe4\\xbd", "\\xa0", "\\xe4\\xbd\\xa0",
    "it's", "\\\\", "\\'\"", " ", " a"};

Metadata tiny_rwkv_metadata(int32_t unk = -1) {
  std::vector<int32_t> types(kTokens.size(), static_cast<int32_t>(TokenType::Normal));
  types[0] = static_cast<int32_t>(TokenType::Control);
  Metadata md;
  md.add("tokenizer.ggml.model", MetaValue::of_string("rwkv"));
  md.add("tokenizer.ggml.tokens", strings(kTokens));
  md.add("tokenizer.ggml.token_type", int32s(types));
  if (unk >= 0) md.add("tokenizer.ggml.unknown_token_id", MetaValue::of_u32(static_cast<uint32_t>(unk)));
  return md;
}

// The id of a token of kTokens, by its GGUF text.
int32_t id(const std::string& gguf_text) {
  for (size_t i = 0; i < kTokens.size(); ++i)
    if (kTokens[i] == gguf_text) return static_cast<int32_t>(i);
  ADD_FAILURE() << "no token " << gguf_text;
  return -1;
}

using Ids = std::vector<int32_t>;

template <typename F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no wasmlm::Error thrown";
  return Error(ErrorCode::Internal, kNoOffset, "none");
}

Error vocab_error(const std::string& text) {
  return error_of([&] { read_rwkv_vocab(text); });
}

std::string token_bytes_of(const std::string& vocab_text, int32_t token) {
  return Tokenizer::from_metadata(read_rwkv_vocab(vocab_text).to_metadata()).token_bytes(token);
}

}  // namespace

TEST(TokenizerRwkvGguf, GreedyLongestMatchOverUnescapedBytes) {
  const Tokenizer tok = Tokenizer::from_metadata(tiny_rwkv_metadata());
  EXPECT_EQ(tok.model(), TokenizerModel::Rwkv);
  EXPECT_EQ(tok.bos(), kNoToken);  // llama.cpp sets none for rwkv
  EXPECT_FALSE(tok.add_bos_default());
  EXPECT_FALSE(tok.add_space_prefix());
  // Greedy, not best: "abcd" is ab|c|d although a|bcd is fewer tokens.
  EXPECT_EQ(tok.encode("abcd"), (Ids{id("ab"), id("c"), id("d")}));
  EXPECT_EQ(tok.encode("bcdab"), (Ids{id("bcd"), id("ab")}));
  EXPECT_EQ(tok.encode("a\n\n\nb"), (Ids{id("a"), id("\\n\\n"), id("\\n"), id("b")}));
  EXPECT_EQ(tok.encode("\xe4\xbd\xa0\xe4\xbd"), (Ids{id("\\xe4\\xbd\\xa0"), id("\\xe4\\xbd")}));
  EXPECT_EQ(tok.encode("it's\\'\""), (Ids{id("it's"), id("\\\\"), id("\\'\"")}));
  EXPECT_EQ(tok.encode(" a a"), (Ids{id(" a"), id(" a")}));
  EXPECT_TRUE(tok.encode("").empty());
}

TEST(TokenizerRwkvGguf, DecodeConcatenatesTokenBytes) {
  const Tokenizer tok = Tokenizer::from_metadata(tiny_rwkv_metadata());
  EXPECT_EQ(tok.token_bytes(id("\\n\\n")), "\n\n");
  EXPECT_EQ(tok.token_bytes(id("\\xa0")), "\xa0");
  EXPECT_EQ(tok.token_bytes(id("\\\\")), "\\");
  EXPECT_EQ(tok.token_bytes(id("\\'\"")), "'\"");
  EXPECT_EQ(tok.token_text(id("\\n")), "\\n");  // the text as stored in the file
  const std::string text = "it's ab\n\n\xe4\xbd\xa0\\'\"bcd";
  EXPECT_EQ(tok.decode(tok.encode(text)), text);
  // The control token decodes to nothing unless rendered.
  EXPECT_EQ(tok.decode({0, id("a")}), "a");
  DecodeOptions render;
  render.render_special = true;
  EXPECT_EQ(tok.decode({0, id("a")}, render), "<s>a");
  // A character split across tokens streams out once complete.
  StreamingDetokenizer stream(tok);
  EXPECT_EQ(stream.push(id("\\xe4\\xbd")), "");
  EXPECT_EQ(stream.push(id("\\xa0")), "\xe4\xbd\xa0");
}

TEST(TokenizerRwkvGguf, ControlTokensOnlyFromParseSpecial) {
  const Tokenizer tok = Tokenizer::from_metadata(tiny_rwkv_metadata());
  EXPECT_EQ(tok.encode("a<s>"), (Ids{id("a")}));  // '<', 's', '>' are no tokens here: dropped
  EncodeOptions special;
  special.parse_special = true;
  EXPECT_EQ(tok.encode("a<s>b", special), (Ids{id("a"), 0, id("b")}));
}

TEST(TokenizerRwkvGguf, UnmatchedBytesBecomeUnknownWhenThereIsOne) {
  EXPECT_EQ(Tokenizer::from_metadata(tiny_rwkv_metadata()).encode("azb"), (Ids{id("a"), id("b")}));
  const Tokenizer with_unk = Tokenizer::from_metadata(tiny_rwkv_metadata(id(" ")));
  EXPECT_EQ(with_unk.encode("azzb"), (Ids{id("a"), id(" "), id(" "), id("b")}));
}

TEST(TokenizerRwkvGguf, MalformedEscapeInGgufTokenIsBadFormat) {
  for (const char* bad : {"\\x4", "\\xzz", "ab\\"}) {
    Metadata md;
    md.add("tokenizer.ggml.model", MetaValue::of_string("rwkv"));
    md.add("tokenizer.ggml.tokens", strings({"<s>", "a", bad}));
    md.add("tokenizer.ggml.token_type", int32s({3, 1, 1}));
    const Error e = error_of([&] { Tokenizer::from_metadata(md); });
    EXPECT_EQ(e.code(), ErrorCode::BadFormat) << bad;
    EXPECT_NE(std::string(e.what()).find("tokenizer.ggml.tokens[2]"), std::string::npos) << e.what();
  }
}

TEST(TokenizerRwkvTrie, LongestPrefixAndLastDuplicateWins) {
  const RwkvTrie trie({{"a", 1}, {"abc", 2}, {"b", 3}, {"abc", 4}, {"", 5}});
  EXPECT_EQ(trie.longest_prefix("abcd", 0).id, 4);
  EXPECT_EQ(trie.longest_prefix("abcd", 0).length, 3u);
  EXPECT_EQ(trie.longest_prefix("abd", 0).id, 1);
  EXPECT_EQ(trie.longest_prefix("abd", 1).id, 3);
  EXPECT_EQ(trie.longest_prefix("abd", 2).id, -1);
  EXPECT_EQ(trie.longest_prefix("abd", 3).id, -1);
  std::vector<int32_t> out;
  trie.encode("abcabx", 9, &out);
  EXPECT_EQ(out, (Ids{4, 1, 3, 9}));
}

TEST(TokenizerRwkvEscape, MatchesPythonBytesRepr) {
  EXPECT_EQ(rwkv_escape_token("it's"), "it's");  // repr chooses "..." and leaves ' alone
  EXPECT_EQ(rwkv_escape_token("'\""), "\\'\"");  // both quotes: '...' with \'
  EXPECT_EQ(rwkv_escape_token(std::string("\x00\t\n\r\x7f\xff\\ ~", 9)), "\\x00\\t\\n\\r\\x7f\\xff\\\\ ~");
  std::string bytes;
  for (int b = 0; b < 256; ++b) bytes.push_back(static_cast<char>(b));
  std::string back;
  ASSERT_TRUE(rwkv_unescape_token(rwkv_escape_token(bytes), &back));
  EXPECT_EQ(back, bytes);
}

TEST(TokenizerRwkvVocabFile, PythonLiteralsAreDecodedAsPythonDoes) {
  // A str literal is UTF-8 encoded: '\x80' is U+0080, two bytes; b'\x80' is one.
  EXPECT_EQ(token_bytes_of("1 '\\x80' 2\n", 1), "\xc2\x80");
  EXPECT_EQ(token_bytes_of("1 b'\\x80' 1\n", 1), "\x80");
  EXPECT_EQ(token_bytes_of("1 '\\u4f60' 3\n", 1), "\xe4\xbd\xa0");
  EXPECT_EQ(token_bytes_of("1 '\\U0001F600' 4\n", 1), "\xf0\x9f\x98\x80");
  EXPECT_EQ(token_bytes_of("1 '\xe4\xbd\xa0' 3\n", 1), "\xe4\xbd\xa0");
  EXPECT_EQ(token_bytes_of("1 \"'\" 1\n", 1), "'");
  EXPECT_EQ(token_bytes_of("1 '\\'\\\\\\t' 3\n", 1), "'\\\t");
  EXPECT_EQ(token_bytes_of("1 '\\101\\0' 2\n", 1), std::string("A\0", 2));
  EXPECT_EQ(token_bytes_of("1 'a b' 3\r\n2 ' ' 1\r\n", 1), "a b");  // spaces inside, CRLF lines
  const std::string two = "1 'a' 1\n2 'b' 1\n";
  EXPECT_EQ(Tokenizer::from_metadata(read_rwkv_vocab(two).to_metadata()).encode("ab"), (Ids{1, 2}));
  const std::vector<uint8_t> bytes(two.begin(), two.end());
  EXPECT_EQ(detect_tokenizer_file(bytes.data(), bytes.size()), TokenizerFileFormat::RwkvVocab);
  EXPECT_STREQ(tokenizer_file_format_name(TokenizerFileFormat::RwkvVocab), "rwkv-vocab");
}

TEST(TokenizerRwkvVocabFile, MalformedLinesNameLineAndOffset) {
  struct Bad {
    std::string text;
    uint64_t offset;  // where the error points
    const char* says;
  };
  const std::string ok = "1 'a' 1\n";  // 8 bytes, so line 2 starts at offset 8
  const Bad cases[] = {
      {ok + "2 'b'\n", 8, "expected 'id literal length'"},
      {ok + "garbage\n", 8, "expected 'id literal length'"},
      {ok + "x 'b' 1\n", 8, "invalid token id"},
      {ok + "3 'b' 1\n", 8, "token id 3 where 2 was expected"},
      {ok + "1 'b' 1\n", 8, "token id 1 where 2 was expected"},
      {ok + "2 'a' 1\n", 10, "token repeats id 1"},
      {ok + "2 'bc' 1\n", 15, "token is 2 bytes, the line says 1"},
      {ok + "2 'b' x\n", 14, "invalid token length"},
      {ok + "2 '\\x4' 1\n", 11, "\\x escape without 2 hex digits"},
      {ok + "2 '\\u12' 1\n", 11, "\\u escape without 4 hex digits"},
      {ok + "2 '\\q' 1\n", 11, "unsupported escape \\q"},
      {ok + "2 '\\N{DASH}' 1\n", 11, "unsupported escape \\N"},
      {ok + "2 '\\ud800' 3\n", 11, "escape is not a codepoint UTF-8 can encode"},
      {ok + "2 '\\U00110000' 4\n", 11, "escape is not a codepoint UTF-8 can encode"},
      {ok + "2 b'\\u4f60' 3\n", 12, "\\u escape in a bytes literal"},
      {ok + "2 b'\xe4\xbd\xa0' 3\n", 12, "non-ASCII character in a bytes literal"},
      {ok + "2 'b 1\n", 12, "literal has no closing quote"},
      {ok + "2 'b'c' 2\n", 13, "text after the closing quote"},
      {ok + "2 b 1\n", 11, "expected a quoted Python string or bytes literal"},
      {ok + "2 '' 0\n", 10, "empty token"},
      {ok + "2 '\xff' 1\n", 11, "not valid UTF-8"},
  };
  for (const Bad& b : cases) {
    const Error e = vocab_error(b.text);
    EXPECT_EQ(e.code(), ErrorCode::BadFormat) << b.text;
    EXPECT_EQ(e.offset(), b.offset) << b.text << ": " << e.what();
    EXPECT_NE(e.detail().find("line 2"), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find(b.says), std::string::npos) << b.text << ": " << e.what();
  }
  EXPECT_EQ(vocab_error("").code(), ErrorCode::BadFormat);
  EXPECT_EQ(vocab_error("\n\n").code(), ErrorCode::BadFormat);
}

TEST(TokenizerRwkvVocabFile, HugeInputIsTooLarge) {
  const std::string long_line = "1 '" + std::string(100000, 'a') + "' 100000\n";
  const Error line = vocab_error(long_line);
  EXPECT_EQ(line.code(), ErrorCode::TooLarge);
  EXPECT_EQ(line.offset(), 0u);
  const std::string huge(65u << 20, '\n');
  EXPECT_EQ(vocab_error(huge).code(), ErrorCode::TooLarge);
  // Through the file entry point too, for a file that starts like a vocabulary.
  std::string many = "1 'a' 1\n";
  many.resize(65u << 20, ' ');
  EXPECT_EQ(error_of([&] {
              tokenizer_from_file(reinterpret_cast<const uint8_t*>(many.data()), many.size());
            }).code(),
            ErrorCode::TooLarge);
}
