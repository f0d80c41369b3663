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

KEY, N = 1253737204188795044, 100
CALLS, ROUNDS = 200_000, 25


def per_call(f) -> float:
    timer = timeit.Timer("f(k, n)", globals={"f": f, "k": KEY, "n": N})
    return min(timer.repeat(number=CALLS, repeat=3)) / CALLS


def main() -> None:
    assert jumpshard.bucket(KEY, N) == jump.hash(KEY, N) == 86
    best = {"jump.hash": float("inf"), "jumpshard.bucket": float("inf")}
    for _ in range(ROUNDS):
        best["jump.hash"] = min(best["jump.hash"], per_call(jump.hash))
        best["jumpshard.bucket"] = min(best["jumpshard.bucket"], per_call(jumpshard.bucket))
    print(f"# {cpu()}; load {os.getloadavg()[0]:.2f}; Python {platform.python_version()}")
    for name, seconds in best.items():
        print(f"{name:18} {seconds * 1e9:7.1f} ns/call")
    print(f"ratio bucket / jump.hash: {best['jumpshard.bucket'] / best['jump.hash']:.2f}")


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
