// The reference the library's Memento lookups are held against, written
// from the specification in src/placement/memento/mod.rs (and docs/cluster-operations.md),
// not from the library's code: it follows the plain chain of replacers at
// lookup time, where the library stores them resolved, and it computes
// XXH64 itself from the xxHash specification, where the library uses a
// crate.
//
// State: the b-array size `n` and the removed buckets in removal order.
// The i-th removal (from 0) leaves n - i - 1 working buckets, which is also
// the bucket that replaced it. A lookup of key K with first-stage key h:
//   b = figure1(h, n);
//   while b is removed with working count r after its removal:
//     b = rehash(K, b) mod r;
//     while b is removed with a working count r2 >= r: b = r2.
// u64 keys: h = K, rehash(K, b) = XXH64(K's 8 little-endian bytes, seed b).
// byte keys: h = XXH64(K, seed 0), rehash(K, b) = XXH64(K, seed b).

#include <cstddef>
#include <cstdint>

int32_t JumpConsistentHash(uint64_t key, int32_t num_buckets);  // figure1.cpp

namespace {

const uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
const uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
const uint64_t kPrime3 = 0x165667B19E3779F9ULL;
const uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
const uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t Read64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t Read32(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t Round(uint64_t acc, uint64_t input) {
  acc += input * kPrime2;
  acc = Rotl(acc, 31);
  return acc * kPrime1;
}

uint64_t MergeRound(uint64_t acc, uint64_t value) {
  acc ^= Round(0, value);
  return acc * kPrime1 + kPrime4;
}

// XXH64 of `len` bytes with `seed`, as the xxHash specification defines it.
uint64_t Xxh64(const uint8_t *p, size_t len, uint64_t seed) {
  const uint8_t *end = p + len;
  uint64_t h;
  if (len >= 32) {
    uint64_t v1 = seed + kPrime1 + kPrime2, v2 = seed + kPrime2, v3 = seed, v4 = seed - kPrime1;
    for (; end - p >= 32; p += 32) {
      v1 = Round(v1, Read64(p));
      v2 = Round(v2, Read64(p + 8));
      v3 = Round(v3, Read64(p + 16));
      v4 = Round(v4, Read64(p + 24));
    }
    h = Rotl(v1, 1) + Rotl(v2, 7) + Rotl(v3, 12) + Rotl(v4, 18);
    h = MergeRound(h, v1);
    h = MergeRound(h, v2);
    h = MergeRound(h, v3);
    h = MergeRound(h, v4);
  } else {
    h = seed + kPrime5;
  }
  h += len;
  for (; end - p >= 8; p += 8) {
    h ^= Round(0, Read64(p));
    h = Rotl(h, 27) * kPrime1 + kPrime4;
  }
  if (end - p >= 4) {
    h ^= Read32(p) * kPrime1;
    h = Rotl(h, 23) * kPrime2 + kPrime3;
    p += 4;
  }
  for (; p < end; ++p) {
    h ^= *p * kPrime5;
    h = Rotl(h, 11) * kPrime1;
  }
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

// The working count right after `bucket` was removed, or -1 if it is not.
int64_t Replacer(int32_t bucket, int32_t n, const int32_t *removed, size_t removed_len) {
  for (size_t i = 0; i < removed_len; ++i) {
    if (removed[i] == bucket) return int64_t(n) - int64_t(i) - 1;
  }
  return -1;
}

int32_t Lookup(uint64_t h, const uint8_t *key, size_t len, int32_t n, const int32_t *removed,
               size_t removed_len) {
  int32_t b = JumpConsistentHash(h, n);
  int64_t r = Replacer(b, n, removed, removed_len);
  while (r >= 0) {
    b = int32_t(Xxh64(key, len, uint64_t(b)) % uint64_t(r));
    int64_t r2 = Replacer(b, n, removed, removed_len);
    while (r2 >= r) {
      b = int32_t(r2);
      r2 = Replacer(b, n, removed, removed_len);
    }
    r = r2;
  }
  return b;
}

}  // namespace

extern "C" uint64_t jumpshard_reference_xxh64(const uint8_t *data, size_t len, uint64_t seed) {
  return Xxh64(data, len, seed);
}

extern "C" int32_t jumpshard_reference_memento(uint64_t key, int32_t n, const int32_t *removed,
                                               size_t removed_len) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = uint8_t(key >> (8 * i));
  return Lookup(key, bytes, 8, n, removed, removed_len);
}

extern "C" int32_t jumpshard_reference_memento_bytes(const uint8_t *key, size_t len, int32_t n,
                                                     const int32_t *removed, size_t removed_len) {
  return Lookup(Xxh64(key, len, 0), key, len, n, removed, removed_len);
}
