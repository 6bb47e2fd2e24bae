// torch.save's format before zip (_use_new_zipfile_serialization=False):
// five pickles in a row (magic number, protocol 1001, sys_info, the object,
// the storage keys) and then each storage as an 8-byte element count followed
// by its bytes, in the order of the keys list.
#pragma once

#include "format/pth_checkpoint.h"

namespace wasmlm {

// True if the file starts like a pickle (the legacy format's first is the magic number).
bool looks_like_legacy_pth(const uint8_t* head, size_t n);
PthCheckpoint read_pth_legacy(uint64_t file_size, const ReadAt& read_at);

}  // namespace wasmlm
