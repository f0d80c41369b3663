#!/usr/bin/env python3
"""Prints the `bytes` lines of testdata/golden.txt.

Independent of the Rust crate: XXH3-64 (seed 0) comes from the `xxhash`
package on PyPI (`pip install xxhash`, which wraps the C xxHash library), and
the bucket from a Python port of the paper's Figure 1. The Rust test suite
checks every line against the crate and the compiled C++ Figure 1.

Usage: python3 testdata/bytes_golden.py >> testdata/golden.txt
"""

import xxhash

MASK64 = (1 << 64) - 1


def jump(key, num_buckets):
    """Figure 1, with the C++ wrap-around multiply and double division."""
    b, j = -1, 0
    while j < num_buckets:
        b = j
        key = (key * 2862933555777941757 + 1) & MASK64
        j = int((b + 1) * ((1 << 31) / ((key >> 33) + 1)))
    return b


def keys():
    """Byte strings over every XXH3 input-length path (0, 1-3, 4-8, 9-16,
    17-128, 129-240, over 240), text and binary, with line-end bytes."""
    yield b""
    for text in [b"a", b"ab", b"abc", b"user:42", b"jumpshard", b"hello, world"]:
        yield text
    yield b"\x00"
    yield b"\xff\xfe\xfd\xfc"
    yield b"line\r"
    yield b"tab\there\n"
    for n in [16, 17, 128, 129, 240, 241, 1000]:
        yield bytes((i * 7 + 3) & 0xFF for i in range(n))


COUNTS = [1, 10, 12, 1000, 2147483647]


def main():
    for key in keys():
        h = xxhash.xxh3_64_intdigest(key, seed=0)
        shown = key.hex() if key else "-"
        for n in COUNTS:
            print(f"bytes {shown} {n} {h} {jump(h, n)}")


if __name__ == "__main__":
    main()
