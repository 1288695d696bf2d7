#include "microscopy/truth_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "strata/allpairs/application.hpp"

namespace strata::apps::microscopy {

void write_truth(const std::filesystem::path& file, const GroundTruth& truth) {
  nlohmann::json particles = nlohmann::json::array();
  for (const ParticlePose& pose : truth.particles)
    particles.push_back({{"file", pose.file},
                         {"angle_degrees", pose.angle_degrees},
                         {"tx", pose.tx},
                         {"ty", pose.ty}});
  nlohmann::json root;
  root["structure"] = std::string(to_string(truth.structure));
  root["symmetry"] = truth.symmetry;
  root["particles"] = std::move(particles);
  std::ofstream out(file);
  out << root.dump(1) << "\n";
  if (!out.flush()) throw Error(fmt::format("{}: cannot write the ground truth", file.string()));
}

GroundTruth read_truth(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in)
    throw allpairs::InputError(fmt::format("{}: cannot open the ground truth", file.string()));
  std::stringstream text;
  text << in.rdbuf();
  try {
    const nlohmann::json root = nlohmann::json::parse(text.str());
    GroundTruth truth;
    truth.structure = structure_from_string(root.at("structure").get<std::string>());
    truth.symmetry = root.at("symmetry").get<int>();
    if (truth.symmetry < 1) throw Error(fmt::format("symmetry {} is below 1", truth.symmetry));
    for (const nlohmann::json& entry : root.at("particles"))
      truth.particles.push_back({entry.at("file").get<std::string>(),
                                 entry.at("angle_degrees").get<double>(),
                                 entry.at("tx").get<double>(), entry.at("ty").get<double>()});
    return truth;
  } catch (const std::exception& error) {
    throw allpairs::InputError(
        fmt::format("{}: not a valid ground truth file: {}", file.string(), error.what()));
  }
}

}  // namespace strata::apps::microscopy
