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

ThreadPool::ThreadPool(int n_threads) {
  n_threads = threads_supported() ? std::max(1, n_threads) : 1;
  for (int i = 1; i < n_threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

// Claims tasks until none are left. Tasks are handed out under the mutex:
// a job has tens to hundreds of tasks, so the lock is cheap next to them.
void ThreadPool::run_tasks(int thread_index) {
  for (;;) {
    int task;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (next_task_ >= n_tasks_) return;
      task = next_task_++;
    }
    (*job_)(task, thread_index);
  }
}

void ThreadPool::worker_loop(int thread_index) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    run_tasks(thread_index);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(int n_tasks, const std::function<void(int, int)>& task) {
  if (n_tasks <= 0) return;
  if (workers_.empty() || n_tasks == 1) {
    for (int i = 0; i < n_tasks; ++i) task(i, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &task;
    n_tasks_ = n_tasks;
    next_task_ = 0;
    busy_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  run_tasks(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return busy_ == 0; });
  job_ = nullptr;
}

}  // namespace wasmlm
