// Parses a model file from bytes as they arrive.
//
// A streaming caller pushes the file's bytes in order; the parser reads the
// header units from them and hands each tensor's data bytes to a sink as
// they pass, so a download never needs the whole file in memory.
// A random-access caller (a File, Blob.slice, HTTP Range) asks need() where
// to read and may skip_tensor_data() to jump over weights it does not want.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "format/format_reader.h"
#include "format/model_file.h"

namespace wasmlm {

// Receives tensor data as it streams past, in file order. `info` is the
// tensor's directory entry (valid during the call).
class TensorSink {
 public:
  virtual ~TensorSink() = default;
  virtual void tensor_bytes(size_t tensor_index, const TensorInfo& info, uint64_t offset_in_tensor,
                            const uint8_t* data, size_t n) = 0;
};

class IncrementalParser {
 public:
  enum class Phase { Header, TensorData, Done };

  struct Need {
    Phase phase;
    uint64_t offset;  // file offset of the next byte to push
    // Header: at least this many more bytes are needed before progress.
    // TensorData: bytes from `offset` to the end of tensor `tensor`'s data.
    uint64_t length;
    int64_t tensor;   // TensorData: index into file().tensors; else -1
  };

  // `file_size` 0 means unknown (a stream without a length): then finish()
  // marks the end.
  explicit IncrementalParser(uint64_t file_size = 0);
  ~IncrementalParser();

  Need need() const;
  // The next `n` bytes of the file, starting at need().offset.
  void push(const uint8_t* data, size_t n);
  // Jumps over the rest of the current tensor's data (random-access readers).
  // For GGUF the directory is complete before any data, so this ends parsing.
  void skip_tensor_data();
  // No more bytes will come. Throws Truncated if the file ended mid-structure.
  void finish();

  void set_sink(TensorSink* sink) { sink_ = sink; }
  // True once every tensor is listed (GGUF: after the header; record formats:
  // at the end of the file).
  bool directory_complete() const;
  bool done() const { return phase_ == Phase::Done; }
  const ModelFile& file() const { return file_; }
  ModelFile take_file();

 private:
  void drain();
  bool run_unit();
  void on_unit(UnitResult r);
  void consume_data();
  void end_of_tensor();
  void check_ok() const;
  size_t avail() const { return window_.size() - head_; }
  uint64_t window_start() const { return pos_ - avail(); }

  ModelFile file_;
  std::unique_ptr<FormatReader> reader_;
  Phase phase_ = Phase::Header;
  bool at_eof_ = false;
  bool gguf_ = false;
  bool at_record_boundary_ = false;

  std::vector<uint8_t> window_;  // bytes [window_start(), pos_) not yet consumed
  size_t head_ = 0;
  uint64_t pos_ = 0;             // file offset one past the last pushed byte
  uint64_t need_until_ = 8;      // a unit needs bytes up to here before it is retried

  std::vector<size_t> data_order_;  // tensors in file order, for the data phase
  size_t data_next_ = 0;
  TensorSink* sink_ = nullptr;
  std::optional<Error> error_;
};

// Reads the directory of a file through a random-access reader:
// read_at(offset, dst, n) fills up to n bytes and returns how many.
using ReadAt = std::function<size_t(uint64_t offset, uint8_t* dst, size_t n)>;
// A ReadAt over bytes in memory (which must outlive it).
ReadAt read_from_memory(const uint8_t* data, size_t size);
ModelFile read_model_directory(uint64_t file_size, const ReadAt& read_at);
ModelFile read_model_directory(const uint8_t* data, size_t size);

}  // namespace wasmlm
