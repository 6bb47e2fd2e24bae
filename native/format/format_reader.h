// A file format as a sequence of small units (a header, one metadata entry,
// one tensor record). The incremental parser hands each unit a cursor over
// the bytes it has; a unit either completes or throws NeedMore before it
// changes any state, so it can be retried when more bytes arrive.
#pragma once

#include <memory>

#include "format/byte_cursor.h"
#include "format/model_file.h"

namespace wasmlm {

enum class UnitResult {
  Continue,     // read the next unit at in.pos()
  TensorData,   // the tensor just added to out.tensors has its data next (record formats)
  HeaderDone,   // the whole directory is known; tensor data follows (GGUF)
  End,          // nothing more in the file
};

class FormatReader {
 public:
  virtual ~FormatReader() = default;
  // Reads one unit at in.pos(). `file_size` in `out` is set (0 if unknown).
  virtual UnitResult read_unit(ByteCursor& in, ModelFile& out) = 0;
  // Record formats: called at a record boundary after tensor data; decides
  // whether another record follows. `at_file_end`: no bytes follow.
  virtual UnitResult after_tensor_data(bool at_file_end) {
    return at_file_end ? UnitResult::End : UnitResult::Continue;
  }
};

// Recognizes the format from the first 8 bytes; throws a typed error naming
// what the bytes look like if it is none we read.
std::unique_ptr<FormatReader> detect_format(const uint8_t* first8, size_t n);

std::unique_ptr<FormatReader> make_gguf_reader();
std::unique_ptr<FormatReader> make_rwkv_bin_reader();
std::unique_ptr<FormatReader> make_legacy_llama_reader();

}  // namespace wasmlm
