// jumpshard/weights.hpp: buckets with real-valued weights in the C++
// wrapper (jumpshard.hpp).
#ifndef JUMPSHARD_WEIGHTS_HPP
#define JUMPSHARD_WEIGHTS_HPP

#include <cstdint>
#include <utility>
#include <vector>

#include "base.hpp"

namespace jumpshard {

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

}  // namespace jumpshard

#endif  // JUMPSHARD_WEIGHTS_HPP
