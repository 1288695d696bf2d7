#pragma once
// Link: the transport under the network thread — MPI when the process was started by an MPI
// launcher, a single-process link otherwise. Only the network thread calls it (after open()).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace strata::cluster::detail {

// Control messages and bulk data travel on separate communicators, so tags never collide.
enum class Channel : std::uint8_t { control, bulk };

// A control message that has arrived and waits to be received.
struct Arrival {
  int source = 0;
  std::size_t bytes = 0;
};

class Link {
 public:
  // Joins the MPI job if the environment says the process was launched by one (Open MPI, PMIx,
  // Slurm/PMI); otherwise a cluster of one. Throws when launched by MPI but built without it.
  static std::unique_ptr<Link> open(int* argc, char*** argv);
  // Whether the environment shows an MPI launcher.
  static bool launched_by_mpi();

  virtual ~Link() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Largest tag the bulk channel accepts.
  virtual int max_tag() const = 0;

  // Starts a non-blocking send / receive; the id is reported by poll() when it completed.
  virtual std::uint64_t send(Channel channel, int peer, int tag, const std::byte* data,
                             std::size_t bytes) = 0;
  virtual std::uint64_t receive(Channel channel, int peer, int tag, std::byte* data,
                                std::size_t bytes) = 0;
  // Appends the ids of requests that completed since the last call; false if none are pending.
  virtual bool poll(std::vector<std::uint64_t>& completed) = 0;
  // A control message waiting to be received, if any.
  virtual std::optional<Arrival> probe() = 0;
  virtual void receive_control(const Arrival& arrival, std::byte* data) = 0;
  // Ends every rank of the job with `code` (MPI_Abort); a single process exits.
  [[noreturn]] virtual void abort(int code) = 0;
};

}  // namespace strata::cluster::detail
