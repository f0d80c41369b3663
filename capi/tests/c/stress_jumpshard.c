/*
 * Concurrency stress of the C ABI: 16 threads call jumpshard_batch,
 * jumpshard_batch_parallel, jumpshard_batch_bytes, jumpshard_set_kernel
 * and one shared bounded-load router's acquire, acquire_batch, release,
 * release_batch, remove and restore at once, at random, for a few seconds. Every result is checked against
 * this file's Figure 1 loop (byte keys: against jumpshard_prehash_bytes
 * put through it), every buffer has canaries before and after it and its
 * inputs are checked unchanged, and some calls are bad on purpose (their
 * output must stay untouched). Built with -fsanitize=address,undefined
 * against libjumpshard.a by .ci/consumers.
 *
 * Usage: stress_jumpshard [SECONDS]   (default 10)
 */
/* nanosleep */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jumpshard.h"

enum { THREADS = 16, GUARD = 16, MAX_KEYS = 1 << 14, MAX_PARALLEL = 1 << 17 };

static const uint64_t CANARY64 = 0xC0FFEE0DDBA11ULL;
static const int32_t CANARY32 = 0x5A5A5A5A;
static const uint8_t CANARY8 = 0xA7;

/* Figure 1 of Lamping and Veach, in C (as in test_jumpshard.c). */
static int32_t figure1(uint64_t key, int32_t num_buckets) {
    int64_t b = -1, j = 0;
    while (j < num_buckets) {
        b = j;
        key = key * 2862933555777941757ULL + 1;
        j = (b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1));
    }
    return (int32_t)b;
}

static const char *const NAMES[] = {"scalar", "avx2", "avx512", "neon"};
static const char *supported[4];
static int supported_count;

static atomic_bool stop;
static atomic_long calls[5], failures;

/* The router every thread shares, over at most 24 buckets, c = 1.25. */
static jumpshard_bounded *router;

#define FAIL(...)                                                             \
    do {                                                                      \
        if (atomic_fetch_add(&failures, 1) < 20) {                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

static uint64_t next(uint64_t *s) {
    /* SplitMix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A bucket count: small, large or the largest. */
static int32_t count(uint64_t *s) {
    uint64_t r = next(s);
    switch (r % 4) {
    case 0: return (int32_t)(r >> 40) % 16 + 1;
    case 1: return (int32_t)(r >> 40) % 100000 + 1;
    case 2: return INT32_MAX;
    default: return (int32_t)((r >> 33) % INT32_MAX) + 1;
    }
}

/* A length: mostly short, sometimes up to `max`. */
static size_t length(uint64_t *s, size_t max) {
    uint64_t r = next(s);
    return r % 8 == 0 ? (size_t)(r >> 8) % max : (size_t)(r >> 8) % 300;
}

/* Buffers with GUARD canary elements on each side. */
struct buffers {
    uint64_t keys[GUARD + MAX_PARALLEL + GUARD];
    int32_t out[GUARD + MAX_PARALLEL + GUARD];
    uint64_t copy[MAX_PARALLEL];
    uint8_t data[GUARD + 64 * MAX_KEYS + GUARD];
    uint64_t offsets[GUARD + MAX_KEYS + 1 + GUARD];
};

static bool guards_hold(const struct buffers *b, size_t keys, size_t outs, size_t data,
                        size_t offsets) {
    for (size_t i = 0; i < GUARD; i++) {
        if (b->keys[i] != CANARY64 || b->keys[GUARD + keys + i] != CANARY64) return false;
        if (b->out[i] != CANARY32 || b->out[GUARD + outs + i] != CANARY32) return false;
        if (b->data[i] != CANARY8 || b->data[GUARD + data + i] != CANARY8) return false;
        if (b->offsets[i] != CANARY64 || b->offsets[GUARD + offsets + i] != CANARY64)
            return false;
    }
    return true;
}

static void fill(struct buffers *b, size_t keys, size_t outs, size_t data, size_t offsets) {
    for (size_t i = 0; i < GUARD; i++) {
        b->keys[i] = b->keys[GUARD + keys + i] = CANARY64;
        b->data[i] = b->data[GUARD + data + i] = CANARY8;
        b->offsets[i] = b->offsets[GUARD + offsets + i] = CANARY64;
    }
    for (size_t i = 0; i < GUARD + outs + GUARD; i++) b->out[i] = CANARY32;
}

static void keys_op(struct buffers *b, uint64_t *s, bool parallel) {
    size_t len = length(s, parallel ? MAX_PARALLEL : MAX_KEYS);
    int32_t n = count(s);
    fill(b, len, len, 0, 0);
    uint64_t *keys = b->keys + GUARD;
    for (size_t i = 0; i < len; i++) keys[i] = b->copy[i] = next(s) >> (next(s) % 64);
    bool bad = next(s) % 16 == 0;
    int32_t asked = bad ? -(int32_t)(next(s) % 3) : n;
    jumpshard_status st =
        parallel ? jumpshard_batch_parallel(keys, len, asked, b->out + GUARD, next(s) % 5)
                 : jumpshard_batch(keys, len, asked, b->out + GUARD);
    atomic_fetch_add(&calls[parallel], 1);
    if (bad) {
        if (st != JUMPSHARD_ERROR_INVALID_BUCKET_COUNT) FAIL("N=%d: status %d", asked, (int)st);
        for (size_t i = 0; i < len; i++)
            if (b->out[GUARD + i] != CANARY32) {
                FAIL("output written on error");
                break;
            }
    } else if (st != JUMPSHARD_OK) {
        FAIL("%s of %zu keys: status %d", parallel ? "parallel" : "batch", len, (int)st);
    } else {
        for (size_t i = 0; i < len; i++) {
            int32_t want = figure1(keys[i], n);
            if (b->out[GUARD + i] != want) {
                FAIL("key %" PRIu64 " N=%d: %d, Figure 1 %d", keys[i], n, b->out[GUARD + i],
                     want);
                break;
            }
        }
    }
    if (memcmp(keys, b->copy, len * sizeof *keys) != 0) FAIL("keys changed");
    if (!guards_hold(b, len, len, 0, 0)) FAIL("a canary was overwritten");
}

static void bytes_op(struct buffers *b, uint64_t *s) {
    size_t strings = length(s, MAX_KEYS);
    int32_t n = count(s);
    size_t data_len = 0;
    uint64_t *offsets = b->offsets + GUARD;
    /* Offsets first, from a random start, lengths 0..63. */
    size_t start = (size_t)(next(s) % 8);
    offsets[0] = start;
    for (size_t i = 0; i < strings; i++) offsets[i + 1] = offsets[i] + next(s) % 64;
    data_len = (size_t)offsets[strings] + (size_t)(next(s) % 3);
    fill(b, 0, strings, data_len, strings + 1);
    uint8_t *data = b->data + GUARD;
    for (size_t i = 0; i < data_len; i++) data[i] = (uint8_t)next(s);
    bool bad = strings > 1 && next(s) % 16 == 0;
    uint64_t saved = 0;
    if (bad) {
        /* A decreasing offset. */
        saved = offsets[1];
        offsets[1] = offsets[2] + 1;
    }
    jumpshard_status st = jumpshard_batch_bytes(data, data_len, offsets, strings + 1, n,
                                                b->out + GUARD, strings);
    atomic_fetch_add(&calls[2], 1);
    if (bad) {
        offsets[1] = saved;
        if (st != JUMPSHARD_ERROR_INVALID_OFFSETS) FAIL("bad offsets: status %d", (int)st);
        for (size_t i = 0; i < strings; i++)
            if (b->out[GUARD + i] != CANARY32) {
                FAIL("output written on error");
                break;
            }
    } else if (st != JUMPSHARD_OK) {
        FAIL("batch_bytes of %zu strings: status %d", strings, (int)st);
    } else {
        for (size_t i = 0; i < strings; i++) {
            uint64_t key;
            if (jumpshard_prehash_bytes(data + offsets[i], (size_t)(offsets[i + 1] - offsets[i]),
                                        &key) != JUMPSHARD_OK) {
                FAIL("prehash refused string %zu", i);
                break;
            }
            if (b->out[GUARD + i] != figure1(key, n)) {
                FAIL("string %zu N=%d: %d, Figure 1 %d", i, n, b->out[GUARD + i],
                     figure1(key, n));
                break;
            }
        }
    }
    if (!guards_hold(b, 0, strings, data_len, strings + 1)) FAIL("a canary was overwritten");
}

static void kernel_op(uint64_t *s) {
    const char *name = supported[next(s) % (uint64_t)supported_count];
    if (jumpshard_set_kernel(name) != JUMPSHARD_OK) FAIL("set_kernel(%s) refused", name);
    if (next(s) % 8 == 0 && jumpshard_set_kernel("sse9") != JUMPSHARD_ERROR_UNKNOWN_KERNEL)
        FAIL("set_kernel(sse9) accepted");
    const char *now = jumpshard_kernel_name();
    bool known = false;
    for (int i = 0; i < supported_count; i++) known |= strcmp(now, supported[i]) == 0;
    if (!known) FAIL("kernel_name %s is not a supported kernel", now);
    atomic_fetch_add(&calls[3], 1);
}

/* Acquires a few keys on the shared router, one by one or as one batch
 * (of up to 300 keys: across the batch's blocks of 256), checks each node
 * exists, releases them all, one by one or as one batch; now and then
 * removes a bucket and restores it. When every thread has stopped, the
 * total must be 0 again. */
static void bounded_op(uint64_t *s) {
    uint64_t keys[300];
    int32_t nodes[300];
    bool batch = next(s) % 2 == 0;
    size_t n = batch ? 1 + next(s) % 300 : 1 + next(s) % 8;
    for (size_t i = 0; i < n; i++) keys[i] = next(s);
    /* A refusal fails the run; the nodes it left unwritten are not read. */
    if (batch && jumpshard_bounded_acquire_batch(router, keys, n, nodes) != JUMPSHARD_OK) {
        FAIL("acquire_batch refused");
        return;
    }
    for (size_t i = 0; !batch && i < n; i++) {
        if (jumpshard_bounded_acquire(router, keys[i], &nodes[i]) != JUMPSHARD_OK) {
            FAIL("acquire refused");
            return;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (nodes[i] < 0 || nodes[i] >= 24) FAIL("acquire answered %d", nodes[i]);
    if (next(s) % 64 == 0) {
        /* Another thread may have removed it already, or shrunk the cluster
         * below it. One restore per removal keeps the cluster at most 24
         * buckets (restores undo the latest removal, whoever made it). */
        int32_t bucket = (int32_t)(next(s) % 24);
        jumpshard_status st = jumpshard_bounded_remove(router, bucket);
        if (st == JUMPSHARD_OK) {
            if (jumpshard_bounded_restore(router, NULL) != JUMPSHARD_OK) FAIL("restore refused");
        } else if (st != JUMPSHARD_ERROR_ALREADY_REMOVED && st != JUMPSHARD_ERROR_NOT_A_BUCKET &&
                   st != JUMPSHARD_ERROR_LAST_WORKING_BUCKET) {
            FAIL("remove(%d) = %d", bucket, (int)st);
        }
    }
    if (next(s) % 2 == 0) {
        if (jumpshard_bounded_release_batch(router, nodes, n) != JUMPSHARD_OK)
            FAIL("release_batch of %zu refused", n);
    } else {
        for (size_t i = 0; i < n; i++)
            if (jumpshard_bounded_release(router, nodes[i]) != JUMPSHARD_OK)
                FAIL("release(%d) refused", nodes[i]);
    }
    atomic_fetch_add(&calls[4], 1);
}

static void *worker(void *arg) {
    uint64_t s = (uint64_t)(uintptr_t)arg * 0x2545F4914F6CDD1DULL;
    struct buffers *b = malloc(sizeof *b);
    if (b == NULL) {
        FAIL("out of memory");
        return NULL;
    }
    while (!atomic_load(&stop)) {
        switch (next(&s) % 16) {
        case 0: kernel_op(&s); break;
        case 6: bounded_op(&s); break;
        case 1: keys_op(b, &s, true); break;
        case 2: case 3: case 4: case 5: bytes_op(b, &s); break;
        default: keys_op(b, &s, false); break;
        }
    }
    free(b);
    return NULL;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10.0;
    const char *initial = jumpshard_kernel_name();
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (jumpshard_set_kernel(NAMES[i]) == JUMPSHARD_OK) supported[supported_count++] = NAMES[i];
    jumpshard_set_kernel(initial);
    jumpshard_memento *cluster = NULL;
    if (jumpshard_memento_new(24, &cluster) != JUMPSHARD_OK ||
        jumpshard_bounded_new(cluster, 1.25, JUMPSHARD_BOUNDED_DEFAULT_WALK, &router) !=
            JUMPSHARD_OK) {
        fprintf(stderr, "cannot make the router\n");
        return 1;
    }
    jumpshard_memento_free(cluster);
    pthread_t threads[THREADS];
    for (uintptr_t t = 0; t < THREADS; t++)
        if (pthread_create(&threads[t], NULL, worker, (void *)(t + 1)) != 0) {
            fprintf(stderr, "cannot start thread %u\n", (unsigned)t);
            return 1;
        }
    struct timespec pause = {(time_t)seconds,
                             (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&pause, NULL);
    atomic_store(&stop, true);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    if (jumpshard_bounded_total(router) != 0)
        FAIL("router total %" PRIu64 " after every release", jumpshard_bounded_total(router));
    jumpshard_bounded_free(router);
    printf("stress: %d threads, %.0f s, kernels", THREADS, seconds);
    for (int i = 0; i < supported_count; i++) printf(" %s", supported[i]);
    printf(": %ld batch, %ld batch_parallel, %ld batch_bytes, %ld set_kernel, "
           "%ld bounded calls, %ld failures\n",
           atomic_load(&calls[0]), atomic_load(&calls[1]), atomic_load(&calls[2]),
           atomic_load(&calls[3]), atomic_load(&calls[4]), atomic_load(&failures));
    return atomic_load(&failures) == 0 ? 0 : 1;
}
