// jumpshard/memento.hpp: Memento clusters in the C++ wrapper
// (jumpshard.hpp): the memento class, from which any bucket can be removed,
// and the move plan between two of its states.
#ifndef JUMPSHARD_MEMENTO_HPP
#define JUMPSHARD_MEMENTO_HPP

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "base.hpp"
#include "jump.hpp"  // move_plan, and the plan and string-batch helpers

namespace jumpshard {

// A Memento cluster (jumpshard_memento): jump hash over a b-array of
// buckets from which any bucket can be removed, moving only its keys, and
// restored last in, first out. With nothing removed every key gets
// Figure 1's bucket. Owns its C handle: move-only; a moved-from cluster
// throws jumpshard::error (JUMPSHARD_ERROR_NULL_POINTER) from every call
// but the state readers, which return -1 (or false).
class memento {
public:
    // A cluster of `num_buckets` working buckets, none removed.
    explicit memento(std::int32_t num_buckets) {
        detail::check(jumpshard_memento_new(num_buckets, &handle_));
    }

    // The cluster of a b-array of `barray` buckets from which `removals`
    // were removed in this order: what barray() and removals() return.
    static memento from_removals(std::int32_t barray, span<const std::int32_t> removals) {
        jumpshard_memento *handle = nullptr;
        detail::check(
            jumpshard_memento_from_removals(barray, removals.data(), removals.size(), &handle));
        return memento(handle);
    }

    memento(const memento &) = delete;
    memento &operator=(const memento &) = delete;
    memento(memento &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    memento &operator=(memento &&other) noexcept {
        if (this != &other) {
            jumpshard_memento_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    ~memento() { jumpshard_memento_free(handle_); }

    // Removes `bucket` (the last bucket while nothing is removed shrinks
    // the b-array instead). Throws, changing nothing, for a bucket that
    // does not exist, is already removed, or is the last working one.
    void remove(std::int32_t bucket) { detail::check(jumpshard_memento_remove(handle_, bucket)); }

    // Restores the last removed bucket and returns it; with nothing
    // removed, grows the b-array by one bucket and returns it.
    std::int32_t restore() {
        std::int32_t bucket = -1;
        detail::check(jumpshard_memento_restore(handle_, &bucket));
        return bucket;
    }

    // The b-array size, working and removed buckets (-1 if moved from).
    std::int32_t barray() const noexcept { return jumpshard_memento_barray(handle_); }
    // The working buckets (-1 if moved from).
    std::int32_t working() const noexcept { return jumpshard_memento_working(handle_); }
    bool is_removed(std::int32_t bucket) const noexcept {
        return jumpshard_memento_is_removed(handle_, bucket) == 1;
    }

    // The removed buckets in removal order (restore() undoes the last).
    std::vector<std::int32_t> removals() const {
        std::size_t len = 0;
        jumpshard_status status = jumpshard_memento_removals(handle_, nullptr, 0, &len);
        std::vector<std::int32_t> out(len);
        if (status == JUMPSHARD_ERROR_CAPACITY) {
            status = jumpshard_memento_removals(handle_, out.data(), out.size(), &len);
        }
        detail::check(status);
        return out;
    }

    // The bucket of a 64-bit key.
    std::int32_t bucket(std::uint64_t key) const {
        std::int32_t out = -1;
        detail::check(jumpshard_memento_bucket(handle_, key, &out));
        return out;
    }

    // The bucket of each key into `out` (same size), on the calling thread.
    void batch(span<const std::uint64_t> keys, span<std::int32_t> out) const {
        detail::check_sizes(keys, out);
        detail::check(jumpshard_memento_batch(handle_, keys.data(), keys.size(), out.data()));
    }

    std::vector<std::int32_t> batch(span<const std::uint64_t> keys) const {
        std::vector<std::int32_t> out(keys.size());
        batch(keys, out);
        return out;
    }

    // The replica set of `key` into `out`: out.size() distinct working
    // buckets, out[0] bucket(key). Each removal replaces only the member it
    // hits. Throws jumpshard::error (JUMPSHARD_ERROR_TOO_MANY_REPLICAS) for
    // out.size() above working().
    void replicas(std::uint64_t key, span<std::int32_t> out) const {
        detail::check(jumpshard_memento_replicas(handle_, key, out.data(), out.size()));
    }

    // The replica set of `key`: `k` distinct working buckets, in a new
    // vector (k is checked before the vector is made).
    std::vector<std::int32_t> replicas(std::uint64_t key, std::size_t k) const {
        check_replicas(k);
        std::vector<std::int32_t> out(k);
        replicas(key, span<std::int32_t>(out));
        return out;
    }

    // The replica sets of `keys` as `k` columns one after the other
    // (k * keys.size() elements): member j of the set of keys[i] is at
    // j * keys.size() + i, column 0 being batch(keys). Each removal
    // replaces only the member it hits. Throws for k above working(),
    // before anything is allocated.
    std::vector<std::int32_t> replicas_batch(span<const std::uint64_t> keys,
                                             std::size_t k) const {
        check_replicas(k);
        if (k != 0 && keys.size() > SIZE_MAX / k) throw std::length_error("jumpshard: k * keys");
        std::vector<std::int32_t> out(k * keys.size());
        detail::check(jumpshard_memento_replicas_batch(handle_, keys.data(), keys.size(), k,
                                                       out.data()));
        return out;
    }

    // The bucket of a byte string as the MementoHash authors' engine gives
    // it: XXH64 pre-hash (not bucket_bytes()'s XXH3).
    std::int32_t bucket_bytes(std::string_view key) const {
        std::int32_t out = -1;
        detail::check(
            jumpshard_memento_bucket_bytes(handle_, detail::bytes(key), key.size(), &out));
        return out;
    }

    // bucket_bytes() of each string of an Arrow-style layout, as
    // jumpshard::batch_bytes takes them.
    void batch_bytes(std::string_view data, span<const std::uint64_t> offsets,
                     span<std::int32_t> out) const {
        detail::check(jumpshard_memento_batch_bytes(handle_, detail::bytes(data), data.size(),
                                                    offsets.data(), offsets.size(), out.data(),
                                                    out.size()));
    }

    std::vector<std::int32_t> batch_bytes(span<const std::string_view> keys) const {
        return detail::batch_strings(keys, [this](std::string_view data,
                                                  span<const std::uint64_t> offsets,
                                                  span<std::int32_t> out) {
            batch_bytes(data, offsets, out);
        });
    }

    // The C handle, still owned by this object.
    jumpshard_memento *get() const noexcept { return handle_; }
    explicit operator bool() const noexcept { return handle_ != nullptr; }

private:
    explicit memento(jumpshard_memento *handle) noexcept : handle_(handle) {}

    // Throws what the C functions return for a `k` above the working count.
    // k checked by the library with no key (above the working count or
    // the most members a set may have), before k outputs are allocated.
    void check_replicas(std::size_t k) const {
        detail::check(jumpshard_memento_replicas_batch(handle_, nullptr, 0, k, nullptr));
    }

    jumpshard_memento *handle_ = nullptr;
};

// The move plan of `keys` from the cluster state `before` to `after`
// (jumpshard_memento_plan): the keys whose bucket differs, with both
// buckets; a removal's plan holds exactly the removed bucket's keys.
inline move_plan plan(const memento &before, const memento &after,
                      span<const std::uint64_t> keys) {
    return detail::plan(keys, [&](std::uint64_t *p, std::int32_t *s, std::int32_t *d,
                                  std::size_t capacity, std::size_t *moved) {
        return jumpshard_memento_plan(before.get(), after.get(), keys.data(), keys.size(), p, s,
                                      d, capacity, moved);
    });
}

}  // namespace jumpshard

#endif  // JUMPSHARD_MEMENTO_HPP
