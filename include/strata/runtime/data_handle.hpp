#pragma once
// DataHandle: the identity of a piece of data that tasks declare accesses on.

#include <cstdint>
#include <memory>
#include <string>

namespace strata::runtime {

namespace detail {
struct DataState;
class RuntimeCore;
}  // namespace detail

// How a task touches a piece of data. Conflicting accesses (anything but read/read and
// reduce/reduce) are ordered in submission order; reduce accesses to the same data run in any
// order but never at the same time (their operation must be commutative).
enum class Access : std::uint8_t { read, write, read_write, reduce };

const char* to_string(Access access);

// A registered piece of data; ChunkStaging may back it by a memory chunk. Copies share identity.
class DataHandle {
 public:
  DataHandle() = default;
  const std::string& name() const;
  std::uint64_t bytes() const;
  std::uint64_t id() const { return id_; }
  explicit operator bool() const { return state_ != nullptr; }

 private:
  friend class Runtime;
  friend class detail::RuntimeCore;
  explicit DataHandle(std::shared_ptr<detail::DataState> state);
  std::shared_ptr<detail::DataState> state_;
  std::uint64_t id_ = 0;  // the state's, kept here: lookups by id need no trip to the state
};

}  // namespace strata::runtime
