// torch.save's zip format: <archive>/data.pkl names the tensors; each
// storage's bytes are the stored entry <archive>/data/<key>.
#pragma once

#include "format/pth_checkpoint.h"

namespace wasmlm {

PthCheckpoint read_pth_zip(uint64_t file_size, const ReadAt& read_at);

}  // namespace wasmlm
