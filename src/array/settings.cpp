#include "strata/array/settings.hpp"

#include "strata/base/setting_kinds.hpp"
#include "strata/base/setting_table.hpp"

namespace strata::array {

bool declare_array_settings() {
  return declare_settings(
      {"array",
       Layer::front_end,
       "the array front end's kernel tasks",
       {
           bytes_setting<&ArraySettings::array_batch_bytes>(
               "array_batch_bytes", 0,
               "A launch's superblocks on one device run as one kernel task until their chunks "
               "hold this much (at most a sixteenth of the device's capacity, and each device "
               "keeps at least 8 tasks a launch): the runtime's cost per task is paid once for "
               "small chunks. 0: a task per superblock. 0 B to 18446744073709551615 B."),
       }});
}

}  // namespace strata::array
