// ThreadPool implementation over boost::asio::thread_pool.
#include "powerzoo/core/thread_pool.hpp"

#include <cblas.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
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

void ThreadPool::run_blocks(std::size_t n_blocks, const std::function<void(std::size_t)>& fn) {
  if (!impl_ || n_blocks <= 1) {
    for (std::size_t b = 0; b < n_blocks; ++b) fn(b);
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  std::size_t remaining = n_blocks;
  std::exception_ptr first_error;
  for (std::size_t b = 0; b < n_blocks; ++b) {
    boost::asio::post(impl_->pool, [&, b] {
      std::exception_ptr err;
      try {
        fn(b);
      } catch (...) {
        err = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mu);
      if (err && !first_error) first_error = err;
      if (--remaining == 0) cv.notify_one();
    });
  }
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return remaining == 0; });
  if (first_error) std::rethrow_exception(first_error);
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
