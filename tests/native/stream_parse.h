// Feeds a file's bytes through IncrementalParser in chunks, as a download
// would, collecting the bytes the TensorSink receives for each tensor.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "format/incremental_parser.h"

namespace wasmlm_test {

struct Streamed {
  wasmlm::ModelFile file;
  std::vector<std::vector<uint8_t>> tensor_bytes;  // by tensor index
  std::vector<std::string> problems;               // protocol violations seen
};

struct StreamOptions {
  bool size_known = true;  // false: IncrementalParser(0) and finish() at the end
  bool use_sink = true;
};

// `next_chunk` gives each chunk's size (clamped to 1..bytes left).
// Throws what the parser throws.
Streamed stream_parse(const uint8_t* data, size_t size, const std::function<size_t()>& next_chunk,
                      StreamOptions options = {});

}  // namespace wasmlm_test
