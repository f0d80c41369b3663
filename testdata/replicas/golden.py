#!/usr/bin/env python3
"""Prints testdata/replicas/golden.txt: replica sets (construction 2), plain
and under Memento removals, computed from the construction's text alone.

Independent of the Rust crate: XXH64 of an 8-byte key is written out below
from the xxHash specification (one round and the avalanche), and checked
first against the MementoHash authors' own answers for 8-byte keys
(testdata/memento/golden.txt, a cluster with nothing removed); Figure 1 is
a Python port of the paper's loop, with the C++ wrap-around multiply and
double division. See README.md beside this file for the format.

Usage: python3 testdata/replicas/golden.py > testdata/replicas/golden.txt
"""

import pathlib

M64 = (1 << 64) - 1
P1, P2, P3, P4, P5 = (
    0x9E3779B185EBCA87,
    0xC2B2AE3D27D4EB4F,
    0x165667B19E3779F9,
    0x85EBCA77C2B2AE63,
    0x27D4EB2F165667C5,
)
LCG = 2862933555777941757
ORDER_SEED = 1 << 41
CANDIDATE_SEED = 1 << 40
ATTEMPTS = 64


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def xxh64(key, seed):
    """XXH64 of the 8 little-endian bytes of `key` with `seed`."""
    h = (seed + P5 + 8) & M64
    h ^= rotl(key * P2 & M64, 31) * P1 & M64
    h = (rotl(h, 27) * P1 + P4) & M64
    h ^= h >> 33
    h = h * P2 & M64
    h ^= h >> 29
    h = h * P3 & M64
    return h ^ (h >> 32)


def step(b, state):
    """One step of Figure 1's loop from `b`: the new state and next jump."""
    state = (state * LCG + 1) & M64
    return state, int((b + 1) * ((1 << 31) / ((state >> 33) + 1)))


def figure1_landings(key, n):
    """Every bucket Figure 1 stands on for `key` below `n`, from 0."""
    out, b, state = [], 0, key
    while True:
        out.append(b)
        state, j = step(b, state)
        if j >= n:
            return out
        b = j


def jump(key, n):
    return figure1_landings(key, n)[-1]


def slot_landings(key, slot, k, n):
    """Slot `slot >= 1`'s landings: Figure 1's loop over XXH64(key, slot)
    from b = k - 1 - slot, on the axis shifted by `slot`, below `n`."""
    out, b, state = [], k - 1 - slot, xxh64(key, slot)
    while True:
        state, j = step(b, state)
        if j >= n - slot:
            return out
        out.append(j + slot)
        b = j


def starting_buckets(key, k):
    """0..k without figure1(key, k), shuffled by Fisher-Yates."""
    first = jump(key, k)
    order = [b for b in range(k) if b != first]
    for i in range(len(order) - 1, 0, -1):
        t = (xxh64(key, ORDER_SEED + i) * (i + 1)) >> 64
        order[i], order[t] = order[t], order[i]
    return order


def plain_set(key, n, k):
    members = [jump(key, n)]
    lower = [{b for b in figure1_landings(key, n) if b >= k}]
    for slot in range(1, k):
        mine = slot_landings(key, slot, k, n)
        taken = [x for x in mine if not any(x in s for s in lower)]
        members.append(taken[-1] if taken else starting_buckets(key, k)[slot - 1])
        lower.append(set(mine))
    return members


class Memento:
    """The cluster state: removed bucket -> (working count right after its
    removal, resolved replacer)."""

    def __init__(self, n):
        self.n, self.removed = n, {}

    def working(self):
        return self.n - len(self.removed)

    def remove(self, b):
        assert b < self.n - 1 or self.removed, "a shrink: not in these scenarios"
        working = self.working() - 1
        replacer = working
        while replacer in self.removed:
            replacer = self.removed[replacer][1]
        self.removed[b] = (working, replacer)

    def resolve_as_of(self, b, key, floor):
        """Memento's lookup from Figure 1's `b`, counting only the removals
        that left at least `floor` working buckets."""
        entry = self.removed.get(b)
        while entry is not None and entry[0] >= floor:
            r = entry[0]
            b = xxh64(key, b) % r
            entry = self.removed.get(b)
            while entry is not None and entry[0] >= r:
                b = entry[1]
                entry = self.removed.get(b)
        return b

    def replacement(self, key, members, slot, working):
        def taken(b):
            return any(m == b for j, m in enumerate(members) if j != slot)

        for a in range(ATTEMPTS):
            derived = xxh64(key, CANDIDATE_SEED + a)
            candidate = self.resolve_as_of(jump(derived, self.n), derived, working)
            if not taken(candidate):
                return candidate
        for s in range(1, self.n):
            b = (candidate + s) % self.n
            if (b not in self.removed or self.removed[b][0] < working) and not taken(b):
                return b
        raise AssertionError("no free bucket")

    def set(self, key, k):
        members = plain_set(key, self.n, k)
        while True:
            hit = [(self.removed[b][0], j) for j, b in enumerate(members) if b in self.removed]
            if not hit:
                return members
            working, slot = max(hit)
            if slot == 0:
                primary = self.resolve_as_of(jump(key, self.n), key, working)
                members[0] = primary
                if primary in members[1:]:
                    j = members[1:].index(primary) + 1
                    members[j] = self.replacement(key, members, j, working)
            else:
                members[slot] = self.replacement(key, members, slot, working)


def check_xxh64():
    """XXH64(key, 0) then Figure 1 must give the authors' answers for the
    8-byte keys of their first scenario (10 buckets, nothing removed)."""
    path = pathlib.Path(__file__).resolve().parent.parent / "memento" / "golden.txt"
    checked = 0
    for line in path.read_text().splitlines():
        if line.startswith("remove") or line.startswith("add"):
            break
        parts = line.split()
        if parts[:1] == ["lookup"] and len(parts[1]) == 16:
            key = int.from_bytes(bytes.fromhex(parts[1]), "little")
            assert jump(xxh64(key, 0), 10) == int(parts[2]), line
            checked += 1
    assert checked >= 10, checked


def keys():
    yield from [0, 1, 42, 1253737204188795044, M64, 1 << 63]
    state = 0x5EED
    for _ in range(14):
        state = xxh64(state, 7)
        yield state


def main():
    check_xxh64()
    print("# Replica sets, construction 2 (see README.md): 'plain KEY N K MEMBERS...' is")
    print("# replicas::set(KEY, N) with K members; 'memento N' starts a cluster of N buckets,")
    print("# 'remove B' removes bucket B, 'set KEY K MEMBERS...' is Memento::replicas there.")
    for n in [1, 2, 3, 4, 5, 8, 17, 100, 1000, 1 << 20, (1 << 31) - 1]:
        for k in [1, 2, 3, 4, 5, 8]:
            if k > n:
                continue
            for key in keys():
                print("plain", key, n, k, *plain_set(key, n, k))
    state = 0xC1A55
    for n, removals in [(10, 3), (100, 10), (1000, 300), ((1 << 31) - 1, 5)]:
        m = Memento(n)
        print("memento", n)
        while len(m.removed) < removals:
            state = xxh64(state, 11)
            b = state % (n - 1)
            if b not in m.removed:
                m.remove(b)
                print("remove", b)
        for k in [1, 2, 3, 5]:
            if k > m.working():
                continue
            for key in keys():
                print("set", key, k, *m.set(key, k))


if __name__ == "__main__":
    main()
