// The lines of a vocabulary text file, for the readers that take one token
// per line (RWKV World, tiktoken).
#pragma once

#include <cstddef>
#include <string_view>

namespace wasmlm {

// Calls f(line, offset, line_no) for each non-empty line of `text` ("\n" or
// "\r\n" endings; offset: where the line starts; line_no counts from 1,
// empty lines included).
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    size_t end = text.find('\n', pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    if (end == std::string_view::npos) end = text.size();
    ++line_no;
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) f(line, start, line_no);
  }
}

}  // namespace wasmlm
