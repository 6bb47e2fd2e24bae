// Tiny models with small deterministic F32 weights, written in memory with
// tests/native/gguf_writer: the in-process models of the state-loading
// target, and generated seeds of the targets that no test data file fits.
#pragma once

#include <cstdint>
#include <vector>

#include "gguf_writer.h"

namespace wasmlm_fuzz {

// gemma3 (pre and post norms, per-head q/k norms, tied output): 2 layers, the
// first attending to a window of 4 positions, which in a context of more than
// 260 positions is a ring.
wasmlm_test::GgufSpec tiny_decoder_spec();

// RWKV: version 4 under rwkv.cpp's tensor names (architecture "rwkv", as the
// .bin reader presents them) with Q8_0 matrices, 6 and 7 as llama.cpp's GGUF
// files (rwkv6, rwkv7) in F32.
wasmlm_test::GgufSpec tiny_rwkv_spec(int version);

// tiny_rwkv_spec(4) (or a changed copy) as an rwkv.cpp .bin file.
std::vector<uint8_t> write_rwkv_bin(const wasmlm_test::GgufSpec& spec);

}  // namespace wasmlm_fuzz
