#pragma once
// Recycler<T>: a process-wide free list of T objects, so that hot records (task states) are reused
// with their buffers instead of allocated and freed per use.

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace strata::runtime::detail {

// Each thread keeps a small cache of free objects; a cache that overflows hands a batch of
// `Batch` objects to a shared, mutex-guarded shelf, and an empty cache takes a batch from it. So
// objects freed on one thread (workers) flow back to the thread that allocates (the submitter)
// with one lock per batch. Objects are handed out as they were given back: the caller resets
// them. At most `MaxBatches` batches wait on the shelf; further objects are deleted. Objects are
// never freed at exit: the shelf outlives every thread, and what it holds stays reachable.
template <class T, std::size_t Batch = 256, std::size_t MaxBatches = 64>
class Recycler {
 public:
  // A previously given object, or nullptr when none is free.
  static T* take() {
    if (cache_gone) return nullptr;
    Cache& cache = local();
    if (cache.items.empty() && !shelf().take(cache.items)) return nullptr;
    T* object = cache.items.back();
    cache.items.pop_back();
    return object;
  }

  // Gives `object` back for reuse by any thread.
  static void give(T* object) {
    if (cache_gone) {
      delete object;
      return;
    }
    Cache& cache = local();
    cache.items.push_back(object);
    if (cache.items.size() >= 2 * Batch) {
      std::vector<T*> batch(cache.items.end() - Batch, cache.items.end());
      cache.items.resize(cache.items.size() - Batch);
      shelf().put(std::move(batch));
    }
  }

  // Objects currently waiting on the shared shelf (for tests).
  static std::size_t shelved() { return shelf().size(); }

 private:
  struct Shelf {
    std::mutex lock;
    std::vector<std::vector<T*>> batches;

    bool take(std::vector<T*>& into) {
      std::vector<T*> batch;
      {
        std::lock_guard guard(lock);
        if (batches.empty()) return false;
        batch = std::move(batches.back());
        batches.pop_back();
      }
      into.swap(batch);
      return true;
    }
    void put(std::vector<T*>&& batch) {
      {
        std::lock_guard guard(lock);
        if (batches.size() < MaxBatches) {
          batches.push_back(std::move(batch));
          return;
        }
      }
      for (T* object : batch)
        delete object;
    }
    std::size_t size() {
      std::lock_guard guard(lock);
      std::size_t objects = 0;
      for (const auto& batch : batches)
        objects += batch.size();
      return objects;
    }
  };

  // A thread's cache; a thread that ends puts what it holds on the shelf.
  struct Cache {
    std::vector<T*> items;
    Cache() { items.reserve(2 * Batch); }
    ~Cache() {
      cache_gone = true;
      if (!items.empty()) shelf().put(std::move(items));
    }
    Cache(const Cache&) = delete;
    Cache& operator=(const Cache&) = delete;
  };

  // Set once this thread's cache was destroyed (thread exit), after which objects bypass it.
  static inline thread_local bool cache_gone = false;

  static Shelf& shelf() {
    static Shelf* const instance = new Shelf;  // never destroyed: threads may outlive statics
    return *instance;
  }
  static Cache& local() {
    thread_local Cache cache;
    return cache;
  }
};

}  // namespace strata::runtime::detail
