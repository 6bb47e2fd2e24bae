// The one description every reader produces: which format, typed metadata,
// and the tensor directory. Nothing downstream looks at file bytes again
// except through the directory's offsets.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ggml_type.h"
#include "format/metadata.h"

namespace wasmlm {

enum class FileFormat { Gguf, RwkvBin, Ggml, Ggmf, Ggjt };
const char* file_format_name(FileFormat format);

constexpr int kMaxDims = 4;

struct TensorInfo {
  std::string name;
  GgmlType type = GgmlType::F32;
  int n_dims = 0;
  std::array<uint64_t, kMaxDims> ne{1, 1, 1, 1};  // ggml order: ne[0] is the row length
  uint64_t offset = 0;                              // absolute byte offset of the data in the file
  uint64_t nbytes = 0;
  uint32_t shard = 0;  // which file of a split model holds the data

  uint64_t n_elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
  // False when blocks run across row ends (ne[0] not a multiple of the block
  // size, e.g. 172-wide Q8_0 rows); kernels index such tensors as flat blocks.
  bool rows_block_aligned() const { return ne[0] % ggml_type_info(type).block_size == 0; }
};

struct ModelFile {
  FileFormat format = FileFormat::Gguf;
  uint32_t version = 0;
  bool big_endian = false;
  uint32_t alignment = 1;     // of tensor data
  uint64_t data_offset = 0;   // GGUF: start of the data section; others: 0
  uint64_t file_size = 0;     // 0 if unknown (a stream without a length)
  uint64_t trailing_bytes = 0;  // bytes after the last tensor (and its padding)
  Metadata metadata;
  std::vector<TensorInfo> tensors;
  std::vector<std::string> warnings;

  const TensorInfo* find_tensor(const std::string& name) const;
};

// Throws BadFormat (at `offset`) if two tensors share a name.
void check_unique_tensor_names(const ModelFile& file, uint64_t offset);

}  // namespace wasmlm
