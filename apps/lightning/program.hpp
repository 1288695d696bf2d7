#pragma once
// What every lightning program shares: its node's options, with the backends its --devices names
// (empty: the configuration's).

#include <string>

#include "strata/device/settings.hpp"
#include "strata/node/node.hpp"

namespace strata::lightning {

inline node::NodeOptions node_options(const std::string& devices) {
  node::NodeOptions options;
  if (!devices.empty()) options.config.section<device::DeviceSettings>().backends = devices;
  return options;
}

}  // namespace strata::lightning
