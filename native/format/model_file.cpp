#include "format/model_file.h"

#include <algorithm>

#include "core/error.h"

namespace wasmlm {

const char* file_format_name(FileFormat format) {
  switch (format) {
    case FileFormat::Gguf: return "gguf";
    case FileFormat::RwkvBin: return "rwkv-bin";
    case FileFormat::Ggml: return "ggml";
    case FileFormat::Ggmf: return "ggmf";
    case FileFormat::Ggjt: return "ggjt";
  }
  return "?";
}

const TensorInfo* ModelFile::find_tensor(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

void check_unique_tensor_names(const ModelFile& file, uint64_t offset) {
  std::vector<const std::string*> names;
  names.reserve(file.tensors.size());
  for (const auto& t : file.tensors) names.push_back(&t.name);
  std::sort(names.begin(), names.end(), [](auto* a, auto* b) { return *a < *b; });
  for (size_t i = 1; i < names.size(); ++i)
    if (*names[i] == *names[i - 1]) fail(ErrorCode::BadFormat, offset, "duplicate tensor name '" + *names[i] + "'");
}

}  // namespace wasmlm
