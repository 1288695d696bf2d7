// evaluate(): a results file of the all-pairs engine against the truth.
#include "camera/camera_app.hpp"
#include "strata/allpairs/results_file.hpp"

namespace strata::apps::camera {

Evaluation evaluate(const std::filesystem::path& dir, const std::filesystem::path& results,
                    std::optional<ImageShape> crop) {
  const auto records = allpairs::read_results<Result>(results);
  std::vector<ScoredPair> pairs;
  pairs.reserve(records.size());
  for (const auto& record : records)
    pairs.push_back({record.left, record.right, record.value.ncc});
  return evaluate_scores(dir, pairs, crop);
}

}  // namespace strata::apps::camera
