#include "stream_parse.h"

#include <algorithm>

namespace wasmlm_test {

namespace {

class CollectingSink final : public wasmlm::TensorSink {
 public:
  CollectingSink(Streamed& out, const wasmlm::IncrementalParser& parser) : out_(out), parser_(parser) {}

  void tensor_bytes(size_t index, const wasmlm::TensorInfo&, uint64_t offset_in_tensor, const uint8_t* data,
                    size_t n) override {
    const auto& tensors = parser_.file().tensors;
    if (index >= tensors.size()) {
      out_.problems.push_back("sink got tensor index " + std::to_string(index) + " of " +
                              std::to_string(tensors.size()));
      return;
    }
    if (out_.tensor_bytes.size() < tensors.size()) out_.tensor_bytes.resize(tensors.size());
    auto& buf = out_.tensor_bytes[index];
    if (offset_in_tensor != buf.size())
      out_.problems.push_back("tensor " + std::to_string(index) + ": bytes at " + std::to_string(offset_in_tensor) +
                              " after " + std::to_string(buf.size()) + " received");
    if (offset_in_tensor + n > tensors[index].nbytes)
      out_.problems.push_back("tensor " + std::to_string(index) + ": bytes past its end");
    buf.insert(buf.end(), data, data + n);
  }

 private:
  Streamed& out_;
  const wasmlm::IncrementalParser& parser_;
};

}  // namespace

Streamed stream_parse(const uint8_t* data, size_t size, const std::function<size_t()>& next_chunk,
                      StreamOptions options) {
  Streamed out;
  wasmlm::IncrementalParser parser(options.size_known ? size : 0);
  CollectingSink sink(out, parser);
  if (options.use_sink) parser.set_sink(&sink);
  size_t pos = 0;
  while (pos < size) {
    if (parser.need().offset != pos)
      out.problems.push_back("need().offset " + std::to_string(parser.need().offset) + " but " + std::to_string(pos) +
                             " bytes were pushed");
    size_t n = std::clamp<size_t>(next_chunk(), 1, size - pos);
    parser.push(data + pos, n);
    pos += n;
  }
  if (!options.size_known) parser.finish();
  if (!parser.done()) out.problems.push_back("parser not done after the whole file");
  out.file = parser.take_file();
  if (options.use_sink) out.tensor_bytes.resize(out.file.tensors.size());
  return out;
}

}  // namespace wasmlm_test
