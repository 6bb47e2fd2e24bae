#include "format/incremental_parser.h"

#include <algorithm>
#include <cstring>

#include "format/limits.h"

namespace wasmlm {

namespace {
// Header bytes taken per step beyond what the current unit asked for: big
// enough that small units do not cost a retry each, small enough that data
// after the header is not copied around.
constexpr uint64_t kHeaderStep = 64 << 10;
}  // namespace

IncrementalParser::IncrementalParser(uint64_t file_size) { file_.file_size = file_size; }
IncrementalParser::~IncrementalParser() = default;

void IncrementalParser::check_ok() const {
  if (error_) throw *error_;
}

IncrementalParser::Need IncrementalParser::need() const {
  switch (phase_) {
    case Phase::Header: {
      uint64_t more = need_until_ > pos_ ? need_until_ - pos_ : 1;
      return {Phase::Header, pos_, more, -1};
    }
    case Phase::TensorData: {
      size_t index = data_order_[data_next_];
      const TensorInfo& t = file_.tensors[index];
      uint64_t end = t.offset + t.nbytes;
      return {Phase::TensorData, pos_, end > pos_ ? end - pos_ : 0, static_cast<int64_t>(index)};
    }
    case Phase::Done: break;
  }
  return {Phase::Done, pos_, 0, -1};
}

bool IncrementalParser::directory_complete() const {
  return phase_ == Phase::Done || (gguf_ && phase_ == Phase::TensorData);
}

ModelFile IncrementalParser::take_file() { return std::move(file_); }

void IncrementalParser::push(const uint8_t* data, size_t n) {
  check_ok();
  try {
    if (file_.file_size != 0 && n > file_.file_size - std::min(pos_, file_.file_size))
      fail(ErrorCode::BadFormat, pos_, "more bytes were pushed than the declared file size");
    while (n > 0) {
      if (phase_ == Phase::TensorData && avail() == 0 && sink_ == nullptr) {
        // Nothing will keep these bytes: count them through without copying.
        const TensorInfo& t = file_.tensors[data_order_[data_next_]];
        uint64_t take = std::min<uint64_t>(n, t.offset + t.nbytes - pos_);
        pos_ += take;
        data += take;
        n -= take;
        head_ = 0;
        window_.clear();
        if (pos_ == t.offset + t.nbytes) end_of_tensor();
        continue;
      }
      uint64_t take = n;
      if (phase_ == Phase::Header) {
        uint64_t wanted = need_until_ > pos_ ? need_until_ - pos_ : 0;
        take = std::min<uint64_t>(n, std::max(wanted, kHeaderStep));
      }
      if (head_ > 0 && head_ >= window_.size() / 2) {
        window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
      }
      window_.insert(window_.end(), data, data + take);
      pos_ += take;
      data += take;
      n -= take;
      drain();
    }
    if (file_.file_size != 0 && pos_ == file_.file_size) finish();
  } catch (const Error& e) {
    error_ = e;
    throw;
  }
}

void IncrementalParser::drain() {
  for (;;) {
    switch (phase_) {
      case Phase::Header:
        if (!run_unit()) return;
        break;
      case Phase::TensorData: {
        // A zero-size tensor needs no bytes, even at the very end of the file.
        const TensorInfo& t = file_.tensors[data_order_[data_next_]];
        if (t.nbytes == 0 && t.offset <= window_start()) {
          end_of_tensor();
          break;
        }
        if (avail() == 0) return;
        consume_data();
        break;
      }
      case Phase::Done:
        // GGUF padding or unused bytes after the last tensor.
        head_ = window_.size();
        return;
    }
  }
}

// Runs one header unit over the window; false if it needs more bytes.
bool IncrementalParser::run_unit() {
  if (pos_ < need_until_ && !at_eof_) return false;
  if (!reader_) {
    if (avail() < 8 && !at_eof_) {
      need_until_ = 8;
      return false;
    }
    reader_ = detect_format(window_.data() + head_, avail());
  }
  ByteCursor in(window_.data() + head_, avail(), window_start(), file_.file_size, at_eof_);
  UnitResult r;
  try {
    r = reader_->read_unit(in, file_);
  } catch (const NeedMore& more) {
    // Ask for at least twice the unit's bytes so far: a large unit is
    // retried a logarithmic number of times, not once per chunk.
    uint64_t start = window_start();
    uint64_t until = std::max(more.until, start + 2 * (pos_ - start));
    if (file_.file_size != 0) until = std::min(until, file_.file_size);
    if (until - start > limits::kMaxUnitBytes)
      fail(ErrorCode::TooLarge, start, "a header structure larger than 512 MiB: refusing to buffer it");
    need_until_ = until;
    return false;
  }
  head_ += static_cast<size_t>(in.pos() - window_start());
  need_until_ = window_start();
  at_record_boundary_ = false;
  on_unit(r);
  return true;
}

void IncrementalParser::on_unit(UnitResult r) {
  switch (r) {
    case UnitResult::Continue:
      return;
    case UnitResult::TensorData:
      data_order_.assign(1, file_.tensors.size() - 1);
      data_next_ = 0;
      phase_ = Phase::TensorData;
      if (file_.tensors.back().nbytes == 0) end_of_tensor();
      return;
    case UnitResult::HeaderDone: {
      gguf_ = true;
      data_order_.resize(file_.tensors.size());
      for (size_t i = 0; i < data_order_.size(); ++i) data_order_[i] = i;
      // Zero-size tensors first among equal offsets (as validate_layout orders them).
      std::sort(data_order_.begin(), data_order_.end(), [&](size_t a, size_t b) {
        const TensorInfo& x = file_.tensors[a];
        const TensorInfo& y = file_.tensors[b];
        return x.offset != y.offset ? x.offset < y.offset : x.nbytes < y.nbytes;
      });
      data_next_ = 0;
      phase_ = data_order_.empty() ? Phase::Done : Phase::TensorData;
      while (phase_ == Phase::TensorData && file_.tensors[data_order_[data_next_]].nbytes == 0 &&
             file_.tensors[data_order_[data_next_]].offset <= window_start())
        end_of_tensor();
      return;
    }
    case UnitResult::End:
      check_unique_tensor_names(file_, window_start());
      phase_ = Phase::Done;
      return;
  }
}

void IncrementalParser::consume_data() {
  size_t index = data_order_[data_next_];
  const TensorInfo& t = file_.tensors[index];
  uint64_t at = window_start();
  const uint8_t* p = window_.data() + head_;
  size_t n = avail();
  if (at < t.offset) {  // padding or a gap before this tensor
    size_t gap = static_cast<size_t>(std::min<uint64_t>(n, t.offset - at));
    head_ += gap;
    return;
  }
  size_t take = static_cast<size_t>(std::min<uint64_t>(n, t.offset + t.nbytes - at));
  if (sink_) sink_->tensor_bytes(index, t, at - t.offset, p, take);
  head_ += take;
  if (at + take == t.offset + t.nbytes) end_of_tensor();
}

void IncrementalParser::end_of_tensor() {
  if (gguf_) {
    if (++data_next_ == data_order_.size()) phase_ = Phase::Done;
    return;
  }
  uint64_t here = window_start();
  bool at_end = file_.file_size != 0 ? here == file_.file_size : (at_eof_ && avail() == 0);
  UnitResult r = reader_->after_tensor_data(at_end);
  phase_ = Phase::Header;
  need_until_ = here;
  at_record_boundary_ = true;
  if (r == UnitResult::End) on_unit(UnitResult::End);
}

void IncrementalParser::skip_tensor_data() {
  check_ok();
  try {
    if (phase_ != Phase::TensorData) fail(ErrorCode::Internal, pos_, "skip_tensor_data outside tensor data");
    if (gguf_) {
      phase_ = Phase::Done;
      return;
    }
    const TensorInfo& t = file_.tensors[data_order_[data_next_]];
    window_.clear();
    head_ = 0;
    pos_ = t.offset + t.nbytes;
    end_of_tensor();
  } catch (const Error& e) {
    error_ = e;
    throw;
  }
}

void IncrementalParser::finish() {
  check_ok();
  try {
    at_eof_ = true;
    if (file_.file_size == 0) file_.file_size = pos_;
    if (phase_ == Phase::Header && at_record_boundary_ && avail() == 0) {
      on_unit(UnitResult::End);
      return;
    }
    drain();
    if (phase_ == Phase::Header) {
      // drain() at EOF either completes units or throws Truncated; reaching
      // here means the format needs bytes that never came.
      fail(ErrorCode::Truncated, pos_, "the file ends inside its header");
    }
    if (phase_ == Phase::TensorData) {
      const TensorInfo& t = file_.tensors[data_order_[data_next_]];
      fail(ErrorCode::Truncated, pos_,
           "the file ends inside the data of tensor '" + t.name + "', which runs to byte " +
               std::to_string(t.offset + t.nbytes));
    }
  } catch (const Error& e) {
    error_ = e;
    throw;
  }
}

ModelFile read_model_directory(uint64_t file_size, const ReadAt& read_at) {
  if (file_size == 0) fail(ErrorCode::Truncated, 0, "expected a model file but the file is empty");
  IncrementalParser parser(file_size);
  std::vector<uint8_t> buf;
  for (;;) {
    IncrementalParser::Need need = parser.need();
    if (need.phase == IncrementalParser::Phase::Done) break;
    if (need.phase == IncrementalParser::Phase::TensorData) {
      parser.skip_tensor_data();
      continue;
    }
    uint64_t want = std::min<uint64_t>(std::max<uint64_t>(need.length, kHeaderStep), file_size - need.offset);
    buf.resize(want);
    size_t got = read_at(need.offset, buf.data(), want);
    if (got == 0) {
      parser.finish();
      break;
    }
    parser.push(buf.data(), got);
  }
  return parser.take_file();
}

ReadAt read_from_memory(const uint8_t* data, size_t size) {
  return [data, size](uint64_t offset, uint8_t* dst, size_t n) -> size_t {
    if (offset >= size) return 0;
    const size_t k = static_cast<size_t>(std::min<uint64_t>(n, size - offset));
    std::memcpy(dst, data + offset, k);
    return k;
  };
}

ModelFile read_model_directory(const uint8_t* data, size_t size) {
  return read_model_directory(size, read_from_memory(data, size));
}

}  // namespace wasmlm
