// Encoding and decoding what crosses ranks: random plans (binary strings, empty and large
// fields) come back equal, and bytes cut short fail with an error that names the message.

#include "strata/cluster/serialization.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "strata/cluster/plan.hpp"

namespace strata::cluster {
namespace {

std::string random_bytes(std::mt19937& random, std::size_t count) {
  std::string bytes(count, '\0');
  for (char& c : bytes)
    c = static_cast<char>(random() & 0xff);  // zeros and high bytes included
  return bytes;
}

Plan random_plan(std::mt19937& random) {
  Plan plan;
  const std::size_t ops = random() % 50;
  for (std::size_t o = 0; o < ops; ++o) {
    PlanOp op;
    op.id = random();
    op.operation = random_bytes(random, random() % 40);
    // Now and then a payload larger than any stream buffer's first allocation.
    op.args = random_bytes(random, random() % 8 == 0 ? 200'000 + random() % 1000 : random() % 300);
    for (std::size_t a = random() % 4; a > 0; --a) {
      op.accesses.push_back(PlannedAccess{
          random(), random(), random_bytes(random, random() % 20),
          random() % 2 == 0 ? runtime::Access::read : runtime::Access::write, random() % 2 == 0});
    }
    op.peer = static_cast<int>(random() % 8) - 1;
    op.transfer = random();
    plan.ops.push_back(std::move(op));
  }
  return plan;
}

void expect_equal(const Plan& got, const Plan& expected) {
  ASSERT_EQ(got.ops.size(), expected.ops.size());
  for (std::size_t o = 0; o < got.ops.size(); ++o) {
    const PlanOp& a = got.ops[o];
    const PlanOp& b = expected.ops[o];
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.operation, b.operation);
    EXPECT_EQ(a.args, b.args);
    EXPECT_EQ(a.peer, b.peer);
    EXPECT_EQ(a.transfer, b.transfer);
    ASSERT_EQ(a.accesses.size(), b.accesses.size());
    for (std::size_t i = 0; i < a.accesses.size(); ++i) {
      EXPECT_EQ(a.accesses[i].chunk, b.accesses[i].chunk);
      EXPECT_EQ(a.accesses[i].bytes, b.accesses[i].bytes);
      EXPECT_EQ(a.accesses[i].name, b.accesses[i].name);
      EXPECT_EQ(a.accesses[i].mode, b.accesses[i].mode);
      EXPECT_EQ(a.accesses[i].late, b.accesses[i].late);
    }
  }
}

TEST(Serialization, RandomPlansComeBackEqual) {
  std::mt19937 random(11);
  for (int round = 0; round < 100; ++round) {
    const Plan plan = random_plan(random);
    const std::vector<std::byte> bytes = encode(plan);
    expect_equal(decode<Plan>(bytes, "a plan"), plan);
  }
}

TEST(Serialization, BytesCutShortFailNamingTheMessage) {
  std::mt19937 random(5);
  Plan plan = random_plan(random);
  plan.ops.push_back(PlanOp{});
  const std::vector<std::byte> bytes = encode(plan);
  for (const std::size_t keep :
       {std::size_t{0}, std::size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    try {
      decode<Plan>(std::span(bytes.data(), keep), "a test plan");
      FAIL() << "decoding " << keep << " of " << bytes.size() << " bytes succeeded";
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot decode a test plan (" + std::to_string(keep) +
                                           " bytes)"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace strata::cluster
