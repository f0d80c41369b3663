"""Per-call time of jumpshard.bucket against the C extension
jump-consistent-hash's jump.hash, in the same process, best of many
interleaved rounds (so that both see the same load).

    python bindings/python/benches/bench_bucket.py
"""

import os
import platform
import timeit

import jump

import jumpshard

KEY = 1253737204188795044
# n = 1 runs Figure 1's loop once, so it shows the cost of the call itself.
COUNTS = (100, 1)
CALLS, ROUNDS = 200_000, 25


def per_call(f, n) -> float:
    timer = timeit.Timer("f(k, n)", globals={"f": f, "k": KEY, "n": n})
    return min(timer.repeat(number=CALLS, repeat=3)) / CALLS


def main() -> None:
    assert jumpshard.bucket(KEY, 100) == jump.hash(KEY, 100) == 86
    functions = {"jump.hash": jump.hash, "jumpshard.bucket": jumpshard.bucket}
    best = {(name, n): float("inf") for name in functions for n in COUNTS}
    for _ in range(ROUNDS):
        for (name, n), seconds in best.items():
            best[name, n] = min(seconds, per_call(functions[name], n))
    print(f"# {cpu()}; load {os.getloadavg()[0]:.2f}; Python {platform.python_version()}")
    for n in COUNTS:
        ours, theirs = best["jumpshard.bucket", n], best["jump.hash", n]
        print(
            f"n={n:<4} jump.hash {theirs * 1e9:6.1f} ns/call  jumpshard.bucket {ours * 1e9:6.1f} ns/call"
            f"  ratio {ours / theirs:.2f}"
        )


def cpu() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


if __name__ == "__main__":
    main()
