"""Writes golden.txt: weighted tables' buckets under construction 2
(src/placement/weights/mod.rs), computed here from its written
definition with nothing of the library: Figure 1 as the paper prints it,
and XXH64 of an 8-byte input written out from its specification.

Run: python3 testdata/weights/golden.py > testdata/weights/golden.txt
"""

import math

M64 = (1 << 64) - 1
P1, P2, P3 = 11400714785074694791, 14029467366897019727, 1609587929392839161
P4, P5 = 9650029242287828579, 2870177450012600261


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def xxh64_u64(key, seed):
    """XXH64 of the 8 little-endian bytes of `key`: one round, then the avalanche."""
    h = (seed + P5 + 8) & M64
    h ^= (rotl(key * P2 & M64, 31) * P1) & M64
    h = (rotl(h, 27) * P1 + P4) & M64
    h ^= h >> 33
    h = h * P2 & M64
    h ^= h >> 29
    h = h * P3 & M64
    return h ^ (h >> 32)


def figure1(key, n):
    b, j = -1, 0
    while j < n:
        b = j
        key = (key * 2862933555777941757 + 1) & M64
        j = int((b + 1) * (float(1 << 31) / float((key >> 33) + 1)))
    return b


MAX_SLOTS = (1 << 31) - 1
ATTEMPTS = 8


def unit(weights):
    positive = sorted(w for w in weights if w > 0)
    p = len(positive)
    common = None
    i = 0
    while i < p:
        j = i
        while j < p and positive[j] == positive[i]:
            j += 1
        if 4 * (j - i) > p:
            common = positive[i]
        i = j
    u = common if common is not None else positive[(p - 1) // 2]
    room = MAX_SLOTS - len(weights)
    if room == 0:
        return positive[-1]
    total = 0.0
    for w in positive:
        total += w
    return min(max(u, total / room), positive[-1])


def axis(weights):
    u = unit(weights)

    def count(w, u):
        return max(1, math.ceil(w / u)) if w > 0 else 1

    if len(weights) + sum(count(w, u) - 1 for w in weights) > MAX_SLOTS:
        u = max(weights)
    slots = [count(w, u) for w in weights]
    first = [w / u - (m - 1) if w > 0 else 0.0 for w, m in zip(weights, slots)]
    owners = []  # (end of the run of extra slots, node), in node order
    end = 0
    for i, m in enumerate(slots):
        if m > 1:
            end += m - 1
            owners.append((end, i))
    return len(weights) + end, first, owners


def bucket(weights, key):
    n = len(weights)
    positive = [i for i, w in enumerate(weights) if w > 0]
    if len(positive) == 1:
        return positive[0]
    total, first, owners = axis(weights)
    best = None
    for a in range(ATTEMPTS):
        slot = figure1(key if a == 0 else xxh64_u64(key, a), total)
        if slot >= n:
            return next(node for end, node in owners if slot - n < end)
        f = first[slot]
        if f >= 1.0:
            return slot
        if f > 0.0 and (xxh64_u64(key, (1 << 32) + a) >> 11) * (1.0 / (1 << 53)) < f:
            return slot
        nearest = next((p for p in positive if p >= slot), None)
        candidate = (nearest - slot, nearest) if nearest is not None else (positive[0] + n - slot, positive[0])
        if best is None or candidate[0] < best[0]:
            best = candidate
    return best[1]


def keys(count, seed):
    state, out = seed, [0, 1, M64]
    while len(out) < count:
        state = (state + 0x9E3779B97F4A7C15) & M64
        z = state
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & M64
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & M64
        out.append(z ^ (z >> 31))
    return out


def tables():
    yield [2.5] * 7
    yield [1.0, 0.5, 2.0, 0.0]
    yield [1.0, 1.0, 0.25, 1.0, 1.0]
    yield [1.0 if i % 2 == 0 else 4.0 for i in range(10)]
    yield [100.0 if i == 17 else 1.0 for i in range(40)]
    yield [float(i % 2) for i in range(20)]
    yield [0.7 * (i % 3) for i in range(30)]
    sparse = [0.0] * 4096
    sparse[100], sparse[2000], sparse[4000] = 1.0, 3.0, 0.5
    yield sparse
    one = [0.0] * 1000
    one[999] = 5.0
    yield one
    yield [1e-300, 1.0, 0.0]
    yield [1.0, 1.0, 0.0, 1.5e6, 3.0, 1e6]
    yield [3.0, 1.25, 0.1, 7.5, 1.25, 0.0, 2.0, 1.25, 9.0]


def main():
    print("# Weighted tables' buckets, construction 2 (src/placement/weights/mod.rs), from golden.py.")
    print("# 'table W0 W1 ...' (or 'table zeros N I=W ...' for a long table of mostly 0) starts a table;")
    print("# each 'lookup KEY BUCKET' (KEY a decimal u64) is the bucket of KEY in it.")
    for t, weights in enumerate(tables()):
        if len(weights) > 100:
            spots = " ".join(f"{i}={w!r}" for i, w in enumerate(weights) if w != 0)
            print(f"table zeros {len(weights)} {spots}")
        else:
            print("table " + " ".join(repr(w) for w in weights))
        for k in keys(40, t):
            print(f"lookup {k} {bucket(weights, k)}")


main()
