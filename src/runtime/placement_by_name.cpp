// The placement policy a configuration names (runtime.placement).

#include "strata/base/error.hpp"
#include "strata/runtime/scheduling_policy.hpp"

namespace strata::runtime {

std::unique_ptr<PlacementPolicy> make_placement_policy(std::string_view name,
                                                       double transfer_impact) {
  if (name == "least-loaded") return make_least_loaded_placement();
  if (name == "locality") return make_locality_placement();
  if (name == "pats") return make_pats_policy();
  if (name == "pats-dl") return make_pats_policy({.transfer_impact = transfer_impact});
  if (name == "fcfs") return make_fcfs_placement();
  throw Error("unknown placement policy '" + std::string(name) +
              "' (known: least-loaded, locality, pats, pats-dl, fcfs)");
}

}  // namespace strata::runtime
