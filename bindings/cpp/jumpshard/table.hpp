// jumpshard/table.hpp: node tables, parsed from the table file's text, in
// the C++ wrapper (jumpshard.hpp).
#ifndef JUMPSHARD_TABLE_HPP
#define JUMPSHARD_TABLE_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base.hpp"

namespace jumpshard {

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

    // The replica sets of `keys` as k columns of keys.size() slots, one
    // after the other: member j of the set of keys[i] is out[j * size + i],
    // column 0 being batch()'s. On a zoned table (zone=NAME lines) the sets
    // are the zoned ones, k live nodes in distinct zones, each member as its
    // node's first slot. Throws jumpshard::error
    // (JUMPSHARD_ERROR_TOO_MANY_REPLICAS, _WEIGHTED_TABLE, _SHARED_NODE).
    std::vector<std::int32_t> replicas_batch(span<const std::uint64_t> keys,
                                             std::size_t k) const {
        // k checked with no key first, before k * size outputs are allocated.
        detail::check(jumpshard_table_replicas_batch(handle_, nullptr, 0, k, nullptr));
        std::vector<std::int32_t> out(k * keys.size());
        detail::check(
            jumpshard_table_replicas_batch(handle_, keys.data(), keys.size(), k, out.data()));
        return out;
    }

    // The replica set of one key, k slots in rank order.
    std::vector<std::int32_t> replicas(std::uint64_t key, std::size_t k) const {
        return replicas_batch(span<const std::uint64_t>(&key, 1), k);
    }

    // Whether the table names zones (zone=NAME).
    bool is_zoned() const {
        std::int32_t zoned = jumpshard_table_is_zoned(handle_);
        if (zoned < 0) detail::check(JUMPSHARD_ERROR_NULL_POINTER);
        return zoned == 1;
    }

    // The zone of the node serving a slot, valid while the table lives;
    // throws jumpshard::error (JUMPSHARD_ERROR_NOT_ZONED) on a table
    // without zones.
    std::string_view zone_name(std::int32_t slot) const {
        const std::uint8_t *name = nullptr;
        std::size_t len = 0;
        detail::check(jumpshard_table_zone_name(handle_, slot, &name, &len));
        return {reinterpret_cast<const char *>(name), len};
    }

    // The table's fingerprint, "jt1:" and 32 hex digits: the same text for
    // every spelling of the table, and the one every front end prints.
    std::string fingerprint() const {
        char out[JUMPSHARD_TABLE_FINGERPRINT_SIZE];
        detail::check(jumpshard_table_fingerprint(handle_, out));
        return std::string(out);
    }

    jumpshard_table *get() const noexcept { return handle_; }
    explicit operator bool() const noexcept { return handle_ != nullptr; }

private:
    jumpshard_table *handle_ = nullptr;
};

}  // namespace jumpshard

#endif  // JUMPSHARD_TABLE_HPP
