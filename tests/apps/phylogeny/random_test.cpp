// The seeded random source: reproducible draws with the right distributions.

#include "phylogeny/random.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

namespace strata::apps::phylogeny {
namespace {

TEST(PhylogenyRandom, TheSameSeedGivesTheSameDraws) {
  Random a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs = differs || x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(PhylogenyRandom, DrawsStayInTheirRanges) {
  Random random(1);
  for (int i = 0; i < 10'000; ++i) {
    const double u = random.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_LT(random.below(7), 7u);
    const std::uint64_t v = random.between(3, 5);
    ASSERT_GE(v, 3u);
    ASSERT_LE(v, 5u);
    ASSERT_GE(random.geometric(0.5), 1u);
  }
}

TEST(PhylogenyRandom, MeansMatchTheDistributions) {
  Random random(7);
  constexpr int draws = 200'000;
  double gamma_sum = 0, small_gamma_sum = 0, poisson_sum = 0, normal_sum = 0, normal_squares = 0;
  for (int i = 0; i < draws; ++i) {
    gamma_sum += random.gamma(2.0);
    small_gamma_sum += random.gamma(0.5);
    poisson_sum += static_cast<double>(random.poisson(3.5));
    const double z = random.normal();
    normal_sum += z;
    normal_squares += z * z;
  }
  EXPECT_NEAR(gamma_sum / draws, 2.0, 0.02);
  EXPECT_NEAR(small_gamma_sum / draws, 0.5, 0.01);
  EXPECT_NEAR(poisson_sum / draws, 3.5, 0.02);
  EXPECT_NEAR(normal_sum / draws, 0.0, 0.01);
  EXPECT_NEAR(normal_squares / draws, 1.0, 0.01);
}

TEST(PhylogenyRandom, DiscreteDrawsFollowTheWeights) {
  const std::array<double, 3> weights = {1.0, 0.0, 3.0};
  DiscreteDistribution pick(weights);
  Random random(5);
  std::array<int, 3> counts{};
  for (int i = 0; i < 40'000; ++i)
    ++counts[pick(random)];
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[0] / 40'000.0, 0.25, 0.01);
  EXPECT_NEAR(counts[2] / 40'000.0, 0.75, 0.01);
}

}  // namespace
}  // namespace strata::apps::phylogeny
