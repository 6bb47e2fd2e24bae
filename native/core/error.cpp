#include "core/error.h"

namespace wasmlm {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::Truncated: return "TRUNCATED";
    case ErrorCode::BadFormat: return "BAD_FORMAT";
    case ErrorCode::Unsupported: return "UNSUPPORTED";
    case ErrorCode::TooLarge: return "TOO_LARGE";
    case ErrorCode::Refused: return "REFUSED";
    case ErrorCode::OutOfMemory: return "OUT_OF_MEMORY";
    case ErrorCode::Aborted: return "ABORTED";
    case ErrorCode::Internal: return "INTERNAL";
  }
  return "INTERNAL";
}

static std::string with_offset(uint64_t offset, const std::string& message) {
  if (offset == kNoOffset) return message;
  return "at byte " + std::to_string(offset) + ": " + message;
}

Error::Error(ErrorCode code, uint64_t offset, const std::string& message)
    : std::runtime_error(with_offset(offset, message)), code_(code), offset_(offset), detail_(message) {}

void fail(ErrorCode code, uint64_t offset, const std::string& message) { throw Error(code, offset, message); }

}  // namespace wasmlm
