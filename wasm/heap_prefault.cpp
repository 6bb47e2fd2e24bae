// Faults in fresh heap pages on a second thread while the loader copies
// weights into them (pthreads build only).
//
// The first write to each 4 KiB page of new wasm memory is an OS page fault.
// On the VMs we measure on a fault costs ~11 us (~2.8 s per GiB), more than
// the copy itself, and the loading thread would pay it between two reads of
// the download. A thread touching the pages ahead of the copy takes that
// work off the loading thread (Chromium, 620 MB body: 5.3-6.5 s -> 4.5-4.7 s
// for read + copy). The touch is an atomic OR with 0, so it never changes a
// byte the loader has already written.
#include <emscripten/bind.h>

#include <atomic>
#include <cstdint>
#ifdef WASMLM_THREADS
#include <thread>
#endif

namespace {

constexpr uintptr_t kOsPage = 4096;

#ifdef WASMLM_THREADS
std::thread toucher;
std::atomic<bool> stop_touching{false};

void touch_pages(uintptr_t begin, uintptr_t end) {
  for (uintptr_t p = (begin + kOsPage - 1) & ~(kOsPage - 1); p + sizeof(uint32_t) <= end; p += kOsPage) {
    if (stop_touching.load(std::memory_order_relaxed)) return;
    reinterpret_cast<std::atomic<uint32_t>*>(p)->fetch_or(0, std::memory_order_relaxed);
  }
}
#endif

// Stops the toucher (if any) and waits for it.
void prefault_stop() {
#ifdef WASMLM_THREADS
  if (toucher.joinable()) {
    stop_touching.store(true);
    toucher.join();
  }
#endif
}

// Starts touching [begin, end) on a thread; false when the build has none.
// One range at a time: a running toucher is stopped first.
bool prefault_start(double begin, double end) {
#ifdef WASMLM_THREADS
  prefault_stop();
  if (!(end > begin)) return false;
  stop_touching.store(false);
  toucher = std::thread(touch_pages, static_cast<uintptr_t>(begin), static_cast<uintptr_t>(end));
  return true;
#else
  (void)begin;
  (void)end;
  return false;
#endif
}

}  // namespace

EMSCRIPTEN_BINDINGS(wasmlm_heap_prefault) {
  emscripten::function("prefaultStart", &prefault_start);
  emscripten::function("prefaultStop", &prefault_stop);
}
