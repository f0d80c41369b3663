#!/usr/bin/env python3
"""Prints testdata/seeded_golden.txt: byte-string keys pre-hashed with
XXH3-64 under seeds other than 0 (the tenant seeds of
`jumpshard::bytes::prehash_seeded`, `jumpshard_prehash_bytes_seeded` and
`jumpshard ... --hash-seed`).

Independent of the Rust crate, as testdata/bytes_golden.py is: XXH3-64 comes
from the `xxhash` package on PyPI (`pip install xxhash`, which wraps the C
xxHash library), the bucket from that script's Python port of Figure 1.

Usage: python3 testdata/seeded_golden.py > testdata/seeded_golden.txt
"""

import xxhash

from bytes_golden import COUNTS, jump, keys

SEEDS = [1, 42, 0x9E3779B97F4A7C15, (1 << 64) - 1]

print("# bytes_seeded HEX SEED N XXH3 BUCKET: a byte-string key, as lowercase hex")
print("# (`-` for the empty key), a 64-bit seed, a bucket count, the key's XXH3-64")
print("# with that seed and its bucket; all decimal. Produced by")
print("# testdata/seeded_golden.py from the Python `xxhash` package (C xxHash).")
for key in keys():
    shown = key.hex() if key else "-"
    for seed in SEEDS:
        h = xxhash.xxh3_64_intdigest(key, seed=seed)
        for n in COUNTS:
            print(f"bytes_seeded {shown} {seed} {n} {h} {jump(h, n)}")
