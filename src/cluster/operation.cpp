#include "strata/cluster/operation.hpp"

#include <string>

#include "strata/base/error.hpp"

namespace strata::cluster {

std::span<std::byte> OperationContext::chunk(std::size_t index) const {
  if (index >= chunks_.size()) {
    throw Error("operation '" + name_ + "' asked for chunk " + std::to_string(index) +
                " but declared " + std::to_string(chunks_.size()));
  }
  return chunks_[index];
}

void OperationContext::set_size(std::size_t index, std::uint64_t bytes) {
  (void)chunk(index);  // throws naming the operation for an index it did not declare
  if (!set_size_) {
    throw Error("operation '" + name_ + "' sets the size of chunk " + std::to_string(index) +
                ", which is not late-sized");
  }
  set_size_(index, bytes);
  chunks_[index] = whole_[index].first(static_cast<std::size_t>(bytes));
}

void OperationTable::define(std::string name, Operation operation) {
  if (name.empty()) throw Error("an operation needs a name");
  if (!operation) throw Error("operation '" + name + "' has no function");
  if (!operations_.emplace(name, std::move(operation)).second) {
    throw Error("operation '" + name + "' is defined twice");
  }
}

const Operation& OperationTable::find(const std::string& name) const {
  auto it = operations_.find(name);
  if (it != operations_.end()) return it->second;
  std::string defined;
  for (const auto& [known, operation] : operations_) {
    defined += (defined.empty() ? "" : ", ") + known;
  }
  throw Error("unknown operation '" + name +
              "' (defined: " + (defined.empty() ? std::string("none") : defined) + ")");
}

}  // namespace strata::cluster
