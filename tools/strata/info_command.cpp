#include "info_command.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "build_components.hpp"
#include "machine_resources.hpp"
#include "strata/base/units.hpp"
#include "strata/cluster/network.hpp"
#include "strata/runtime/settings.hpp"

namespace strata::cli {
namespace {

// The cluster this process belongs to, as the cluster layer sees it.
struct ClusterView {
  int processes = 1;
  std::string status;
};

ClusterView cluster_view(const cluster::Network& network) {
  if (network.size() == 1) return {1, "a cluster of one: started without an MPI launcher"};
  return {network.size(), fmt::format("MPI job; this report is rank {}'s; `strata launch -n N` "
                                      "or mpirun starts one",
                                      network.rank())};
}

void print_text(const EffectiveConfig& effective, const MachineResources& machine,
                const device::DeviceSet& devices, const ClusterView& cluster) {
  fmt::print("strata {}\n\nmachine\n", STRATA_VERSION);
  fmt::print("  host        : {}\n", machine.host_name);
  fmt::print("  cpu model   : {}\n", machine.cpu_model.empty() ? "unknown" : machine.cpu_model);
  fmt::print("  cores       : {} physical, {} logical ({} package{})\n", machine.physical_cores,
             machine.logical_cpus, machine.packages, machine.packages == 1 ? "" : "s");
  fmt::print("  numa nodes  : {}\n", machine.numa_nodes);
  fmt::print("  memory      : {} total, {} available\n", format_bytes(machine.memory_total_bytes),
             machine.memory_available_bytes > 0 ? format_bytes(machine.memory_available_bytes)
                                                : "unknown");

  fmt::print("\nbackends\n");
  for (const BuildComponent& component : build_components(devices.reports)) {
    fmt::print("  {:<11} : {}\n", component.name, component.status);
  }
  fmt::print("\ndevices\n");
  for (const auto& dev : devices.devices) {
    const device::DeviceInfo& info = dev->info();
    fmt::print("  {:<11} : {} ({}), {} memory, {} compute units\n", info.id, info.name,
               info.platform, format_bytes(info.memory_bytes), info.compute_units);
  }
  fmt::print("\ncluster\n  processes   : {} ({})\n", cluster.processes, cluster.status);

  fmt::print("\nconfiguration (defaults < STRATA_* environment < flags)\n");
  const auto table = settings();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const std::string value = effective.config.get(table[i].name);
    fmt::print("  {:<20} = {:<12} ({})\n", table[i].name, value.empty() ? "(none)" : value,
               effective.sources[i]);
  }
  fmt::print("  {:<20} = {}\n", "(cpu worker threads)",
             effective.config.section<runtime::RuntimeSettings>().effective_cpu_threads());
}

nlohmann::ordered_json to_json(const EffectiveConfig& effective, const MachineResources& machine,
                               const device::DeviceSet& devices, const ClusterView& cluster) {
  nlohmann::ordered_json report;
  report["version"] = STRATA_VERSION;
  report["machine"] = {
      {"host", machine.host_name},
      {"cpu_model", machine.cpu_model},
      {"packages", machine.packages},
      {"physical_cores", machine.physical_cores},
      {"logical_cpus", machine.logical_cpus},
      {"numa_nodes", machine.numa_nodes},
      {"memory_total_bytes", machine.memory_total_bytes},
      {"memory_available_bytes", machine.memory_available_bytes},
  };
  report["backends"] = nlohmann::ordered_json::array();
  for (const BuildComponent& component : build_components(devices.reports)) {
    report["backends"].push_back({{"name", component.name},
                                  {"found_at_configure", component.found},
                                  {"usable", component.usable},
                                  {"status", component.status}});
  }
  report["devices"] = nlohmann::ordered_json::array();
  for (const auto& dev : devices.devices) {
    const device::DeviceInfo& info = dev->info();
    report["devices"].push_back({{"id", info.id},
                                 {"backend", device::to_string(info.backend)},
                                 {"name", info.name},
                                 {"platform", info.platform},
                                 {"memory_bytes", info.memory_bytes},
                                 {"compute_units", info.compute_units}});
  }
  report["cluster"] = {{"processes", cluster.processes}, {"status", cluster.status}};
  const auto table = settings();
  nlohmann::ordered_json configuration = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < table.size(); ++i) {
    configuration[std::string(table[i].name)] = {{"value", effective.config.get(table[i].name)},
                                                 {"type", table[i].type},
                                                 {"source", effective.sources[i]}};
  }
  report["configuration"] = configuration;
  report["effective_cpu_threads"] =
      effective.config.section<runtime::RuntimeSettings>().effective_cpu_threads();
  return report;
}

}  // namespace

CLI::App& add_info_command(CLI::App& app, InfoOptions& options) {
  CLI::App& info = *app.add_subcommand(
      "info", "Print the detected resources, the backends of this build and the configuration");
  info.add_flag("--json", options.json, "Print machine-readable JSON");
  return info;
}

int run_info_command(const EffectiveConfig& effective, const InfoOptions& options) {
  // Joins the MPI job when launched by one; every rank detects, rank 0 reports.
  cluster::Network network(nullptr, nullptr);
  const ClusterView cluster = cluster_view(network);
  const MachineResources machine = detect_machine_resources();
  const device::DeviceSet devices = device::discover_devices(effective.config);
  if (network.rank() != 0) return 0;
  if (options.json) {
    fmt::print("{}\n", to_json(effective, machine, devices, cluster).dump(2));
  } else {
    print_text(effective, machine, devices, cluster);
  }
  return 0;
}

}  // namespace strata::cli
