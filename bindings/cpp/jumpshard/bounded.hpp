// jumpshard/bounded.hpp: bounded-load routing in the C++ wrapper
// (jumpshard.hpp): the bounded_loads class, which sends each request to its
// key's bucket unless that node carries more than c times the mean load.
#ifndef JUMPSHARD_BOUNDED_HPP
#define JUMPSHARD_BOUNDED_HPP

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "base.hpp"
#include "memento.hpp"

namespace jumpshard {

// A router with bounded loads over a copy of a Memento cluster
// (jumpshard_bounded): acquire(key) answers the first node of the key's
// preference list (its bucket, then its replica walk of up to `walk`
// nodes) whose load stays at most ceil(c * (total + 1) / live), or the
// least loaded of the walk when all of it is full, and counts it;
// release(node) takes it back (acquire_batch and release_batch do the same
// for many). While the key's bucket is under the bound
// the answer is the key's bucket (memento::bucket). Every member but the
// move operations and the destructor may run on many threads at once,
// remove() and restore() included. Owns its C handle: move-only; a
// moved-from router throws jumpshard::error (JUMPSHARD_ERROR_NULL_POINTER)
// from every call but total(), which returns 0.
class bounded_loads {
public:
    // Throws for a factor that is NaN or at most 1 (infinity is allowed:
    // every key then gets its bucket) and a walk of 0 or more than 1024.
    bounded_loads(const memento &cluster, double factor,
                  std::size_t walk = JUMPSHARD_BOUNDED_DEFAULT_WALK) {
        detail::check(jumpshard_bounded_new(cluster.get(), factor, walk, &handle_));
    }

    bounded_loads(const bounded_loads &) = delete;
    bounded_loads &operator=(const bounded_loads &) = delete;
    bounded_loads(bounded_loads &&other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)) {}
    bounded_loads &operator=(bounded_loads &&other) noexcept {
        if (this != &other) {
            jumpshard_bounded_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    ~bounded_loads() { jumpshard_bounded_free(handle_); }

    // The node for one request with `key`, counted.
    std::int32_t acquire(std::uint64_t key) const {
        std::int32_t node = -1;
        detail::check(jumpshard_bounded_acquire(handle_, key, &node));
        return node;
    }

    // The nodes for one request with each key into `out` (same size), each
    // counted: what acquire() of each key in turn answers, the keys'
    // buckets from one Memento batch on the SIMD lanes.
    void acquire_batch(span<const std::uint64_t> keys, span<std::int32_t> out) const {
        detail::check_sizes(keys, out);
        detail::check(
            jumpshard_bounded_acquire_batch(handle_, keys.data(), keys.size(), out.data()));
    }

    std::vector<std::int32_t> acquire_batch(span<const std::uint64_t> keys) const {
        std::vector<std::int32_t> out(keys.size());
        acquire_batch(keys, out);
        return out;
    }

    // Takes one unit of load back from `node`, live or removed since.
    // Throws for a node with no load or one the cluster never had.
    void release(std::int32_t node) const {
        detail::check(jumpshard_bounded_release(handle_, node));
    }

    // Takes one unit of load back from each of `nodes` (repeats allowed,
    // live or removed since): what release() of each in turn does, with one
    // lock and one change of the total per 256 nodes. Throws, changing no
    // load, for a node the cluster never had (checked first) and for more
    // releases of a node than its load, a caller's bug: the releases made
    // are undone, and other threads may briefly see the lower loads.
    void release_batch(span<const std::int32_t> nodes) const {
        detail::check(jumpshard_bounded_release_batch(handle_, nodes.data(), nodes.size()));
    }

    // The current load of `node`, live or removed.
    std::uint64_t load(std::int32_t node) const {
        std::uint64_t out = 0;
        detail::check(jumpshard_bounded_load(handle_, node, &out));
        return out;
    }

    // The sum of every load (0 if moved from).
    std::uint64_t total() const noexcept { return jumpshard_bounded_total(handle_); }

    // Membership changes as memento's; every count is kept.
    void remove(std::int32_t bucket) const {
        detail::check(jumpshard_bounded_remove(handle_, bucket));
    }
    std::int32_t restore() const {
        std::int32_t bucket = -1;
        detail::check(jumpshard_bounded_restore(handle_, &bucket));
        return bucket;
    }

    // The C handle, still owned by this object.
    jumpshard_bounded *get() const noexcept { return handle_; }
    explicit operator bool() const noexcept { return handle_ != nullptr; }

private:
    jumpshard_bounded *handle_ = nullptr;
};

}  // namespace jumpshard

#endif  // JUMPSHARD_BOUNDED_HPP
