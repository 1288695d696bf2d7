#include "strata/cluster/termination_note.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "strata/base/error.hpp"

namespace strata::cluster {

namespace {
constexpr std::size_t max_notes = 8;
// Read by the signal handler: lock-free pointers, changed under `registry_lock` only.
std::atomic<const TerminationNote*> notes[max_notes];
std::mutex registry_lock;
}  // namespace

TerminationNote::TerminationNote() {
  std::lock_guard guard(registry_lock);
  for (auto& slot : notes) {
    if (slot.load() == nullptr) {
      slot.store(this);
      return;
    }
  }
  throw Error("more than " + std::to_string(max_notes) + " termination notes at once");
}

TerminationNote::~TerminationNote() {
  std::lock_guard guard(registry_lock);
  for (auto& slot : notes) {
    if (slot.load() == this) slot.store(nullptr);
  }
}

void TerminationNote::set(std::string_view text) {
  const int hidden = 1 - shown_.load();
  const std::size_t length = std::min(text.size(), capacity - 1);
  std::memcpy(text_[hidden], text.data(), length);
  text_[hidden][length] = '\n';
  length_[hidden] = length + 1;
  shown_.store(hidden);
}

void TerminationNote::write_to(int fd) const noexcept {
  const int shown = shown_.load();
  std::size_t done = 0;
  while (done < length_[shown]) {
    const ssize_t wrote = ::write(fd, text_[shown] + done, length_[shown] - done);
    if (wrote <= 0) return;
    done += static_cast<std::size_t>(wrote);
  }
}

void write_termination_notes(int fd) noexcept {
  for (const auto& slot : notes) {
    if (const TerminationNote* note = slot.load()) note->write_to(fd);
  }
}

}  // namespace strata::cluster
