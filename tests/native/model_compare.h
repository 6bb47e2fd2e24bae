// Compares two parsed directories (e.g. the random-access and the streaming
// result of the same file) field by field.
#pragma once

#include <string>

#include "format/model_file.h"

namespace wasmlm_test {

// "" when equal, else a description of the first difference.
std::string meta_value_diff(const wasmlm::MetaValue& a, const wasmlm::MetaValue& b);
std::string model_diff(const wasmlm::ModelFile& a, const wasmlm::ModelFile& b);

}  // namespace wasmlm_test
