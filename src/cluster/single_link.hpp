#pragma once
// SingleLink: the transport of a cluster of one (no MPI launcher, or built without MPI).

#include "link.hpp"

namespace strata::cluster::detail {

class SingleLink final : public Link {
 public:
  int rank() const override;
  int size() const override;
  int max_tag() const override;
  std::uint64_t send(Channel, int, int, const std::byte*, std::size_t) override;
  std::uint64_t receive(Channel, int, int, std::byte*, std::size_t) override;
  bool poll(std::vector<std::uint64_t>& completed) override;
  std::optional<Arrival> probe() override;
  void receive_control(const Arrival& arrival, std::byte* data) override;
  [[noreturn]] void abort(int code) override;
};

}  // namespace strata::cluster::detail
