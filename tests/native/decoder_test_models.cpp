#include "decoder_test_models.h"

#include <cstdio>
#include <fstream>
#include <iterator>

#include "format/incremental_parser.h"

namespace wasmlm_test {

std::string decoder_test_model_path(const std::string& file) {
  return std::string(WASMLM_REPO_ROOT) + "/tests/.tmp/decoder-models/" + file;
}

std::unique_ptr<DecoderTestModel> load_decoder_test_model(const std::string& file) {
  std::ifstream f(decoder_test_model_path(file), std::ios::binary);
  if (!f) return nullptr;
  auto m = std::make_unique<DecoderTestModel>();
  m->bytes.assign(std::istreambuf_iterator<char>(f), {});
  m->file = std::make_unique<wasmlm::ModelFile>(
      wasmlm::load_weights(m->bytes.size(), wasmlm::read_from_memory(m->bytes.data(), m->bytes.size()), m->store));
  m->model = std::make_unique<wasmlm::DecoderModel>(*m->file, m->store);
  return m;
}

std::string fnv1a64_hex(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace wasmlm_test
