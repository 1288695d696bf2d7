#include "mpi_link.hpp"

#include <climits>
#include <string>

#include "strata/base/error.hpp"

namespace strata::cluster::detail {

namespace {
// MPI counts are int: one message carries at most INT_MAX bytes (the network sends pieces).
int count_of(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    throw Error("an MPI message of " + std::to_string(bytes) + " bytes exceeds INT_MAX");
  }
  return static_cast<int>(bytes);
}
}  // namespace

MpiLink::MpiLink(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = 0;
  if (initialized != 0) {
    // A program that initialized MPI itself keeps it (and finalizes it); its own MPI calls must
    // not overlap the network thread's.
    MPI_Query_thread(&provided);
  } else {
    MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    owns_mpi_ = true;
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    if (owns_mpi_) MPI_Finalize();
    throw Error("the MPI library does not provide MPI_THREAD_SERIALIZED (provided level " +
                std::to_string(provided) + ")");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm_dup(MPI_COMM_WORLD, &control_);
  MPI_Comm_dup(MPI_COMM_WORLD, &bulk_);
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  if (found != 0 && tag_ub != nullptr) max_tag_ = *tag_ub;
}

MpiLink::~MpiLink() {
  for (MPI_Request& request : requests_) {
    MPI_Cancel(&request);
    MPI_Request_free(&request);
  }
  MPI_Comm_free(&control_);
  MPI_Comm_free(&bulk_);
  if (owns_mpi_) MPI_Finalize();
}

std::uint64_t MpiLink::track(MPI_Request request) {
  requests_.push_back(request);
  ids_.push_back(next_id_);
  return next_id_++;
}

std::uint64_t MpiLink::send(Channel channel, int peer, int tag, const std::byte* data,
                            std::size_t bytes) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Isend(data, count_of(bytes), MPI_BYTE, peer, tag, comm(channel), &request);
  return track(request);
}

std::uint64_t MpiLink::receive(Channel channel, int peer, int tag, std::byte* data,
                               std::size_t bytes) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Irecv(data, count_of(bytes), MPI_BYTE, peer, tag, comm(channel), &request);
  return track(request);
}

bool MpiLink::poll(std::vector<std::uint64_t>& completed) {
  if (requests_.empty()) return false;
  indices_.resize(requests_.size());
  int count = 0;
  MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, indices_.data(),
               MPI_STATUSES_IGNORE);
  if (count == MPI_UNDEFINED || count == 0) return true;
  for (int i = 0; i < count; ++i)
    completed.push_back(ids_[indices_[i]]);
  // Completed requests are MPI_REQUEST_NULL now: compact them away, keeping the order.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) continue;
    requests_[kept] = requests_[i];
    ids_[kept] = ids_[i];
    ++kept;
  }
  requests_.resize(kept);
  ids_.resize(kept);
  return true;
}

std::optional<Arrival> MpiLink::probe() {
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, 0, control_, &flag, &status);
  if (flag == 0) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  return Arrival{status.MPI_SOURCE, static_cast<std::size_t>(count)};
}

void MpiLink::receive_control(const Arrival& arrival, std::byte* data) {
  MPI_Recv(data, count_of(arrival.bytes), MPI_BYTE, arrival.source, 0, control_, MPI_STATUS_IGNORE);
}

void MpiLink::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace strata::cluster::detail
