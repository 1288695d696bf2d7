// The device primitives on every device this machine has (the CPU device always, OpenCL on PoCL,
// CUDA where a GPU is): the same test bodies for each, against sequential references — sizes 0,
// 1, primes and tiles' edges, all keys equal, all distinct, few distinct, stability of equal
// keys, segments empty and larger than tiles, joins with many-to-many and no matches and too
// little room, and 10^8 keys on the CPU device.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "hash_aggregate.hpp"
#include "strata/base/error.hpp"
#include "strata/device/backends.hpp"
#include "strata/primitives/device_primitives.hpp"

namespace strata::primitives {
namespace {

using device::Device;
using device::DeviceBuffer;
using device::Event;
using device::QueueKind;

device::DeviceSet& devices() {
  static device::DeviceSet set = [] {
    Config config;
    config.section<device::DeviceSettings>().kernel_cache_dir = "off";
    return device::discover_devices(config);
  }();
  return set;
}

template <typename T>
DeviceBuffer upload(Device& device, const std::vector<T>& values) {
  DeviceBuffer buffer = device.allocate(std::max<std::size_t>(values.size(), 1) * sizeof(T));
  if (!values.empty()) {
    device.queue(QueueKind::host_to_device)
        .copy_to_device(buffer, 0, values.data(), values.size() * sizeof(T))
        .wait();
  }
  return buffer;
}

template <typename T>
std::vector<T> download(Device& device, const DeviceBuffer& buffer, std::size_t count,
                        const Event& after) {
  if (after) after.wait();
  std::vector<T> values(count);
  if (count > 0) {
    device.queue(QueueKind::device_to_host)
        .copy_to_host(values.data(), buffer, 0, count * sizeof(T))
        .wait();
  }
  return values;
}

template <typename T>
std::vector<T> random_values(std::size_t count, std::uint64_t range, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::vector<T> out(count);
  for (auto& v : out)
    v = static_cast<T>(engine() % range);
  return out;
}

// Sizes at the edges of a tile on either backend (4,096 and 65,536 elements) and primes.
const std::vector<std::size_t> sizes{0, 1, 2, 7, 255, 4096, 4099, 65536, 65537, 300'007};

class Primitives : public ::testing::TestWithParam<std::size_t> {
 protected:
  Device& device() { return *devices().devices.at(GetParam()); }
};

template <typename T>
void check_scan(Device& device, DevicePrimitives& primitives, std::size_t n, bool inclusive,
                bool in_place) {
  SCOPED_TRACE(std::to_string(n) + (inclusive ? " inclusive" : " exclusive") +
               (in_place ? " in place" : ""));
  const std::vector<T> in = random_values<T>(n, 1000, static_cast<unsigned>(n + 3));
  DeviceBuffer din = upload(device, in);
  DeviceBuffer dout = device.allocate(std::max<std::size_t>(n, 1) * sizeof(T));
  const DeviceBuffer& target = in_place ? din : dout;
  const DeviceSpan from = span_of<T>(din, n);
  const DeviceSpan to = span_of<T>(target, n);
  const Event done =
      inclusive ? primitives.inclusive_scan(from, to) : primitives.exclusive_scan(from, to);
  const std::vector<T> got = download<T>(device, target, n, done);
  T sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!inclusive) {
      ASSERT_EQ(got[i], sum) << "element " << i;
    }
    sum += in[i];
    if (inclusive) {
      ASSERT_EQ(got[i], sum) << "element " << i;
    }
  }
}

TEST_P(Primitives, ScansEqualASequentialSum) {
  DevicePrimitives primitives(device());
  for (std::size_t n : sizes) {
    check_scan<std::uint32_t>(device(), primitives, n, false, false);
    check_scan<std::int64_t>(device(), primitives, n, true, false);
    check_scan<std::uint64_t>(device(), primitives, n, false, true);
    check_scan<std::int32_t>(device(), primitives, n, true, true);
    // Integers in floats below 2^24 (doubles 2^53) add exactly in any order.
    check_scan<float>(device(), primitives, std::min<std::size_t>(n, 4099), true, false);
    check_scan<double>(device(), primitives, n, false, false);
  }
}

TEST_P(Primitives, UnsignedScansWrapAround) {
  DevicePrimitives primitives(device());
  const std::vector<std::uint32_t> in(70'001, 0xffff'ffffu);
  DeviceBuffer din = upload(device(), in);
  const Event done = primitives.inclusive_scan(span_of<std::uint32_t>(din, in.size()),
                                               span_of<std::uint32_t>(din, in.size()));
  const auto got = download<std::uint32_t>(device(), din, in.size(), done);
  for (std::size_t i = 0; i < in.size(); ++i)
    ASSERT_EQ(got[i], static_cast<std::uint32_t>(0u - static_cast<std::uint32_t>(i + 1)));
}

template <typename T>
void check_compact(Device& device, DevicePrimitives& primitives, std::size_t n, int percent) {
  SCOPED_TRACE(std::to_string(n) + " elements, " + std::to_string(percent) + "% kept, " +
               std::to_string(sizeof(T)) + " bytes each");
  const std::vector<T> in = random_values<T>(n, 250, static_cast<unsigned>(n));
  std::vector<std::uint8_t> flags(n);
  std::mt19937 engine(static_cast<unsigned>(n * 7 + static_cast<unsigned>(percent)));
  for (auto& flag : flags)
    flag = static_cast<int>(engine() % 100) < percent
               ? static_cast<std::uint8_t>(1 + engine() % 200)
               : 0;
  std::vector<T> expected;
  for (std::size_t i = 0; i < n; ++i)
    if (flags[i] != 0) expected.push_back(in[i]);
  DeviceBuffer din = upload(device, in);
  DeviceBuffer dflags = upload(device, flags);
  DeviceBuffer dout = device.allocate(std::max<std::size_t>(n, 1) * sizeof(T));
  DeviceBuffer dkept = upload(device, std::vector<std::uint64_t>{12345});
  const Event done = primitives.compact(span_of<T>(din, n), span_of<std::uint8_t>(dflags, n),
                                        span_of<T>(dout, n), span_of<std::uint64_t>(dkept, 1));
  const auto kept = download<std::uint64_t>(device, dkept, 1, done);
  ASSERT_EQ(kept[0], expected.size());
  EXPECT_EQ(download<T>(device, dout, expected.size(), {}), expected);
}

TEST_P(Primitives, CompactionKeepsFlaggedElementsInOrder) {
  DevicePrimitives primitives(device());
  for (std::size_t n : sizes) {
    for (int percent : {0, 30, 100}) {
      check_compact<std::uint32_t>(device(), primitives, n, percent);
      check_compact<std::uint8_t>(device(), primitives, n, percent);
    }
    check_compact<double>(device(), primitives, n, 50);
    check_compact<std::uint16_t>(device(), primitives, n, 50);
  }
}

// Sorts `keys` with their indexes as values: the keys come out as std::stable_sort has them, and
// equal keys keep their order (their indexes ascend).
template <typename K, typename V>
void check_sort(Device& device, DevicePrimitives& primitives, const std::vector<K>& keys,
                const std::string& what) {
  SCOPED_TRACE(what + ", " + std::to_string(keys.size()) + " keys of " + std::to_string(sizeof(K)) +
               " bytes, values of " + std::to_string(sizeof(V)));
  const std::size_t n = keys.size();
  std::vector<V> values(n);
  std::iota(values.begin(), values.end(), V{0});
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  DeviceBuffer dkeys = upload(device, keys);
  DeviceBuffer dvalues = upload(device, values);
  const Event done = primitives.radix_sort(span_of<K>(dkeys, n), span_of<V>(dvalues, n));
  const auto sorted_keys = download<K>(device, dkeys, n, done);
  const auto sorted_values = download<V>(device, dvalues, n, {});
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(sorted_keys[i], keys[order[i]]) << "position " << i;
    ASSERT_EQ(sorted_values[i], static_cast<V>(order[i])) << "position " << i;
  }
}

TEST_P(Primitives, RadixSortIsAStableSort) {
  DevicePrimitives primitives(device());
  for (std::size_t n : sizes) {
    check_sort<std::uint32_t, std::uint32_t>(
        device(), primitives, random_values<std::uint32_t>(n, 1ull << 32, 1), "random");
    check_sort<std::uint64_t, std::uint32_t>(device(), primitives,
                                             random_values<std::uint64_t>(n, ~0ull, 2), "random");
    check_sort<std::uint32_t, std::uint64_t>(
        device(), primitives, std::vector<std::uint32_t>(n, 0xdeadbeefu), "all equal");
    check_sort<std::uint64_t, std::uint64_t>(device(), primitives,
                                             random_values<std::uint64_t>(n, 5, 3), "5 distinct");
    std::vector<std::uint32_t> distinct(n);
    std::iota(distinct.begin(), distinct.end(), 0u);
    std::shuffle(distinct.begin(), distinct.end(), std::mt19937(4));
    check_sort<std::uint32_t, std::uint32_t>(device(), primitives, distinct, "all distinct");
    // Keys that differ in their highest digit only (the last pass decides).
    std::vector<std::uint64_t> high(n);
    for (std::size_t i = 0; i < n; ++i)
      high[i] = (static_cast<std::uint64_t>((i * 2654435761u) % 16) << 60) | 0x0123456789abcdefull;
    check_sort<std::uint64_t, std::uint32_t>(device(), primitives, high, "high digits");
  }
}

// The order a float sort must give: IEEE 754's totalOrder on the bits (-NaN first, -0 before
// +0, +NaN last), which is the order of the keys' mapped bits.
template <typename F, typename U>
U total_order_bits(F value) {
  U bits;
  std::memcpy(&bits, &value, sizeof bits);
  constexpr U top = U{1} << (sizeof(U) * 8 - 1);
  return (bits & top) != 0 ? static_cast<U>(~bits) : bits ^ top;
}

template <typename F, typename U>
void check_float_sort(Device& device, DevicePrimitives& primitives, std::size_t n) {
  SCOPED_TRACE(std::to_string(n) + " floats of " + std::to_string(sizeof(F)) + " bytes");
  std::mt19937_64 engine(n);
  const F specials[] = {std::numeric_limits<F>::quiet_NaN(),
                        -std::numeric_limits<F>::quiet_NaN(),
                        std::numeric_limits<F>::infinity(),
                        -std::numeric_limits<F>::infinity(),
                        F{0},
                        -F{0},
                        std::numeric_limits<F>::denorm_min(),
                        -std::numeric_limits<F>::denorm_min(),
                        std::numeric_limits<F>::max(),
                        std::numeric_limits<F>::lowest()};
  std::vector<F> keys(n);
  for (auto& key : keys) {
    key = engine() % 4 == 0 ? specials[engine() % std::size(specials)]
                            : static_cast<F>(static_cast<double>(engine() % 2001) - 1000.0) / 7;
  }
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
    return total_order_bits<F, U>(keys[a]) < total_order_bits<F, U>(keys[b]);
  });
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  DeviceBuffer dkeys = upload(device, keys);
  DeviceBuffer dvalues = upload(device, values);
  const Event done =
      primitives.radix_sort(span_of<F>(dkeys, n), span_of<std::uint32_t>(dvalues, n));
  const auto sorted = download<F>(device, dkeys, n, done);
  const auto moved = download<std::uint32_t>(device, dvalues, n, {});
  for (std::size_t i = 0; i < n; ++i) {
    // Bit for bit: -0 and +0, and each NaN, are where the order puts them.
    const U got = total_order_bits<F, U>(sorted[i]);
    const U expected = total_order_bits<F, U>(keys[order[i]]);
    ASSERT_EQ(got, expected) << "position " << i;
    ASSERT_EQ(moved[i], order[i]) << "position " << i;
  }
}

template <typename S>
void check_signed_sort(Device& device, DevicePrimitives& primitives, std::size_t n) {
  std::mt19937_64 engine(n + 1);
  std::vector<S> keys(n);
  for (auto& key : keys)
    key = static_cast<S>(engine());
  if (n > 2) {
    keys[0] = std::numeric_limits<S>::min();
    keys[1] = std::numeric_limits<S>::max();
    keys[2] = -1;
  }
  DeviceBuffer dkeys = upload(device, keys);
  const Event done = primitives.radix_sort(span_of<S>(dkeys, n), {});
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(download<S>(device, dkeys, n, done), keys) << n << " keys of " << sizeof(S) << " bytes";
}

TEST_P(Primitives, SignedAndFloatKeysSortInTheirOrder) {
  DevicePrimitives primitives(device());
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{4099}, std::size_t{65537}}) {
    check_float_sort<float, std::uint32_t>(device(), primitives, n);
    check_float_sort<double, std::uint64_t>(device(), primitives, n);
    check_signed_sort<std::int32_t>(device(), primitives, n);
    check_signed_sort<std::int64_t>(device(), primitives, n);
  }
}

// The order keys sort in, as unsigned bits: floats by total_order_bits, signed integers with
// their sign bit flipped, unsigned as they are.
template <typename K, typename U>
U order_bits(K key) {
  if constexpr (std::is_floating_point_v<K>) {
    return total_order_bits<K, U>(key);
  } else {
    U bits;
    std::memcpy(&bits, &key, sizeof bits);
    return std::is_signed_v<K> ? bits ^ (U{1} << (sizeof(U) * 8 - 1)) : bits;
  }
}

// group_by and group_sums against a std::map of the keys' bits.
template <typename K, typename U>
void check_grouping(Device& device, DevicePrimitives& primitives, const std::vector<K>& keys,
                    const std::string& what) {
  SCOPED_TRACE(what + ", " + std::to_string(keys.size()) + " keys of " + std::to_string(sizeof(K)) +
               " bytes");
  const std::size_t n = keys.size();
  std::map<U, std::vector<std::uint32_t>> expected;  // by order bits: the records of each key
  for (std::size_t i = 0; i < n; ++i)
    expected[order_bits<K, U>(keys[i])].push_back(static_cast<std::uint32_t>(i));
  std::vector<std::int64_t> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = static_cast<std::int64_t>(i % 1000) - 300;
  DeviceBuffer dkeys = upload(device, keys);
  DeviceBuffer dvalues = upload(device, values);
  const std::size_t room = std::max<std::size_t>(n, 1);
  DeviceBuffer group_of = device.allocate(room * 4), order = device.allocate(room * 4),
               group_keys = device.allocate(room * sizeof(K)), starts = device.allocate(room * 4),
               group_sizes = device.allocate(room * 4), groups = device.allocate(8),
               sums = device.allocate(room * 8);
  const Grouping grouping{span_of<std::uint32_t>(group_of, n),
                          span_of<std::uint32_t>(order, n),
                          span_of<K>(group_keys, n),
                          span_of<std::uint32_t>(starts, n),
                          span_of<std::uint32_t>(group_sizes, n),
                          span_of<std::uint64_t>(groups, 1)};
  const Event grouped = primitives.group_by(span_of<K>(dkeys, n), grouping);
  const Event summed =
      primitives.group_sums(span_of<std::int64_t>(dvalues, n), grouping,
                            span_of<std::int64_t>(sums, n), std::span(&grouped, grouped ? 1 : 0));
  const std::uint64_t count = download<std::uint64_t>(device, groups, 1, summed)[0];
  ASSERT_EQ(count, expected.size());
  const auto got_of = download<std::uint32_t>(device, group_of, n, {});
  const auto got_order = download<std::uint32_t>(device, order, n, {});
  const auto got_keys = download<K>(device, group_keys, count, {});
  const auto got_starts = download<std::uint32_t>(device, starts, count, {});
  const auto got_sizes = download<std::uint32_t>(device, group_sizes, count, {});
  const auto got_sums = download<std::int64_t>(device, sums, count, {});
  std::size_t g = 0;
  for (const auto& [bits, records] : expected) {
    const U got_bits = order_bits<K, U>(got_keys[g]);
    ASSERT_EQ(got_bits, bits) << "group " << g;
    ASSERT_EQ(got_sizes[g], records.size()) << "group " << g;
    std::int64_t sum = 0;
    for (std::size_t r = 0; r < records.size(); ++r) {
      ASSERT_EQ(got_order[got_starts[g] + r], records[r]) << "group " << g << ", record " << r;
      ASSERT_EQ(got_of[records[r]], g) << "record " << records[r];
      sum += values[records[r]];
    }
    ASSERT_EQ(got_sums[g], sum) << "group " << g;
    ++g;
  }
}

TEST_P(Primitives, GroupByGivesDenseIdsInKeyOrderSizesOrderAndSums) {
  DevicePrimitives primitives(device());
  for (std::size_t n : sizes) {
    if (n > 65537) continue;  // the std::map reference is the slow part
    check_grouping<std::uint32_t, std::uint32_t>(
        device(), primitives, random_values<std::uint32_t>(n, 1000, 21), "1000 distinct");
    check_grouping<std::uint64_t, std::uint64_t>(
        device(), primitives, random_values<std::uint64_t>(n, ~0ull, 22), "all distinct");
    check_grouping<std::int32_t, std::uint32_t>(device(), primitives,
                                                std::vector<std::int32_t>(n, -5), "all equal");
  }
  // Floats: -0 and +0 are two groups, a NaN is its own key, negative keys first.
  std::vector<double> floats;
  for (int i = 0; i < 10'000; ++i) {
    const double choices[] = {0.0,  -0.0, std::numeric_limits<double>::quiet_NaN(),
                              -1.5, 2.25, -std::numeric_limits<double>::infinity()};
    floats.push_back(choices[(i * 7919) % 6]);
  }
  check_grouping<double, std::uint64_t>(device(), primitives, floats, "six float keys");
}

// aggregate_by_key against a std::map of the keys' bits: the same groups, counts and sums, in
// whatever order the device gives them.
template <typename K, typename U, typename V>
void check_aggregate(Device& device, DevicePrimitives& primitives, const std::vector<K>& keys,
                     const std::string& what) {
  SCOPED_TRACE(what + ", " + std::to_string(keys.size()) + " keys of " + std::to_string(sizeof(K)) +
               " bytes");
  const std::size_t n = keys.size();
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = static_cast<V>(i % 997);
  std::map<U, std::pair<std::uint32_t, V>> expected;
  for (std::size_t i = 0; i < n; ++i) {
    auto& [count, sum] = expected[order_bits<K, U>(keys[i])];
    ++count;
    sum += values[i];
  }
  const std::size_t room = std::max<std::size_t>(n, 1);
  DeviceBuffer dkeys = upload(device, keys), dvalues = upload(device, values);
  DeviceBuffer group_keys = device.allocate(room * sizeof(K)), counts = device.allocate(room * 4),
               sums = device.allocate(room * sizeof(V)), groups = device.allocate(8);
  const Event done = primitives.aggregate_by_key(
      span_of<K>(dkeys, n), span_of<V>(dvalues, n), span_of<K>(group_keys, n),
      span_of<std::uint32_t>(counts, n), span_of<V>(sums, n), span_of<std::uint64_t>(groups, 1));
  const std::uint64_t count = download<std::uint64_t>(device, groups, 1, done)[0];
  ASSERT_EQ(count, expected.size());
  const auto got_keys = download<K>(device, group_keys, count, {});
  const auto got_counts = download<std::uint32_t>(device, counts, count, {});
  const auto got_sums = download<V>(device, sums, count, {});
  std::map<U, std::pair<std::uint32_t, V>> got;
  for (std::size_t g = 0; g < count; ++g) {
    const bool added =
        got.emplace(order_bits<K, U>(got_keys[g]), std::pair{got_counts[g], got_sums[g]}).second;
    ASSERT_TRUE(added) << "group " << g << " repeats a key";
  }
  EXPECT_EQ(got, expected);
}

TEST_P(Primitives, AggregateByKeyCountsAndSumsEachKey) {
  DevicePrimitives primitives(device());
  for (std::size_t n : sizes) {
    check_aggregate<std::uint32_t, std::uint32_t, std::int64_t>(
        device(), primitives, random_values<std::uint32_t>(n, 1000, 31), "1000 distinct");
    check_aggregate<std::uint64_t, std::uint64_t, std::uint32_t>(
        device(), primitives, random_values<std::uint64_t>(n, ~0ull, 32), "all distinct");
    check_aggregate<std::int32_t, std::uint32_t, double>(
        device(), primitives, std::vector<std::int32_t>(n, 7), "all equal");
  }
  // Keys that collide in the CPU's hash: one partition, the same low 16 bits (one probe chain).
  for (std::uint64_t hash : {std::uint64_t{0}, std::uint64_t{1} << 16, ~std::uint64_t{0}})
    ASSERT_EQ(detail::hash_of_key(detail::key_of_hash(hash)), hash);
  std::vector<std::uint64_t> colliding(70'000);
  for (std::size_t i = 0; i < colliding.size(); ++i)
    colliding[i] = detail::key_of_hash((std::uint64_t{i % 3000 + 1}) << 16);
  check_aggregate<std::uint64_t, std::uint64_t, std::int64_t>(device(), primitives, colliding,
                                                              "3000 keys of colliding hashes");
  // Keys whose first slot in the CPU's tables is the same at every table size (their products
  // with slot_multiplier are small: equal top bits), in many partitions.
  ASSERT_EQ(detail::key_of_slot_product(12345) * detail::slot_multiplier, 12345u);
  std::vector<std::uint64_t> same_slot(70'000);
  for (std::size_t i = 0; i < same_slot.size(); ++i)
    same_slot[i] = detail::key_of_slot_product(i % 3000 + 1);
  check_aggregate<std::uint64_t, std::uint64_t, std::int64_t>(device(), primitives, same_slot,
                                                              "3000 keys of one first slot");
  // Keys that differ only in their high bits.
  std::vector<std::uint64_t> high(70'000);
  for (std::size_t i = 0; i < high.size(); ++i)
    high[i] = static_cast<std::uint64_t>(i % 300) << 32;
  check_aggregate<std::uint64_t, std::uint64_t, std::int64_t>(device(), primitives, high,
                                                              "high bits only");
  std::vector<float> floats;
  for (int i = 0; i < 10'000; ++i) {
    const float choices[] = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), -1.5f};
    floats.push_back(choices[(i * 7919) % 4]);
  }
  check_aggregate<float, std::uint32_t, std::int64_t>(device(), primitives, floats,
                                                      "four float keys");
}

// `n` keys drawn from `distinct` random 32-bit keys.
std::vector<std::uint32_t> keys_from_pool(std::size_t n, std::size_t distinct, unsigned seed) {
  const auto pool = random_values<std::uint32_t>(distinct, std::uint64_t{1} << 32, seed);
  const auto picks = random_values<std::size_t>(n, distinct, seed + 1);
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = pool[picks[i]];
  return keys;
}

// The CPU device's tables per tile (65,536 records) and per partition where they grow
// (a table of 4,096 slots doubles past 256 groups, 8,192 past 512, 16,384 past 1,024 and then
// holds a quarter: 32,768 past 8,192), with few keys over many tiles, and a table kept from a call
// or tile with many groups for one with few (it shrinks) and the other way round.
TEST_P(Primitives, AggregateByKeyAtEveryTableSize) {
  if (device().info().backend != device::BackendKind::cpu) GTEST_SKIP() << "CPU device only";
  DevicePrimitives primitives(device());
  const std::size_t n = 5 * 65'536 + 17;
  for (std::size_t distinct : {1, 5, 256, 257, 1024, 1025, 8192, 8193, 70'000, 1000, 3}) {
    check_aggregate<std::uint32_t, std::uint32_t, std::int64_t>(
        device(), primitives, keys_from_pool(n, distinct, static_cast<unsigned>(distinct)),
        std::to_string(distinct) + " random keys");
  }
  // Tiles of 10 keys, then 60,000 distinct ones, then 10 again, then 2,000, then all distinct.
  std::vector<std::uint64_t> mixed;
  const auto tile_of = [&](std::size_t distinct, unsigned seed) {
    const auto pool = random_values<std::uint64_t>(distinct, ~std::uint64_t{0}, seed);
    for (std::size_t i = 0; i < 65'536; ++i)
      mixed.push_back(pool[i % distinct]);
  };
  tile_of(10, 1);
  tile_of(60'000, 2);
  tile_of(10, 1);
  tile_of(2000, 3);
  tile_of(65'536, 4);
  check_aggregate<std::uint64_t, std::uint64_t, std::int32_t>(device(), primitives, mixed,
                                                              "tiles of few and many keys");
}

// The offsets of segments of these sizes, from `start` on (values before it in no segment).
template <typename O>
std::vector<O> offsets_of(const std::vector<std::uint64_t>& segment_sizes, std::uint64_t start) {
  std::vector<O> offsets{static_cast<O>(start)};
  for (std::uint64_t size : segment_sizes)
    offsets.push_back(static_cast<O>(offsets.back() + size));
  return offsets;
}

// A segment's reduction as the header defines it, in order: 0, the type's largest or lowest
// value (±inf for floats) when empty; NaNs skipped by min and max.
template <typename T>
T reference_reduce(const std::vector<T>& values, std::uint64_t from, std::uint64_t to,
                   Reduction reduction) {
  T r = 0;
  if (reduction == Reduction::min) {
    r = std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity()
                                    : std::numeric_limits<T>::max();
  } else if (reduction == Reduction::max) {
    r = std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                    : std::numeric_limits<T>::lowest();
  }
  for (std::uint64_t i = from; i < to; ++i) {
    if (reduction == Reduction::sum) r += values[i];
    if (reduction == Reduction::min && values[i] < r) r = values[i];
    if (reduction == Reduction::max && values[i] > r) r = values[i];
  }
  return r;
}

// segmented_reduce of `values` in segments of these sizes against reference_reduce; float sums
// within a relative 1e-5 (f32) or 1e-12 (f64) of the sequential sum, the rest exactly.
template <typename T, typename O>
void check_segments(Device& device, DevicePrimitives& primitives, const std::vector<T>& values,
                    const std::vector<std::uint64_t>& segment_sizes, std::uint64_t start,
                    Reduction reduction, const std::string& what) {
  SCOPED_TRACE(what + ", " + std::to_string(values.size()) + " values of " +
               std::to_string(sizeof(T)) + " bytes, " + std::to_string(segment_sizes.size()) +
               " segments, offsets of " + std::to_string(sizeof(O)) + " bytes, reduction " +
               std::to_string(static_cast<int>(reduction)));
  const std::vector<O> offsets = offsets_of<O>(segment_sizes, start);
  ASSERT_LE(offsets.back(), values.size());
  const std::size_t segments = segment_sizes.size();
  DeviceBuffer dvalues = upload(device, values), doffsets = upload(device, offsets);
  DeviceBuffer dout = device.allocate(std::max<std::size_t>(segments, 1) * sizeof(T));
  const Event done = primitives.segmented_reduce(span_of<T>(dvalues, values.size()),
                                                 span_of<O>(doffsets, offsets.size()),
                                                 span_of<T>(dout, segments), reduction);
  const auto got = download<T>(device, dout, segments, done);
  for (std::size_t s = 0; s < segments; ++s) {
    const T expected = reference_reduce(values, offsets[s], offsets[s + 1], reduction);
    if constexpr (std::is_floating_point_v<T>) {
      if (reduction == Reduction::sum) {
        const double tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-12;
        double magnitude = 0;  // of the terms: the sum's rounding error is relative to it
        for (std::uint64_t i = offsets[s]; i < offsets[s + 1]; ++i)
          magnitude += std::abs(static_cast<double>(values[i]));
        ASSERT_NEAR(got[s], expected, tolerance * (magnitude + 1)) << "segment " << s;
        continue;
      }
    }
    ASSERT_EQ(got[s], expected) << "segment " << s;
  }
}

// Segment sizes in [0, largest], about a fifth of them empty, adding up to at most `total`.
std::vector<std::uint64_t> random_sizes(std::uint64_t total, std::uint64_t largest, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::vector<std::uint64_t> segment_sizes;
  std::uint64_t used = 0;
  while (used < total) {
    const std::uint64_t size =
        engine() % 5 == 0 ? 0 : std::min<std::uint64_t>(engine() % (largest + 1), total - used);
    segment_sizes.push_back(size);
    used += size;
  }
  return segment_sizes;
}

TEST_P(Primitives, SegmentedReduceSumsEachSegment) {
  DevicePrimitives primitives(device());
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1009}, std::size_t{65537},
                        std::size_t{300'007}}) {
    const auto ints = random_values<std::int64_t>(n, 2000, static_cast<unsigned>(n + 41));
    const auto words = random_values<std::uint32_t>(n, 1ull << 32, static_cast<unsigned>(n + 42));
    std::vector<double> doubles(n);
    std::vector<float> floats(n);
    for (std::size_t i = 0; i < n; ++i) {
      doubles[i] = static_cast<double>(ints[i]) / 7.0 - 100.0;
      floats[i] = static_cast<float>(doubles[i]);
    }
    // One segment of everything, and one of all but the first and last values.
    check_segments<std::int64_t, std::uint32_t>(device(), primitives, ints, {n}, 0, Reduction::sum,
                                                "one segment");
    if (n > 2) {
      check_segments<std::uint32_t, std::uint64_t>(device(), primitives, words, {n - 2}, 1,
                                                   Reduction::sum, "values outside the segment");
    }
    // Many small segments (and empty ones), and segments larger than a tile on either backend.
    check_segments<std::uint32_t, std::uint32_t>(device(), primitives, words,
                                                 random_sizes(n, 20, 1), 0, Reduction::sum,
                                                 "small segments, unsigned sums wrap");
    check_segments<std::int64_t, std::uint64_t>(device(), primitives, ints,
                                                random_sizes(n, 200'000, 2), 0, Reduction::sum,
                                                "segments over tiles");
    check_segments<float, std::uint32_t>(device(), primitives, floats, random_sizes(n, 9000, 3), 0,
                                         Reduction::sum, "float sums");
    check_segments<double, std::uint64_t>(device(), primitives, doubles, random_sizes(n, 70'000, 4),
                                          0, Reduction::sum, "double sums");
    check_segments<std::int32_t, std::uint32_t>(
        device(), primitives, std::vector<std::int32_t>(n, -3), random_sizes(n, 5000, 5), 0,
        Reduction::sum, "all equal");
  }
  // Empty segments only, over no values and over some.
  check_segments<std::int32_t, std::uint32_t>(device(), primitives, {}, {0, 0, 0}, 0,
                                              Reduction::sum, "no values");
  check_segments<double, std::uint64_t>(device(), primitives, {1.0, 2.0}, {0, 0}, 1, Reduction::sum,
                                        "empty segments");
  // No segments at all: nothing written.
  check_segments<std::int32_t, std::uint32_t>(device(), primitives, {4, 5}, {}, 0, Reduction::sum,
                                              "no segments");
}

TEST_P(Primitives, SegmentedReduceMinAndMax) {
  DevicePrimitives primitives(device());
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1009}, std::size_t{65537}}) {
    const auto ints = random_values<std::uint64_t>(n, ~0ull, static_cast<unsigned>(n + 51));
    std::vector<std::int32_t> signed_ints(n);
    std::vector<float> floats(n);
    std::mt19937 engine(static_cast<unsigned>(n));
    for (std::size_t i = 0; i < n; ++i) {
      signed_ints[i] = static_cast<std::int32_t>(ints[i]);
      // NaNs now and then, which min and max skip; ±inf and -0 among the rest.
      const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity(), -0.0f};
      floats[i] = engine() % 10 == 0 ? specials[engine() % 4]
                                     : static_cast<float>(static_cast<int>(engine() % 2001) - 1000);
    }
    for (Reduction reduction : {Reduction::min, Reduction::max}) {
      check_segments<std::int32_t, std::uint32_t>(device(), primitives, signed_ints,
                                                  random_sizes(n, 30, 6), 0, reduction,
                                                  "small segments");
      check_segments<std::uint64_t, std::uint64_t>(device(), primitives, ints,
                                                   random_sizes(n, 20'000, 7), 0, reduction,
                                                   "segments over tiles");
      check_segments<float, std::uint32_t>(device(), primitives, floats, random_sizes(n, 3000, 8),
                                           0, reduction, "floats with NaNs");
      check_segments<double, std::uint32_t>(device(), primitives,
                                            std::vector<double>(n, std::nan("")),
                                            random_sizes(n, 100, 9), 0, reduction, "NaNs only");
    }
  }
}

TEST_P(Primitives, SegmentedReduceRefusesBadOffsets) {
  DevicePrimitives primitives(device());
  const std::vector<std::int32_t> values(100, 1);
  DeviceBuffer dvalues = upload(device(), values);
  DeviceBuffer dout = device().allocate(16 * 4);
  const auto message = [](const auto& call) -> std::string {
    try {
      call();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  const auto reduce = [&](const std::vector<std::uint32_t>& offsets) {
    DeviceBuffer doffsets = upload(device(), offsets);
    primitives
        .segmented_reduce(span_of<std::int32_t>(dvalues, values.size()),
                          span_of<std::uint32_t>(doffsets, offsets.size()),
                          span_of<std::int32_t>(dout, offsets.size() - 1))
        .wait();
  };
  // Checked on the host: one more offset than segments, of u32 or u64.
  DeviceBuffer doffsets = upload(device(), std::vector<std::uint32_t>{0, 10, 20});
  EXPECT_NE(message([&] {
              primitives.segmented_reduce(span_of<std::int32_t>(dvalues, 100),
                                          span_of<std::uint32_t>(doffsets, 3),
                                          span_of<std::int32_t>(dout, 3));
            }).find("3 u32 offsets for 3 segments given"),
            std::string::npos);
  EXPECT_NE(message([&] {
              primitives.segmented_reduce(span_of<std::int32_t>(dvalues, 100),
                                          span_of<std::uint32_t>(doffsets, 3),
                                          span_of<std::int64_t>(dout, 2));
            }).find("segmented_reduce: reduces"),
            std::string::npos);
  // On the device: the CPU device names the segment; OpenCL and CUDA clamp (no stray accesses).
  const std::string decreasing = message([&] { reduce({0, 10, 5, 20}); });
  const std::string past = message([&] { reduce({0, 10, 101}); });
  if (device().info().backend == device::BackendKind::cpu) {
    EXPECT_NE(decreasing.find("segmented_reduce: offsets[2] = 5 is below offsets[1] = 10"),
              std::string::npos)
        << decreasing;
    EXPECT_NE(past.find("segmented_reduce: offsets[2] = 101 is past the 100 values"),
              std::string::npos)
        << past;
  } else {
    EXPECT_EQ(decreasing, "no error");
    EXPECT_EQ(past, "no error");
  }
  // Good offsets after bad ones work.
  check_segments<std::int32_t, std::uint32_t>(device(), primitives, values, {10, 0, 90}, 0,
                                              Reduction::sum, "after bad offsets");
}

// hash_join against a std::multimap of the build keys (equal keys in insertion order, so each
// probe key's matches come by build index): the full count, and the first `capacity` pairs (all
// of them when capacity is not given) by probe index, then build index.
template <typename K>
void check_join(Device& device, DevicePrimitives& primitives, const std::vector<K>& build,
                const std::vector<K>& probe, const std::string& what,
                std::optional<std::uint64_t> capacity = {}) {
  SCOPED_TRACE(what + ", " + std::to_string(build.size()) + " build and " +
               std::to_string(probe.size()) + " probe keys of " + std::to_string(sizeof(K)) +
               " bytes" + (capacity ? ", room for " + std::to_string(*capacity) : ""));
  std::multimap<K, std::uint32_t> table;
  for (std::size_t b = 0; b < build.size(); ++b)
    table.emplace(build[b], static_cast<std::uint32_t>(b));
  std::vector<std::uint32_t> expected_build, expected_probe;
  for (std::size_t p = 0; p < probe.size(); ++p) {
    const auto [from, to] = table.equal_range(probe[p]);
    for (auto it = from; it != to; ++it) {
      expected_build.push_back(it->second);
      expected_probe.push_back(static_cast<std::uint32_t>(p));
    }
  }
  const std::uint64_t room = capacity ? *capacity : expected_build.size();
  const std::uint64_t written = std::min<std::uint64_t>(room, expected_build.size());
  DeviceBuffer dbuild = upload(device, build), dprobe = upload(device, probe);
  // One more than the room, marked: a pair past the capacity would overwrite the mark.
  constexpr std::uint32_t mark = 0xabcd'ef01u;
  const std::vector<std::uint32_t> marks(room + 1, mark);
  DeviceBuffer out_build = upload(device, marks), out_probe = upload(device, marks);
  DeviceBuffer matches = upload(device, std::vector<std::uint64_t>{12345});
  const Event done = primitives.hash_join(
      span_of<K>(dbuild, build.size()), span_of<K>(dprobe, probe.size()),
      span_of<std::uint32_t>(out_build, room), span_of<std::uint32_t>(out_probe, room),
      span_of<std::uint64_t>(matches, 1));
  ASSERT_EQ(download<std::uint64_t>(device, matches, 1, done)[0], expected_build.size());
  const auto got_build = download<std::uint32_t>(device, out_build, room + 1, {});
  const auto got_probe = download<std::uint32_t>(device, out_probe, room + 1, {});
  for (std::uint64_t j = 0; j < written; ++j) {
    ASSERT_EQ(got_probe[j], expected_probe[j]) << "pair " << j;
    ASSERT_EQ(got_build[j], expected_build[j]) << "pair " << j;
  }
  for (std::uint64_t j = written; j <= room; ++j) {
    ASSERT_EQ(got_build[j], mark) << "past the pairs, at " << j;
    ASSERT_EQ(got_probe[j], mark) << "past the pairs, at " << j;
  }
}

TEST_P(Primitives, HashJoinGivesEveryPairByProbeThenBuildIndex) {
  DevicePrimitives primitives(device());
  const std::vector<std::size_t> join_sizes{0, 1, 1009, 65537};
  for (std::size_t m : join_sizes) {
    for (std::size_t n : join_sizes) {
      const auto seed = static_cast<unsigned>(m * 31 + n);
      // About one match per probe key, and a few per key (keys from a quarter of the range).
      const std::uint64_t few = std::max<std::uint64_t>(64, m / 4);
      check_join<std::uint32_t>(device(), primitives, random_values<std::uint32_t>(m, m + 1, seed),
                                random_values<std::uint32_t>(n, m + 1, seed + 1), "random");
      check_join<std::int64_t>(device(), primitives, random_values<std::int64_t>(m, few, seed + 2),
                               random_values<std::int64_t>(n, few, seed + 3), "a few per key");
    }
  }
  check_join<std::uint64_t>(device(), primitives, random_values<std::uint64_t>(65537, 100'000, 7),
                            random_values<std::uint64_t>(300'007, 100'000, 8),
                            "a larger probe side");
  // All keys equal: every pair, m * n of them.
  check_join<std::int32_t>(device(), primitives, std::vector<std::int32_t>(101, -7),
                           std::vector<std::int32_t>(307, -7), "all equal");
  // All distinct: a shuffled build side, probed by every other key of it and keys it lacks.
  std::vector<std::uint32_t> distinct(65537);
  std::iota(distinct.begin(), distinct.end(), 0u);
  std::shuffle(distinct.begin(), distinct.end(), std::mt19937(9));
  std::vector<std::uint32_t> probes;
  for (std::uint32_t k = 0; k < 140'000; k += 2)
    probes.push_back(k);
  std::shuffle(probes.begin(), probes.end(), std::mt19937(10));
  check_join<std::uint32_t>(device(), primitives, distinct, probes, "all distinct");
  // No matches: even build keys, odd probe keys; negative keys among them.
  std::vector<std::int64_t> even(1009), odd(65537);
  for (std::size_t i = 0; i < even.size(); ++i)
    even[i] = 2 * static_cast<std::int64_t>(i) - 1000;
  for (std::size_t i = 0; i < odd.size(); ++i)
    odd[i] = 2 * static_cast<std::int64_t>(i % 1009) - 999;
  check_join<std::int64_t>(device(), primitives, even, odd, "no matches");
  // Keys that collide in the CPU's hash: the same low 16 bits (one probe chain), 3000 distinct
  // keys 3 times each, probed by every one of them and by colliding keys not built.
  std::vector<std::uint64_t> colliding(9000), colliding_probes(7000);
  for (std::size_t i = 0; i < colliding.size(); ++i)
    colliding[i] = detail::key_of_hash((std::uint64_t{i % 3000 + 1}) << 16);
  for (std::size_t i = 0; i < colliding_probes.size(); ++i)
    colliding_probes[i] = detail::key_of_hash((std::uint64_t{(i * 7) % 3500 + 1}) << 16);
  check_join<std::uint64_t>(device(), primitives, colliding, colliding_probes,
                            "keys of colliding hashes");
}

TEST_P(Primitives, HashJoinCountsEveryPairPastItsCapacity) {
  DevicePrimitives primitives(device());
  const auto build = random_values<std::uint32_t>(1009, 50, 11);
  const auto probe = random_values<std::uint32_t>(65537, 60, 12);
  for (std::uint64_t capacity : {0ull, 1ull, 1000ull, 500'000ull})
    check_join<std::uint32_t>(device(), primitives, build, probe, "too little room", capacity);
  check_join<std::int32_t>(device(), primitives, std::vector<std::int32_t>(101, 3),
                           std::vector<std::int32_t>(307, 3), "all equal, room for half",
                           101 * 307 / 2);
}

TEST_P(Primitives, SegmentedReduceAndJoinOfSpansAtAnOffset) {
  DevicePrimitives primitives(device());
  // Values 0..99 from element 10 on, offsets from element 1, sums from element 2.
  std::vector<std::int64_t> values(110, 1000);
  std::iota(values.begin() + 10, values.end(), std::int64_t{0});
  DeviceBuffer dvalues = upload(device(), values);
  DeviceBuffer doffsets = upload(device(), std::vector<std::uint64_t>{77, 0, 10, 10, 100});
  DeviceBuffer dsums = upload(device(), std::vector<std::int64_t>(6, -1));
  Event done = primitives.segmented_reduce(DeviceSpan{&dvalues, device::ElementType::i64, 10, 100},
                                           DeviceSpan{&doffsets, device::ElementType::u64, 1, 4},
                                           DeviceSpan{&dsums, device::ElementType::i64, 2, 3});
  EXPECT_EQ(download<std::int64_t>(device(), dsums, 6, done),
            (std::vector<std::int64_t>{-1, -1, 45, 0, 4905, -1}));
  // Build keys {5, 6, 5} from element 2, probe keys {6, 5} from element 1, pairs from element 1.
  DeviceBuffer dbuild = upload(device(), std::vector<std::uint32_t>{9, 9, 5, 6, 5});
  DeviceBuffer dprobe = upload(device(), std::vector<std::uint32_t>{5, 6, 5});
  DeviceBuffer out_build = upload(device(), std::vector<std::uint32_t>(5, 99));
  DeviceBuffer out_probe = upload(device(), std::vector<std::uint32_t>(5, 99));
  DeviceBuffer matches = upload(device(), std::vector<std::uint64_t>{7, 7});
  done = primitives.hash_join(DeviceSpan{&dbuild, device::ElementType::u32, 2, 3},
                              DeviceSpan{&dprobe, device::ElementType::u32, 1, 2},
                              DeviceSpan{&out_build, device::ElementType::u32, 1, 3},
                              DeviceSpan{&out_probe, device::ElementType::u32, 1, 3},
                              DeviceSpan{&matches, device::ElementType::u64, 1, 1});
  EXPECT_EQ(download<std::uint64_t>(device(), matches, 2, done),
            (std::vector<std::uint64_t>{7, 3}));
  EXPECT_EQ(download<std::uint32_t>(device(), out_build, 5, {}),
            (std::vector<std::uint32_t>{99, 1, 0, 2, 99}));
  EXPECT_EQ(download<std::uint32_t>(device(), out_probe, 5, {}),
            (std::vector<std::uint32_t>{99, 0, 1, 1, 99}));
}

TEST_P(Primitives, HashJoinRefusesFloatsAndMixedKeys) {
  DevicePrimitives primitives(device());
  DeviceBuffer small = device().allocate(64);
  const auto message = [&](device::ElementType build, device::ElementType probe) -> std::string {
    try {
      primitives.hash_join(DeviceSpan{&small, build, 0, 2}, DeviceSpan{&small, probe, 0, 2},
                           span_of<std::uint32_t>(small, 4), span_of<std::uint32_t>(small, 4),
                           span_of<std::uint64_t>(small, 1));
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  using device::ElementType;
  EXPECT_NE(message(ElementType::f32, ElementType::f32).find("hash_join: joins i32, u32"),
            std::string::npos);
  EXPECT_NE(message(ElementType::u32, ElementType::i32).find("(u32 and i32 given)"),
            std::string::npos);
}

TEST_P(Primitives, RadixSortOfKeysAlone) {
  DevicePrimitives primitives(device());
  std::vector<std::uint64_t> keys = random_values<std::uint64_t>(100'003, ~0ull, 9);
  DeviceBuffer dkeys = upload(device(), keys);
  const Event done = primitives.radix_sort(span_of<std::uint64_t>(dkeys, keys.size()), {});
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(download<std::uint64_t>(device(), dkeys, keys.size(), done), keys);
}

TEST_P(Primitives, SpansAtAnOffsetLeaveTheRestAlone) {
  DevicePrimitives primitives(device());
  std::vector<std::uint32_t> keys = random_values<std::uint32_t>(10'000, 1000, 5);
  DeviceBuffer dkeys = upload(device(), keys);
  const Event done =
      primitives.radix_sort(DeviceSpan{&dkeys, device::ElementType::u32, 100, 5000}, {});
  std::sort(keys.begin() + 100, keys.begin() + 5100);
  EXPECT_EQ(download<std::uint32_t>(device(), dkeys, keys.size(), done), keys);
}

TEST_P(Primitives, BadSpansAreErrorsNamingTheOperation) {
  DevicePrimitives primitives(device());
  DeviceBuffer small = device().allocate(64);
  const auto message = [](const auto& call) -> std::string {
    try {
      call();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message([&] {
              primitives.exclusive_scan(span_of<std::uint32_t>(small, 100),
                                        span_of<std::uint32_t>(small, 100));
            }).find("exclusive_scan: the input (100 elements of u32"),
            std::string::npos);
  EXPECT_NE(message([&] {
              primitives.radix_sort(span_of<std::uint8_t>(small, 4), {});
            }).find("radix_sort: sorts i32, u32, i64, u64, f32 or f64 keys (u8 given)"),
            std::string::npos);
  EXPECT_NE(message([&] {
              primitives.compact(span_of<std::uint32_t>(small, 4), span_of<std::uint32_t>(small, 4),
                                 span_of<std::uint32_t>(small, 4),
                                 span_of<std::uint64_t>(small, 1));
            }).find("compact: takes as many u8 flags"),
            std::string::npos);
}

// 10^8 keys on the CPU device (the accelerators' run in bench/primitives): sorted, and the same
// multiset (sum and xor of the keys), scanned exactly.
TEST_P(Primitives, AHundredMillionKeysOnTheCpuDevice) {
  if (device().info().backend != device::BackendKind::cpu) GTEST_SKIP() << "CPU device only";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "10^8 keys take minutes under a sanitizer; the sizes above run there";
#endif
  constexpr std::size_t n = 100'000'000;
  DevicePrimitives primitives(device());
  std::vector<std::uint32_t> keys = random_values<std::uint32_t>(n, 1ull << 32, 11);
  std::uint64_t sum = 0;
  std::uint32_t xors = 0;
  for (std::uint32_t key : keys) {
    sum += key;
    xors ^= key;
  }
  DeviceBuffer dkeys = upload(device(), keys);
  Event done = primitives.radix_sort(span_of<std::uint32_t>(dkeys, n), {});
  keys = download<std::uint32_t>(device(), dkeys, n, done);
  std::uint64_t sorted_sum = 0;
  std::uint32_t sorted_xors = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) {
      ASSERT_LE(keys[i - 1], keys[i]) << "position " << i;
    }
    sorted_sum += keys[i];
    sorted_xors ^= keys[i];
  }
  EXPECT_EQ(sorted_sum, sum);
  EXPECT_EQ(sorted_xors, xors);
  DeviceBuffer dsums = device().allocate(n * sizeof(std::uint64_t));
  std::vector<std::uint64_t> wide(keys.begin(), keys.end());
  keys = {};
  DeviceBuffer dwide = upload(device(), wide);
  done =
      primitives.inclusive_scan(span_of<std::uint64_t>(dwide, n), span_of<std::uint64_t>(dsums, n));
  const auto scanned = download<std::uint64_t>(device(), dsums, n, done);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i < n; ++i) {
    running += wide[i];
    ASSERT_EQ(scanned[i], running) << "element " << i;
  }
}

std::string device_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string name = devices().devices.at(info.param)->info().id;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(EveryDevice, Primitives,
                         ::testing::Range<std::size_t>(0, devices().devices.size()), device_name);

}  // namespace
}  // namespace strata::primitives
