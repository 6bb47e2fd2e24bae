#include "format/pth_range_reader.h"

namespace wasmlm {

std::optional<PthCheckpoint> PthRangeReader::read() {
  try {
    return reader_.read();
  } catch (const NeedRange& need) {
    need_ = need;
    return std::nullopt;
  }
}

}  // namespace wasmlm
