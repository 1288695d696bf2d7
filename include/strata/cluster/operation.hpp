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
// declared, in declaration order (host memory, present and pinned for the operation).
class OperationContext {
 public:
  OperationContext(int rank, const std::string& name, const std::string& args,
                   std::vector<std::span<std::byte>> chunks)
      : rank_(rank), name_(name), args_(args), chunks_(std::move(chunks)) {}

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

 private:
  int rank_;
  const std::string& name_;
  const std::string& args_;
  std::vector<std::span<std::byte>> chunks_;
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
