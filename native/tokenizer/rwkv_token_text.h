// How llama.cpp stores RWKV tokens, which may be any bytes, as GGUF strings:
// convert_hf_to_gguf.py writes repr(token_bytes)[2:-1] (Python's escaped
// bytes literal without b'...'), and llama-vocab.cpp's
// llama_unescape_rwkv_token turns it back into bytes.
#pragma once

#include <string>
#include <string_view>

namespace wasmlm {

// Python's repr(bytes) between the quotes: \t \n \r \\, \xNN for other bytes
// below 0x20 or above 0x7E, and \' when the quote repr chose is ' (it picks "
// for text with a ' and no ").
std::string rwkv_escape_token(std::string_view bytes);

// llama_unescape_rwkv_token: \t \n \r \xNN, any other escaped character as
// itself. False (and *bytes unspecified) for a \x without two hex digits or a
// trailing backslash, which llama.cpp would read as garbage.
bool rwkv_unescape_token(std::string_view escaped, std::string* bytes);

}  // namespace wasmlm
