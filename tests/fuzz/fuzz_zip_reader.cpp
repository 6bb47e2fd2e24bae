// libFuzzer target: the zip reader (the container of PyTorch .pt/.pth files)
// on arbitrary bytes: the central directory (zip64 included), then every
// entry's local header. What it locates must lie inside the file.
#include <cstddef>
#include <cstdint>

#include "format/zip_reader.h"
#include "support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wasmlm_fuzz::succeeds([&] {
    const wasmlm::ZipArchive zip(size, wasmlm::read_from_memory(data, size));
    for (const wasmlm::ZipEntry& e : zip.entries()) {
      FUZZ_CHECK(zip.find(e.name) == &e);
      wasmlm_fuzz::succeeds([&] {
        const wasmlm::ZipSpan span = zip.locate(e);
        FUZZ_CHECK(span.offset <= size && span.size <= size - span.offset && span.size == e.size);
      });
    }
  });
  return 0;
}
