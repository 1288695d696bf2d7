#include <mutex>
#include <string>

#include "strata/base/error.hpp"
#include "strata/dataset/record_function.hpp"

namespace strata::dataset {

FunctionTable& FunctionTable::instance() {
  static FunctionTable table;
  return table;
}

void FunctionTable::add(RecordFunction function) {
  std::lock_guard guard(lock_);
  const auto it = functions_.find(function.name);
  if (it != functions_.end() && it->second.signature != function.signature) {
    throw Error("data-set function '" + function.name + "' is registered twice: as " +
                it->second.signature + " and as " + function.signature);
  }
  std::string name = function.name;
  functions_.insert_or_assign(std::move(name), std::move(function));
}

const RecordFunction& FunctionTable::find(const std::string& name,
                                          const std::string& expected) const {
  std::lock_guard guard(lock_);
  const auto it = functions_.find(name);
  if (it == functions_.end()) {
    std::string known;
    for (const auto& [known_name, f] : functions_)
      known += (known.empty() ? "" : ", ") + known_name;
    throw Error("no data-set function '" + name + "' is registered in this process (known: " +
                (known.empty() ? "none" : known) + ")");
  }
  if (!expected.empty() && it->second.signature != expected) {
    throw Error("data-set function '" + name + "' is a " + it->second.signature + ", not a " +
                expected);
  }
  return it->second;
}

std::string record_name(std::uint32_t bytes, bool integral, bool is_signed) {
  if (integral) return std::string(is_signed ? "i" : "u") + std::to_string(8 * bytes);
  return std::to_string(bytes) + "-byte record";
}

}  // namespace strata::dataset
