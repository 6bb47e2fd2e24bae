// A fixed pool of worker threads for data-parallel loops.
//
// Workers are created once; between jobs they spin briefly (a decoding step
// runs ~100 short jobs back to back, and waking a sleeping thread costs tens
// of microseconds in wasm), then sleep on a condition variable (no
// busy-waiting while idle). The calling thread takes part in each job.
// Each thread works through its own contiguous share of a job's tasks first
// (neighbouring tasks are neighbouring weight rows, which the hardware
// prefetcher streams), then helps with the others' shares.
// In a wasm build without pthreads the pool has one thread and runs inline.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wasmlm {

class ThreadPool {
 public:
  // `n_threads` counts the caller; clamped to what the build supports.
  explicit ThreadPool(int n_threads = 1);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(next_.size()); }
  static bool threads_supported();

  // Runs task(i, thread_index) for every i in [0, n_tasks), spread over the
  // threads; returns when all are done. Not re-entrant.
  void parallel_for(int n_tasks, const std::function<void(int task, int thread)>& task);

 private:
  void worker_loop(int thread_index);
  void run_tasks(int thread_index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int, int)>* job_ = nullptr;  // published by generation_
  int n_tasks_ = 0;
  // Thread t's share is tasks [share_begin(t), share_begin(t + 1)); next_[t]
  // is its next unclaimed task (each on its own cache line).
  struct alignas(64) Cursor {
    std::atomic<int> next{0};
  };
  std::vector<Cursor> next_;
  int share_begin(int t) const { return static_cast<int>(int64_t(n_tasks_) * t / size()); }
  std::atomic<int> busy_{0};  // workers still inside the current job
  std::atomic<uint64_t> generation_{0};
  int sleepers_ = 0;    // workers waiting on wake_; guarded by mutex_
  bool waiting_ = false;  // the caller waits on done_; guarded by mutex_
  std::atomic<bool> stop_{false};
};

}  // namespace wasmlm
