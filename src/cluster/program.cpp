#include "strata/cluster/program.hpp"

#include <unistd.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>

#include "plan_executor.hpp"
#include "strata/cluster/message_kinds.hpp"
#include "strata/cluster/settings.hpp"

namespace strata::cluster {

namespace {
constexpr int failure_status = 1;
// A failure the driver's main does not collect (it is busy elsewhere) still ends the job.
constexpr auto unattended_failure_grace = std::chrono::seconds(3);

void print_failure(const std::string& message) {
  std::fprintf(stderr, "strata: %s\n", message.c_str());
  std::fflush(stderr);
}
}  // namespace

Config config_for_rank(Config config, int rank, int size) {
  std::string& trace = config.section<runtime::RuntimeSettings>().trace;
  if (size == 1 || trace.empty()) return config;
  const std::string suffix = ".rank" + std::to_string(rank);
  const std::size_t dot = trace.rfind('.');
  const std::size_t slash = trace.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    trace += suffix;
  } else {
    trace.insert(dot, suffix);
  }
  return config;
}

struct Program::Parts {
  // Declared first, destroyed last: the network thread's handlers use them until replaced.
  std::mutex lock;
  std::condition_variable changed;
  bool shutdown = false;
  bool aborting = false;
  bool handlers = false;  // run() registered message handlers

  Network& network;
  runtime::Runtime& runtime;
  memory::MemoryManager& memory;
  runtime::ChunkStaging& staging;
  runtime::ExecutorId network_executor;
  OperationTable operations;
  PlanKindTable kinds;
  StageTable stages;
  LoadReporter reporter;
  detail::UnfinishedCounts unfinished;  // outlives the plans, which count in it
  std::unique_ptr<detail::PlanExecutor> plans;
  std::unique_ptr<Driver> driver;

  explicit Parts(const ProgramParts& parts)
      : network(parts.network),
        runtime(parts.runtime),
        memory(parts.memory),
        staging(parts.staging),
        network_executor(parts.network_executor) {
    define_data_kinds(kinds);
    define_stage_kind(kinds, stages);
  }

  ~Parts() {
    // Tasks finish before the pieces they use go; then no handler (they use the driver and the
    // plans) runs any more: the network's lock orders a replaced handler after a running one.
    try {
      runtime.wait_all();
    } catch (...) {
    }
    if (handlers) {
      for (MessageKind kind :
           {kinds::plan, kinds::shutdown, kinds::progress, kinds::failure, kinds::read_result})
        network.on(kind, [](int, std::span<const std::byte>) {});
    }
    plans.reset();
  }

  [[noreturn]] void abort_job(const std::string& message) {
    {
      std::lock_guard guard(lock);
      if (aborting) {
        for (;;)
          std::this_thread::sleep_for(std::chrono::seconds(1));
      }
      aborting = true;
    }
    print_failure(message);
    network.abort(failure_status);
  }
};

Program::Program(ProgramParts parts) : parts_(std::make_unique<Parts>(parts)) {}

Program::~Program() = default;

int Program::rank() const {
  return parts_->network.rank();
}
int Program::size() const {
  return parts_->network.size();
}
Network& Program::network() {
  return parts_->network;
}
runtime::Runtime& Program::runtime() {
  return parts_->runtime;
}
memory::MemoryManager& Program::memory() {
  return parts_->memory;
}

void Program::define(std::string name, Operation operation) {
  parts_->operations.define(std::move(name), std::move(operation));
}

void Program::define_kind(std::string name, PlanKind kind) {
  if (parts_->plans) throw Error("plan operation kind '" + name + "' defined after run()");
  parts_->kinds.define(std::move(name), std::move(kind));
}

void Program::define_stage(std::string name, Stage stage) {
  if (parts_->plans) throw Error("stage '" + name + "' defined after run()");
  parts_->stages.define(std::move(name), std::move(stage));
}

void Program::set_load_reporter(LoadReporter reporter) {
  if (parts_->plans) throw Error("a load reporter installed after run()");
  parts_->reporter = std::move(reporter);
}

std::uint64_t Program::unfinished_on(runtime::ExecutorId executor) const {
  return parts_->unfinished.on(executor);
}

void Program::extend_kind(const std::string& name,
                          const std::function<PlanKind(PlanKind)>& extend) {
  if (parts_->plans) throw Error("plan operation kind '" + name + "' extended after run()");
  parts_->kinds.extend(name, extend);
}

int Program::run(const std::function<void(Driver&)>& main) {
  Parts& p = *parts_;
  if (p.plans) throw Error("a program runs once");
  p.plans = std::make_unique<detail::PlanExecutor>(p.network, p.runtime, p.memory, p.staging,
                                                   p.network_executor, p.operations, p.kinds,
                                                   p.unfinished, p.reporter);
  p.handlers = true;
  p.network.on(kinds::plan, [&p](int, std::span<const std::byte> payload) {
    p.plans->enqueue(decode<Plan>(payload, "a plan"));
  });
  p.network.on(kinds::shutdown, [&p](int, std::span<const std::byte>) {
    std::lock_guard guard(p.lock);
    p.shutdown = true;
    p.changed.notify_all();
  });

  if (!is_driver()) {
    // The driver knows this rank's devices' loads from the start (the reports arrive in order).
    if (p.reporter) p.plans->report_progress();
    std::unique_lock guard(p.lock);
    p.changed.wait(guard, [&] { return p.shutdown; });
    return 0;
  }

  p.driver = std::make_unique<Driver>(p.network, *p.plans, p.operations, p.kinds,
                                      p.runtime.config().section<ClusterSettings>().plan_window);
  Driver& driver = *p.driver;
  const auto on_failure = [&p, &driver](int source, const FailureReport& report) {
    driver.on_failure(source, report);
    if (p.network.size() == 1) return;
    // The driver's main normally collects the failure at its next call; if it does not, the
    // job still ends.
    std::thread([&p, message = RankFailed(source, report.task, report.message)] {
      std::this_thread::sleep_for(unattended_failure_grace);
      p.abort_job(message.what());
    }).detach();
  };
  p.plans->report_locally(
      {[&driver, rank = rank()](const Progress& progress) { driver.on_progress(rank, progress); },
       [on_failure, rank = rank()](const FailureReport& report) { on_failure(rank, report); }});
  p.network.on(kinds::progress, [&driver](int source, std::span<const std::byte> payload) {
    driver.on_progress(source, decode<Progress>(payload, "a progress report"));
  });
  p.network.on(kinds::read_result, [&p](int, std::span<const std::byte> payload) {
    p.plans->deliver(decode<ReadResult>(payload, "a read result"));
  });
  p.network.on(kinds::failure, [on_failure](int source, std::span<const std::byte> payload) {
    on_failure(source, decode<FailureReport>(payload, "a failure report"));
  });

  try {
    main(driver);
    driver.wait_all();
  } catch (const RankFailed& failed) {
    if (size() > 1) p.abort_job(failed.what());
    print_failure(failed.what());
    return failure_status;
  } catch (const std::exception& error) {
    const std::string message = "rank 0 (driver) failed: " + std::string(error.what());
    if (size() > 1) p.abort_job(message);
    print_failure(message);
    return failure_status;
  }
  for (int rank = 1; rank < size(); ++rank)
    p.network.post(rank, kinds::shutdown, {});
  return 0;
}

}  // namespace strata::cluster
