/*
 * The C ABI as a C program sees it, through include/jumpshard.h only.
 *
 * Every result is held against this file's own copy of Figure 1, on every
 * kernel this CPU runs (forced in turn with jumpshard_set_kernel), for every
 * tail length 0..70 at shifted buffer starts, for the golden vectors (64-bit
 * and byte-string keys), and on many threads at once. Every bad argument must get its own status and leave
 * the output untouched. Built with -fsanitize=address,undefined against
 * libjumpshard.a, and run under valgrind against libjumpshard.so.
 *
 * Memento clusters, replica sets and weights go through their handles
 * and functions the same way, the Memento ones reproducing the MementoHash
 * authors' golden vectors exactly.
 *
 * Usage: test_jumpshard [GOLDEN_FILE [MEMENTO_GOLDEN_FILE]]
 * (defaults testdata/golden.txt and memento/golden.txt beside GOLDEN_FILE;
 * the replica sets' replicas/golden.txt and the zoned tables of zones/ are
 * read beside GOLDEN_FILE too)
 * JUMPSHARD_REQUIRE_KERNELS=scalar,avx2 makes a kernel this CPU cannot run
 * a failure instead of a skip.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jumpshard.h"

/* Figure 1 of Lamping and Veach, in C: the casts are the paper's C++
 * functional casts, and storing into the int64_t j truncates as there. */
static int32_t figure1(uint64_t key, int32_t num_buckets) {
    int64_t b = -1, j = 0;
    while (j < num_buckets) {
        b = j;
        key = key * 2862933555777941757ULL + 1;
        j = (b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1));
    }
    return (int32_t)b;
}

static int passed, failed;
static bool current_failed;
static int current_reports;
static const char *current;

/* Records a failure of the current test; the first few are printed. */
#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            if (!current_failed) fprintf(stderr, "FAIL %s\n", current);       \
            current_failed = true;                                            \
            if (current_reports++ < 20) {                                     \
                fprintf(stderr, "  %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
                fprintf(stderr, __VA_ARGS__);                                 \
                fputc('\n', stderr);                                          \
            }                                                                 \
        }                                                                     \
    } while (0)

static void run(const char *name, void (*test)(void)) {
    current = name;
    current_failed = false;
    current_reports = 0;
    test();
    if (current_failed) {
        failed++;
    } else {
        passed++;
        printf("ok   %s\n", name);
    }
}

static const char *const KERNELS[] = {"scalar", "avx2", "avx512", "neon"};
#define N_KERNELS (sizeof KERNELS / sizeof KERNELS[0])

static const int32_t COUNTS[] = {1, 2, 3, 10, 12, 100, 1000, 65535, 65536,
                                 1000000, (1 << 24) + 1, 2147483646, 2147483647};
#define N_COUNTS (sizeof COUNTS / sizeof COUNTS[0])

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The length of a test's large batches: `normal`, or fewer when
 * JUMPSHARD_TEST_LARGE_KEYS says so. .ci/consumers sets it under valgrind,
 * which runs these batches seventy times slower; its value still spans
 * several of the library's blocks and threads' shares (8192 and 16384
 * keys), so the same paths run. */
static size_t large_len(size_t normal) {
    const char *given = getenv("JUMPSHARD_TEST_LARGE_KEYS");
    if (given == NULL || *given == '\0') return normal;
    char *end;
    unsigned long long len = strtoull(given, &end, 10);
    if (*end != '\0' || len == 0 || len > normal) {
        fprintf(stderr, "JUMPSHARD_TEST_LARGE_KEYS=%s: not a length from 1 to %zu\n", given,
                normal);
        exit(2);
    }
    return (size_t)len;
}

/* Mixed keys with the 64-bit edges among them. */
static void fill_keys(uint64_t *keys, size_t len, uint64_t seed) {
    static const uint64_t edges[] = {0, 1, 2, UINT64_MAX, UINT64_MAX - 1,
                                     1ULL << 63, (1ULL << 63) - 1};
    for (size_t i = 0; i < len; i++) {
        keys[i] = i < sizeof edges / sizeof edges[0] ? edges[i] : splitmix64(&seed);
    }
}

static bool required(const char *kernel) {
    const char *list = getenv("JUMPSHARD_REQUIRE_KERNELS");
    if (list == NULL) return false;
    size_t n = strlen(kernel);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, kernel, n) == 0) return true;
        p += len + (end != NULL);
    }
    return false;
}

/* Forces `kernel`; false when this CPU cannot run it (a failure when it
 * is required). */
static bool use_kernel(const char *kernel) {
    jumpshard_status status = jumpshard_set_kernel(kernel);
    if (status == JUMPSHARD_ERROR_UNSUPPORTED_KERNEL) {
        CHECK(!required(kernel), "required kernel %s is not supported here", kernel);
        return false;
    }
    CHECK(status == JUMPSHARD_OK, "set_kernel(%s) = %d", kernel, (int)status);
    CHECK(strcmp(jumpshard_kernel_name(), kernel) == 0, "kernel_name() = %s after setting %s",
          jumpshard_kernel_name(), kernel);
    return status == JUMPSHARD_OK;
}

#include "batch_cases.inc"
#include "fork_cases.inc"
#include "plan_cases.inc"
#include "placement_cases.inc"
#include "memento_replica_cases.inc"
#include "table_cases.inc"
#include "bounded_cases.inc"
#include "zone_cases.inc"

int main(int argc, char **argv) {
    if (argc > 1) golden_path = argv[1];
    if (argc > 2) memento_golden_path = argv[2];
    load_golden();
    printf("jumpshard %s, kernel %s, %zu golden vectors, %zu for byte keys\n", jumpshard_version(),
           jumpshard_kernel_name(), n_goldens, n_byte_goldens);
    run("bucket_is_figure1", test_bucket_is_figure1);
    run("every_kernel", test_every_kernel);
    run("bad_arguments", test_bad_arguments);
    run("bad_byte_arguments", test_bad_byte_arguments);
    run("kernel_refusals_change_nothing", test_kernel_refusals_change_nothing);
    run("status_messages", test_status_messages);
    run("version", test_version);
    run("threads", test_threads);
    run("parallel_after_fork", test_parallel_after_fork);
    run("plan", test_plan);
    run("bad_plan_arguments", test_bad_plan_arguments);
    run("seeded_golden", test_seeded_golden);
    run("memento_golden", test_memento_golden);
    run("memento", test_memento);
    run("memento_refusals", test_memento_refusals);
    run("replicas", test_replicas);
    run("memento_replicas", test_memento_replicas);
    run("replicas_golden", test_replicas_golden);
    run("weights", test_weights);
    run("table", test_table);
    run("table_fingerprint", test_table_fingerprint);
    run("table_overrides", test_table_overrides);
    run("bounded", test_bounded);
    run("bounded_batch", test_bounded_batch);
    run("bounded_release_batch", test_bounded_release_batch);
    run("zones_golden", test_zones_golden);
    run("zones", test_zones);
    free_golden();
    printf("test_jumpshard: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
