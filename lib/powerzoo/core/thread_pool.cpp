// ThreadPool implementation over boost::asio::thread_pool.
#include "powerzoo/core/thread_pool.hpp"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace pz::core {

namespace {

/// One run_blocks call: its blocks are claimed from `next`; the caller waits for `done`.
struct Batch {
  const std::function<void(std::size_t)>* fn = nullptr;
  std::size_t n = 0;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::mutex mu;  // first_error
  std::exception_ptr first_error;
  void work() {
    for (;;) {
      const std::size_t b = next.fetch_add(1, std::memory_order_relaxed);
      if (b >= n) return;
      try {
        (*fn)(b);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!first_error) first_error = std::current_exception();
      }
      done.fetch_add(1, std::memory_order_release);
    }
  }
};

inline void cpu_relax() { __builtin_ia32_pause(); }

/// How long an idle worker (and a caller waiting for the last blocks) spins before it sleeps.
/// Batches of the learner update and of env stepping follow each other within tens of µs; a
/// worker woken through the kernel arrives 10–50 µs late on a VM, by which time the caller has
/// taken every block of a short batch itself.
constexpr auto kSpin = std::chrono::microseconds(300);

}  // namespace

// Workers are long-lived loops on the Boost.Asio pool's threads: each waits for a new batch
// (spinning for kSpin, then on a condition variable), claims blocks from it until none is left,
// and waits again. Batches are published under `mu` with a new epoch.
struct ThreadPool::Impl {
  explicit Impl(std::size_t n_workers) : pool(n_workers) {
    for (std::size_t w = 0; w < n_workers; ++w) boost::asio::post(pool, [this] { worker(); });
  }
  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
      epoch.fetch_add(1, std::memory_order_release);
    }
    cv.notify_all();
    pool.join();
  }
  void worker() {
    uint64_t seen = 0;
    for (;;) {
      if (!wait_for_epoch(seen)) return;
      std::shared_ptr<Batch> b;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (stop) return;
        b = current;
        seen = epoch.load(std::memory_order_relaxed);
      }
      if (b) b->work();
    }
  }
  /// Returns false on stop.
  bool wait_for_epoch(uint64_t seen) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int i = 0;; ++i) {
      if (epoch.load(std::memory_order_acquire) != seen) return true;
      cpu_relax();
      if ((i & 255) == 255) {
        if (std::chrono::steady_clock::now() > until) break;
        std::this_thread::yield();  // more threads than cores: let the working ones run
      }
    }
    std::unique_lock<std::mutex> lock(mu);
    ++sleepers;
    cv.wait(lock, [&] { return stop || epoch.load(std::memory_order_relaxed) != seen; });
    --sleepers;
    return !stop;
  }
  void publish(std::shared_ptr<Batch> b) {
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      current = std::move(b);
      epoch.fetch_add(1, std::memory_order_release);
      wake = sleepers > 0;
    }
    if (wake) cv.notify_all();
  }

  boost::asio::thread_pool pool;
  std::mutex mu;
  std::condition_variable cv;
  std::shared_ptr<Batch> current;  // the newest batch (workers co-own it while they work on it)
  std::atomic<uint64_t> epoch{0};
  int sleepers = 0;
  bool stop = false;
};

ThreadPool::ThreadPool(std::size_t n_threads) {
  if (n_threads == 0) n_threads = std::max(1u, std::thread::hardware_concurrency());
  n_threads_ = n_threads;
  if (n_threads_ > 1) impl_ = std::make_unique<Impl>(n_threads_ - 1);
}

ThreadPool::~ThreadPool() = default;

// The caller runs blocks too: it and the workers take block indices from one atomic counter
// until none is left, and the caller returns once every block has finished. A worker that
// arrives late finds no block and only touches the batch, which it co-owns.
void ThreadPool::run_blocks(std::size_t n_blocks, const std::function<void(std::size_t)>& fn) {
  if (!impl_ || n_blocks <= 1) {
    for (std::size_t b = 0; b < n_blocks; ++b) fn(b);
    return;
  }
  auto batch = std::make_shared<Batch>();
  batch->fn = &fn;
  batch->n = n_blocks;
  impl_->publish(batch);
  batch->work();
  // Wait for the blocks still running on workers: spin, yielding (they are short).
  for (int i = 0; batch->done.load(std::memory_order_acquire) != n_blocks; ++i) {
    cpu_relax();
    if ((i & 63) == 63) std::this_thread::yield();
  }
  if (batch->first_error) std::rethrow_exception(batch->first_error);
}

void limit_blas_threads(int n) { openblas_set_num_threads(n); }

const char* blas_kernel_name() { return openblas_get_corename(); }

void select_blas_kernel(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") || std::getenv("POWERZOO_KEEP_BLAS_KERNEL")) return;
  if (std::strcmp(openblas_get_corename(), "Prescott") != 0) return;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return;
  setenv("OPENBLAS_CORETYPE", "Haswell", 1);
  setenv("POWERZOO_KEEP_BLAS_KERNEL", "1", 1);  // never loop
  execv("/proc/self/exe", argv);                // on failure keep running with the slow kernel
}

}  // namespace pz::core
