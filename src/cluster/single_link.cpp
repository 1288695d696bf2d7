// The link of a process started without an MPI launcher: a cluster of one. The network thread
// delivers messages to its own rank without it, so it never carries a message.

#include "single_link.hpp"

#include <cstdlib>
#include <stdexcept>

#include "link.hpp"

namespace strata::cluster::detail {

namespace {
[[noreturn]] void no_peer() {
  throw std::logic_error("a cluster of one has no peer to talk to");
}
}  // namespace

int SingleLink::rank() const {
  return 0;
}
int SingleLink::size() const {
  return 1;
}
int SingleLink::max_tag() const {
  return 0;
}
std::uint64_t SingleLink::send(Channel, int, int, const std::byte*, std::size_t) {
  no_peer();
}
std::uint64_t SingleLink::receive(Channel, int, int, std::byte*, std::size_t) {
  no_peer();
}
bool SingleLink::poll(std::vector<std::uint64_t>&) {
  return false;
}
std::optional<Arrival> SingleLink::probe() {
  return std::nullopt;
}
void SingleLink::receive_control(const Arrival&, std::byte*) {
  no_peer();
}
void SingleLink::abort(int code) {
  std::_Exit(code);
}

}  // namespace strata::cluster::detail
