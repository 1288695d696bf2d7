#pragma once
// The array front end's settings: how many bytes of small superblocks one kernel task runs.
// Declared into the configuration table by every program that includes this.

#include <cstdint>

namespace strata::array {

struct ArraySettings {
  // A launch's superblocks on one device run as one kernel task until their chunks hold this
  // much (at most a sixteenth of the device's capacity); 0: a task per superblock.
  std::uint64_t array_batch_bytes = 64ull << 20;
};

// Adds the section "array" to the table (once); true.
bool declare_array_settings();
inline const bool array_settings_declared = declare_array_settings();

}  // namespace strata::array
