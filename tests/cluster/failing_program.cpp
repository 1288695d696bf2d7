// A Strata program that fails on purpose, for the failure tests: the operation run on the rank
// given by the second argument throws ("throw"), kills its own process ("kill") or aborts
// ("abort"), while the other ranks work; with "stage_throw" and "stage_kill" a fine-grain task of
// the stage instances handed out over the ranks does so on that rank. Every rank must end
// non-zero, promptly, and the driver must say which rank failed.

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>

#include "strata/cluster/stage_graph.hpp"
#include "strata/node/node.hpp"

int main(int argc, char** argv) {
  strata::node::Node node(argc, argv);
  strata::cluster::Program& program = node.program();
  if (argc != 3) {
    std::cerr << "usage: failing_program throw|kill|abort|stage_throw|stage_kill RANK\n";
    return 2;
  }
  const std::string how = argv[1];
  const int failing_rank = std::stoi(argv[2]);
  program.define("work", [](strata::cluster::OperationContext&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  program.define("fail", [how](strata::cluster::OperationContext& context) {
    if (how == "kill") std::raise(SIGKILL);
    if (how == "abort") std::abort();
    throw std::runtime_error("planted failure on rank " + std::to_string(context.rank()));
  });
  program.define_stage("doomed", [how, failing_rank](strata::cluster::StageContext& stage) {
    const bool fails = stage.rank() == failing_rank;
    stage.submit(strata::runtime::TaskSpec("boom"), [how, fails](strata::runtime::TaskContext&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (!fails) return;
      if (how == "stage_kill") std::raise(SIGKILL);
      throw std::runtime_error("planted stage failure");
    });
  });
  if (how.starts_with("stage_")) {
    return program.run([&](strata::cluster::Driver& driver) {
      strata::cluster::StageGraph graph;
      for (int i = 0; i < 4 * driver.size(); ++i)
        graph.add({"doomed", {}, {}, {}});
      strata::cluster::hand_out(driver, graph, {{1}, false, {}});
      std::cout << "not reached: the failure was lost\n";
    });
  }
  return program.run([&](strata::cluster::Driver& driver) {
    for (int round = 0; round < 20; ++round) {
      for (int rank = 0; rank < driver.size(); ++rank)
        driver.run(rank, "work", {});
    }
    driver.run(failing_rank % driver.size(), "fail", {});
    for (int rank = 0; rank < driver.size(); ++rank)
      driver.run(rank, "work", {});
    driver.wait_all();
    std::cout << "not reached: the failure was lost\n";
  });
}
