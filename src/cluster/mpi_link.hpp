#pragma once
// MpiLink: the transport of a process started by an MPI launcher (Open MPI's mpirun, srun).
// MPI is initialized with MPI_THREAD_SERIALIZED (unless the program did so already): the network
// thread makes every call after init.

#include <mpi.h>

#include "link.hpp"

namespace strata::cluster::detail {

class MpiLink final : public Link {
 public:
  MpiLink(int* argc, char*** argv);
  ~MpiLink() override;  // MPI_Finalize, if this link initialized MPI

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int max_tag() const override { return max_tag_; }
  std::uint64_t send(Channel channel, int peer, int tag, const std::byte* data,
                     std::size_t bytes) override;
  std::uint64_t receive(Channel channel, int peer, int tag, std::byte* data,
                        std::size_t bytes) override;
  bool poll(std::vector<std::uint64_t>& completed) override;
  std::optional<Arrival> probe() override;
  void receive_control(const Arrival& arrival, std::byte* data) override;
  [[noreturn]] void abort(int code) override;

 private:
  MPI_Comm comm(Channel channel) const { return channel == Channel::control ? control_ : bulk_; }
  std::uint64_t track(MPI_Request request);

  bool owns_mpi_ = false;
  int rank_ = 0;
  int size_ = 1;
  int max_tag_ = 32767;
  MPI_Comm control_ = MPI_COMM_NULL;
  MPI_Comm bulk_ = MPI_COMM_NULL;
  std::vector<MPI_Request> requests_;  // pending, in the order of ids_
  std::vector<std::uint64_t> ids_;
  std::vector<int> indices_;
  std::uint64_t next_id_ = 1;
};

}  // namespace strata::cluster::detail
