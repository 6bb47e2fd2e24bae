#include "compute/thread_pool.h"

#include <algorithm>

namespace wasmlm {

bool ThreadPool::threads_supported() {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  return false;
#else
  return true;
#endif
}

ThreadPool::ThreadPool(int n_threads) : next_(threads_supported() ? std::max(1, n_threads) : 1) {
  n_threads = static_cast<int>(next_.size());
  for (int i = 1; i < n_threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

namespace {
// Polls of an atomic before sleeping (tens of microseconds): longer than the
// serial gaps between the jobs of one forward pass.
constexpr int kSpins = 1 << 15;
}  // namespace

// Claims tasks (lock-free) from its own share, then from the others' in
// turn, until none are left.
void ThreadPool::run_tasks(int thread_index) {
  const int n = size();
  for (int k = 0; k < n; ++k) {
    const int share = (thread_index + k) % n, end = share_begin(share + 1);
    for (;;) {
      const int task = next_[share].next.fetch_add(1, std::memory_order_relaxed);
      if (task >= end) break;
      (*job_)(task, thread_index);
    }
  }
}

void ThreadPool::worker_loop(int thread_index) {
  uint64_t seen = 0;
  for (;;) {
    bool ready = false;
    for (int i = 0; i < kSpins && !ready; ++i)
      ready = generation_.load(std::memory_order_acquire) != seen || stop_.load(std::memory_order_relaxed);
    if (!ready) {
      std::unique_lock<std::mutex> lock(mutex_);
      ++sleepers_;
      wake_.wait(lock, [&] { return stop_.load() || generation_.load(std::memory_order_acquire) != seen; });
      --sleepers_;
    }
    if (stop_.load()) return;
    seen = generation_.load(std::memory_order_acquire);
    run_tasks(thread_index);
    if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (waiting_) done_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(int n_tasks, const std::function<void(int, int)>& task) {
  if (n_tasks <= 0) return;
  if (workers_.empty() || n_tasks == 1) {
    for (int i = 0; i < n_tasks; ++i) task(i, 0);
    return;
  }
  job_ = &task;
  n_tasks_ = n_tasks;
  for (int t = 0; t < size(); ++t) next_[t].next.store(share_begin(t), std::memory_order_relaxed);
  busy_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);  // publishes the job
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (sleepers_ > 0) wake_.notify_all();
  }
  run_tasks(0);
  for (int i = 0; i < kSpins; ++i)
    if (busy_.load(std::memory_order_acquire) == 0) break;
  if (busy_.load(std::memory_order_acquire) != 0) {
    std::unique_lock<std::mutex> lock(mutex_);
    waiting_ = true;
    done_.wait(lock, [&] { return busy_.load(std::memory_order_acquire) == 0; });
    waiting_ = false;
  }
  job_ = nullptr;
}

}  // namespace wasmlm
