#pragma once
// A symmetric matrix of distances between named species, with zeros on the diagonal.

#include <cstddef>
#include <string>
#include <vector>

namespace strata::apps::phylogeny {

class DistanceMatrix {
 public:
  explicit DistanceMatrix(std::vector<std::string> names)
      : names_(std::move(names)), values_(names_.size() * names_.size(), 0.0) {}

  std::size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  double at(std::size_t i, std::size_t j) const { return values_[i * size() + j]; }
  // Sets both (i, j) and (j, i).
  void set(std::size_t i, std::size_t j, double distance) {
    values_[i * size() + j] = distance;
    values_[j * size() + i] = distance;
  }

 private:
  std::vector<std::string> names_;
  std::vector<double> values_;
};

}  // namespace strata::apps::phylogeny
