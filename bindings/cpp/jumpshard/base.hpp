// jumpshard/base.hpp: what every part of the C++ wrapper (jumpshard.hpp)
// builds on: span, the error every call throws, the checks of C statuses
// and of output sizes; and the library's version.
#ifndef JUMPSHARD_BASE_HPP
#define JUMPSHARD_BASE_HPP

// Said once here, rather than as errors about std::string_view and
// is_same_v from deep inside (MSVC gives the standard in _MSVC_LANG).
#if __cplusplus < 201703L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 201703L)
#error "jumpshard.hpp needs C++17 or later (-std=c++17); jumpshard.h alone works from C++11"
#endif

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

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

inline const std::uint8_t *bytes(std::string_view s) noexcept {
    return reinterpret_cast<const std::uint8_t *>(s.data());
}
}  // namespace detail

// The version of the library loaded at run time ("MAJOR.MINOR.PATCH");
// JUMPSHARD_VERSION is the header's.
inline std::string_view version() noexcept { return jumpshard_version(); }

}  // namespace jumpshard

#endif  // JUMPSHARD_BASE_HPP
