// jumpshard.hpp: a header-only C++17 wrapper over the jumpshard C API
// (jumpshard.h), for code that prefers spans, vectors and exceptions.
//
//   #include "jumpshard.hpp"
//
//   std::vector<std::uint64_t> keys = ...;
//   std::vector<std::int32_t> shards = jumpshard::batch(keys, 12);
//   jumpshard::batch_parallel(keys, 12, jumpshard::span<std::int32_t>(shards));
//   std::int32_t shard = jumpshard::bucket_bytes("user:42", 12);
//   jumpshard::move_plan moves = jumpshard::plan(keys, 10, 12);
//   // moves.positions[i] moves from bucket moves.from[i] to moves.to[i].
//
//   jumpshard::memento cluster(12);                  // any bucket can go
//   cluster.remove(5);                                // only bucket 5's keys move
//   std::vector<std::int32_t> now = cluster.batch(keys);
//   std::vector<std::int32_t> three = jumpshard::replicas(key, 12, 3);
//   jumpshard::weights weighted(std::vector<double>{1.0, 0.5, 1.0});
//   jumpshard::bounded_loads router(cluster, 1.25);  // hot keys spill over
//   std::int32_t node = router.acquire(key);          // ... router.release(node);
//
// Every function is a thin inline call into the C library: link as for C
// (-ljumpshard, or libjumpshard.a and its system libraries). Errors throw
// jumpshard::error, which carries the C status; mismatched input and output
// sizes throw std::invalid_argument. Nothing is written to an output on
// error. Like the C API, everything may be called from many threads at
// once, except memento::remove, memento::restore and a handle's
// destruction or move, which need their object to themselves (the const
// members of memento and weights may run concurrently; every member of
// bounded_loads but its move and destruction may).
//
// The wrapper is split by subject into headers under jumpshard/, which
// this one includes; each includes what it needs, so any of them may be
// included alone and in any order:
//   jumpshard/base.hpp     span, error, version()
//   jumpshard/jump.hpp     bucket, batches of keys and of byte strings,
//                          move plans, replica sets, the kernel choice
//   jumpshard/memento.hpp  memento, and the plan between two of its states
//   jumpshard/weights.hpp  weights
//   jumpshard/table.hpp    table (node tables)
//   jumpshard/bounded.hpp  bounded_loads (routing with bounded loads)
#ifndef JUMPSHARD_HPP
#define JUMPSHARD_HPP

#include "jumpshard/base.hpp"
#include "jumpshard/bounded.hpp"
#include "jumpshard/jump.hpp"
#include "jumpshard/memento.hpp"
#include "jumpshard/table.hpp"
#include "jumpshard/weights.hpp"

#endif  // JUMPSHARD_HPP
