#pragma once
// Operations: the named functions a plan runs on a rank. Every rank runs the same program, so
// an operation defined before Program::run exists under its name on every rank.

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "strata/cluster/serialization.hpp"

namespace strata::cluster {

// What a running operation reaches: its rank, its arguments, and the bytes of the chunks it
// declared, in declaration order (host memory, present and pinned for the operation). A
// late-sized chunk it reads shows its size; one it writes shows its capacity, and the
// operation sets its size with set_size().
class OperationContext {
 public:
  // Sets the size of chunk `index` (a late-sized one the operation writes); throws naming it
  // when it is not late-sized or the size exceeds its capacity.
  using SizeSetter = std::function<void(std::size_t index, std::uint64_t bytes)>;

  OperationContext(int rank, const std::string& name, const std::string& args,
                   std::vector<std::span<std::byte>> chunks, SizeSetter set_size = {})
      : rank_(rank),
        name_(name),
        args_(args),
        chunks_(std::move(chunks)),
        whole_(chunks_),
        set_size_(std::move(set_size)) {}

  int rank() const { return rank_; }
  const std::string& name() const { return name_; }
  template <class T>
  T args() const {
    return decode<T>(std::as_bytes(std::span(args_.data(), args_.size())),
                     "the arguments of an operation");
  }
  std::size_t chunk_count() const { return chunks_.size(); }
  std::span<std::byte> chunk(std::size_t index) const;
  // The chunk as elements of T (its size must be a multiple of sizeof(T)).
  template <class T>
  std::span<T> chunk_as(std::size_t index) const {
    std::span<std::byte> bytes = chunk(index);
    return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
  // The size of late-sized chunk `index`, which this operation wrote: later readers (on this
  // rank and others) see its first `bytes`; chunk(index) shows them from now on.
  void set_size(std::size_t index, std::uint64_t bytes);

 private:
  int rank_;
  const std::string& name_;
  const std::string& args_;
  std::vector<std::span<std::byte>> chunks_;
  std::vector<std::span<std::byte>> whole_;  // as declared: a written late chunk's capacity
  SizeSetter set_size_;
};

using Operation = std::function<void(OperationContext&)>;

// The operations defined by name.
class OperationTable {
 public:
  void define(std::string name, Operation operation);
  // Throws naming the operation and what is defined when `name` is not.
  const Operation& find(const std::string& name) const;
  bool contains(const std::string& name) const { return operations_.count(name) != 0; }

 private:
  std::map<std::string, Operation> operations_;
};

}  // namespace strata::cluster
