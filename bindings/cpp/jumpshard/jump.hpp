// jumpshard/jump.hpp: jump consistent hash in the C++ wrapper
// (jumpshard.hpp): the bucket of one key, batches of 64-bit keys and of
// byte strings, move plans, replica sets, and the kernel the batches run on.
#ifndef JUMPSHARD_JUMP_HPP
#define JUMPSHARD_JUMP_HPP

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base.hpp"

namespace jumpshard {

// The bucket of `key` among `num_buckets` (Figure 1). Throws
// jumpshard::error for num_buckets <= 0, where Figure 1 returns -1.
inline std::int32_t bucket(std::uint64_t key, std::int32_t num_buckets) {
    if (num_buckets <= 0) throw error(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT);
    return jumpshard_bucket(key, num_buckets);
}

// The bucket of each key into `out` (same size), on the calling thread.
inline void batch(span<const std::uint64_t> keys, std::int32_t num_buckets,
                  span<std::int32_t> out) {
    detail::check_sizes(keys, out);
    detail::check(jumpshard_batch(keys.data(), keys.size(), num_buckets, out.data()));
}

// The bucket of each key, in a new vector.
inline std::vector<std::int32_t> batch(span<const std::uint64_t> keys, std::int32_t num_buckets) {
    std::vector<std::int32_t> out(keys.size());
    batch(keys, num_buckets, out);
    return out;
}

// batch() on up to `threads` threads of the library's pool (0: one per
// core); the results are identical.
inline void batch_parallel(span<const std::uint64_t> keys, std::int32_t num_buckets,
                           span<std::int32_t> out, std::size_t threads = 0) {
    detail::check_sizes(keys, out);
    detail::check(
        jumpshard_batch_parallel(keys.data(), keys.size(), num_buckets, out.data(), threads));
}

inline std::vector<std::int32_t> batch_parallel(span<const std::uint64_t> keys,
                                                std::int32_t num_buckets, std::size_t threads = 0) {
    std::vector<std::int32_t> out(keys.size());
    batch_parallel(keys, num_buckets, out, threads);
    return out;
}

// The keys that change bucket when the bucket count changes: for each,
// in input order, its index in the keys, its bucket among the old count
// and among the new one. Three columns of size() elements each, named as
// the CLI's `key`, `from` and `to` columns and the Rust API's Move.
//
// `from` and `to` were once `sources` and `destinations`. Those names
// remain as read-only accessors, sources() and destinations(), over the
// same vectors: a copyable struct cannot alias a data member without a
// reference member, which would bind a copy to the original's storage.
// Code that read `plan.sources` reads `plan.from` (or `plan.sources()`).
struct move_plan {
    std::vector<std::uint64_t> positions;
    std::vector<std::int32_t> from;
    std::vector<std::int32_t> to;

    std::size_t size() const noexcept { return positions.size(); }
    bool empty() const noexcept { return positions.empty(); }

    // The old names of `from` and `to`, kept for compatibility.
    const std::vector<std::int32_t> &sources() const noexcept { return from; }
    const std::vector<std::int32_t> &destinations() const noexcept { return to; }
};

namespace detail {
// Room for every key, which is what lets the C library write the plan
// straight into the vectors; they are cut to the moving keys afterwards.
template <class Plan>
move_plan plan(span<const std::uint64_t> keys, Plan &&c_plan) {
    move_plan plan;
    plan.positions.resize(keys.size());
    plan.from.resize(keys.size());
    plan.to.resize(keys.size());
    std::size_t moved = 0;
    check(c_plan(plan.positions.data(), plan.from.data(), plan.to.data(), keys.size(), &moved));
    plan.positions.resize(moved);
    plan.from.resize(moved);
    plan.to.resize(moved);
    return plan;
}
}  // namespace detail

// The move plan of `keys` from `from` to `to` buckets (jumpshard_plan):
// only the moving keys are evaluated twice. Throws jumpshard::error for a
// count outside 1..INT32_MAX or from == to.
inline move_plan plan(span<const std::uint64_t> keys, std::int32_t from, std::int32_t to) {
    return detail::plan(keys, [&](std::uint64_t *p, std::int32_t *s, std::int32_t *d,
                                  std::size_t capacity, std::size_t *moved) {
        return jumpshard_plan(keys.data(), keys.size(), from, to, p, s, d, capacity, moved);
    });
}

// plan() on up to `threads` threads of the library's pool (0: one per
// core); the plan is identical.
inline move_plan plan_parallel(span<const std::uint64_t> keys, std::int32_t from,
                               std::int32_t to, std::size_t threads = 0) {
    return detail::plan(keys, [&](std::uint64_t *p, std::int32_t *s, std::int32_t *d,
                                  std::size_t capacity, std::size_t *moved) {
        return jumpshard_plan_parallel(keys.data(), keys.size(), from, to, p, s, d, capacity,
                                       moved, threads);
    });
}

// The 64-bit key of the byte string `key`: XXH3-64 with seed 0, as in the
// Rust API, the CLI and the xxHash libraries.
inline std::uint64_t prehash_bytes(std::string_view key) {
    std::uint64_t hash = 0;
    detail::check(jumpshard_prehash_bytes(detail::bytes(key), key.size(), &hash));
    return hash;
}

// The bucket of the byte string `key` among `num_buckets`: bucket() of its
// prehash_bytes(). Throws jumpshard::error for num_buckets <= 0.
inline std::int32_t bucket_bytes(std::string_view key, std::int32_t num_buckets) {
    if (num_buckets <= 0) throw error(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT);
    return jumpshard_bucket_bytes(detail::bytes(key), key.size(), num_buckets);
}

// The bucket of each byte string of an Arrow-style layout into `out`:
// string i is data.substr(offsets[i], offsets[i + 1] - offsets[i]), so
// offsets.size() must be out.size() + 1 (else jumpshard::error with
// JUMPSHARD_ERROR_INVALID_OFFSETS, as for offsets outside `data` or
// decreasing).
inline void batch_bytes(std::string_view data, span<const std::uint64_t> offsets,
                        std::int32_t num_buckets, span<std::int32_t> out) {
    detail::check(jumpshard_batch_bytes(detail::bytes(data), data.size(), offsets.data(),
                                        offsets.size(), num_buckets, out.data(), out.size()));
}

namespace detail {
// `keys` copied back to back into one buffer with their offsets, and
// `batch(data, offsets, out)` run on them into a new vector.
template <class Batch>
std::vector<std::int32_t> batch_strings(span<const std::string_view> keys, Batch &&batch) {
    std::string data;
    std::vector<std::uint64_t> offsets{0};
    offsets.reserve(keys.size() + 1);
    for (std::string_view key : keys) {
        data.append(key);
        offsets.push_back(data.size());
    }
    std::vector<std::int32_t> out(keys.size());
    batch(std::string_view(data), span<const std::uint64_t>(offsets), span<std::int32_t>(out));
    return out;
}
}  // namespace detail

// The bucket of each byte string in `keys`, in a new vector (the strings
// are copied into one buffer first; batch_bytes() above takes them in place).
inline std::vector<std::int32_t> batch_bytes(span<const std::string_view> keys,
                                             std::int32_t num_buckets) {
    return detail::batch_strings(keys, [num_buckets](std::string_view data,
                                                     span<const std::uint64_t> offsets,
                                                     span<std::int32_t> out) {
        batch_bytes(data, offsets, num_buckets, out);
    });
}

// The replica set of `key` among `num_buckets` into `out`: out.size()
// distinct buckets, out[0] Figure 1's. Throws jumpshard::error
// (JUMPSHARD_ERROR_TOO_MANY_REPLICAS) when out.size() > num_buckets.
inline void replicas(std::uint64_t key, std::int32_t num_buckets, span<std::int32_t> out) {
    detail::check(jumpshard_replicas(key, num_buckets, out.data(), out.size()));
}

namespace detail {
// Checks num_buckets and k with no key, before k outputs are allocated.
inline void check_replicas(std::int32_t num_buckets, std::size_t k) {
    check(jumpshard_replicas_batch(nullptr, 0, num_buckets, k, nullptr));
}
}  // namespace detail

// The replica set of `key`: `k` distinct buckets, in a new vector (k is
// checked before the vector is made).
inline std::vector<std::int32_t> replicas(std::uint64_t key, std::int32_t num_buckets,
                                          std::size_t k) {
    detail::check_replicas(num_buckets, k);
    std::vector<std::int32_t> out(k);
    replicas(key, num_buckets, span<std::int32_t>(out));
    return out;
}

// The replica sets of `keys` as `k` columns one after the other in `out`
// (k * keys.size() elements): member j of the set of keys[i] is
// out[j * keys.size() + i]. Other sizes throw std::invalid_argument.
inline void replicas_batch(span<const std::uint64_t> keys, std::int32_t num_buckets,
                           std::size_t k, span<std::int32_t> out) {
    if ((k != 0 && keys.size() > SIZE_MAX / k) || out.size() != k * keys.size()) {
        throw std::invalid_argument("jumpshard: " + std::to_string(out.size()) +
                                    " outputs for " + std::to_string(k) + " replicas of " +
                                    std::to_string(keys.size()) + " keys");
    }
    detail::check(
        jumpshard_replicas_batch(keys.data(), keys.size(), num_buckets, k, out.data()));
}

inline std::vector<std::int32_t> replicas_batch(span<const std::uint64_t> keys,
                                                std::int32_t num_buckets, std::size_t k) {
    detail::check_replicas(num_buckets, k);
    if (k != 0 && keys.size() > SIZE_MAX / k) throw std::length_error("jumpshard: k * keys");
    std::vector<std::int32_t> out(k * keys.size());
    replicas_batch(keys, num_buckets, k, out);
    return out;
}

// The kernel the batch functions use: "scalar", "avx2", "avx512" or "neon".
inline std::string_view kernel_name() noexcept { return jumpshard_kernel_name(); }

// Makes later batches use the kernel `name`; throws jumpshard::error
// (unknown or unsupported kernel) and changes nothing on error. A name
// holding a NUL is unknown: C would read only the part before it.
inline void set_kernel(const std::string &name) {
    if (name.find('\0') != std::string::npos) detail::check(JUMPSHARD_ERROR_UNKNOWN_KERNEL);
    detail::check(jumpshard_set_kernel(name.c_str()));
}

}  // namespace jumpshard

#endif  // JUMPSHARD_JUMP_HPP
