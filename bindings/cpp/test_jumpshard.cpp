// Tests of the C++ wrapper (jumpshard.hpp) against the C API underneath.
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <jumpshard.hpp>

namespace {

int passed = 0, failed = 0;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            std::fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, \
                         #cond);                                                 \
            ok = false;                                                          \
        }                                                                        \
    } while (0)

template <class F>
void run(const char *name, F test) {
    bool ok = true;
    try {
        test(ok);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "  unexpected exception: %s\n", e.what());
        ok = false;
    }
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", name);
    (ok ? passed : failed)++;
}

// Expects `f` to throw jumpshard::error with `status`.
template <class F>
bool throws_status(F f, jumpshard_status status) {
    try {
        f();
    } catch (const jumpshard::error &e) {
        return e.status() == status && std::string(e.what()) == jumpshard_status_message(status);
    }
    return false;
}

std::vector<std::uint64_t> some_keys(std::size_t n) {
    std::vector<std::uint64_t> keys(n);
    std::uint64_t x = 1;
    for (auto &k : keys) k = (x = x * 6364136223846793005ULL + 1442695040888963407ULL);
    return keys;
}

#include "bounded_cases.inc"

}  // namespace

int main(int argc, char **argv) {
    const auto keys = some_keys(5000);

    run("bucket", [&](bool &ok) {
        for (std::int32_t n : {1, 2, 12, 1000, INT32_MAX}) {
            for (auto k : keys) CHECK(jumpshard::bucket(k, n) == jumpshard_bucket(k, n));
        }
        CHECK(jumpshard::bucket(1253737204188795044ULL, 100) == 86);
        CHECK(throws_status([] { jumpshard::bucket(1, 0); }, JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));
        CHECK(throws_status([] { jumpshard::bucket(1, -7); }, JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));
    });

    run("batch_overloads", [&](bool &ok) {
        std::vector<std::int32_t> got = jumpshard::batch(keys, 1000);
        CHECK(got.size() == keys.size());
        for (std::size_t i = 0; i < keys.size(); i++) CHECK(got[i] == jumpshard_bucket(keys[i], 1000));

        std::array<std::int32_t, 7> arr{};
        jumpshard::batch(jumpshard::span<const std::uint64_t>(keys.data() + 3, 7), 1000, arr);
        for (std::size_t i = 0; i < 7; i++) CHECK(arr[i] == got[3 + i]);

        std::uint64_t c_keys[3] = {keys[0], keys[1], keys[2]};
        std::int32_t c_out[3];
        jumpshard::batch(c_keys, 1000, c_out);
        for (std::size_t i = 0; i < 3; i++) CHECK(c_out[i] == got[i]);

        jumpshard::span<const std::uint64_t> all(keys);
        std::vector<std::int32_t> tail(10);
        jumpshard::batch(all.subspan(keys.size() - 10), 1000, tail);
        for (std::size_t i = 0; i < 10; i++) CHECK(tail[i] == got[keys.size() - 10 + i]);

        CHECK(jumpshard::batch(jumpshard::span<const std::uint64_t>(), 10).empty());
    });

    run("batch_parallel_is_identical", [&](bool &ok) {
        auto big = some_keys(200000);
        auto one = jumpshard::batch(big, 65536);
        for (std::size_t threads : {0, 1, 2, 5}) {
            CHECK(jumpshard::batch_parallel(big, 65536, threads) == one);
        }
        std::vector<std::int32_t> into(big.size());
        jumpshard::batch_parallel(big, 65536, into);
        CHECK(into == one);
    });

    run("errors_throw_and_leave_output_untouched", [&](bool &ok) {
        std::vector<std::int32_t> out(keys.size(), -5);
        CHECK(throws_status([&] { jumpshard::batch(keys, 0, out); },
                            JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));
        CHECK(throws_status([&] { jumpshard::batch_parallel(keys, -1, out, 2); },
                            JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));
        std::vector<std::int32_t> short_out(keys.size() - 1, -5);
        bool threw = false;
        try {
            jumpshard::batch(keys, 10, short_out);
        } catch (const std::invalid_argument &) {
            threw = true;
        }
        CHECK(threw);
        jumpshard::span<const std::uint64_t> null_keys(nullptr, 4);
        jumpshard::span<std::int32_t> four(out.data(), 4);
        CHECK(throws_status([&] { jumpshard::batch(null_keys, 10, four); },
                            JUMPSHARD_ERROR_NULL_POINTER));
        for (auto b : out) CHECK(b == -5);
        for (auto b : short_out) CHECK(b == -5);
    });

    run("kernels", [&](bool &ok) {
        std::string before(jumpshard::kernel_name());
        std::vector<std::int32_t> expected(keys.size());
        for (std::size_t i = 0; i < keys.size(); i++) expected[i] = jumpshard_bucket(keys[i], 777);
        CHECK(throws_status([] { jumpshard::set_kernel("sse9"); }, JUMPSHARD_ERROR_UNKNOWN_KERNEL));
        // A NUL inside: C would read "scalar" alone.
        CHECK(throws_status([] { jumpshard::set_kernel(std::string("scalar\0junk", 11)); },
                            JUMPSHARD_ERROR_UNKNOWN_KERNEL));
        CHECK(jumpshard::kernel_name() == before);
        for (const char *name : {"scalar", "avx2", "avx512", "neon"}) {
            try {
                jumpshard::set_kernel(name);
                CHECK(jumpshard::kernel_name() == name);
                CHECK(jumpshard::batch(keys, 777) == expected);
            } catch (const jumpshard::error &e) {
                CHECK(e.status() == JUMPSHARD_ERROR_UNSUPPORTED_KERNEL);
            }
        }
        jumpshard::set_kernel(before);
    });

    run("byte_keys", [&](bool &ok) {
        const std::string_view strings[] = {"", "a", "user:42", std::string_view("\0x\xff", 3)};
        for (std::string_view s : strings) {
            const auto *p = reinterpret_cast<const std::uint8_t *>(s.data());
            std::uint64_t hash = 0;
            CHECK(jumpshard_prehash_bytes(p, s.size(), &hash) == JUMPSHARD_OK);
            CHECK(jumpshard::prehash_bytes(s) == hash);
            CHECK(jumpshard::bucket_bytes(s, 1000) == jumpshard_bucket_bytes(p, s.size(), 1000));
        }
        CHECK(jumpshard::prehash_bytes("") == 0x2D06800538D394C2ULL);
        CHECK(jumpshard::bucket_bytes("", 1000) == 241);
        std::vector<std::int32_t> got = jumpshard::batch_bytes(strings, 1000);
        CHECK(got.size() == 4);
        for (std::size_t i = 0; i < 4; i++) CHECK(got[i] == jumpshard::bucket_bytes(strings[i], 1000));
        CHECK(throws_status([] { jumpshard::bucket_bytes("a", 0); },
                            JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));

        std::vector<std::int32_t> out(2, 77);
        const std::uint64_t bad[] = {0, 3, 2};
        CHECK(throws_status([&] { jumpshard::batch_bytes("abc", bad, 1000, out); },
                            JUMPSHARD_ERROR_INVALID_OFFSETS));
        const std::uint64_t too_few[] = {0, 3};
        CHECK(throws_status([&] { jumpshard::batch_bytes("abc", too_few, 1000, out); },
                            JUMPSHARD_ERROR_INVALID_OFFSETS));
        CHECK(out[0] == 77 && out[1] == 77);
        const std::uint64_t good[] = {1, 1, 3};
        jumpshard::batch_bytes("abc", good, 1000, out);
        CHECK(out[0] == jumpshard::bucket_bytes("", 1000));
        CHECK(out[1] == jumpshard::bucket_bytes("bc", 1000));
    });

    run("plan_is_figure_1_s", [&](bool &ok) {
        const std::pair<std::int32_t, std::int32_t> resizes[] = {{10, 12}, {12, 10}, {1, 7}};
        for (auto [from, to] : resizes) {
            jumpshard::move_plan moves = jumpshard::plan(keys, from, to);
            std::size_t next = 0;
            for (std::size_t i = 0; i < keys.size(); i++) {
                std::int32_t a = jumpshard::bucket(keys[i], from), b = jumpshard::bucket(keys[i], to);
                if (a == b) continue;
                CHECK(next < moves.size());
                if (next >= moves.size()) break;
                CHECK(moves.positions[next] == i);
                CHECK(moves.from[next] == a);
                CHECK(moves.to[next] == b);
                next++;
            }
            CHECK(next == moves.size());
            CHECK(moves.from.size() == moves.size() && moves.to.size() == moves.size());
            // The old names read the same vectors.
            CHECK(&moves.sources() == &moves.from && &moves.destinations() == &moves.to);
            jumpshard::move_plan parallel = jumpshard::plan_parallel(keys, from, to, 3);
            CHECK(parallel.positions == moves.positions);
            CHECK(parallel.from == moves.from);
            CHECK(parallel.to == moves.to);
        }
        CHECK(jumpshard::plan(std::vector<std::uint64_t>{}, 10, 12).empty());
        CHECK(throws_status([&] { jumpshard::plan(keys, 10, 10); },
                            JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));
        CHECK(throws_status([&] { jumpshard::plan(keys, 0, 10); },
                            JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));
        CHECK(throws_status([&] { jumpshard::plan_parallel(keys, 10, -1); },
                            JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));
    });

    run("table", [&](bool &ok) {
        static_assert(!std::is_copy_constructible_v<jumpshard::table>);
        jumpshard::table t("a\nb removed=1\nc\n");
        auto m = jumpshard::memento::from_removals(3, std::vector<std::int32_t>{1});
        CHECK(t.size() == 3);
        CHECK(t.batch(keys) == m.batch(keys));
        for (auto k : keys) CHECK(t.node(k) != "b");
        CHECK(t.slot_name(1) == "b");
        CHECK(t.fingerprint() == jumpshard::table("a # x\r\nb\tremoved=1\r\nc").fingerprint());
        CHECK(t.fingerprint().size() == 36 && t.fingerprint().rfind("jt1:", 0) == 0);
        CHECK(t.fingerprint() != jumpshard::table("a\nb\nc\n").fingerprint());
        bool refused = false;
        try {
            jumpshard::table bad("a\nb\na\n");
        } catch (const jumpshard::table::table_error &e) {
            refused = e.status() == JUMPSHARD_ERROR_INVALID_TABLE && e.error_line() == 3;
        }
        CHECK(refused);
        jumpshard::table moved = std::move(t);
        CHECK(moved.size() == 3 && t.size() == -1);
        CHECK(throws_status([&] { (void)t.fingerprint(); }, JUMPSHARD_ERROR_NULL_POINTER));
    });

    run("memento", [&](bool &ok) {
        static_assert(!std::is_copy_constructible_v<jumpshard::memento>);
        static_assert(std::is_nothrow_move_constructible_v<jumpshard::memento>);
        jumpshard::memento cluster(1000);
        CHECK(cluster.barray() == 1000 && cluster.working() == 1000);
        for (auto k : keys) CHECK(cluster.bucket(k) == jumpshard::bucket(k, 1000));
        CHECK(jumpshard::memento(10).bucket_bytes("") == 7);
        CHECK(jumpshard::memento(10).bucket_bytes("a") == 8);
        const auto before = cluster.batch(keys);
        for (std::int32_t b : {10, 500, 999, 0}) cluster.remove(b);
        CHECK(cluster.working() == 996 && cluster.is_removed(500) && !cluster.is_removed(1));
        CHECK((cluster.removals() == std::vector<std::int32_t>{10, 500, 999, 0}));
        const auto after = cluster.batch(keys);
        for (std::size_t i = 0; i < keys.size(); i++) {
            CHECK(after[i] == cluster.bucket(keys[i]));
            CHECK(!cluster.is_removed(after[i]));
            CHECK(cluster.is_removed(before[i]) || after[i] == before[i]);
        }
        // The saved state rebuilds the same cluster.
        auto copy = jumpshard::memento::from_removals(cluster.barray(), cluster.removals());
        CHECK(copy.batch(keys) == after);
        const std::string_view strings[] = {"", "a", "user:42", std::string_view("\0x\xff", 3)};
        auto bytes = cluster.batch_bytes(strings);
        for (std::size_t i = 0; i < 4; i++) CHECK(bytes[i] == cluster.bucket_bytes(strings[i]));
        CHECK(cluster.restore() == 0 && cluster.restore() == 999);
        CHECK(throws_status([&] { cluster.remove(10); }, JUMPSHARD_ERROR_ALREADY_REMOVED));
        CHECK(throws_status([&] { cluster.remove(1000); }, JUMPSHARD_ERROR_NOT_A_BUCKET));
        CHECK(throws_status([&] { cluster.remove(-1); }, JUMPSHARD_ERROR_NOT_A_BUCKET));
        CHECK(cluster.restore() == 500 && cluster.restore() == 10);
        CHECK(cluster.batch(keys) == before);
        CHECK(cluster.restore() == 1000 && cluster.barray() == 1001);

        {
            // Replica sets under removals: column 0 is the batch, members
            // distinct and working; k above the working count throws.
            std::vector<std::uint64_t> ks = {1, 2, 3, 99, 12345};
            cluster.remove(7);
            cluster.remove(400);
            auto sets = cluster.replicas_batch(ks, 3);
            auto first = cluster.batch(ks);
            for (std::size_t i = 0; i < ks.size(); i++) {
                CHECK(sets[i] == first[i]);
                for (std::size_t j = 0; j < 3; j++) {
                    CHECK(!cluster.is_removed(sets[j * ks.size() + i]));
                    for (std::size_t l = 0; l < j; l++)
                        CHECK(sets[j * ks.size() + i] != sets[l * ks.size() + i]);
                }
            }
            CHECK(throws_status([&] { jumpshard::memento(2).replicas_batch(ks, 3); },
                                JUMPSHARD_ERROR_TOO_MANY_REPLICAS));
            // One key's set is its row of the batch; a huge k throws before
            // anything is allocated.
            for (std::size_t i = 0; i < ks.size(); i++) {
                auto one = cluster.replicas(ks[i], 3);
                for (std::size_t j = 0; j < 3; j++) CHECK(one[j] == sets[j * ks.size() + i]);
            }
            CHECK(throws_status([&] { cluster.replicas(1, std::size_t{1} << 40); },
                                JUMPSHARD_ERROR_TOO_MANY_REPLICAS));
            CHECK(throws_status([&] { cluster.replicas_batch(ks, SIZE_MAX); },
                                JUMPSHARD_ERROR_TOO_MANY_REPLICAS));
            // Above the most members a set may have (1024), not the working
            // count: refused before k * size outputs are allocated too.
            CHECK(throws_status([&] { jumpshard::memento(5000).replicas_batch(ks, 2000); },
                                JUMPSHARD_ERROR_TOO_MANY_REPLICAS));
            // The plan of one more removal: exactly that bucket's keys.
            auto next = jumpshard::memento::from_removals(cluster.barray(), cluster.removals());
            const std::int32_t gone = cluster.bucket(keys[0]);
            next.remove(gone);
            auto moves = jumpshard::plan(cluster, next, keys);
            std::size_t on_gone = 0;
            for (auto k : keys) on_gone += cluster.bucket(k) == gone;
            CHECK(moves.positions.size() == on_gone);
            for (std::size_t i = 0; i < moves.positions.size(); i++)
                CHECK(moves.from[i] == gone && moves.to[i] == next.bucket(keys[moves.positions[i]]));
        }
        jumpshard::memento two(2);
        two.remove(0);
        CHECK(throws_status([&] { two.remove(1); }, JUMPSHARD_ERROR_LAST_WORKING_BUCKET));
        const std::int32_t tail[] = {9};
        CHECK(throws_status([&] { jumpshard::memento::from_removals(10, tail); },
                            JUMPSHARD_ERROR_SHRINK_IN_REMOVALS));
        CHECK(throws_status([] { jumpshard::memento bad(0); },
                            JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));
        std::vector<std::int32_t> out(keys.size(), -5);
        const std::uint64_t bad_offsets[] = {0, 3, 2};
        CHECK(throws_status([&] { two.batch_bytes("abc", bad_offsets, out); },
                            JUMPSHARD_ERROR_INVALID_OFFSETS));
        for (auto b : out) CHECK(b == -5);

        // Moves hand the handle over; a moved-from cluster refuses.
        jumpshard::memento moved = std::move(two);
        CHECK(moved && !two && moved.working() == 1 && two.barray() == -1);
        CHECK(throws_status([&] { two.bucket(1); }, JUMPSHARD_ERROR_NULL_POINTER));
        CHECK(throws_status([&] { two.remove(0); }, JUMPSHARD_ERROR_NULL_POINTER));
        moved = jumpshard::memento(5);
        CHECK(moved.barray() == 5);
        two = std::move(moved);
        CHECK(two.barray() == 5 && !moved);
    });

    run("replicas", [&](bool &ok) {
        const std::size_t k = 3;
        auto columns = jumpshard::replicas_batch(keys, 100, k);
        CHECK(columns.size() == k * keys.size());
        for (std::size_t i = 0; i < keys.size(); i++) {
            auto set = jumpshard::replicas(keys[i], 100, k);
            CHECK(set.size() == k && set[0] == jumpshard::bucket(keys[i], 100));
            CHECK(set[0] != set[1] && set[1] != set[2] && set[0] != set[2]);
            for (std::size_t j = 0; j < k; j++) CHECK(columns[j * keys.size() + i] == set[j]);
        }
        std::array<std::int32_t, 2> pair{};
        jumpshard::replicas(keys[0], 2, pair);
        CHECK((pair[0] == 0 && pair[1] == 1) || (pair[0] == 1 && pair[1] == 0));
        CHECK(throws_status([] { jumpshard::replicas(1, 2, 3); },
                            JUMPSHARD_ERROR_TOO_MANY_REPLICAS));
        // A k past the count is refused before k outputs are allocated (a
        // vector of 2^40 would throw std::bad_alloc instead).
        CHECK(throws_status([] { jumpshard::replicas(1, 5, std::size_t{1} << 40); },
                            JUMPSHARD_ERROR_TOO_MANY_REPLICAS));
        CHECK(throws_status([&] { jumpshard::replicas_batch(keys, 5, std::size_t{1} << 40); },
                            JUMPSHARD_ERROR_TOO_MANY_REPLICAS));
        CHECK(throws_status([&] { jumpshard::replicas_batch(keys, 0, 1); },
                            JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));
        std::vector<std::int32_t> wrong(keys.size(), -5);
        bool threw = false;
        try {
            jumpshard::replicas_batch(keys, 100, 2, wrong);
        } catch (const std::invalid_argument &) {
            threw = true;
        }
        CHECK(threw);
        for (auto b : wrong) CHECK(b == -5);
        CHECK(jumpshard::replicas(7, 5, 0).empty());
    });

    // testdata/replicas/golden.txt (format in its README), the first
    // argument: every plain set and every set under removals.
    run("replicas_golden", [&](bool &ok) {
        std::ifstream file(argc > 1 ? argv[1] : "");
        CHECK(file.good());
        std::string line;
        std::size_t plain = 0, under_removals = 0;
        std::vector<jumpshard::memento> cluster;
        while (std::getline(file, line)) {
            if (line.empty() || line[0] == '#') continue;
            std::istringstream words(line);
            std::string kind;
            words >> kind;
            std::vector<std::uint64_t> v;
            for (std::uint64_t x; words >> x;) v.push_back(x);
            auto members = [&](std::size_t from) {
                return std::vector<std::int32_t>(v.begin() + static_cast<std::ptrdiff_t>(from),
                                                 v.end());
            };
            if (kind == "plain") {
                auto n = static_cast<std::int32_t>(v.at(1));
                CHECK(jumpshard::replicas(v[0], n, v.at(2)) == members(3));
                plain++;
            } else if (kind == "memento") {
                cluster.clear();
                cluster.emplace_back(static_cast<std::int32_t>(v.at(0)));
            } else if (kind == "remove") {
                cluster.at(0).remove(static_cast<std::int32_t>(v.at(0)));
            } else if (kind == "set") {
                CHECK(cluster.at(0).replicas(v.at(0), v.at(1)) == members(2));
                under_removals++;
            } else {
                CHECK(!"unknown record");
            }
        }
        CHECK(plain > 1000 && under_removals > 200);
    });

    // testdata/zones/sets.txt beside the replicas' directory: every zoned
    // set by node name, and zone names.
    run("zones_golden", [&](bool &ok) {
        std::string dir = argc > 1 ? argv[1] : "";
        for (int up = 0; up < 2 && dir.find('/') != std::string::npos; up++) {
            dir.erase(dir.rfind('/'));
        }
        std::ifstream file(dir + "/zones/sets.txt");
        CHECK(file.good());
        std::string line;
        std::size_t rows = 0;
        while (std::getline(file, line)) {
            if (line.empty() || line[0] == '#') continue;
            std::istringstream words(line);
            std::string name, members;
            std::uint64_t key = 0;
            std::size_t k = 0;
            words >> name >> key >> k >> members;
            std::ifstream text_file(dir + "/zones/" + name);
            std::string text((std::istreambuf_iterator<char>(text_file)),
                             std::istreambuf_iterator<char>());
            jumpshard::table t(text);
            CHECK(t.is_zoned());
            std::string got;
            for (auto slot : t.replicas(key, k)) {
                if (!got.empty()) got += ',';
                got += std::string(t.slot_name(slot));
                CHECK(!t.zone_name(slot).empty());
            }
            CHECK(got == members);
            rows++;
        }
        CHECK(rows == 160);
        jumpshard::table zoned("a zone=x\nb zone=y\nc zone=x\n");
        auto sets = zoned.replicas_batch(keys, 2);
        CHECK(sets.size() == 2 * keys.size());
        for (std::size_t i = 0; i < keys.size(); i++) {
            CHECK(zoned.zone_name(sets[i]) != zoned.zone_name(sets[keys.size() + i]));
        }
        CHECK(throws_status([&] { zoned.replicas(1, 4); }, JUMPSHARD_ERROR_TOO_MANY_REPLICAS));
        CHECK(throws_status([&] { zoned.replicas(1, 0); }, JUMPSHARD_ERROR_TOO_MANY_REPLICAS));
        jumpshard::table plain("a\nb\n+a\n");
        CHECK(!plain.is_zoned());
        CHECK(throws_status([&] { plain.zone_name(0); }, JUMPSHARD_ERROR_NOT_ZONED));
        CHECK(throws_status([&] { plain.replicas(1, 2); }, JUMPSHARD_ERROR_SHARED_NODE));
    });

    run("weights", [&](bool &ok) {
        static_assert(!std::is_copy_constructible_v<jumpshard::weights>);
        jumpshard::weights even(std::vector<double>(12, 0.5));
        CHECK(even.size() == 12);
        CHECK(even.batch(keys) == jumpshard::batch(keys, 12));
        const double uneven[] = {1.0, 0.0, 0.25, 1.0};
        jumpshard::weights w(uneven);
        auto got = w.batch(keys);
        for (std::size_t i = 0; i < keys.size(); i++) {
            CHECK(got[i] == w.bucket(keys[i]) && got[i] != 1 && got[i] >= 0 && got[i] < 4);
        }
        const double negative[] = {1.0, -1.0};
        CHECK(throws_status([&] { jumpshard::weights bad(negative); },
                            JUMPSHARD_ERROR_INVALID_WEIGHT));
        const double zeros[] = {0.0, 0.0};
        CHECK(throws_status([&] { jumpshard::weights bad(zeros); },
                            JUMPSHARD_ERROR_ALL_WEIGHTS_ZERO));
        CHECK(throws_status([] { jumpshard::weights bad(std::vector<double>{}); },
                            JUMPSHARD_ERROR_INVALID_BUCKET_COUNT));
        jumpshard::weights moved = std::move(w);
        CHECK(moved.size() == 4 && w.size() == -1 && !w);
        CHECK(throws_status([&] { w.bucket(1); }, JUMPSHARD_ERROR_NULL_POINTER));
    });

    test_bounded_loads(keys);

    run("version", [&](bool &ok) { CHECK(jumpshard::version() == JUMPSHARD_VERSION); });

    std::printf("test_jumpshard_cpp: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
