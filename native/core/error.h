// Typed errors for everything that reads untrusted bytes.
//
// Every failure caused by input carries the byte offset in the file where the
// reader noticed it and what it expected there, so a user can tell a
// truncated download from a corrupt or hostile file.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wasmlm {

enum class ErrorCode {
  Truncated,    // the file ends before a structure is complete
  BadFormat,    // bytes do not form a valid file of the detected format
  Unsupported,  // valid file, but a feature/type/version we do not handle
  TooLarge,     // a declared size exceeds sane limits or the file size
  Refused,      // input asks for something we never do (e.g. code execution)
  OutOfMemory,  // an allocation failed
  Aborted,      // the caller cancelled
  Internal,     // a bug in wasmlm
};

const char* error_code_name(ErrorCode code);

// Offset value meaning "not tied to a position in the file".
constexpr uint64_t kNoOffset = ~uint64_t(0);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, uint64_t offset, const std::string& message);

  ErrorCode code() const { return code_; }
  uint64_t offset() const { return offset_; }
  // The message without the "at byte N" prefix.
  const std::string& detail() const { return detail_; }

 private:
  ErrorCode code_;
  uint64_t offset_;
  std::string detail_;
};

[[noreturn]] void fail(ErrorCode code, uint64_t offset, const std::string& message);

}  // namespace wasmlm
