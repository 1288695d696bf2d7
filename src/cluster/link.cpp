#include "link.hpp"

#include <cstdlib>

#include "single_link.hpp"
#include "strata/base/error.hpp"
#ifdef STRATA_CLUSTER_WITH_MPI
#include "mpi_link.hpp"
#endif

namespace strata::cluster::detail {

bool Link::launched_by_mpi() {
  // Open MPI's mpirun, PMIx launchers, MPICH/Hydra and Slurm's srun each set one of these.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

std::unique_ptr<Link> Link::open(int* argc, char*** argv) {
  if (!launched_by_mpi()) return std::make_unique<SingleLink>();
#ifdef STRATA_CLUSTER_WITH_MPI
  return std::make_unique<MpiLink>(argc, argv);
#else
  (void)argc;
  (void)argv;
  throw Error(
      "started by an MPI launcher, but Strata was built without MPI (install libopenmpi-dev "
      "and reconfigure)");
#endif
}

}  // namespace strata::cluster::detail
