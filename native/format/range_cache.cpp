#include "format/range_cache.h"

#include <algorithm>
#include <cstring>

namespace wasmlm {

ReadAt RangeCache::reader() const {
  return [this](uint64_t at, uint8_t* dst, size_t n) -> size_t {
    if (at >= size_) return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - at));
    auto it = ranges_.upper_bound(at);
    if (it != ranges_.begin()) {
      --it;
      const uint64_t start = it->first, end = start + it->second.size();
      // Whole reads only: a part of one would look like a truncated file.
      if (at >= start && at + n <= end) {
        std::memcpy(dst, it->second.data() + (at - start), n);
        return n;
      }
    }
    throw NeedRange{at, n};
  };
}

}  // namespace wasmlm
