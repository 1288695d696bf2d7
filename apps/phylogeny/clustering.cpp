#include "phylogeny/clustering.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace strata::apps::phylogeny {
namespace {

// Clusters while they are joined bottom-up: each has children with branch lengths; leaves
// carry the species' names. Converted to a Tree (which grows top-down) at the end.
struct Clusters {
  struct Cluster {
    std::string name;
    std::vector<std::pair<std::size_t, double>> children;  // (cluster, branch length)
  };
  std::vector<Cluster> all;

  explicit Clusters(const std::vector<std::string>& names) {
    for (const auto& name : names)
      all.push_back(Cluster{name, {}});
  }
  std::size_t join(std::vector<std::pair<std::size_t, double>> children) {
    all.push_back(Cluster{{}, std::move(children)});
    return all.size() - 1;
  }
  Tree to_tree(std::size_t top) const {
    Tree tree;
    tree.node(tree.root()).name = all[top].name;
    std::vector<std::pair<std::size_t, NodeIndex>> stack{{top, tree.root()}};
    while (!stack.empty()) {
      const auto [cluster, node] = stack.back();
      stack.pop_back();
      for (const auto& [child, length] : all[cluster].children)
        stack.emplace_back(child, tree.add_child(node, length, all[child].name));
    }
    return tree;
  }
};

void check(const DistanceMatrix& distances) {
  if (distances.size() < 2) throw std::invalid_argument("clustering needs at least 2 species");
}

}  // namespace

Tree neighbor_joining(const DistanceMatrix& distances) {
  check(distances);
  const std::size_t n = distances.size();
  Clusters clusters(distances.names());
  // Distances between the active clusters; `active[a]` is the cluster in row a.
  std::vector<std::size_t> active(n);
  std::vector<std::vector<double>> d(n, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    active[i] = i;
    for (std::size_t j = 0; j < n; ++j)
      d[i][j] = distances.at(i, j);
  }
  while (active.size() > 3) {
    const std::size_t m = active.size();
    std::vector<double> row_sum(m, 0.0);
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = 0; b < m; ++b)
        row_sum[a] += d[a][b];
    std::size_t best_a = 0, best_b = 1;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < m; ++a) {
      for (std::size_t b = a + 1; b < m; ++b) {
        const double q = static_cast<double>(m - 2) * d[a][b] - row_sum[a] - row_sum[b];
        if (q < best) {
          best = q;
          best_a = a;
          best_b = b;
        }
      }
    }
    const double dab = d[best_a][best_b];
    const double length_a = std::clamp(
        dab / 2 + (row_sum[best_a] - row_sum[best_b]) / (2.0 * static_cast<double>(m - 2)), 0.0,
        std::max(dab, 0.0));
    const double length_b = std::max(dab - length_a, 0.0);
    const std::size_t joined =
        clusters.join({{active[best_a], length_a}, {active[best_b], length_b}});
    // The joined cluster takes row best_a; row best_b goes.
    for (std::size_t c = 0; c < m; ++c) {
      if (c == best_a || c == best_b) continue;
      const double value = (d[best_a][c] + d[best_b][c] - dab) / 2;
      d[best_a][c] = value;
      d[c][best_a] = value;
    }
    d[best_a][best_a] = 0;
    active[best_a] = joined;
    active.erase(active.begin() + static_cast<std::ptrdiff_t>(best_b));
    d.erase(d.begin() + static_cast<std::ptrdiff_t>(best_b));
    for (auto& row : d)
      row.erase(row.begin() + static_cast<std::ptrdiff_t>(best_b));
  }
  if (active.size() == 2) {
    const double half = std::max(d[0][1], 0.0) / 2;
    return clusters.to_tree(clusters.join({{active[0], half}, {active[1], half}}));
  }
  // Three clusters left: one center joins them (the unrooted tree's last node).
  std::vector<std::pair<std::size_t, double>> children;
  for (std::size_t a = 0; a < 3; ++a) {
    const std::size_t b = (a + 1) % 3, c = (a + 2) % 3;
    children.emplace_back(active[a], std::max((d[a][b] + d[a][c] - d[b][c]) / 2, 0.0));
  }
  return clusters.to_tree(clusters.join(std::move(children)));
}

Tree upgma(const DistanceMatrix& distances) {
  check(distances);
  const std::size_t n = distances.size();
  Clusters clusters(distances.names());
  std::vector<std::size_t> active(n);
  std::vector<double> size(n, 1.0);    // leaves per active cluster
  std::vector<double> height(n, 0.0);  // of each active cluster's root above its leaves
  std::vector<std::vector<double>> d(n, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    active[i] = i;
    for (std::size_t j = 0; j < n; ++j)
      d[i][j] = distances.at(i, j);
  }
  while (active.size() > 1) {
    const std::size_t m = active.size();
    std::size_t best_a = 0, best_b = 1;
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = a + 1; b < m; ++b)
        if (d[a][b] < d[best_a][best_b]) {
          best_a = a;
          best_b = b;
        }
    const double top = std::max({d[best_a][best_b] / 2, height[best_a], height[best_b]});
    const std::size_t joined = clusters.join(
        {{active[best_a], top - height[best_a]}, {active[best_b], top - height[best_b]}});
    for (std::size_t c = 0; c < m; ++c) {
      if (c == best_a || c == best_b) continue;
      const double value = (size[best_a] * d[best_a][c] + size[best_b] * d[best_b][c]) /
                           (size[best_a] + size[best_b]);
      d[best_a][c] = value;
      d[c][best_a] = value;
    }
    active[best_a] = joined;
    size[best_a] += size[best_b];
    height[best_a] = top;
    const auto gone = static_cast<std::ptrdiff_t>(best_b);
    active.erase(active.begin() + gone);
    size.erase(size.begin() + gone);
    height.erase(height.begin() + gone);
    d.erase(d.begin() + gone);
    for (auto& row : d)
      row.erase(row.begin() + gone);
  }
  return clusters.to_tree(active[0]);
}

}  // namespace strata::apps::phylogeny
