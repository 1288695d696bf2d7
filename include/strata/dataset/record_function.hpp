#pragma once
// User functions over records (the dandelion paper's lambdas of Select, Where, GroupBy and
// Aggregate), registered by name in the process when constructed. Every rank runs the same
// program, so a function constructed at namespace scope (or before Program::run on every rank)
// exists under its name everywhere, and plans name it to run it where the blocks live. A
// function may read a context: the records of a small data set (k-means' centers) that every
// rank running it receives.

#include <concepts>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "strata/base/error.hpp"

namespace strata::dataset {

// Records are plain values copied as bytes: numbers, fixed arrays, plain structs.
template <typename T>
concept Record = std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>;

// Keys of group_by are integers (up to 64 bits), grouped by value.
template <typename K>
concept Key = std::integral<K> && sizeof(K) <= 8;

// Keys of order_by: integers, or fixed arrays of bytes (compared as unsigned bytes, as memcmp and
// `LC_ALL=C sort` do).
template <typename K>
concept OrderKey = Key<K> ||(std::is_trivially_copyable_v<K>&& requires(K k) {
  { k[0] } -> std::convertible_to<unsigned char>;
  requires sizeof(k[0]) == 1;
  requires sizeof(K) == std::tuple_size<K>::value;
});

// Writes each of `results` (records of K) as bytes whose memcmp order is K's order.
template <typename K>
void order_bytes(std::span<const std::byte> results, std::span<std::byte> order) {
  if constexpr (Key<K>) {
    using U = std::make_unsigned_t<K>;
    for (std::size_t i = 0; i < results.size() / sizeof(K); ++i) {
      K key;
      std::memcpy(&key, results.data() + i * sizeof(K), sizeof(K));
      U bits = static_cast<U>(key);
      if constexpr (std::is_signed_v<K>) bits ^= U{1} << (8 * sizeof(K) - 1);
      for (std::size_t b = 0; b < sizeof(K); ++b)
        order[i * sizeof(K) + b] = static_cast<std::byte>(bits >> (8 * (sizeof(K) - 1 - b)));
    }
  } else {
    std::memcpy(order.data(), results.data(), results.size());
  }
}

// The context's record type, or bytes for a function without one.
template <typename C>
using Context_or_byte = std::conditional_t<std::is_void_v<C>, std::byte, C>;

namespace detail {
// Calls f(i, record) for each record of T in `bytes`: in place where the bytes are aligned for
// T (a block's chunk always is), else through a copy.
template <typename T, typename F>
void for_each_record(std::span<const std::byte> bytes, F&& f) {
  const std::size_t n = bytes.size() / sizeof(T);
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % alignof(T) == 0) {
    const T* records = std::launder(reinterpret_cast<const T*>(bytes.data()));
    for (std::size_t i = 0; i < n; ++i)
      f(i, records[i]);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    T record;
    std::memcpy(&record, bytes.data() + i * sizeof(T), sizeof(T));
    f(i, record);
  }
}

// A function's context records in `bytes` (none for a function without a context).
template <typename C>
std::span<const Context_or_byte<C>> context_of(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const Context_or_byte<C>*>(bytes.data()),
          bytes.size() / sizeof(Context_or_byte<C>)};
}

// body(record), or body(record, context) for a function with a context.
template <typename C, typename F, typename R>
decltype(auto) invoke_with(const F& body, const R& record,
                           std::span<const Context_or_byte<C>> context) {
  if constexpr (std::is_void_v<C>) {
    return body(record);
  } else {
    return body(record, context);
  }
}
}  // namespace detail

// The type-erased form of a registered function, as the operations on the ranks call it: one
// call per block, never per record.
struct RecordFunction {
  enum class Kind : std::uint8_t { select, where, combine, select_many };
  Kind kind = Kind::select;
  std::string name;
  std::string signature;            // "select Point -> u32", for errors
  std::uint32_t in_bytes = 0;       // record bytes read (combine: the accumulated type)
  std::uint32_t out_bytes = 0;      // select: bytes of each result
  std::uint32_t context_bytes = 0;  // 0: no context
  std::uint32_t expands = 1;        // select_many: the most results of one record
  // select: out[i] = f(in[i]) for in.size() / in_bytes records; returns the count. where: the
  // records kept, in order, at the start of `out`; returns how many. select_many: the results
  // of every record, in order, at the start of `out`; returns how many.
  std::function<std::uint64_t(std::span<const std::byte> in, std::span<std::byte> out,
                              std::span<const std::byte> context)>
      block;
  // A select whose results are integers: the results widened to u64 (the grouping's keys).
  std::function<void(std::span<const std::byte> results, std::span<std::uint64_t> keys)> widen;
  // A select whose results order (integers, or arrays of bytes): each result as out_bytes bytes
  // whose memcmp order is the results' order (integers big-endian, signed ones offset).
  std::function<void(std::span<const std::byte> results, std::span<std::byte> order)> order;
  // combine: accs[group_of[i]] = combine(accs[group_of[i]], values[i]) for every i whose
  // group_of[i] is not `skip` (a group's first value, copied into its accumulator instead).
  static constexpr std::uint32_t skip = 0xffffffffu;
  std::function<void(std::byte* accs, std::span<const std::uint32_t> group_of,
                     std::span<const std::byte> values)>
      scatter;
};

// The process's functions by name.
class FunctionTable {
 public:
  static FunctionTable& instance();
  // Throws when another function of that name with another signature is registered; the same
  // name and signature registered again (a second program in one process) replaces it: register
  // before operations run.
  void add(RecordFunction function);
  // Throws naming the function, and `expected` (a signature) when given and different.
  const RecordFunction& find(const std::string& name, const std::string& expected = {}) const;

 private:
  FunctionTable() = default;
  mutable std::mutex lock_;
  std::map<std::string, RecordFunction> functions_;  // stable references for find()
};

// The name of a record type in signatures: its size (types have no names in C++ at run time).
std::string record_name(std::uint32_t bytes, bool integral = false, bool is_signed = false);
template <typename T>
std::string record_name() {
  return record_name(sizeof(T), std::is_integral_v<T>, std::is_signed_v<T>);
}

// Select: Out f(const In&) or, with a context of records C, Out f(const In&, std::span<const C>).
template <Record In, Record Out, typename Context = void>
class Select {
 public:
  using Body = std::conditional_t<std::is_void_v<Context>, std::function<Out(const In&)>,
                                  std::function<Out(const In&, std::span<const Context>)>>;
  using input_type = In;
  using output_type = Out;
  using context_type = Context;

  template <typename F>
  requires std::is_convertible_v<F, Body> Select(std::string name, F body)
      : name_(std::move(name)) {
    RecordFunction function;
    function.kind = RecordFunction::Kind::select;
    function.name = name_;
    function.signature = signature();
    function.in_bytes = sizeof(In);
    function.out_bytes = sizeof(Out);
    if constexpr (!std::is_void_v<Context>) function.context_bytes = sizeof(Context);
    function.block = [body](std::span<const std::byte> in, std::span<std::byte> out,
                            std::span<const std::byte> context_bytes) -> std::uint64_t {
      const auto context = detail::context_of<Context>(context_bytes);
      detail::for_each_record<In>(in, [&](std::size_t i, const In& record) {
        const Out result = detail::invoke_with<Context>(body, record, context);
        std::memcpy(out.data() + i * sizeof(Out), &result, sizeof(Out));
      });
      return in.size() / sizeof(In);
    };
    if constexpr (Key<Out>) {
      function.widen = [](std::span<const std::byte> results, std::span<std::uint64_t> keys) {
        for (std::size_t i = 0; i < keys.size(); ++i) {
          Out key;
          std::memcpy(&key, results.data() + i * sizeof(Out), sizeof(Out));
          keys[i] = static_cast<std::uint64_t>(key);
        }
      };
    }
    if constexpr (OrderKey<Out>) function.order = order_bytes<Out>;
    FunctionTable::instance().add(std::move(function));
  }
  const std::string& name() const { return name_; }
  static std::string signature() {
    std::string s = "select " + record_name<In>() + " -> " + record_name<Out>();
    if constexpr (!std::is_void_v<Context>) s += " with context " + record_name<Context>();
    return s;
  }

 private:
  std::string name_;
};

// Where: bool f(const In&) or bool f(const In&, std::span<const C>).
template <Record In, typename Context = void>
class Where {
 public:
  using Body = std::conditional_t<std::is_void_v<Context>, std::function<bool(const In&)>,
                                  std::function<bool(const In&, std::span<const Context>)>>;
  using input_type = In;
  using context_type = Context;

  template <typename F>
  requires std::is_convertible_v<F, Body> Where(std::string name, F body) : name_(std::move(name)) {
    RecordFunction function;
    function.kind = RecordFunction::Kind::where;
    function.name = name_;
    function.signature = signature();
    function.in_bytes = sizeof(In);
    function.out_bytes = sizeof(In);
    if constexpr (!std::is_void_v<Context>) function.context_bytes = sizeof(Context);
    function.block = [body](std::span<const std::byte> in, std::span<std::byte> out,
                            std::span<const std::byte> context_bytes) -> std::uint64_t {
      const auto context = detail::context_of<Context>(context_bytes);
      std::uint64_t kept = 0;
      detail::for_each_record<In>(in, [&](std::size_t, const In& record) {
        if (detail::invoke_with<Context>(body, record, context))
          std::memcpy(out.data() + kept++ * sizeof(In), &record, sizeof(In));
      });
      return kept;
    };
    FunctionTable::instance().add(std::move(function));
  }
  const std::string& name() const { return name_; }
  static std::string signature() {
    std::string s = "where " + record_name<In>();
    if constexpr (!std::is_void_v<Context>) s += " with context " + record_name<Context>();
    return s;
  }

 private:
  std::string name_;
};

// SelectMany: std::size_t f(const In&, std::span<Out> out) (or with a context of records C,
// f(const In&, std::span<Out>, std::span<const C>)) writes up to `most` results of a record into
// `out` and returns how many it wrote.
template <Record In, Record Out, typename Context = void>
class SelectMany {
 public:
  using Body = std::conditional_t<
      std::is_void_v<Context>, std::function<std::size_t(const In&, std::span<Out>)>,
      std::function<std::size_t(const In&, std::span<Out>, std::span<const Context>)>>;
  using input_type = In;
  using output_type = Out;
  using context_type = Context;

  template <typename F>
  requires std::is_convertible_v<F, Body> SelectMany(std::string name, std::uint32_t most, F body)
      : name_(std::move(name)) {
    if (most == 0) throw Error("select_many '" + name_ + "': at most 0 results a record");
    RecordFunction function;
    function.kind = RecordFunction::Kind::select_many;
    function.name = name_;
    function.signature = signature();
    function.in_bytes = sizeof(In);
    function.out_bytes = sizeof(Out);
    function.expands = most;
    if constexpr (!std::is_void_v<Context>) function.context_bytes = sizeof(Context);
    function.block = [body, most, name = name_](std::span<const std::byte> in,
                                                std::span<std::byte> out,
                                                std::span<const std::byte> context_bytes) {
      const auto context = detail::context_of<Context>(context_bytes);
      std::vector<Out> results(most);
      std::uint64_t written = 0;
      detail::for_each_record<In>(in, [&](std::size_t, const In& record) {
        std::size_t n = 0;
        if constexpr (std::is_void_v<Context>) {
          n = body(record, std::span<Out>(results));
        } else {
          n = body(record, std::span<Out>(results), context);
        }
        if (n > most) {
          throw Error("select_many '" + name + "' returned " + std::to_string(n) +
                      " results of one record, more than its most, " + std::to_string(most));
        }
        std::memcpy(out.data() + written * sizeof(Out), results.data(), n * sizeof(Out));
        written += n;
      });
      return written;
    };
    FunctionTable::instance().add(std::move(function));
  }
  const std::string& name() const { return name_; }
  static std::string signature() {
    std::string s = "select_many " + record_name<In>() + " -> " + record_name<Out>();
    if constexpr (!std::is_void_v<Context>) s += " with context " + record_name<Context>();
    return s;
  }

 private:
  std::string name_;
};

// Combine: A f(const A&, const A&), associative and commutative (an aggregate's step: the
// partial results of blocks, partitions and ranks are combined in any order).
template <Record A>
class Combine {
 public:
  using Body = std::function<A(const A&, const A&)>;
  using value_type = A;

  template <typename F>
  requires std::is_convertible_v<F, Body> Combine(std::string name, F body)
      : name_(std::move(name)) {
    RecordFunction function;
    function.kind = RecordFunction::Kind::combine;
    function.name = name_;
    function.signature = signature();
    function.in_bytes = sizeof(A);
    function.out_bytes = sizeof(A);
    function.scatter = [body](std::byte* accs, std::span<const std::uint32_t> group_of,
                              std::span<const std::byte> values) {
      detail::for_each_record<A>(values, [&](std::size_t i, const A& next) {
        if (group_of[i] == RecordFunction::skip) return;
        std::byte* into = accs + std::size_t{group_of[i]} * sizeof(A);
        A acc;
        std::memcpy(&acc, into, sizeof(A));
        acc = body(acc, next);
        std::memcpy(into, &acc, sizeof(A));
      });
    };
    FunctionTable::instance().add(std::move(function));
  }
  const std::string& name() const { return name_; }
  static std::string signature() { return "combine " + record_name<A>(); }

 private:
  std::string name_;
};

}  // namespace strata::dataset
