"""Shard numpy keys with jumpshard, then plan growing from 10 to 12 shards.

pip install ./bindings/python
python examples/python/shard_numpy.py
"""

import numpy as np

import jumpshard

keys = np.random.default_rng(42).integers(0, 2**64, size=1_000_000, dtype=np.uint64)

# Which of 10 shards each key lives on, on every core.
shards = jumpshard.batch(keys, 10, threads=0)
print("keys per shard:", np.bincount(shards, minlength=10))

# Growing to 12 shards: only the keys the plan lists move, all to shards 10 and 11.
plan = jumpshard.plan(keys, 10, 12, threads=0)
print(f"moving {plan.moved} of {plan.keys} keys ({plan.moved / plan.keys:.1%}, expected 1/6)")
print("moves per new shard:", {b: int(n) for b, n in enumerate(plan.per_destination) if n})
first = int(plan.positions[0])
print(f"e.g. key {keys[first]} moves from shard {plan.from_[0]} to {plan.to[0]}")
assert (jumpshard.batch(keys[plan.positions.astype(np.intp)], 12) == plan.to).all()

# Byte-string keys are pre-hashed with XXH3-64 (seed 0), as everywhere in jumpshard.
print("user:42 ->", jumpshard.bucket_bytes("user:42", 12))
