// ThreadPool: fixed set of workers (Boost.Asio thread_pool) running statically split blocks.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace pz::core {

/// Runs `fn(block)` for block = 0..n_blocks-1 and waits for all; the calling thread runs blocks
/// too, with at most size() threads at work. Blocks are fixed by the caller, so which thread runs
/// a block never changes results. Exceptions thrown by a block are captured and the first one is
/// rethrown on the calling thread after all blocks finished.
class ThreadPool {
 public:
  /// n_threads = 0 means one per hardware core. n_threads = 1 runs everything inline.
  explicit ThreadPool(std::size_t n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  std::size_t size() const { return n_threads_; }
  void run_blocks(std::size_t n_blocks, const std::function<void(std::size_t)>& fn);

 private:
  struct Impl;
  std::size_t n_threads_;
  std::unique_ptr<Impl> impl_;
};

/// Caps OpenBLAS's own threads (our pool provides the parallelism). Called once at start-up.
void limit_blas_threads(int n);

/// OpenBLAS 0.3.21 picks its kernel when the library loads, and on CPUs it does not recognize
/// (e.g. virtualized Xeons reporting a generic model) it falls back to the SSE3 "Prescott" GEMM,
/// about 2x slower than the AVX2 one. If that happened, OPENBLAS_CORETYPE is unset, the CPU has
/// AVX2 and FMA, and POWERZOO_KEEP_BLAS_KERNEL is unset, this re-executes the program with
/// OPENBLAS_CORETYPE=Haswell (an explicit user or site setting always wins). Returns only if no
/// re-exec happened.
void select_blas_kernel(char** argv);

/// Name of the OpenBLAS kernel in use (e.g. "Haswell").
const char* blas_kernel_name();

}  // namespace pz::core
