// libFuzzer target: llama.cpp's pre-GGUF files (GGML, GGMF v1, GGJT v1-v3) on
// arbitrary bytes: the directory (every tensor inside the file) and the
// tokenizer made from the file's vocabulary, which encodes and decodes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "format/incremental_parser.h"
#include "support.h"
#include "tokenizer/tokenizer.h"

namespace {

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void put_f32(std::vector<uint8_t>& out, float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  put_u32(out, v);
}

// A tiny LLaMA-shaped file: 8 tokens, an F32 and a Q4_0 tensor (20-byte
// blocks before GGJT v3, 18 from it).
std::vector<uint8_t> tiny_legacy(uint32_t magic, uint32_t version) {
  std::vector<uint8_t> out;
  put_u32(out, magic);
  if (magic != 0x67676d6c) put_u32(out, version);
  for (uint32_t hp : {8u, 32u, 32u, 2u, 1u, 16u, 2u}) put_u32(out, hp);  // n_vocab..ftype
  const char* tokens[8] = {"<unk>", "<s>", "</s>", "\xE2\x96\x81", "a", "b", "\xE2\x96\x81\x61\x62", "<0x0A>"};
  for (int i = 0; i < 8; ++i) {
    put_u32(out, static_cast<uint32_t>(std::strlen(tokens[i])));
    out.insert(out.end(), tokens[i], tokens[i] + std::strlen(tokens[i]));
    if (magic != 0x67676d6c) put_f32(out, -static_cast<float>(i));
  }
  const bool ggjt = magic == 0x67676a74;
  auto record = [&](const std::string& name, uint32_t type, std::vector<uint32_t> dims, size_t nbytes) {
    put_u32(out, static_cast<uint32_t>(dims.size()));
    put_u32(out, static_cast<uint32_t>(name.size()));
    put_u32(out, type);
    for (uint32_t d : dims) put_u32(out, d);
    out.insert(out.end(), name.begin(), name.end());
    if (ggjt) out.resize((out.size() + 31) / 32 * 32);
    for (size_t i = 0; i < nbytes; ++i) out.push_back(static_cast<uint8_t>(i * 7));
  };
  record("norm.weight", 0, {32}, 32 * 4);
  record("tok_embeddings.weight", 2, {32, 8}, 8 * (ggjt && version >= 3 ? 18 : 20));
  return out;
}

std::vector<std::vector<uint8_t>> seeds() {
  return {tiny_legacy(0x67676d6c, 0), tiny_legacy(0x67676d66, 1), tiny_legacy(0x67676a74, 1),
          tiny_legacy(0x67676a74, 2), tiny_legacy(0x67676a74, 3)};
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  wasmlm_fuzz::write_seeds_if_asked("fuzz_ggjt", seeds);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // "lmgg", "fmgg", "tjgg": the magics ggml, ggmf, ggjt little-endian.
  if (size < 4 || (std::memcmp(data, "lmgg", 4) && std::memcmp(data, "fmgg", 4) && std::memcmp(data, "tjgg", 4)))
    return 0;
  wasmlm_fuzz::succeeds([&] {
    const wasmlm::ModelFile file = wasmlm::read_model_directory(data, size);
    for (const wasmlm::TensorInfo& t : file.tensors) FUZZ_CHECK(t.offset <= size && t.nbytes <= size - t.offset);
    wasmlm_fuzz::exercise_tokenizer(wasmlm::Tokenizer::from_model_file(file));
  });
  return 0;
}
