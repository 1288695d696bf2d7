// lightning_md5: the lightning paper's MD5 benchmark (§4.2, after SHOC) on distributed arrays —
// n candidate keys, one per thread, each hashed and compared with a planted target digest on the
// devices of every rank, the index found combined by `reduce(min)`; `iterations` timed searches,
// each for a key planted in another superblock (then, untimed, one in every superblock, each
// read at once, and one for a key that is not there), throughput, and checks: every search finds
// its planted index, the sequential reference finds it too, and the kernels' digests equal an
// independent MD5's (OpenSSL's where it is built with it; RFC 1321's test vectors check the
// reference's). Runs under `strata launch -n N`.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include "lightning/md5_data.hpp"
#include "lightning/md5_kernels.hpp"
#include "lightning/program.hpp"
#include "lightning/run_options.hpp"
#include "strata/array/arrays.hpp"
#include "strata/base/error.hpp"

#ifdef STRATA_LIGHTNING_OPENSSL
#include <openssl/evp.h>
#endif

namespace {

using namespace strata;
using array::Argument;
using array::Array;
using array::Distribution;
using array::Grid;
using array::WorkDistribution;

constexpr std::int32_t not_found = std::numeric_limits<std::int32_t>::max();
constexpr std::uint64_t digests_checked = 1000;  // keys whose digests the kernels write

struct Options : lightning::RunOptions {
  std::uint64_t n = 1 << 24;  // candidate keys
  int iterations = 10;
  std::uint64_t chunk = 1 << 22;  // keys per superblock
  std::uint64_t block = 256;
};

// One search: where its key is planted (n: nowhere), whether it is timed, and whether its result
// is read (a timed search's is not, but the last's: reading waits for the launch).
struct Search {
  std::uint64_t planted = 0;
  bool timed = false;
  bool checked = true;
};

struct Outcome {
  lightning::Timed timed;
  std::vector<std::int32_t> found;     // per search; -1 where not read
  std::vector<std::uint32_t> digests;  // digests_checked x 4
  array::LaunchStats stats;
};

std::uint64_t keys_per_superblock(const Options& options) {
  return std::max<std::uint64_t>(1, options.chunk / options.block) * options.block;
}
std::uint64_t superblock_count(const Options& options) {
  return (options.n + keys_per_superblock(options) - 1) / keys_per_superblock(options);
}

// The searches: one untimed (the last key), `iterations` timed ones planted in superblocks 0, 1,
// ... in turn at a random thread, then untimed ones in every superblock, each read at once, and
// one for the key just past the candidates (not found).
std::vector<Search> plan_searches(const Options& options) {
  const std::uint64_t per_superblock = keys_per_superblock(options);
  const std::uint64_t superblocks = superblock_count(options);
  std::mt19937_64 random(options.seed);
  const auto in_superblock = [&](std::uint64_t s) {
    const std::uint64_t first = s * per_superblock;
    const std::uint64_t count = std::min(options.n, first + per_superblock) - first;
    return first + std::uniform_int_distribution<std::uint64_t>(0, count - 1)(random);
  };
  std::vector<Search> searches{{options.n - 1, false, true}};
  for (int it = 0; it < options.iterations; ++it)
    searches.push_back({in_superblock(static_cast<std::uint64_t>(it) % superblocks), true,
                        it + 1 == options.iterations});
  for (std::uint64_t s = 0; s < superblocks; ++s)
    searches.push_back({in_superblock(s), false, true});
  searches.push_back({options.n, false, true});
  return searches;
}

Outcome run_md5(node::Node& node, cluster::Driver& driver, const Options& options,
                const std::vector<Search>& searches) {
  using device::ElementType;
  const array::ArrayKernel search = lightning::md5_search_kernel();
  const array::ArrayKernel digest = lightning::md5_digest_kernel();
  array::Arrays arrays(node, driver);
  const WorkDistribution work = lightning::chunk_work(options, options.chunk, options.block);
  // The search's result, replicated (a reduction's result reaches every replica).
  Array found = arrays.create("found", ElementType::i32, {1}, Distribution::replicated());
  arrays.fill(found, not_found);
  const auto n32 = static_cast<std::int32_t>(options.n);
  const auto launch = [&](std::size_t slot) {
    const std::array<std::uint32_t, 4> target =
        lightning::md5_of_key(lightning::md5_key(searches[slot].planted));
    arrays.launch(search, Grid{{options.n}, {options.block}}, work,
                  {Argument::value(n32), Argument::value(target[0]), Argument::value(target[1]),
                   Argument::value(target[2]), Argument::value(target[3]), found});
  };
  Outcome outcome;
  outcome.found.assign(searches.size(), -1);
  const auto result = [&](std::size_t slot) {
    outcome.found[slot] = arrays.read_as<std::int32_t>(found).at(0);
  };
  // The first search untimed compiles every superblock's kernel.
  launch(0);
  result(0);
  std::size_t slot = 1;
  outcome.timed = lightning::time_part(arrays, driver, [&] {
    for (; slot < searches.size() && searches[slot].timed; ++slot)
      launch(slot);
  });
  outcome.stats = arrays.stats();
  result(slot - 1);
  for (; slot < searches.size(); ++slot) {
    launch(slot);
    result(slot);
  }
  // The first keys' digests, in superblocks of one block dealt over every device.
  const std::uint64_t keys = std::min(options.n, digests_checked);
  const std::uint64_t digest_block = 16;
  const WorkDistribution one_block = lightning::chunk_work(options, 1, 1);
  Array digests = arrays.create("digests", ElementType::u32, {keys, 4},
                                Distribution::row_blocks((keys + 3) / 4));
  arrays.launch(digest, Grid{{keys}, {digest_block}}, one_block,
                {Argument::value(static_cast<std::int32_t>(keys)), digests});
  outcome.digests = arrays.read_as<std::uint32_t>(digests);
  for (Array* gone : {&found, &digests})
    arrays.destroy(*gone);
  return outcome;
}

#ifdef STRATA_LIGHTNING_OPENSSL
std::array<std::uint32_t, 4> openssl_md5_of_index(std::uint64_t index) {
  const std::uint64_t key = lightning::md5_key(index);
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<unsigned char>((key >> (8 * i)) & 0xff);
  std::array<std::uint8_t, 16> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes, sizeof bytes, digest.data(), &length, EVP_md5(), nullptr) != 1 ||
      length != 16)
    throw Error("OpenSSL's MD5 failed");
  return lightning::md5_words(digest);
}
#endif

// Every search found its planted index (the one past the candidates: nothing), the reference's
// search finds the last timed one's, and the kernels' digests of the first keys equal the
// independent MD5's — exact comparisons: there is no rounding in MD5.
bool check(const Outcome& got, const std::vector<Search>& searches, const Options& options,
           std::uint64_t reference_found, std::uint64_t reference_planted) {
  std::uint64_t wrong = 0;
  std::uint64_t checked = 0;
  for (std::size_t s = 0; s < searches.size(); ++s) {
    if (!searches[s].checked) continue;
    ++checked;
    const std::int32_t expected = searches[s].planted < options.n
                                      ? static_cast<std::int32_t>(searches[s].planted)
                                      : not_found;
    wrong += got.found[s] == expected ? 0 : 1;
  }
  const int rfc = lightning::md5_rfc_vectors_passed();
  const std::uint64_t keys = got.digests.size() / 4;
#ifdef STRATA_LIGHTNING_OPENSSL
  const char* independent = "OpenSSL's MD5";
  const auto independent_md5 = openssl_md5_of_index;
#else
  const char* independent = "the reference's MD5 (built without OpenSSL)";
  const auto independent_md5 = lightning::md5_reference_of_index;
#endif
  std::uint64_t digests_wrong = 0;
  for (std::uint64_t i = 0; i < keys; ++i) {
    const std::array<std::uint32_t, 4> expected = independent_md5(i);
    const bool reference_agrees = lightning::md5_reference_of_index(i) == expected;
    bool equal = reference_agrees;
    for (std::uint64_t w = 0; w < 4; ++w)
      equal = equal && got.digests[i * 4 + w] == expected[w];
    digests_wrong += equal ? 0 : 1;
  }
  const bool passed =
      wrong == 0 && rfc == 7 && digests_wrong == 0 && reference_found == reference_planted;
  std::printf(
      "check: %s (exact, MD5 has no rounding: %llu of %llu searches read found their planted index "
      "(every one of %llu superblock(s) planted, one key absent); the sequential reference "
      "finds index %llu, planted at %llu; kernels' digests of %llu keys equal to %s and the "
      "reference's: %llu wrong; RFC 1321 test vectors: %d of 7 by the reference)\n",
      passed ? "passed" : "FAILED", static_cast<unsigned long long>(checked - wrong),
      static_cast<unsigned long long>(checked),
      static_cast<unsigned long long>(superblock_count(options)),
      static_cast<unsigned long long>(reference_found),
      static_cast<unsigned long long>(reference_planted), static_cast<unsigned long long>(keys),
      independent, static_cast<unsigned long long>(digests_wrong), rfc);
  return passed;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("MD5 search on distributed arrays (the lightning paper's benchmark, after SHOC)");
  app.add_option("--n", options.n, "candidate keys (hashes per search)")
      ->check(CLI::Range(1, (1 << 30) + ((1 << 30) - 2)));
  app.add_option("--iterations", options.iterations, "timed searches")->check(CLI::Range(1, 10000));
  app.add_option("--chunk", options.chunk, "keys per superblock")->check(CLI::PositiveNumber);
  app.add_option("--block", options.block, "threads per block")->check(CLI::Range(1, 1024));
  lightning::add_run_options(
      app, options,
      {.seed = "seed of where the keys are planted",
       .distribution = "rows or round-robin (of the superblocks over the devices)"});
  CLI11_PARSE(app, argc, argv);
  return lightning::exit_status("lightning_md5", [&] {
    node::Node node(argc, argv, lightning::node_options(options.devices));
    array::Arrays::prepare(node, lightning::md5_kernels());
    const std::vector<Search> searches = plan_searches(options);
    Outcome outcome;
    const int status = node.program().run(
        [&](cluster::Driver& driver) { outcome = run_md5(node, driver, options, searches); });
    if (status != 0 || node.rank() != 0) return status;
    const double hashes = static_cast<double>(options.n) * options.iterations;
    std::printf(
        "md5: %llu keys, %d iterations, superblocks of %llu keys (%s), %zu searches in all, %d "
        "rank(s) x %zu device(s)\n",
        static_cast<unsigned long long>(options.n), options.iterations,
        static_cast<unsigned long long>(options.chunk), options.distribution.c_str(),
        searches.size(), node.size(), node.devices().size());
    std::printf("time %.4f s, throughput %.2f Mhashes/s, %llu superblocks\n", outcome.timed.seconds,
                hashes / outcome.timed.seconds / 1e6,
                static_cast<unsigned long long>(outcome.stats.superblocks));
    // The reference searches for the last timed search's key, hashing every key as a search does.
    const std::uint64_t planted = searches[static_cast<std::size_t>(options.iterations)].planted;
    lightning::print_plan_counts(outcome.timed.counts);
    if (!options.check) return 0;
    double search_seconds = 0;
    const std::uint64_t reference_found = lightning::measure(search_seconds, [&] {
      return lightning::md5_reference_search(options.n, lightning::md5_reference_of_index(planted));
    });
    lightning::print_reference_per_round("one thread", "search", search_seconds, options.iterations,
                                         outcome.timed.seconds);
    return check(outcome, searches, options, reference_found, planted) ? 0 : 1;
  });
}
