// ThreadPool implementation over boost::asio::thread_pool.
#include "powerzoo/core/thread_pool.hpp"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace pz::core {

struct ThreadPool::Impl {
  explicit Impl(std::size_t n) : pool(n) {}
  boost::asio::thread_pool pool;
};

ThreadPool::ThreadPool(std::size_t n_threads) {
  if (n_threads == 0) n_threads = std::max(1u, std::thread::hardware_concurrency());
  n_threads_ = n_threads;
  if (n_threads_ > 1) impl_ = std::make_unique<Impl>(n_threads_);
}

ThreadPool::~ThreadPool() {
  if (impl_) impl_->pool.join();
}

// The caller runs blocks too: it and min(n_threads, n_blocks) − 1 posted helpers take block
// indices from one atomic counter until none is left, and the caller returns once every block
// has finished. A helper that starts late finds no block and only touches the shared state, which
// it co-owns, so the caller never waits for a thread that has nothing to do.
void ThreadPool::run_blocks(std::size_t n_blocks, const std::function<void(std::size_t)>& fn) {
  if (!impl_ || n_blocks <= 1) {
    for (std::size_t b = 0; b < n_blocks; ++b) fn(b);
    return;
  }
  struct Shared {
    std::atomic<std::size_t> next{0};
    std::mutex mu;
    std::condition_variable cv;
    std::size_t done = 0;
    std::exception_ptr first_error;
  };
  auto sh = std::make_shared<Shared>();
  const std::function<void(std::size_t)>* f = &fn;
  auto work = [sh, f, n_blocks] {
    for (;;) {
      const std::size_t b = sh->next.fetch_add(1);
      if (b >= n_blocks) return;
      std::exception_ptr err;
      try {
        (*f)(b);
      } catch (...) {
        err = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(sh->mu);
      if (err && !sh->first_error) sh->first_error = err;
      if (++sh->done == n_blocks) sh->cv.notify_one();
    }
  };
  const std::size_t helpers = std::min(n_threads_, n_blocks) - 1;
  for (std::size_t h = 0; h < helpers; ++h) boost::asio::post(impl_->pool, work);
  work();
  std::unique_lock<std::mutex> lock(sh->mu);
  sh->cv.wait(lock, [&] { return sh->done == n_blocks; });
  if (sh->first_error) std::rethrow_exception(sh->first_error);
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
