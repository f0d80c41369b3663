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
 * (defaults testdata/golden.txt and memento/golden.txt beside GOLDEN_FILE)
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

static void test_bucket_is_figure1(void) {
    uint64_t seed = 1;
    for (int i = 0; i < 2000; i++) {
        uint64_t key = i < 3 ? (uint64_t)i : splitmix64(&seed);
        for (size_t c = 0; c < N_COUNTS; c++) {
            int32_t got = jumpshard_bucket(key, COUNTS[c]);
            CHECK(got == figure1(key, COUNTS[c]), "key %" PRIu64 " n %d: %d", key, COUNTS[c], got);
        }
    }
    const int32_t bad[] = {0, -1, -1000, INT32_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(jumpshard_bucket(42, bad[i]) == -1, "n %d", bad[i]);
        CHECK(figure1(42, bad[i]) == -1, "Figure 1 itself returns -1 for n %d", bad[i]);
    }
}

enum { MAX_TAIL = 70, MAX_SHIFT = 7, GUARD = 4 };
#define CANARY ((int32_t)0x5A5A5A5A)

/* Every length 0..MAX_TAIL, keys and out each starting 0..MAX_SHIFT
 * elements into their buffers, so SIMD kernels meet every tail and every
 * alignment above the natural one; the cells around the output must stay
 * untouched. */
static void tails_and_shifts(const char *kernel) {
    uint64_t keys[MAX_TAIL + MAX_SHIFT];
    int32_t out[GUARD + MAX_SHIFT + MAX_TAIL + GUARD];
    fill_keys(keys, MAX_TAIL + MAX_SHIFT, 7);
    for (size_t c = 0; c < N_COUNTS; c++) {
        int32_t n = COUNTS[c];
        for (size_t len = 0; len <= MAX_TAIL; len++) {
            for (size_t shift = 0; shift <= MAX_SHIFT; shift++) {
                const uint64_t *k = keys + shift;
                size_t out_shift = (shift * 3) % (MAX_SHIFT + 1);
                int32_t *o = out + GUARD + out_shift;
                for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) out[i] = CANARY;
                jumpshard_status status = jumpshard_batch(k, len, n, o);
                CHECK(status == JUMPSHARD_OK, "%s len %zu: status %d", kernel, len, (int)status);
                for (size_t i = 0; i < len; i++) {
                    int32_t want = figure1(k[i], n);
                    CHECK(o[i] == want, "%s n %d len %zu shift %zu key %" PRIu64 ": %d, want %d",
                          kernel, n, len, shift, k[i], o[i], want);
                }
                for (int32_t *p = out; p < o; p++) CHECK(*p == CANARY, "%s: wrote before out", kernel);
                for (int32_t *p = o + len; p < out + sizeof out / sizeof out[0]; p++) {
                    CHECK(*p == CANARY, "%s: wrote past out[len-1] (len %zu)", kernel, len);
                }
            }
        }
    }
}

typedef struct {
    uint64_t key;
    int32_t n, bucket;
} golden;

/* A byte-string key, its XXH3-64 pre-hash and its bucket among n. */
typedef struct {
    uint8_t *bytes;
    size_t len;
    uint64_t hash;
    int32_t n, bucket;
} golden_bytes;

static golden *goldens;
static size_t n_goldens;
static golden_bytes *byte_goldens;
static size_t n_byte_goldens;
static const char *golden_path = "testdata/golden.txt";

static void malformed(const char *line) {
    fprintf(stderr, "malformed golden line: %.80s\n", line);
    exit(2);
}

/* `array`, of `count` elements of `size` bytes in room for `*cap`, with
 * room for one more. */
static void *grow(void *array, size_t count, size_t *cap, size_t size) {
    if (count < *cap) return array;
    *cap = *cap ? 2 * *cap : 256;
    void *grown = realloc(array, *cap * size);
    if (grown == NULL) exit(2);
    return grown;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* `bytes HEX N XXH3 BUCKET`, HEX being `-` for the empty key. */
static golden_bytes parse_bytes(const char *line) {
    golden_bytes g = {NULL, 0, 0, 0, 0};
    const char *hex = line + strlen("bytes ");
    size_t digits = strcspn(hex, " ");
    if (digits == 1 && hex[0] == '-') digits = 0;
    else if (digits % 2) malformed(line);
    g.len = digits / 2;
    g.bytes = malloc(g.len ? g.len : 1);
    if (g.bytes == NULL) exit(2);
    for (size_t i = 0; i < g.len; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) malformed(line);
        g.bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    const char *rest = hex + strcspn(hex, " ");
    if (sscanf(rest, " %" SCNd32 " %" SCNu64 " %" SCNd32, &g.n, &g.hash, &g.bucket) != 3) {
        malformed(line);
    }
    return g;
}

static void load_golden(void) {
    FILE *f = fopen(golden_path, "r");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", golden_path);
        exit(2);
    }
    /* Byte keys are at most a few thousand hex digits; a longer line is an
     * error, never silently split. */
    static char line[1 << 16];
    size_t cap = 0, byte_cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (strchr(line, '\n') == NULL && !feof(f)) malformed(line);
        if (strncmp(line, "bytes ", 6) == 0) {
            byte_goldens = grow(byte_goldens, n_byte_goldens, &byte_cap, sizeof *byte_goldens);
            byte_goldens[n_byte_goldens++] = parse_bytes(line);
            continue;
        }
        /* Otherwise only `u64 KEY N BUCKET` lines; comments are skipped. */
        if (strncmp(line, "u64 ", 4) != 0) continue;
        golden g;
        if (sscanf(line + 4, "%" SCNu64 " %" SCNd32 " %" SCNd32, &g.key, &g.n, &g.bucket) != 3) {
            malformed(line);
        }
        goldens = grow(goldens, n_goldens, &cap, sizeof *goldens);
        goldens[n_goldens++] = g;
    }
    fclose(f);
}

static void free_golden(void) {
    for (size_t i = 0; i < n_byte_goldens; i++) free(byte_goldens[i].bytes);
    free(byte_goldens);
    free(goldens);
}

/* Each golden key fills a batch long enough for the SIMD main loop and a
 * tail, so both paths of every kernel see it. */
static void golden_vectors(const char *kernel) {
    enum { COPIES = 67 };
    uint64_t keys[COPIES];
    int32_t out[COPIES];
    CHECK(n_goldens > 100, "only %zu golden vectors in %s", n_goldens, golden_path);
    for (size_t g = 0; g < n_goldens; g++) {
        const golden *v = &goldens[g];
        CHECK(figure1(v->key, v->n) == v->bucket, "this file's Figure 1 disagrees on %" PRIu64,
              v->key);
        CHECK(jumpshard_bucket(v->key, v->n) == v->bucket, "bucket(%" PRIu64 ", %d)", v->key, v->n);
        for (size_t i = 0; i < COPIES; i++) keys[i] = v->key;
        CHECK(jumpshard_batch(keys, COPIES, v->n, out) == JUMPSHARD_OK, "%s", kernel);
        for (size_t i = 0; i < COPIES; i++) {
            CHECK(out[i] == v->bucket, "%s key %" PRIu64 " n %d: [%zu] = %d, want %d", kernel,
                  v->key, v->n, i, out[i], v->bucket);
        }
    }
}

/* Every byte-string golden key: its pre-hash and bucket one at a time, and
 * in one batch per bucket count with all the keys of that count, cut out
 * of a data buffer that starts at a shifted offset. */
static void byte_golden_vectors(const char *kernel) {
    CHECK(n_byte_goldens >= 50, "only %zu byte golden vectors in %s", n_byte_goldens, golden_path);
    size_t total = 0;
    for (size_t g = 0; g < n_byte_goldens; g++) {
        const golden_bytes *v = &byte_goldens[g];
        uint64_t hash = ~v->hash;
        CHECK(jumpshard_prehash_bytes(v->bytes, v->len, &hash) == JUMPSHARD_OK, "prehash");
        CHECK(hash == v->hash, "prehash of %zu bytes: %" PRIu64 ", want %" PRIu64, v->len, hash,
              v->hash);
        CHECK(figure1(v->hash, v->n) == v->bucket, "this file's Figure 1 disagrees");
        int32_t got = jumpshard_bucket_bytes(v->bytes, v->len, v->n);
        CHECK(got == v->bucket, "bucket_bytes(%zu bytes, %d) = %d, want %d", v->len, v->n, got,
              v->bucket);
        total += v->len;
    }
    enum { SHIFT = 3 };
    uint8_t *data = malloc(SHIFT + total + 1);
    uint64_t *offsets = malloc((n_byte_goldens + 1) * sizeof *offsets);
    int32_t *out = malloc((n_byte_goldens + 1) * sizeof *out);
    int32_t *want = malloc((n_byte_goldens + 1) * sizeof *want);
    if (!data || !offsets || !out || !want) exit(2);
    for (size_t first = 0; first < n_byte_goldens; first++) {
        int32_t n = byte_goldens[first].n;
        bool seen = false;
        for (size_t g = 0; g < first; g++) seen |= byte_goldens[g].n == n;
        if (seen) continue;
        size_t keys = 0, end = SHIFT;
        offsets[0] = SHIFT;
        for (size_t g = first; g < n_byte_goldens; g++) {
            const golden_bytes *v = &byte_goldens[g];
            if (v->n != n) continue;
            if (v->len) memcpy(data + end, v->bytes, v->len);
            end += v->len;
            want[keys] = v->bucket;
            offsets[++keys] = end;
        }
        for (size_t i = 0; i <= keys; i++) out[i] = CANARY;
        jumpshard_status s = jumpshard_batch_bytes(data, end, offsets, keys + 1, n, out, keys);
        CHECK(s == JUMPSHARD_OK, "%s batch_bytes n %d: %d", kernel, n, (int)s);
        for (size_t i = 0; i < keys; i++) {
            CHECK(out[i] == want[i], "%s batch_bytes n %d [%zu] = %d, want %d", kernel, n, i,
                  out[i], want[i]);
        }
        CHECK(out[keys] == CANARY, "%s batch_bytes wrote past out[%zu]", kernel, keys);
    }
    free(data);
    free(offsets);
    free(out);
    free(want);
}

/* batch_parallel gives exactly batch's results, whatever the thread count. */
static void parallel_matches(const char *kernel) {
    enum { LEN = 100003 };
    uint64_t *keys = malloc(LEN * sizeof *keys);
    int32_t *one = malloc(LEN * sizeof *one);
    int32_t *many = malloc(LEN * sizeof *many);
    if (!keys || !one || !many) exit(2);
    fill_keys(keys, LEN, 99);
    const size_t threads[] = {0, 1, 2, 3, 64};
    for (size_t c = 0; c < N_COUNTS; c += 3) {
        CHECK(jumpshard_batch(keys, LEN, COUNTS[c], one) == JUMPSHARD_OK, "%s", kernel);
        for (size_t i = 0; i < LEN; i += 997) {
            CHECK(one[i] == figure1(keys[i], COUNTS[c]), "%s [%zu]", kernel, i);
        }
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            memset(many, 0xA5, LEN * sizeof *many);
            jumpshard_status s = jumpshard_batch_parallel(keys, LEN, COUNTS[c], many, threads[t]);
            CHECK(s == JUMPSHARD_OK, "%s threads %zu: %d", kernel, threads[t], (int)s);
            CHECK(memcmp(one, many, LEN * sizeof *one) == 0, "%s threads %zu differ", kernel,
                  threads[t]);
        }
    }
    free(keys);
    free(one);
    free(many);
}

static void test_every_kernel(void) {
    for (size_t i = 0; i < N_KERNELS; i++) {
        if (!use_kernel(KERNELS[i])) {
            if (!current_failed) printf("skip %s kernel: not supported by this CPU\n", KERNELS[i]);
            continue;
        }
        tails_and_shifts(KERNELS[i]);
        golden_vectors(KERNELS[i]);
        byte_golden_vectors(KERNELS[i]);
        parallel_matches(KERNELS[i]);
    }
}

typedef jumpshard_status (*batch_fn)(const uint64_t *, size_t, int32_t, int32_t *);

static jumpshard_status parallel_two(const uint64_t *k, size_t len, int32_t n, int32_t *o) {
    return jumpshard_batch_parallel(k, len, n, o, 2);
}

static bool untouched(const int32_t *out, size_t len) {
    for (size_t i = 0; i < len; i++) {
        if (out[i] != CANARY) return false;
    }
    return true;
}

/* Each bad argument gets its own status and leaves out untouched, in both
 * batch functions. */
static void test_bad_arguments(void) {
    const batch_fn fns[] = {jumpshard_batch, parallel_two};
    enum { LEN = 16 };
    uint64_t keys[LEN + 1];
    int32_t out[LEN + 1];
    fill_keys(keys, LEN + 1, 3);
    for (size_t f = 0; f < 2; f++) {
        batch_fn batch = fns[f];
#define REFUSED(want, call)                                                        \
    do {                                                                           \
        for (size_t i = 0; i < LEN + 1; i++) out[i] = CANARY;                      \
        jumpshard_status got = (call);                                             \
        CHECK(got == (want), "fn %zu: %s = %d (%s), want %s", f, #call, (int)got,  \
              jumpshard_status_message(got), #want);                               \
        CHECK(untouched(out, LEN + 1), "fn %zu: %s wrote its output", f, #call);   \
    } while (0)
        const int32_t bad_counts[] = {0, -1, INT32_MIN};
        for (size_t i = 0; i < 3; i++) {
            REFUSED(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT, batch(keys, LEN, bad_counts[i], out));
            REFUSED(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT, batch(NULL, 0, bad_counts[i], NULL));
        }
        REFUSED(JUMPSHARD_ERROR_NULL_POINTER, batch(NULL, LEN, 10, out));
        REFUSED(JUMPSHARD_ERROR_NULL_POINTER, batch(keys, LEN, 10, NULL));

        /* Misaligned pointers, made from addresses: never dereferenced here. */
        const uint64_t *odd_keys = (const uint64_t *)((uintptr_t)keys + 4);
        int32_t *odd_out = (int32_t *)((uintptr_t)out + 2);
        REFUSED(JUMPSHARD_ERROR_MISALIGNED_POINTER, batch(odd_keys, LEN - 1, 10, out));
        REFUSED(JUMPSHARD_ERROR_MISALIGNED_POINTER, batch(keys, LEN - 1, 10, odd_out));

        REFUSED(JUMPSHARD_ERROR_INVALID_LENGTH, batch(keys, (size_t)PTRDIFF_MAX / 8 + 1, 10, out));
        REFUSED(JUMPSHARD_ERROR_INVALID_LENGTH, batch(keys, SIZE_MAX, 10, out));

        /* out inside keys. */
        uint64_t shared[LEN];
        memset(shared, 0, sizeof shared);
        for (size_t i = 0; i < LEN + 1; i++) out[i] = CANARY;
        jumpshard_status s = batch(shared, LEN, 10, (int32_t *)(void *)(shared + 1));
        CHECK(s == JUMPSHARD_ERROR_OVERLAPPING_BUFFERS, "fn %zu: overlap gave %d", f, (int)s);
        for (size_t i = 0; i < LEN; i++) CHECK(shared[i] == 0, "fn %zu: overlap was written", f);

        /* Nothing to do: NULL is fine, and nothing is written. */
        REFUSED(JUMPSHARD_OK, batch(NULL, 0, 10, NULL));
        REFUSED(JUMPSHARD_OK, batch(NULL, 0, 10, out));
        REFUSED(JUMPSHARD_OK, batch(keys, 0, 10, NULL));
#undef REFUSED
    }
}

/* Each bad byte-key argument gets its own status (or -1) and leaves the
 * output untouched. */
static void test_bad_byte_arguments(void) {
    static const uint8_t data[] = "alicebobcarol";
    enum { KEYS = 3, DATA_LEN = 13 };
    const uint64_t offsets[KEYS + 1] = {0, 5, 8, 13};
    int32_t out[KEYS + 1];
#define REFUSED(want, call)                                                        \
    do {                                                                           \
        for (size_t i = 0; i < KEYS + 1; i++) out[i] = CANARY;                     \
        jumpshard_status got = (call);                                             \
        CHECK(got == (want), "%s = %d (%s), want %s", #call, (int)got,             \
              jumpshard_status_message(got), #want);                               \
        CHECK(untouched(out, KEYS + 1), "%s wrote its output", #call);             \
    } while (0)
    const int32_t bad_counts[] = {0, -1, INT32_MIN};
    for (size_t i = 0; i < 3; i++) {
        REFUSED(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT,
                jumpshard_batch_bytes(data, DATA_LEN, offsets, KEYS + 1, bad_counts[i], out, KEYS));
        CHECK(jumpshard_bucket_bytes(data, DATA_LEN, bad_counts[i]) == -1, "n %d", bad_counts[i]);
    }
    REFUSED(JUMPSHARD_ERROR_NULL_POINTER,
            jumpshard_batch_bytes(NULL, DATA_LEN, offsets, KEYS + 1, 10, out, KEYS));
    REFUSED(JUMPSHARD_ERROR_NULL_POINTER,
            jumpshard_batch_bytes(data, DATA_LEN, NULL, KEYS + 1, 10, out, KEYS));
    REFUSED(JUMPSHARD_ERROR_NULL_POINTER,
            jumpshard_batch_bytes(data, DATA_LEN, offsets, KEYS + 1, 10, NULL, KEYS));
    const uint64_t *odd_offsets = (const uint64_t *)((uintptr_t)offsets + 4);
    REFUSED(JUMPSHARD_ERROR_MISALIGNED_POINTER,
            jumpshard_batch_bytes(data, DATA_LEN, odd_offsets, 2, 10, out, 1));
    REFUSED(JUMPSHARD_ERROR_INVALID_LENGTH,
            jumpshard_batch_bytes(data, SIZE_MAX, offsets, KEYS + 1, 10, out, KEYS));

    /* Offsets that do not cut the data into KEYS keys. */
    REFUSED(JUMPSHARD_ERROR_INVALID_OFFSETS,
            jumpshard_batch_bytes(data, DATA_LEN, offsets, KEYS, 10, out, KEYS));
    REFUSED(JUMPSHARD_ERROR_INVALID_OFFSETS,
            jumpshard_batch_bytes(data, DATA_LEN, offsets, KEYS + 1, 10, out, KEYS - 1));
    REFUSED(JUMPSHARD_ERROR_INVALID_OFFSETS,
            jumpshard_batch_bytes(data, DATA_LEN - 1, offsets, KEYS + 1, 10, out, KEYS));
    REFUSED(JUMPSHARD_ERROR_INVALID_OFFSETS, jumpshard_batch_bytes(NULL, 0, NULL, 0, 10, out, 0));
    const uint64_t decreasing[KEYS + 1] = {0, 8, 5, 13};
    REFUSED(JUMPSHARD_ERROR_INVALID_OFFSETS,
            jumpshard_batch_bytes(data, DATA_LEN, decreasing, KEYS + 1, 10, out, KEYS));
    /* Arrow's int64_t offsets read through uint64_t: a negative one is past the data. */
    const int64_t negative[KEYS + 1] = {0, 5, -1, 13};
    REFUSED(JUMPSHARD_ERROR_INVALID_OFFSETS,
            jumpshard_batch_bytes(data, DATA_LEN, (const uint64_t *)negative, KEYS + 1, 10, out,
                                  KEYS));

    /* out overlapping an input. */
    uint64_t shared[8] = {0, 1, 2, 3, 0, 0, 0, 0};
    jumpshard_status s = jumpshard_batch_bytes((const uint8_t *)shared, sizeof shared, shared,
                                               KEYS + 1, 10, (int32_t *)(void *)(shared + 1), KEYS);
    CHECK(s == JUMPSHARD_ERROR_OVERLAPPING_BUFFERS, "overlap gave %d", (int)s);
    CHECK(shared[1] == 1 && shared[2] == 2 && shared[3] == 3, "an input was written");

    /* An empty batch: one offset; NULL buffers of length 0 are fine. */
    REFUSED(JUMPSHARD_OK, jumpshard_batch_bytes(NULL, 0, offsets, 1, 10, NULL, 0));
    REFUSED(JUMPSHARD_OK, jumpshard_batch_bytes(data, DATA_LEN, offsets + 3, 1, 10, out, 0));
#undef REFUSED
    /* Arrow's int64_t offsets, passed as they are. */
    const int64_t arrow[KEYS + 1] = {0, 5, 8, 13};
    s = jumpshard_batch_bytes(data, DATA_LEN, (const uint64_t *)arrow, KEYS + 1, 10, out, KEYS);
    CHECK(s == JUMPSHARD_OK, "int64_t offsets: %d", (int)s);
    for (size_t i = 0; i < KEYS; i++) {
        int32_t one = jumpshard_bucket_bytes(data + arrow[i], (size_t)(arrow[i + 1] - arrow[i]), 10);
        CHECK(out[i] == one, "batch_bytes [%zu] = %d, bucket_bytes %d", i, out[i], one);
    }

    /* One key: NULL with a length, and impossible lengths. */
    const uint64_t sentinel = 0x5A5A5A5A5A5A5A5AULL;
    uint64_t hash = sentinel;
    CHECK(jumpshard_prehash_bytes(NULL, 1, &hash) == JUMPSHARD_ERROR_NULL_POINTER, "NULL data");
    CHECK(jumpshard_prehash_bytes(data, SIZE_MAX, &hash) == JUMPSHARD_ERROR_INVALID_LENGTH, "len");
    CHECK(jumpshard_prehash_bytes(data, 1, NULL) == JUMPSHARD_ERROR_NULL_POINTER, "NULL out");
    uint64_t *odd_hash = (uint64_t *)((uintptr_t)&hash + 1);
    CHECK(jumpshard_prehash_bytes(data, 1, odd_hash) == JUMPSHARD_ERROR_MISALIGNED_POINTER, "odd");
    CHECK(hash == sentinel, "prehash wrote its output on error");
    CHECK(jumpshard_prehash_bytes((const uint8_t *)shared, sizeof shared, shared + 7) ==
              JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
          "out inside data");
    CHECK(jumpshard_prehash_bytes(NULL, 0, &hash) == JUMPSHARD_OK, "empty key");
    CHECK(hash == 0x2D06800538D394C2ULL, "prehash of the empty key: %" PRIx64, hash);
    CHECK(jumpshard_bucket_bytes(NULL, 0, 1000) == 241, "bucket of the empty key");
    CHECK(jumpshard_bucket_bytes(NULL, 1, 10) == -1, "NULL with a length");
    CHECK(jumpshard_bucket_bytes(data, SIZE_MAX, 10) == -1, "impossible length");
}

static void test_kernel_refusals_change_nothing(void) {
    const char *before = jumpshard_kernel_name();
    struct {
        const char *name;
        jumpshard_status want;
    } cases[] = {
        {NULL, JUMPSHARD_ERROR_NULL_POINTER},
        {"", JUMPSHARD_ERROR_UNKNOWN_KERNEL},
        {"sse9", JUMPSHARD_ERROR_UNKNOWN_KERNEL},
        {"Scalar", JUMPSHARD_ERROR_UNKNOWN_KERNEL},
        {"scalar ", JUMPSHARD_ERROR_UNKNOWN_KERNEL},
        {"sc\xff" "alar", JUMPSHARD_ERROR_UNKNOWN_KERNEL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        jumpshard_status got = jumpshard_set_kernel(cases[i].name);
        CHECK(got == cases[i].want, "set_kernel(%s) = %d", cases[i].name ? cases[i].name : "NULL",
              (int)got);
        CHECK(strcmp(jumpshard_kernel_name(), before) == 0, "kernel changed to %s",
              jumpshard_kernel_name());
    }
    for (size_t i = 0; i < N_KERNELS; i++) {
        jumpshard_status got = jumpshard_set_kernel(KERNELS[i]);
        if (got == JUMPSHARD_ERROR_UNSUPPORTED_KERNEL) {
            CHECK(strcmp(jumpshard_kernel_name(), KERNELS[i]) != 0, "%s", KERNELS[i]);
        } else {
            CHECK(got == JUMPSHARD_OK, "%s: %d", KERNELS[i], (int)got);
        }
    }
    CHECK(jumpshard_set_kernel(before) == JUMPSHARD_OK, "restoring %s", before);
}

static void test_status_messages(void) {
    const jumpshard_status all[] = {
        JUMPSHARD_OK,
        JUMPSHARD_ERROR_NULL_POINTER,
        JUMPSHARD_ERROR_INVALID_BUCKET_COUNT,
        JUMPSHARD_ERROR_UNKNOWN_KERNEL,
        JUMPSHARD_ERROR_UNSUPPORTED_KERNEL,
        JUMPSHARD_ERROR_PANIC,
        JUMPSHARD_ERROR_MISALIGNED_POINTER,
        JUMPSHARD_ERROR_INVALID_LENGTH,
        JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
        JUMPSHARD_ERROR_INVALID_OFFSETS,
        JUMPSHARD_ERROR_CAPACITY,
        JUMPSHARD_ERROR_NOT_A_BUCKET,
        JUMPSHARD_ERROR_ALREADY_REMOVED,
        JUMPSHARD_ERROR_LAST_WORKING_BUCKET,
        JUMPSHARD_ERROR_SHRINK_IN_REMOVALS,
        JUMPSHARD_ERROR_TOO_MANY_REPLICAS,
        JUMPSHARD_ERROR_INVALID_WEIGHT,
        JUMPSHARD_ERROR_ALL_WEIGHTS_ZERO,
    };
    enum { N = sizeof all / sizeof all[0] };
    for (size_t i = 0; i < N; i++) CHECK((size_t)all[i] == i, "status %zu has code %d", i, (int)all[i]);
    const char *unknown = jumpshard_status_message(-1);
    CHECK(unknown != NULL && *unknown, "unknown code message");
    for (size_t i = 0; i < N; i++) {
        const char *m = jumpshard_status_message(all[i]);
        CHECK(m != NULL && *m, "status %d has no message", (int)all[i]);
        CHECK(strcmp(m, unknown) != 0, "status %d has the unknown-code message", (int)all[i]);
        for (size_t j = 0; j < i; j++) {
            CHECK(strcmp(m, jumpshard_status_message(all[j])) != 0, "statuses %d and %d share %s",
                  (int)all[i], (int)all[j], m);
        }
    }
    CHECK(JUMPSHARD_OK == 0, "JUMPSHARD_OK must be 0");
    const int32_t odd[] = {N, 1000, INT32_MAX, INT32_MIN};
    for (size_t i = 0; i < 4; i++) {
        CHECK(strcmp(jumpshard_status_message(odd[i]), unknown) == 0, "code %d", odd[i]);
    }
}

static void test_version(void) {
    char macros[64];
    snprintf(macros, sizeof macros, "%d.%d.%d", JUMPSHARD_VERSION_MAJOR, JUMPSHARD_VERSION_MINOR,
             JUMPSHARD_VERSION_PATCH);
    CHECK(strcmp(macros, JUMPSHARD_VERSION) == 0, "%s vs %s", macros, JUMPSHARD_VERSION);
    CHECK(strcmp(jumpshard_version(), JUMPSHARD_VERSION) == 0,
          "library %s, header " JUMPSHARD_VERSION, jumpshard_version());
}

/* The move plan: every key whose Figure 1 bucket differs between `from`
 * and `to`, in input order, as (position, source, destination). */
typedef jumpshard_status (*plan_fn)(const uint64_t *, size_t, int32_t, int32_t, uint64_t *,
                                    int32_t *, int32_t *, size_t, size_t *);

static jumpshard_status plan_parallel_three(const uint64_t *k, size_t len, int32_t from,
                                            int32_t to, uint64_t *p, int32_t *s, int32_t *d,
                                            size_t capacity, size_t *moved) {
    return jumpshard_plan_parallel(k, len, from, to, p, s, d, capacity, moved, 3);
}

static const plan_fn PLAN_FNS[] = {jumpshard_plan, plan_parallel_three};
static const char *const PLAN_NAMES[] = {"plan", "plan_parallel(3)"};

/* Output buffers of `cap` elements, filled with canaries. */
typedef struct {
    uint64_t *positions;
    int32_t *sources, *destinations;
    size_t cap, moved;
} plan_out;

static plan_out plan_out_new(size_t cap) {
    plan_out o = {malloc((cap + 1) * sizeof(uint64_t)), malloc((cap + 1) * sizeof(int32_t)),
                  malloc((cap + 1) * sizeof(int32_t)), cap, SIZE_MAX};
    if (!o.positions || !o.sources || !o.destinations) abort();
    for (size_t i = 0; i <= cap; i++) {
        o.positions[i] = (uint64_t)CANARY;
        o.sources[i] = o.destinations[i] = CANARY;
    }
    return o;
}

static void plan_out_free(plan_out *o) {
    free(o->positions);
    free(o->sources);
    free(o->destinations);
}

/* Whether elements from..cap of every column still hold their canary. */
static bool plan_untouched(const plan_out *o, size_t from) {
    for (size_t i = from; i <= o->cap; i++) {
        if (o->positions[i] != (uint64_t)CANARY || o->sources[i] != CANARY ||
            o->destinations[i] != CANARY)
            return false;
    }
    return true;
}

/* Checks both plan functions on `keys` against Figure 1, with and without
 * sources, for every capacity case: len, exactly enough, more than len,
 * one too few and zero (both refused with only *moved written). Large
 * batches (which cross blocks and threads) check only capacity len and
 * one too few, with sources, to keep the run under valgrind short. */
static void check_plan(const uint64_t *keys, size_t len, int32_t from, int32_t to) {
    bool large = len > 1000;
    uint64_t *want_p = malloc((len + 1) * sizeof(uint64_t));
    int32_t *want_s = malloc((len + 1) * sizeof(int32_t));
    int32_t *want_d = malloc((len + 1) * sizeof(int32_t));
    if (!want_p || !want_s || !want_d) abort();
    size_t want = 0;
    for (size_t i = 0; i < len; i++) {
        int32_t a = figure1(keys[i], from), b = figure1(keys[i], to);
        if (a == b) continue;
        want_p[want] = i;
        want_s[want] = a;
        want_d[want++] = b;
    }
    for (size_t f = 0; f < 2; f++) {
        for (int with_sources = large; with_sources < 2; with_sources++) {
            const size_t caps[] = {len, want - 1, want, len + 3, 0};
            for (size_t c = 0; c < (large ? 2 : 5); c++) {
                if (caps[c] > len + 3) continue; /* want - 1 when nothing moves */
                plan_out o = plan_out_new(caps[c]);
                jumpshard_status got =
                    PLAN_FNS[f](keys, len, from, to, o.positions, with_sources ? o.sources : NULL,
                                o.destinations, o.cap, &o.moved);
                bool fits = caps[c] >= want;
                CHECK(got == (fits ? JUMPSHARD_OK : JUMPSHARD_ERROR_CAPACITY),
                      "%s %d->%d len %zu capacity %zu: status %d", PLAN_NAMES[f], from, to, len,
                      caps[c], (int)got);
                CHECK(o.moved == want, "%s %d->%d len %zu: moved %zu, want %zu", PLAN_NAMES[f],
                      from, to, len, o.moved, want);
                if (fits) {
                    for (size_t i = 0; i < want; i++) {
                        CHECK(o.positions[i] == want_p[i] && o.destinations[i] == want_d[i] &&
                                  o.sources[i] == (with_sources ? want_s[i] : CANARY),
                              "%s %d->%d len %zu: move %zu", PLAN_NAMES[f], from, to, len, i);
                    }
                }
                CHECK(plan_untouched(&o, fits ? want : 0),
                      "%s %d->%d len %zu capacity %zu: written past the plan", PLAN_NAMES[f],
                      from, to, len, caps[c]);
                plan_out_free(&o);
            }
        }
    }
    free(want_p);
    free(want_s);
    free(want_d);
}

static void test_plan(void) {
    enum { LEN = 300 };
    uint64_t keys[LEN + 1];
    fill_keys(keys, LEN + 1, 11);
    const char *before = jumpshard_kernel_name();
    for (size_t k = 0; k < N_KERNELS; k++) {
        if (jumpshard_set_kernel(KERNELS[k]) != JUMPSHARD_OK) continue;
        for (size_t len = 0; len <= LEN; len++) {
            check_plan(keys, len, 10, 12);
            check_plan(keys, len, 12, 10);
        }
        check_plan(keys + 1, LEN, 1, INT32_MAX); /* keys at an odd 8-byte offset */
        check_plan(keys, LEN, INT32_MAX, 1);
        check_plan(keys, LEN, 2, 1);
    }
    CHECK(jumpshard_set_kernel(before) == JUMPSHARD_OK, "restoring %s", before);

    enum { BIG = 1000000 };
    uint64_t *big = malloc(BIG * sizeof(uint64_t));
    if (!big) abort();
    fill_keys(big, BIG, 12);
    check_plan(big, BIG, 10, 12);
    check_plan(big, BIG, 12, 10);
    free(big);
}

/* Each bad plan argument gets its status and writes nothing, *moved
 * included. */
static void test_bad_plan_arguments(void) {
    enum { LEN = 64 };
    uint64_t keys[LEN];
    fill_keys(keys, LEN, 13);
    for (size_t f = 0; f < 2; f++) {
        plan_fn plan = PLAN_FNS[f];
        plan_out o = plan_out_new(LEN);
        uint64_t *p = o.positions;
        int32_t *s = o.sources, *d = o.destinations;
        size_t *m = &o.moved;
#define PLAN_REFUSED(want, call)                                                       \
    do {                                                                               \
        o.moved = 12345;                                                               \
        jumpshard_status got = (call);                                                 \
        CHECK(got == (want), "%s: %s = %d (%s), want %s", PLAN_NAMES[f], #call,        \
              (int)got, jumpshard_status_message(got), #want);                         \
        CHECK(plan_untouched(&o, 0) && o.moved == 12345, "%s: %s wrote an output",     \
              PLAN_NAMES[f], #call);                                                   \
    } while (0)
        const int32_t bad_counts[] = {0, -1, INT32_MIN};
        for (size_t i = 0; i < 3; i++) {
            PLAN_REFUSED(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT,
                         plan(keys, LEN, bad_counts[i], 10, p, s, d, LEN, m));
            PLAN_REFUSED(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT,
                         plan(keys, LEN, 10, bad_counts[i], p, s, d, LEN, m));
            PLAN_REFUSED(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT,
                         plan(NULL, 0, bad_counts[i], 10, NULL, NULL, NULL, 0, m));
        }
        PLAN_REFUSED(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT, plan(keys, LEN, 10, 10, p, s, d, LEN, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT, plan(NULL, 0, 7, 7, p, s, d, LEN, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_NULL_POINTER, plan(keys, LEN, 10, 12, p, s, d, LEN, NULL));
        PLAN_REFUSED(JUMPSHARD_ERROR_NULL_POINTER, plan(NULL, 0, 10, 12, p, s, d, LEN, NULL));
        PLAN_REFUSED(JUMPSHARD_ERROR_NULL_POINTER, plan(NULL, LEN, 10, 12, p, s, d, LEN, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_NULL_POINTER, plan(keys, LEN, 10, 12, NULL, s, d, LEN, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_NULL_POINTER, plan(keys, LEN, 10, 12, p, s, NULL, LEN, m));

        /* Misaligned pointers, made from addresses: never dereferenced here. */
        const uint64_t *odd_keys = (const uint64_t *)((uintptr_t)keys + 4);
        uint64_t *odd_p = (uint64_t *)((uintptr_t)p + 4);
        int32_t *odd_s = (int32_t *)((uintptr_t)s + 2);
        int32_t *odd_d = (int32_t *)((uintptr_t)d + 1);
        size_t *odd_m = (size_t *)((uintptr_t)m + 4);
        PLAN_REFUSED(JUMPSHARD_ERROR_MISALIGNED_POINTER,
                     plan(odd_keys, LEN - 1, 10, 12, p, s, d, LEN, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_MISALIGNED_POINTER,
                     plan(keys, LEN, 10, 12, odd_p, s, d, LEN - 1, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_MISALIGNED_POINTER,
                     plan(keys, LEN, 10, 12, p, odd_s, d, LEN - 1, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_MISALIGNED_POINTER,
                     plan(keys, LEN, 10, 12, p, s, odd_d, LEN - 1, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_MISALIGNED_POINTER,
                     plan(keys, LEN, 10, 12, p, s, d, LEN, odd_m));

        PLAN_REFUSED(JUMPSHARD_ERROR_INVALID_LENGTH,
                     plan(keys, (size_t)PTRDIFF_MAX / 8 + 1, 10, 12, p, s, d, LEN, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_INVALID_LENGTH,
                     plan(keys, SIZE_MAX, 10, 12, p, s, d, SIZE_MAX, m));

        /* Overlaps: an output over the keys, two outputs, moved inside one. */
        PLAN_REFUSED(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
                     plan(keys, LEN, 10, 12, keys, s, d, LEN, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
                     plan(keys, LEN, 10, 12, p, d, d, LEN, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
                     plan(keys, LEN, 10, 12, p, s, (int32_t *)(void *)(p + 1), LEN / 4, m));
        PLAN_REFUSED(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
                     plan(keys, LEN, 10, 12, p, s, d, LEN, (size_t *)(void *)(p + 2)));
#undef PLAN_REFUSED

        /* Nothing to plan: NULL buffers are fine and *moved is 0. */
        jumpshard_status got = plan(NULL, 0, 10, 12, NULL, NULL, NULL, 0, m);
        CHECK(got == JUMPSHARD_OK && o.moved == 0, "%s: empty plan: %d, %zu", PLAN_NAMES[f],
              (int)got, o.moved);
        /* Sizing with capacity 0 and NULL buffers, then the plan. */
        got = plan(keys, LEN, 10, 12, NULL, NULL, NULL, 0, m);
        size_t needed = o.moved;
        CHECK(got == JUMPSHARD_ERROR_CAPACITY && needed > 0 && needed < LEN,
              "%s: sizing call: %d, %zu", PLAN_NAMES[f], (int)got, needed);
        got = plan(keys, LEN, 10, 12, p, NULL, d, needed, m);
        CHECK(got == JUMPSHARD_OK && o.moved == needed, "%s: sized call: %d, %zu", PLAN_NAMES[f],
              (int)got, o.moved);
        plan_out_free(&o);
    }
}

/* Threads hash while the main thread switches kernels under them: every
 * batch must still be exact, since every kernel gives the same answer. */
enum { WORKERS = 4, ROUNDS = 60, WLEN = 1000 };

static void *worker(void *arg) {
    uint64_t keys[WLEN];
    int32_t out[WLEN];
    size_t bad = 0;
    fill_keys(keys, WLEN, (uint64_t)(uintptr_t)arg);
    for (int r = 0; r < ROUNDS; r++) {
        int32_t n = COUNTS[r % N_COUNTS];
        jumpshard_status s = (r % 2) ? jumpshard_batch(keys, WLEN, n, out)
                                     : jumpshard_batch_parallel(keys, WLEN, n, out, 0);
        if (s != JUMPSHARD_OK) bad++;
        for (size_t i = 0; i < WLEN; i += 7) bad += out[i] != figure1(keys[i], n);
        bad += strlen(jumpshard_kernel_name()) == 0;
    }
    return (void *)bad;
}

static void test_threads(void) {
    const char *before = jumpshard_kernel_name();
    pthread_t threads[WORKERS];
    for (uintptr_t t = 0; t < WORKERS; t++) {
        CHECK(pthread_create(&threads[t], NULL, worker, (void *)(t + 1)) == 0, "pthread_create");
    }
    for (int r = 0; r < 200; r++) (void)jumpshard_set_kernel(KERNELS[r % N_KERNELS]);
    for (size_t t = 0; t < WORKERS; t++) {
        void *bad;
        pthread_join(threads[t], &bad);
        CHECK(bad == NULL, "thread %zu saw %zu bad results", t, (size_t)(uintptr_t)bad);
    }
    CHECK(jumpshard_set_kernel(before) == JUMPSHARD_OK, "restoring %s", before);
}

/* `bytes_seeded HEX SEED N XXH3 BUCKET` lines of seeded_golden.txt, next to
 * the golden file: the seeded pre-hash and the seeded batch. */
static void test_seeded_golden(void) {
    char path[4096];
    const char *slash = strrchr(golden_path, '/');
    int dir = slash ? (int)(slash - golden_path + 1) : 0;
    snprintf(path, sizeof path, "%.*sseeded_golden.txt", dir, golden_path);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (f == NULL) return;
    static char line[1 << 16];
    size_t rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "bytes_seeded ", 13) != 0) continue;
        /* Reuse the `bytes` parser on the line without its seed. */
        char *hex = line + 13, *seed_at = hex + strcspn(hex, " ");
        uint64_t seed;
        if (sscanf(seed_at, " %" SCNu64, &seed) != 1) malformed(line);
        char *after = seed_at + 1 + strcspn(seed_at + 1, " ");
        memmove(seed_at, after, strlen(after) + 1);
        memcpy(line + 7, "bytes ", 6);
        golden_bytes g = parse_bytes(line + 7);
        uint64_t hash = 0;
        CHECK(jumpshard_prehash_bytes_seeded(g.bytes, g.len, seed, &hash) == JUMPSHARD_OK,
              "prehash_seeded");
        CHECK(hash == g.hash, "prehash_seeded of %zu bytes, seed %" PRIu64 ": %" PRIu64
              ", want %" PRIu64, g.len, seed, hash, g.hash);
        uint64_t offsets[2] = {0, g.len};
        int32_t out[2] = {CANARY, CANARY};
        CHECK(jumpshard_batch_bytes_seeded(g.bytes, g.len, offsets, 2, seed, g.n, out, 1) ==
                  JUMPSHARD_OK,
              "batch_bytes_seeded");
        CHECK(out[0] == g.bucket && out[1] == CANARY, "batch_bytes_seeded seed %" PRIu64
              " n %d: %d, want %d", seed, g.n, out[0], g.bucket);
        free(g.bytes);
        rows++;
    }
    fclose(f);
    CHECK(rows >= 300, "only %zu seeded golden vectors in %s", rows, path);
}

/* ---- Memento clusters, replica sets and weights ---- */

/* `call` returns `want`; otherwise the call, its status and message. */
#define STATUS_IS(want, call)                                                      \
    do {                                                                           \
        jumpshard_status got_ = (call);                                            \
        CHECK(got_ == (want), "%s = %d (%s), want %s", #call, (int)got_,           \
              jumpshard_status_message(got_), #want);                              \
    } while (0)

static const char *memento_golden_path = NULL;

/* `hex` (`-` for the empty key) into `out`, which has room for it; its
 * length in bytes, or SIZE_MAX if it is not hex. */
static size_t parse_hex(const char *hex, size_t digits, uint8_t *out) {
    if (digits == 1 && hex[0] == '-') return 0;
    if (digits % 2) return SIZE_MAX;
    for (size_t i = 0; i < digits / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return SIZE_MAX;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return digits / 2;
}

/* The lookups of one cluster state, back to back, for one batch. */
typedef struct {
    uint8_t *data;
    size_t data_len, data_cap;
    uint64_t *offsets;
    int32_t *want, *out;
    size_t keys, keys_cap;
} lookups;

static void lookups_add(lookups *l, const uint8_t *key, size_t len, int32_t want) {
    if (l->data_len + len > l->data_cap) {
        l->data_cap = 2 * (l->data_len + len) + 256;
        l->data = realloc(l->data, l->data_cap);
        if (l->data == NULL) exit(2);
    }
    if (l->keys + 2 > l->keys_cap) {
        l->keys_cap = 2 * l->keys_cap + 256;
        l->offsets = realloc(l->offsets, l->keys_cap * sizeof *l->offsets);
        l->want = realloc(l->want, l->keys_cap * sizeof *l->want);
        l->out = realloc(l->out, l->keys_cap * sizeof *l->out);
        if (!l->offsets || !l->want || !l->out) exit(2);
    }
    if (len) memcpy(l->data + l->data_len, key, len);
    l->offsets[l->keys] = l->data_len;
    l->data_len += len;
    l->want[l->keys++] = want;
    l->offsets[l->keys] = l->data_len;
}

/* The pending lookups in one jumpshard_memento_batch_bytes, then none. */
static void lookups_flush(lookups *l, const jumpshard_memento *m, int line) {
    if (m == NULL || l->keys == 0) return;
    for (size_t i = 0; i <= l->keys; i++) l->out[i] = CANARY;
    jumpshard_status s = jumpshard_memento_batch_bytes(m, l->data, l->data_len, l->offsets,
                                                       l->keys + 1, l->out, l->keys);
    CHECK(s == JUMPSHARD_OK, "line %d: batch_bytes = %d", line, (int)s);
    for (size_t i = 0; i < l->keys; i++) {
        CHECK(l->out[i] == l->want[i], "line %d: batch_bytes [%zu] = %d, want %d", line, i,
              l->out[i], l->want[i]);
    }
    CHECK(l->out[l->keys] == CANARY, "line %d: batch_bytes wrote past out", line);
    l->keys = l->data_len = 0;
}

/* A cluster rebuilt from its saved state (barray, removals) must be the
 * same cluster: same counts, same removals, same answers. */
static void check_saved_state(const jumpshard_memento *m, const lookups *l, int line) {
    size_t len = SIZE_MAX;
    jumpshard_status s = jumpshard_memento_removals(m, NULL, 0, &len);
    int32_t removed = jumpshard_memento_barray(m) - jumpshard_memento_working(m);
    CHECK(s == (removed ? JUMPSHARD_ERROR_CAPACITY : JUMPSHARD_OK) && len == (size_t)removed,
          "line %d: sizing removals: %d, %zu", line, (int)s, len);
    int32_t *removals = malloc((len + 1) * sizeof *removals);
    if (removals == NULL) exit(2);
    s = jumpshard_memento_removals(m, removals, len + 1, &len);
    CHECK(s == JUMPSHARD_OK && len == (size_t)removed, "line %d: removals: %d", line, (int)s);
    jumpshard_memento *copy = NULL;
    s = jumpshard_memento_from_removals(jumpshard_memento_barray(m), removals, len, &copy);
    CHECK(s == JUMPSHARD_OK && copy != NULL, "line %d: from_removals = %d", line, (int)s);
    CHECK(jumpshard_memento_working(copy) == jumpshard_memento_working(m), "line %d", line);
    for (size_t i = 0; i < l->keys; i++) {
        int32_t got = CANARY;
        s = jumpshard_memento_bucket_bytes(copy, l->data + l->offsets[i],
                                           (size_t)(l->offsets[i + 1] - l->offsets[i]), &got);
        CHECK(s == JUMPSHARD_OK && got == l->want[i], "line %d: rebuilt [%zu] = %d, want %d",
              line, i, got, l->want[i]);
    }
    jumpshard_memento_free(copy);
    free(removals);
}

/* testdata/memento/golden.txt (format in its README), replayed through
 * the C functions: every removal, restore and state; each lookup with
 * bucket_bytes, then each state's lookups in one batch_bytes, and in a
 * cluster rebuilt from the state's removal list. */
static void test_memento_golden(void) {
    char path[4096];
    const char *file = memento_golden_path;
    if (file == NULL) {
        const char *slash = strrchr(golden_path, '/');
        int dir = slash ? (int)(slash - golden_path + 1) : 0;
        snprintf(path, sizeof path, "%.*smemento/golden.txt", dir, golden_path);
        file = path;
    }
    FILE *f = fopen(file, "r");
    CHECK(f != NULL, "cannot open %s", file);
    if (f == NULL) return;
    static char line[1 << 16];
    static uint8_t key[1 << 15];
    jumpshard_memento *m = NULL;
    lookups pending = {0};
    size_t scenarios = 0, n_lookups = 0, checked_states = 0;
    int number = 0;
    while (fgets(line, sizeof line, f)) {
        number++;
        if (strchr(line, '\n') == NULL && !feof(f)) malformed(line);
        if (line[0] == '#' || line[0] == '\n') continue;
        bool lookup = strncmp(line, "lookup ", 7) == 0;
        if (!lookup && pending.keys) {
            /* Every third state also rebuilt, to keep valgrind's run short. */
            if (checked_states++ % 3 == 0) check_saved_state(m, &pending, number);
            lookups_flush(&pending, m, number);
        }
        int32_t a, b;
        if (sscanf(line, "scenario %" SCNd32, &a) == 1) {
            jumpshard_memento_free(m);
            m = NULL;
            jumpshard_status s = jumpshard_memento_new(a, &m);
            CHECK(s == JUMPSHARD_OK && m != NULL, "line %d: new(%d) = %d", number, a, (int)s);
            scenarios++;
        } else if (sscanf(line, "remove %" SCNd32, &a) == 1) {
            jumpshard_status s = jumpshard_memento_remove(m, a);
            CHECK(s == JUMPSHARD_OK, "line %d: remove(%d) = %d (%s)", number, a, (int)s,
                  jumpshard_status_message(s));
        } else if (sscanf(line, "add -> %" SCNd32, &a) == 1) {
            int32_t got = CANARY;
            jumpshard_status s = jumpshard_memento_restore(m, &got);
            CHECK(s == JUMPSHARD_OK && got == a, "line %d: restore = %d, %d", number, (int)s, got);
        } else if (sscanf(line, "state size %" SCNd32 " barray %" SCNd32, &a, &b) == 2) {
            CHECK(jumpshard_memento_working(m) == a, "line %d: working %d", number,
                  jumpshard_memento_working(m));
            CHECK(jumpshard_memento_barray(m) == b, "line %d: barray %d", number,
                  jumpshard_memento_barray(m));
        } else if (lookup) {
            const char *hex = line + 7;
            size_t digits = strcspn(hex, " ");
            if (digits / 2 > sizeof key) malformed(line);
            size_t len = parse_hex(hex, digits, key);
            int32_t want;
            if (len == SIZE_MAX || sscanf(hex + digits, " %" SCNd32, &want) != 1) malformed(line);
            int32_t got = CANARY;
            jumpshard_status s = jumpshard_memento_bucket_bytes(m, key, len, &got);
            CHECK(s == JUMPSHARD_OK && got == want, "line %d: bucket_bytes = %d, %d, want %d",
                  number, (int)s, got, want);
            lookups_add(&pending, key, len, want);
            n_lookups++;
        } else {
            malformed(line);
        }
    }
    if (pending.keys) check_saved_state(m, &pending, number);
    lookups_flush(&pending, m, number);
    fclose(f);
    jumpshard_memento_free(m);
    free(pending.data);
    free(pending.offsets);
    free(pending.want);
    free(pending.out);
    CHECK(scenarios >= 8 && n_lookups >= 1000, "only %zu scenarios, %zu lookups in %s", scenarios,
          n_lookups, file);
}

/* With nothing removed a cluster is Figure 1 over its b-array; after
 * removals only the removed buckets' keys move, none onto a removed
 * bucket; batches of every length agree with single lookups on every
 * kernel; restores undo removals exactly. */
static void test_memento(void) {
    enum { LEN = 300 };
    uint64_t keys[LEN];
    int32_t before[LEN], single[LEN], out[LEN + 1];
    fill_keys(keys, LEN, 21);
    const char *kernel = jumpshard_kernel_name();
    const int32_t counts[] = {1, 2, 10, 1000, INT32_MAX};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int32_t n = counts[c];
        jumpshard_memento *m = NULL;
        CHECK(jumpshard_memento_new(n, &m) == JUMPSHARD_OK, "new(%d)", n);
        CHECK(jumpshard_memento_barray(m) == n && jumpshard_memento_working(m) == n, "n %d", n);
        for (size_t i = 0; i < LEN; i++) {
            CHECK(jumpshard_memento_bucket(m, keys[i], &before[i]) == JUMPSHARD_OK, "bucket");
            CHECK(before[i] == figure1(keys[i], n), "n %d key %zu: %d", n, i, before[i]);
        }
        const int32_t removals[] = {n / 2, n / 3 + 1, 0};
        size_t removed = 0;
        for (size_t r = 0; r < 3 && n > 3; r++, removed++) {
            CHECK(jumpshard_memento_remove(m, removals[r]) == JUMPSHARD_OK, "remove %d",
                  removals[r]);
            CHECK(jumpshard_memento_is_removed(m, removals[r]) == 1, "is_removed %d", removals[r]);
        }
        for (size_t i = 0; i < LEN; i++) {
            CHECK(jumpshard_memento_bucket(m, keys[i], &single[i]) == JUMPSHARD_OK, "bucket");
            CHECK(jumpshard_memento_is_removed(m, single[i]) == 0, "key %zu on removed %d", i,
                  single[i]);
            bool moved_off = jumpshard_memento_is_removed(m, before[i]) == 1;
            CHECK(moved_off || single[i] == before[i], "key %zu moved off working %d", i,
                  before[i]);
        }
        for (size_t k = 0; k < N_KERNELS; k++) {
            if (jumpshard_set_kernel(KERNELS[k]) != JUMPSHARD_OK) continue;
            for (size_t len = 0; len <= LEN; len += (len < 70 ? 1 : 23)) {
                for (size_t i = 0; i <= LEN; i++) out[i] = CANARY;
                jumpshard_status s = jumpshard_memento_batch(m, keys, len, out);
                CHECK(s == JUMPSHARD_OK, "%s batch len %zu: %d", KERNELS[k], len, (int)s);
                CHECK(memcmp(out, single, len * sizeof *out) == 0 &&
                          untouched(out + len, LEN + 1 - len),
                      "%s n %d batch len %zu differs from single lookups", KERNELS[k], n, len);
            }
        }
        for (size_t r = removed; r-- > 0;) {
            int32_t got = CANARY;
            CHECK(jumpshard_memento_restore(m, &got) == JUMPSHARD_OK && got == removals[r],
                  "restore: %d, want %d", got, removals[r]);
        }
        CHECK(jumpshard_memento_batch(m, keys, LEN, out) == JUMPSHARD_OK, "batch");
        CHECK(memcmp(out, before, sizeof before) == 0, "n %d: restores did not undo", n);
        jumpshard_memento_free(m);
    }
    CHECK(jumpshard_set_kernel(kernel) == JUMPSHARD_OK, "restoring %s", kernel);
}

/* Each refusal gets its status and changes nothing: no output, no cluster
 * state, no handle. */
static void test_memento_refusals(void) {
    jumpshard_memento *m = NULL, *const SENTINEL = (jumpshard_memento *)(uintptr_t)64;
    jumpshard_memento *slot = SENTINEL;
    CHECK(jumpshard_memento_new(0, &slot) == JUMPSHARD_ERROR_INVALID_BUCKET_COUNT, "new(0)");
    CHECK(jumpshard_memento_new(-5, &slot) == JUMPSHARD_ERROR_INVALID_BUCKET_COUNT, "new(-5)");
    CHECK(jumpshard_memento_new(5, NULL) == JUMPSHARD_ERROR_NULL_POINTER, "new NULL out");
    CHECK(slot == SENTINEL, "new wrote its output on error");

    struct {
        int32_t barray;
        int32_t removals[4];
        size_t len;
        jumpshard_status want;
    } lists[] = {
        {0, {0}, 0, JUMPSHARD_ERROR_INVALID_BUCKET_COUNT},
        {10, {9}, 1, JUMPSHARD_ERROR_SHRINK_IN_REMOVALS},
        {1, {0}, 1, JUMPSHARD_ERROR_SHRINK_IN_REMOVALS},
        {10, {3, -1}, 2, JUMPSHARD_ERROR_NOT_A_BUCKET},
        {10, {3, 10}, 2, JUMPSHARD_ERROR_NOT_A_BUCKET},
        {10, {3, 3, -1}, 3, JUMPSHARD_ERROR_ALREADY_REMOVED},
        {3, {0, 1, 2}, 3, JUMPSHARD_ERROR_LAST_WORKING_BUCKET},
        {10, {3, 9}, 2, JUMPSHARD_OK},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        slot = SENTINEL;
        jumpshard_status s = jumpshard_memento_from_removals(lists[i].barray, lists[i].removals,
                                                             lists[i].len, &slot);
        CHECK(s == lists[i].want, "list %zu: %d (%s)", i, (int)s, jumpshard_status_message(s));
        if (s == JUMPSHARD_OK) {
            CHECK(jumpshard_memento_working(slot) == 8, "list %zu", i);
            jumpshard_memento_free(slot);
        } else {
            CHECK(slot == SENTINEL, "list %zu: handle written on error", i);
        }
    }
    slot = SENTINEL;
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_from_removals(10, NULL, 2, &slot));
    const int32_t *odd = (const int32_t *)((uintptr_t)lists[0].removals + 1);
    STATUS_IS(JUMPSHARD_ERROR_MISALIGNED_POINTER,
              jumpshard_memento_from_removals(10, odd, 1, &slot));
    STATUS_IS(JUMPSHARD_ERROR_INVALID_LENGTH,
              jumpshard_memento_from_removals(10, lists[0].removals, SIZE_MAX, &slot));
    CHECK(slot == SENTINEL, "from_removals wrote its output on error");

    CHECK(jumpshard_memento_new(4, &m) == JUMPSHARD_OK, "new(4)");
    CHECK(jumpshard_memento_remove(m, -1) == JUMPSHARD_ERROR_NOT_A_BUCKET, "remove -1");
    CHECK(jumpshard_memento_remove(m, 4) == JUMPSHARD_ERROR_NOT_A_BUCKET, "remove 4");
    CHECK(jumpshard_memento_remove(m, 1) == JUMPSHARD_OK, "remove 1");
    CHECK(jumpshard_memento_remove(m, 1) == JUMPSHARD_ERROR_ALREADY_REMOVED, "remove 1 again");
    CHECK(jumpshard_memento_remove(m, 0) == JUMPSHARD_OK, "remove 0");
    CHECK(jumpshard_memento_remove(m, 3) == JUMPSHARD_OK, "remove 3");
    CHECK(jumpshard_memento_remove(m, 2) == JUMPSHARD_ERROR_LAST_WORKING_BUCKET, "remove 2");
    CHECK(jumpshard_memento_working(m) == 1 && jumpshard_memento_barray(m) == 4, "state");
    int32_t removals[4] = {CANARY, CANARY, CANARY, CANARY};
    size_t len = 99;
    CHECK(jumpshard_memento_removals(m, removals, 2, &len) == JUMPSHARD_ERROR_CAPACITY && len == 3,
          "capacity 2: %zu", len);
    CHECK(untouched(removals, 4), "removals written on a capacity error");
    len = 99;
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_removals(m, removals, 3, NULL));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_removals(m, NULL, 3, &len));
    CHECK(len == 99 && untouched(removals, 4), "written on error");
    CHECK(jumpshard_memento_removals(m, removals, 3, &len) == JUMPSHARD_OK && len == 3 &&
              removals[0] == 1 && removals[1] == 0 && removals[2] == 3 && removals[3] == CANARY,
          "removals");

    /* NULL handles: statuses, -1 from the readers, and nothing written. */
    int32_t out[2] = {CANARY, CANARY};
    const uint64_t keys[1] = {7};
    const uint64_t offsets[2] = {0, 1};
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_remove(NULL, 0));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_restore(NULL, out));
    CHECK(jumpshard_memento_barray(NULL) == -1 && jumpshard_memento_working(NULL) == -1 &&
              jumpshard_memento_is_removed(NULL, 0) == -1, "readers of NULL");
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_removals(NULL, out, 2, &len));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_bucket(NULL, 7, out));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_batch(NULL, keys, 1, out));
    const uint8_t *a = (const uint8_t *)"a";
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_bucket_bytes(NULL, a, 1, out));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER,
              jumpshard_memento_batch_bytes(NULL, a, 1, offsets, 2, out, 1));
    jumpshard_memento_free(NULL);
    /* Bad buffers with a live handle. */
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_bucket(m, 7, NULL));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_memento_batch(m, NULL, 1, out));
    int32_t *odd_out = (int32_t *)((uintptr_t)out + 2);
    STATUS_IS(JUMPSHARD_ERROR_MISALIGNED_POINTER, jumpshard_memento_batch(m, keys, 1, odd_out));
    STATUS_IS(JUMPSHARD_ERROR_INVALID_OFFSETS,
              jumpshard_memento_batch_bytes(m, a, 1, offsets, 1, out, 1));
    CHECK(len == 3 && untouched(out, 2), "written on error");

    /* Restores: last in, first out, then growth; NULL `restored` is fine. */
    const int32_t order[] = {3, 0, 1, 4};
    for (size_t i = 0; i < 4; i++) {
        int32_t got = CANARY;
        CHECK(jumpshard_memento_restore(m, &got) == JUMPSHARD_OK && got == order[i], "restore %zu",
              i);
    }
    CHECK(jumpshard_memento_restore(m, NULL) == JUMPSHARD_OK && jumpshard_memento_barray(m) == 6,
          "restore to NULL");
    jumpshard_memento_free(m);
    CHECK(jumpshard_memento_new(INT32_MAX, &m) == JUMPSHARD_OK, "new(INT32_MAX)");
    out[0] = CANARY;
    CHECK(jumpshard_memento_restore(m, out) == JUMPSHARD_ERROR_INVALID_BUCKET_COUNT &&
              out[0] == CANARY && jumpshard_memento_barray(m) == INT32_MAX,
          "growth past INT32_MAX");
    jumpshard_memento_free(m);
}

/* Replica sets: distinct buckets, the first Figure 1's, growth changes at
 * most one member; the batch's columns are the single sets. */
static void test_replicas(void) {
    enum { LEN = 257, K = 4 };
    uint64_t keys[LEN];
    fill_keys(keys, LEN, 31);
    int32_t *columns = malloc((K * LEN + 1) * sizeof *columns);
    if (columns == NULL) exit(2);
    const int32_t counts[] = {4, 5, 100, 65536, INT32_MAX};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int32_t n = counts[c];
        for (size_t i = 0; i <= K * LEN; i++) columns[i] = CANARY;
        jumpshard_status s = jumpshard_replicas_batch(keys, LEN, n, K, columns);
        CHECK(s == JUMPSHARD_OK, "batch n %d: %d", n, (int)s);
        CHECK(columns[K * LEN] == CANARY, "batch wrote past its columns");
        for (size_t i = 0; i < LEN; i++) {
            int32_t set[K + 1], grown[K];
            set[K] = CANARY;
            CHECK(jumpshard_replicas(keys[i], n, set, K) == JUMPSHARD_OK && set[K] == CANARY,
                  "n %d key %zu", n, i);
            CHECK(set[0] == figure1(keys[i], n), "n %d key %zu: first %d", n, i, set[0]);
            int changed = 0;
            if (n < INT32_MAX) {
                CHECK(jumpshard_replicas(keys[i], n + 1, grown, K) == JUMPSHARD_OK, "n %d + 1", n);
            }
            for (size_t j = 0; j < K; j++) {
                CHECK(set[j] >= 0 && set[j] < n, "member %d", set[j]);
                for (size_t l = 0; l < j; l++) CHECK(set[j] != set[l], "repeated %d", set[j]);
                CHECK(columns[j * LEN + i] == set[j], "n %d column %zu key %zu", n, j, i);
                if (n < INT32_MAX && grown[j] != set[j]) {
                    changed++;
                    CHECK(grown[j] == n, "growth moved a member to %d", grown[j]);
                }
            }
            CHECK(changed <= 1, "growth changed %d members", changed);
        }
    }
    free(columns);
    int32_t out[4] = {CANARY, CANARY, CANARY, CANARY};
    STATUS_IS(JUMPSHARD_ERROR_TOO_MANY_REPLICAS, jumpshard_replicas(1, 3, out, 4));
    STATUS_IS(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT, jumpshard_replicas(1, 0, out, 1));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_replicas(1, 10, NULL, 2));
    CHECK(jumpshard_replicas(1, 10, NULL, 0) == JUMPSHARD_OK, "k = 0");
    STATUS_IS(JUMPSHARD_ERROR_TOO_MANY_REPLICAS, jumpshard_replicas_batch(keys, 1, 3, 4, out));
    STATUS_IS(JUMPSHARD_ERROR_INVALID_BUCKET_COUNT, jumpshard_replicas_batch(keys, 2, -1, 2, out));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_replicas_batch(NULL, 2, 10, 2, out));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_replicas_batch(keys, 2, 10, 2, NULL));
    /* k * len overflows; keys and out overlapping. */
    STATUS_IS(JUMPSHARD_ERROR_INVALID_LENGTH,
              jumpshard_replicas_batch(keys, (size_t)1 << 40, INT32_MAX, INT32_MAX, out));
    const uint64_t *out_keys = (const uint64_t *)(void *)out;
    STATUS_IS(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
              jumpshard_replicas_batch(out_keys, 1, 10, 2, out));
    CHECK(jumpshard_replicas_batch(NULL, 0, 10, 3, NULL) == JUMPSHARD_OK, "no keys");
    CHECK(untouched(out, 4), "written on error");
}

/* Weights: equal ones are Figure 1, weight 0 gets no key, the batch is
 * the single lookups, and each bad weight list its status. */
static void test_weights(void) {
    enum { LEN = 300 };
    uint64_t keys[LEN];
    int32_t out[LEN + 1];
    fill_keys(keys, LEN, 41);
    jumpshard_weights *w = NULL;
    const double even[7] = {2, 2, 2, 2, 2, 2, 2};
    CHECK(jumpshard_weights_new(even, 7, &w) == JUMPSHARD_OK && jumpshard_weights_len(w) == 7,
          "even weights");
    for (size_t i = 0; i < LEN; i++) {
        CHECK(jumpshard_weights_bucket(w, keys[i], &out[i]) == JUMPSHARD_OK, "key %zu", i);
        CHECK(out[i] == figure1(keys[i], 7), "equal weights, key %zu: %d", i, out[i]);
    }
    jumpshard_weights_free(w);
    const double uneven[5] = {1.0, 0.0, 0.25, 1.0, 0.5};
    CHECK(jumpshard_weights_new(uneven, 5, &w) == JUMPSHARD_OK, "uneven weights");
    int32_t single[LEN];
    for (size_t i = 0; i < LEN; i++) {
        CHECK(jumpshard_weights_bucket(w, keys[i], &single[i]) == JUMPSHARD_OK, "key %zu", i);
        CHECK(single[i] >= 0 && single[i] < 5 && single[i] != 1, "key %zu on %d", i, single[i]);
    }
    for (size_t len = 0; len <= LEN; len += (len < 70 ? 1 : 23)) {
        for (size_t i = 0; i <= LEN; i++) out[i] = CANARY;
        CHECK(jumpshard_weights_batch(w, keys, len, out) == JUMPSHARD_OK, "len %zu", len);
        CHECK(memcmp(out, single, len * sizeof *out) == 0 && untouched(out + len, LEN + 1 - len),
              "batch len %zu differs from single lookups", len);
    }
    for (size_t i = 0; i <= LEN; i++) out[i] = CANARY;
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_weights_batch(NULL, keys, LEN, out));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_weights_batch(w, keys, LEN, NULL));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_weights_bucket(NULL, 1, out));
    STATUS_IS(JUMPSHARD_ERROR_NULL_POINTER, jumpshard_weights_bucket(w, 1, NULL));
    CHECK(jumpshard_weights_len(NULL) == -1, "len of NULL");
    CHECK(untouched(out, LEN + 1), "written on error");
    jumpshard_weights_free(w);
    jumpshard_weights_free(NULL);

    const double bad[][2] = {
        {1.0, -1.0}, {NAN, 1.0}, {1.0, INFINITY}, {-INFINITY, 0.0}, {0.0, -0.0},
    };
    const jumpshard_status want[] = {JUMPSHARD_ERROR_INVALID_WEIGHT, JUMPSHARD_ERROR_INVALID_WEIGHT,
                                     JUMPSHARD_ERROR_INVALID_WEIGHT, JUMPSHARD_ERROR_INVALID_WEIGHT,
                                     JUMPSHARD_ERROR_ALL_WEIGHTS_ZERO};
    jumpshard_weights *const SENTINEL = (jumpshard_weights *)(uintptr_t)64;
    for (size_t i = 0; i < 5; i++) {
        w = SENTINEL;
        jumpshard_status s = jumpshard_weights_new(bad[i], 2, &w);
        CHECK(s == want[i] && w == SENTINEL, "bad weights %zu: %d (%s)", i, (int)s,
              jumpshard_status_message(s));
    }
    w = SENTINEL;
    CHECK(jumpshard_weights_new(NULL, 0, &w) == JUMPSHARD_ERROR_INVALID_BUCKET_COUNT, "no weights");
    CHECK(jumpshard_weights_new(NULL, 3, &w) == JUMPSHARD_ERROR_NULL_POINTER, "NULL weights");
    CHECK(jumpshard_weights_new(even, 3, NULL) == JUMPSHARD_ERROR_NULL_POINTER, "NULL out");
    CHECK(w == SENTINEL, "written on error");
}

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
    run("plan", test_plan);
    run("bad_plan_arguments", test_bad_plan_arguments);
    run("seeded_golden", test_seeded_golden);
    run("memento_golden", test_memento_golden);
    run("memento", test_memento);
    run("memento_refusals", test_memento_refusals);
    run("replicas", test_replicas);
    run("weights", test_weights);
    free_golden();
    printf("test_jumpshard: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
