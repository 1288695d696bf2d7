#pragma once
// AdaptiveMutex: a mutex for short critical sections that several threads take at a high rate
// (the memory manager's state, the staging tables): a waiter spins briefly before it sleeps, so
// a lock held for a few hundred nanoseconds rarely costs a sleep and a wake-up.

#include <pthread.h>

#include <mutex>

namespace strata {

#if defined(__GLIBC__)
// glibc's adaptive mutex: spins (bounded, learned from recent waits) before the futex wait.
class AdaptiveMutex {
 public:
  AdaptiveMutex() {
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&mutex_, &attributes);
    pthread_mutexattr_destroy(&attributes);
  }
  ~AdaptiveMutex() { pthread_mutex_destroy(&mutex_); }
  AdaptiveMutex(const AdaptiveMutex&) = delete;
  AdaptiveMutex& operator=(const AdaptiveMutex&) = delete;

  void lock() { pthread_mutex_lock(&mutex_); }
  bool try_lock() { return pthread_mutex_trylock(&mutex_) == 0; }
  void unlock() { pthread_mutex_unlock(&mutex_); }

 private:
  pthread_mutex_t mutex_;
};
#else
using AdaptiveMutex = std::mutex;
#endif

}  // namespace strata
