// The reference every jumpshard kernel is held against.
//
// `JumpConsistentHash` below is Figure 1 of John Lamping and Eric Veach,
// "A Fast, Minimal Memory, Consistent Hash Algorithm" (arXiv:1406.2294),
// kept exactly as the paper has it. Do not "improve" it: the whole point is
// that it is what a C++ compiler makes of the paper's code.
//
// The two functions after it only give it C linkage for Rust: one key, and a
// loop over a batch so that benchmarks measure the C++ code, not a Rust -> C
// call per key.

#include <cstddef>
#include <cstdint>

int32_t JumpConsistentHash(uint64_t key, int32_t num_buckets) {
  int64_t b = -1, j = 0;
  while (j < num_buckets) {
    b = j;
    key = key * 2862933555777941757ULL + 1;
    j = (b + 1) * (double(1LL << 31) / double((key >> 33) + 1));
  }
  return b;
}

extern "C" int32_t jumpshard_figure1(uint64_t key, int32_t num_buckets) {
  return JumpConsistentHash(key, num_buckets);
}

extern "C" void jumpshard_figure1_batch(const uint64_t *keys, size_t len,
                                        int32_t num_buckets, int32_t *out) {
  for (size_t i = 0; i < len; ++i) {
    out[i] = JumpConsistentHash(keys[i], num_buckets);
  }
}
