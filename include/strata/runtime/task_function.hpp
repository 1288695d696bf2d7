#pragma once
// TaskFunction: a move-only callable that stores small captures inline (no heap allocation).

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace strata::runtime {

class TaskContext;

// The body of a task. Accepts callables taking `TaskContext&` or nothing. Captures up to
// `inline_bytes` are stored in place; larger ones are moved to the heap once.
class TaskFunction {
 public:
  static constexpr std::size_t inline_bytes = 48;

  TaskFunction() = default;

  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, TaskFunction>>>
  TaskFunction(F&& function) {  // NOLINT(google-explicit-constructor): callables convert
    static_assert(std::is_invocable_v<D&, TaskContext&> || std::is_invocable_v<D&>,
                  "a task body takes (TaskContext&) or no arguments");
    if constexpr (sizeof(D) <= inline_bytes && alignof(D) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<D>) {
      new (storage_) D(std::forward<F>(function));
      ops_ = &inline_ops<D>;
    } else {
      *reinterpret_cast<D**>(storage_) = new D(std::forward<F>(function));
      ops_ = &heap_ops<D>;
    }
  }

  TaskFunction(TaskFunction&& other) noexcept : ops_(other.ops_) {
    if (ops_ != nullptr) ops_->move(other.storage_, storage_);
    other.ops_ = nullptr;
  }
  TaskFunction& operator=(TaskFunction&& other) noexcept {
    if (this != &other) {
      reset();
      ops_ = other.ops_;
      if (ops_ != nullptr) ops_->move(other.storage_, storage_);
      other.ops_ = nullptr;
    }
    return *this;
  }
  TaskFunction(const TaskFunction&) = delete;
  TaskFunction& operator=(const TaskFunction&) = delete;
  ~TaskFunction() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()(TaskContext& context) { ops_->call(storage_, context); }
  void reset() {
    if (ops_ != nullptr) ops_->destroy(storage_);
    ops_ = nullptr;
  }

 private:
  struct Ops {
    void (*call)(void*, TaskContext&);
    void (*move)(void* from, void* to);
    void (*destroy)(void*);
  };

  template <class D>
  static void invoke(D& function, TaskContext& context) {
    if constexpr (std::is_invocable_v<D&, TaskContext&>) {
      function(context);
    } else {
      function();
    }
  }

  template <class D>
  static constexpr Ops inline_ops{
      [](void* self, TaskContext& context) { invoke(*static_cast<D*>(self), context); },
      [](void* from, void* to) {
        new (to) D(std::move(*static_cast<D*>(from)));
        static_cast<D*>(from)->~D();
      },
      [](void* self) { static_cast<D*>(self)->~D(); }};

  template <class D>
  static constexpr Ops heap_ops{
      [](void* self, TaskContext& context) { invoke(**static_cast<D**>(self), context); },
      [](void* from, void* to) { *static_cast<D**>(to) = *static_cast<D**>(from); },
      [](void* self) { delete *static_cast<D**>(self); }};

  alignas(std::max_align_t) std::byte storage_[inline_bytes];
  const Ops* ops_ = nullptr;
};

}  // namespace strata::runtime
