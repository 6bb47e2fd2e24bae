// Turns the unpickled object of a checkpoint into named tensors: nested
// dicts joined with ".", list/tuple items by index, everything else ignored.
#pragma once

#include <vector>

#include "format/pickle_value.h"
#include "format/pth_checkpoint.h"
#include "format/pth_unpickler.h"

namespace wasmlm {

// Tensors reachable from `root`, with `storage` indexing unpickler.storages().
// `offset` is where errors are reported (the pickle's start). Fails on
// nesting deeper than limits::kMaxPickleNesting, on more than
// limits::kMaxPickleWalk values visited, and on duplicate names.
std::vector<PthTensor> collect_pth_tensors(const PickleHeap& heap, PyValue root, const PthUnpickler& unpickler,
                                           uint64_t offset);

}  // namespace wasmlm
