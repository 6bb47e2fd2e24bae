#include "tokenizer/pre_tokenizer.h"

#include <initializer_list>

namespace wasmlm {

namespace {

// GPT-2's pattern.
const char* const kGpt2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";

// LLaMA 3 (llama.cpp spells the case-insensitive contractions out).
const char* const kLlama3 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}"
    "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// Qwen2: as LLaMA 3 but one digit per word.
const char* const kQwen2 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}"
    "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// GPT-4o (o200k). llama.cpp's rewrite: upper-case-ish letters are letters
// that are not a-z, lower-case-ish ones letters that are not A-Z.
const char* const kGpt4o =
    "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+"
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?"
    "|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*"
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?"
    "|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

const char* const kTekken =
    "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+"
    "|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*"
    "|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// DeepSeek LLM: cased letters (Lu, Ll, Lt) of an older Unicode, as ranges.
const char* const kDeepseekLlmLetters =
    "\\s?["
    "A-Za-z\u00B5\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u01BA\u01BC-\u01BF\u01C4-\u0293\u0295-\u02AF"
    "\u0370-\u0373\u0376\u0377\u037B-\u037D\u037F\u0386\u0388-\u038A\u038C\u038E-\u03A1\u03A3-\u03F5"
    "\u03F7-\u0481\u048A-\u052F\u0531-\u0556\u10A0-\u10C5\u13A0-\u13F5\u13F8-\u13FD\u1C90-\u1CBA"
    "\u1CBD-\u1CBF\u1D00-\u1D2B\u1D6B-\u1D77\u1D79-\u1D9A\u1E00-\u1F15\u1F18-\u1F1D\u1F20-\u1F45"
    "\u1F48-\u1F4D\u1F50-\u1F57\u1F59\u1F5B\u1F5D\u1F5F-\u1F7D\u1F80-\u1FB4\u1FB6-\u1FBC\u1FBE"
    "\u1FC2-\u1FC4\u1FC6-\u1FCC\u1FD0-\u1FD3\u1FD6-\u1FDB\u1FE0-\u1FEC\u1FF2-\u1FF4\u1FF6-\u1FFC"
    "\u2102\u2107\u210A-\u2113\u2115\u2119-\u211D\u2124\u2126\u2128\u212A-\u212D\u212F-\u2134\u2139"
    "\u213C-\u213F\u2145-\u2149\u214E\u2183\u2184\u2C00-\u2C7B\u2C7E-\u2CE4\u2CEB-\u2CEE\u2CF2\u2CF3"
    "\uA640-\uA66D\uA680-\uA69B\uA722-\uA76F\uA771-\uA787\uA78B-\uA78E\uAB70-\uABBF\uFB00-\uFB06"
    "\uFB13-\uFB17\uFF21-\uFF3A\uFF41-\uFF5A\U00010400-\U0001044F\U000104B0-\U000104D3"
    "\U000104D8-\U000104FB\U00010C80-\U00010CB2\U00010CC0-\U00010CF2\U000118A0-\U000118DF"
    "\U0001E900-\U0001E943"
    "]+";

// ASCII and full-width punctuation, curly quotes, CJK space and marks.
const char* const kDeepseekLlmPunct = "\\s?[!-/:-~\uFF01-\uFF0F\uFF1A-\uFF5E\u2018-\u201F\u3000-\u3002]+";

// CJK ideographs (and, as llama.cpp has it, U+0800..U+4E00) and Hangul.
const char* const kCjk = "[\u4E00-\u9FA5\u0800-\u4E00\uAC00-\uD7FF]+";

bool is_one_of(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (s == n) return true;
  return false;
}

}  // namespace

PreTokenizerSpec pre_tokenizer_spec(const std::string& pre) {
  PreTokenizerSpec spec;
  if (pre.empty() || pre == "default") {
    spec.regexes = {"[\\p{P}\\$\\+<=>\\^~\\|]+", kGpt2, "\\p{N}+", "[0-9][0-9][0-9]"};
  } else if (is_one_of(pre, {"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0",
                             "lfm2"})) {
    spec.regexes = {kLlama3};
    spec.ignore_merges = true;
  } else if (is_one_of(pre, {"dbrx", "smaug-bpe", "chatglm-bpe"})) {
    spec.regexes = {kLlama3};
  } else if (pre == "deepseek-llm") {
    spec.regexes = {"[\r\n]", kDeepseekLlmLetters, kDeepseekLlmPunct, "\\s+$", kCjk, "\\p{N}+"};
  } else if (pre == "deepseek-coder") {
    spec.regexes = {"[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", kCjk, "\\p{N}"};
  } else if (pre == "falcon") {
    spec.regexes = {"[\\p{P}\\$\\+<=>\\^~\\|`]+", kGpt2, "[0-9][0-9][0-9]"};
  } else if (is_one_of(pre, {"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b"})) {
    spec.regexes = {"\\p{N}", kGpt2};
  } else if (is_one_of(pre, {"gpt-2", "mpt", "olmo", "jais", "trillion", "phi-2", "roberta-bpe", "jina-es",
                             "jina-de", "gigachat", "jina-v1-en", "jina-v2-es", "jina-v2-de", "jina-v2-code"})) {
    spec.regexes = {kGpt2};
  } else if (is_one_of(pre, {"qwen2", "deepseek-r1-qwen", "megrez", "stablelm2"})) {
    spec.regexes = {kQwen2};
  } else if (is_one_of(pre, {"gpt-4o", "llama4"})) {
    spec.regexes = {kGpt4o};
  } else if (pre == "tekken") {
    spec.regexes = {kTekken};
    spec.ignore_merges = true;
  } else if (is_one_of(pre, {"poro-chat", "bloom", "gpt3-finnish"})) {
    spec.regexes = {" ?[^(\\s|.,!?\u2026\u3002\uFF0C\u3001\u0964\u06D4\u060C)]+"};
  } else if (pre == "viking") {
    spec.regexes = {" ?[^(\\s|.,!?\u2026\u3002\uFF0C\u3001\u0964\u06D4\u060C)]+", "\\p{N}"};
  } else {
    spec.known = false;
  }
  return spec;
}

}  // namespace wasmlm
