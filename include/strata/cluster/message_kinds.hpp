#pragma once
// The kinds of control messages Strata's cluster layer sends; applications use user_kinds and up.

#include "strata/cluster/network.hpp"

namespace strata::cluster::kinds {

inline constexpr MessageKind hello = 1;        // worker -> driver: pid and host, at start
inline constexpr MessageKind plan = 2;         // driver -> rank: operations to execute
inline constexpr MessageKind progress = 3;     // rank -> driver: operations finished so far
inline constexpr MessageKind failure = 4;      // rank -> driver: a task or the rank failed
inline constexpr MessageKind shutdown = 5;     // driver -> workers: the program ended
inline constexpr MessageKind read_result = 6;  // rank -> driver: what it read (a chunk's size)
inline constexpr MessageKind steal_request = 10;
inline constexpr MessageKind steal_reply = 11;
inline constexpr MessageKind steal_units_done = 12;
inline constexpr MessageKind steal_finished = 13;
inline constexpr MessageKind remote_fetch = 20;  // and 21
inline constexpr MessageKind user_kinds = 1000;

}  // namespace strata::cluster::kinds
