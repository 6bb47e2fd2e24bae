// What quantize-on-load gives a float tensor (llama-quantize's rules): the
// requested type where the tensor's rows hold whole blocks of it, else
// llama-quantize's fallback for that type, else F16 for an F32 tensor.
#pragma once

#include <optional>

#include "format/model_file.h"

namespace wasmlm {

// The type `t` (F32, F16 or BF16) is stored as when `requested` is asked;
// nullopt: it stays as it is (not a float tensor, or nothing smaller fits).
std::optional<GgmlType> quantize_choice(GgmlType requested, const TensorInfo& t);

// The matrices quantize-on-load touches in a file of `architecture` (its
// general.architecture; "" for files without one): for RWKV the ones
// rwkv.cpp's quantizer picks, for the transformer decoders every matrix
// (token_embd and output too, as llama-quantize --pure).
bool quantize_on_load_picks(const std::string& architecture, FileFormat format, const TensorInfo& t);

// The matrices that may be repacked into row quads on load
// (WeightStore::repack_on_load): a transformer decoder's, which only the
// matrix kernels read (not token_embd, whose rows are looked up); none of
// RWKV's.
bool repack_on_load_picks(const std::string& architecture, FileFormat format, const TensorInfo& t);

}  // namespace wasmlm
