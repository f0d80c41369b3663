/*
 * Routing keys to shards as a storage system does, with the jumpshard C API.
 *
 *   shard_keys NUM_SHARDS [KEY...]
 *
 * With keys, prints the shard of each. Without, hashes a million keys in
 * one batch call, prints how many land on each shard, and how many would
 * move if the cluster grew by one shard (about 1/(NUM_SHARDS+1) of them,
 * all to the new shard).
 *
 * The same source is linked against libjumpshard.so and libjumpshard.a;
 * see examples/cmake/CMakeLists.txt and .ci/consumers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "jumpshard.h"

static int fail(const char *what, jumpshard_status status) {
    fprintf(stderr, "shard_keys: %s: %s\n", what, jumpshard_status_message(status));
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: shard_keys NUM_SHARDS [KEY...]\n");
        return 2;
    }
    long shards = strtol(argv[1], NULL, 10);
    if (shards < 1 || shards > INT32_MAX) {
        return fail(argv[1], JUMPSHARD_ERROR_INVALID_BUCKET_COUNT);
    }
    int32_t n = (int32_t)shards;

    if (argc > 2) {
        for (int i = 2; i < argc; i++) {
            errno = 0;
            char *end;
            uint64_t key = strtoull(argv[i], &end, 0);
            if (errno || *end || end == argv[i]) {
                fprintf(stderr, "shard_keys: %s is not a 64-bit key\n", argv[i]);
                return 2;
            }
            printf("%" PRIu64 " %" PRId32 "\n", key, jumpshard_bucket(key, n));
        }
        return 0;
    }

    enum { LEN = 1000000 };
    uint64_t *keys = malloc(LEN * sizeof *keys);
    int32_t *now = malloc(LEN * sizeof *now);
    int32_t *grown = malloc(LEN * sizeof *grown);
    uint64_t *per_shard = calloc((size_t)n, sizeof *per_shard);
    int rc = 1;
    if (!keys || !now || !grown || !per_shard) {
        fprintf(stderr, "shard_keys: out of memory\n");
        goto out;
    }
    for (size_t i = 0; i < LEN; i++) keys[i] = i * 0x9E3779B97F4A7C15ULL;

    jumpshard_status status = jumpshard_batch_parallel(keys, LEN, n, now, 0);
    if (status != JUMPSHARD_OK) {
        rc = fail("batch", status);
        goto out;
    }
    if (n < INT32_MAX) {
        status = jumpshard_batch(keys, LEN, n + 1, grown);
        if (status != JUMPSHARD_OK) {
            rc = fail("batch", status);
            goto out;
        }
    }
    size_t moved = 0, moved_elsewhere = 0;
    for (size_t i = 0; i < LEN; i++) {
        per_shard[now[i]]++;
        if (n < INT32_MAX && grown[i] != now[i]) {
            moved++;
            moved_elsewhere += grown[i] != n; /* monotonicity says never */
        }
    }
    printf("jumpshard %s (kernel %s): %d keys on %" PRId32 " shards\n", jumpshard_version(),
           jumpshard_kernel_name(), LEN, n);
    for (int32_t s = 0; s < n && s < 16; s++) {
        printf("  shard %" PRId32 ": %" PRIu64 "\n", s, per_shard[s]);
    }
    if (n > 16) printf("  ...\n");
    if (n < INT32_MAX) {
        printf("growing to %" PRId32 " shards moves %zu keys (%.2f%%), all to shard %" PRId32 "\n",
               n + 1, moved, 100.0 * (double)moved / LEN, n);
    }
    if (moved_elsewhere) {
        fprintf(stderr, "shard_keys: %zu keys moved between old shards\n", moved_elsewhere);
        goto out;
    }
    rc = 0;
out:
    free(keys);
    free(now);
    free(grown);
    free(per_shard);
    return rc;
}
