// Arithmetic on sizes that come from file data (counts, shapes, strides,
// offsets): a result that does not fit in 64 bits is a TooLarge error naming
// what was computed, never a wrapped value.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"

namespace wasmlm {

inline uint64_t checked_mul(uint64_t a, uint64_t b, uint64_t offset, const std::string& what) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) fail(ErrorCode::TooLarge, offset, what + " overflows");
  return r;
}

inline uint64_t checked_add(uint64_t a, uint64_t b, uint64_t offset, const std::string& what) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) fail(ErrorCode::TooLarge, offset, what + " overflows");
  return r;
}

}  // namespace wasmlm
