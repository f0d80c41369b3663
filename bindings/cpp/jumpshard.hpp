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
//
// Every function is a thin inline call into the C library: link as for C
// (-ljumpshard, or libjumpshard.a and its system libraries). Errors throw
// jumpshard::error, which carries the C status; mismatched input and output
// sizes throw std::invalid_argument. Nothing is written to an output on
// error. Like the C API, everything may be called from many threads at
// once, except memento::remove, memento::restore and a handle's
// destruction or move, which need their object to themselves (the const
// members of memento and weights may run concurrently).
//
// move_plan's columns `from` and `to` were once `sources` and
// `destinations`. Those names remain as read-only accessors, sources() and
// destinations(), over the same vectors: a copyable struct cannot alias a
// data member without a reference member, which would bind a copy to the
// original's storage. Code that read `plan.sources` reads `plan.from` (or
// `plan.sources()`).
#ifndef JUMPSHARD_HPP
#define JUMPSHARD_HPP

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "jumpshard.h"

namespace jumpshard {

// A view of `size()` contiguous `T`s that it does not own: what
// std::span<T> is in C++20. Made from a pointer and a size, a C array, or
// any contiguous container with data() and size() (std::vector, std::array,
// std::span, ...).
template <class T>
class span {
public:
    using element_type = T;

    constexpr span() noexcept = default;
    constexpr span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}

    template <std::size_t N>
    constexpr span(T (&array)[N]) noexcept : data_(array), size_(N) {}

    template <class Container,
              class = std::enable_if_t<
                  !std::is_same_v<std::remove_cv_t<std::remove_reference_t<Container>>, span> &&
                  std::is_convertible_v<decltype(std::data(std::declval<Container &>())), T *>>>
    constexpr span(Container &&container) noexcept
        : data_(std::data(container)), size_(std::size(container)) {}

    // A span<T> is a span<const T>.
    template <class U, class = std::enable_if_t<std::is_convertible_v<U *, T *>>>
    constexpr span(span<U> other) noexcept : data_(other.data()), size_(other.size()) {}

    constexpr T *data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T *begin() const noexcept { return data_; }
    constexpr T *end() const noexcept { return data_ + size_; }
    constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }

    // The `count` elements from `offset` on; clamped to the span.
    constexpr span subspan(std::size_t offset, std::size_t count = SIZE_MAX) const noexcept {
        offset = offset < size_ ? offset : size_;
        std::size_t rest = size_ - offset;
        return span(data_ + offset, count < rest ? count : rest);
    }

private:
    T *data_ = nullptr;
    std::size_t size_ = 0;
};

// What the C API refused, with its status and message.
class error : public std::runtime_error {
public:
    explicit error(jumpshard_status status)
        : std::runtime_error(jumpshard_status_message(status)), status_(status) {}

    jumpshard_status status() const noexcept { return status_; }

private:
    jumpshard_status status_;
};

namespace detail {
inline void check(jumpshard_status status) {
    if (status != JUMPSHARD_OK) throw error(status);
}

inline void check_sizes(span<const std::uint64_t> keys, span<std::int32_t> out) {
    if (keys.size() != out.size()) {
        throw std::invalid_argument("jumpshard: " + std::to_string(out.size()) +
                                    " outputs for " + std::to_string(keys.size()) + " keys");
    }
}
}  // namespace detail

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

namespace detail {
inline const std::uint8_t *bytes(std::string_view s) noexcept {
    return reinterpret_cast<const std::uint8_t *>(s.data());
}
}  // namespace detail

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

    // The replica sets of `keys` as `k` columns one after the other
    // (k * keys.size() elements): member j of the set of keys[i] is at
    // j * keys.size() + i, column 0 being batch(keys). Each removal
    // replaces only the member it hits. Throws for k above working().
    std::vector<std::int32_t> replicas_batch(span<const std::uint64_t> keys,
                                             std::size_t k) const {
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

// The replica set of `key` among `num_buckets` into `out`: out.size()
// distinct buckets, out[0] Figure 1's. Throws jumpshard::error
// (JUMPSHARD_ERROR_TOO_MANY_REPLICAS) when out.size() > num_buckets.
inline void replicas(std::uint64_t key, std::int32_t num_buckets, span<std::int32_t> out) {
    detail::check(jumpshard_replicas(key, num_buckets, out.data(), out.size()));
}

// The replica set of `key`: `k` distinct buckets, in a new vector.
inline std::vector<std::int32_t> replicas(std::uint64_t key, std::int32_t num_buckets,
                                          std::size_t k) {
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
    if (k != 0 && keys.size() > SIZE_MAX / k) throw std::length_error("jumpshard: k * keys");
    std::vector<std::int32_t> out(k * keys.size());
    replicas_batch(keys, num_buckets, k, out);
    return out;
}

// Buckets 0..size()-1 with real-valued weights (jumpshard_weights): each
// gets a share of the keys near its weight over their sum; equal weights
// are Figure 1. Owns its C handle: move-only. A moved-from object throws
// jumpshard::error (JUMPSHARD_ERROR_NULL_POINTER), and size() is -1.
class weights {
public:
    // Throws for a negative, NaN or infinite weight, all weights zero, or
    // no weights (JUMPSHARD_ERROR_INVALID_BUCKET_COUNT).
    explicit weights(span<const double> w) {
        detail::check(jumpshard_weights_new(w.data(), w.size(), &handle_));
    }

    weights(const weights &) = delete;
    weights &operator=(const weights &) = delete;
    weights(weights &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    weights &operator=(weights &&other) noexcept {
        if (this != &other) {
            jumpshard_weights_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    ~weights() { jumpshard_weights_free(handle_); }

    // The number of buckets.
    std::int32_t size() const noexcept { return jumpshard_weights_len(handle_); }

    std::int32_t bucket(std::uint64_t key) const {
        std::int32_t out = -1;
        detail::check(jumpshard_weights_bucket(handle_, key, &out));
        return out;
    }

    void batch(span<const std::uint64_t> keys, span<std::int32_t> out) const {
        detail::check_sizes(keys, out);
        detail::check(jumpshard_weights_batch(handle_, keys.data(), keys.size(), out.data()));
    }

    std::vector<std::int32_t> batch(span<const std::uint64_t> keys) const {
        std::vector<std::int32_t> out(keys.size());
        batch(keys, out);
        return out;
    }

    jumpshard_weights *get() const noexcept { return handle_; }
    explicit operator bool() const noexcept { return handle_ != nullptr; }

private:
    jumpshard_weights *handle_ = nullptr;
};

// A node table (jumpshard_table) parsed from the table file's text: slot i
// served by a named node, keys placed as its removed=K or weight=W
// attributes say, exactly as the CLI and every other front end place them.
// Owns its C handle: move-only. A moved-from object throws jumpshard::error
// (JUMPSHARD_ERROR_NULL_POINTER), and size() is -1.
class table {
public:
    // Throws jumpshard::error (JUMPSHARD_ERROR_INVALID_TABLE) for text the
    // table syntax refuses; error_line() then names the line (0: the whole
    // table).
    explicit table(std::string_view text) {
        std::size_t line = 0;
        jumpshard_status status = jumpshard_table_parse(detail::bytes(text), text.size(),
                                                        &handle_, &line);
        if (status != JUMPSHARD_OK) throw table_error(status, line);
    }

    // The error of a table text, with its line.
    class table_error : public error {
    public:
        table_error(jumpshard_status status, std::size_t line) : error(status), line_(line) {}
        std::size_t error_line() const noexcept { return line_; }

    private:
        std::size_t line_;
    };

    table(const table &) = delete;
    table &operator=(const table &) = delete;
    table(table &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    table &operator=(table &&other) noexcept {
        if (this != &other) {
            jumpshard_table_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    ~table() { jumpshard_table_free(handle_); }

    // The number of slots, removed ones included.
    std::int32_t size() const noexcept { return jumpshard_table_len(handle_); }

    // The node name of a slot, valid while the table lives.
    std::string_view slot_name(std::int32_t slot) const {
        const std::uint8_t *name = nullptr;
        std::size_t len = 0;
        detail::check(jumpshard_table_slot_name(handle_, slot, &name, &len));
        return {reinterpret_cast<const char *>(name), len};
    }

    // The slot of each key into `out` (same size).
    void batch(span<const std::uint64_t> keys, span<std::int32_t> out) const {
        detail::check_sizes(keys, out);
        detail::check(jumpshard_table_batch(handle_, keys.data(), keys.size(), out.data()));
    }

    std::vector<std::int32_t> batch(span<const std::uint64_t> keys) const {
        std::vector<std::int32_t> out(keys.size());
        batch(keys, out);
        return out;
    }

    // The node serving one key.
    std::string_view node(std::uint64_t key) const {
        std::int32_t slot = -1;
        detail::check(jumpshard_table_batch(handle_, &key, 1, &slot));
        return slot_name(slot);
    }

    jumpshard_table *get() const noexcept { return handle_; }
    explicit operator bool() const noexcept { return handle_ != nullptr; }

private:
    jumpshard_table *handle_ = nullptr;
};

// The kernel the batch functions use: "scalar", "avx2", "avx512" or "neon".
inline std::string_view kernel_name() noexcept { return jumpshard_kernel_name(); }

// Makes later batches use the kernel `name`; throws jumpshard::error
// (unknown or unsupported kernel) and changes nothing on error.
inline void set_kernel(const std::string &name) {
    detail::check(jumpshard_set_kernel(name.c_str()));
}

// The version of the library loaded at run time ("MAJOR.MINOR.PATCH");
// JUMPSHARD_VERSION is the header's.
inline std::string_view version() noexcept { return jumpshard_version(); }

}  // namespace jumpshard

#endif  // JUMPSHARD_HPP
