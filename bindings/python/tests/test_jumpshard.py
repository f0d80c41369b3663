"""The Python binding against the C library's own single-key function, the
golden vectors, and every kind of bad input."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import jumpshard
from jumpshard import JumpshardError

REPO = Path(__file__).resolve().parents[3]
COUNTS = [1, 2, 3, 10, 12, 1000, 65536, 2**31 - 1]
MASK64 = (1 << 64) - 1


def figure1(key: int, num_buckets: int) -> int:
    """Figure 1 in Python, with the 64-bit wrap made explicit."""
    b, j = -1, 0
    while j < num_buckets:
        b = j
        key = (key * 2862933555777941757 + 1) & MASK64
        j = int((b + 1) * ((1 << 31) / ((key >> 33) + 1)))
    return b


def c_bucket(key, n):
    """The C library's single-key function, called directly."""
    return jumpshard._lib.jumpshard_bucket(int(key), n)


def some_keys(n, seed=7):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)
    edges = [0, 1, 2**64 - 1, 2**63][:n]
    keys[: len(edges)] = edges
    return keys


@pytest.fixture
def restore_kernel():
    before = jumpshard.kernel_name()
    yield before
    jumpshard.set_kernel(before)


def supported_kernels():
    found = []
    before = jumpshard.kernel_name()
    for name in jumpshard.KERNELS:
        try:
            jumpshard.set_kernel(name)
            found.append(name)
        except JumpshardError as e:
            assert e.name == "UNSUPPORTED_KERNEL"
    jumpshard.set_kernel(before)
    return found


def test_bucket_is_figure1_and_the_c_function():
    assert jumpshard.bucket(1253737204188795044, 100) == 86
    for key in [int(k) for k in some_keys(300)]:
        for n in COUNTS:
            assert jumpshard.bucket(key, n) == c_bucket(key, n) == figure1(key, n)
    assert jumpshard.bucket(np.uint64(5), np.int32(10)) == figure1(5, 10)


@pytest.mark.parametrize("kernel", supported_kernels())
@pytest.mark.parametrize("n", COUNTS)
def test_batch_matches_the_single_key_function(kernel, n, restore_kernel):
    jumpshard.set_kernel(kernel)
    assert jumpshard.kernel_name() == kernel
    keys = some_keys(5000)
    got = jumpshard.batch(keys, n)
    assert got.dtype == np.int32 and got.shape == keys.shape
    assert got.tolist() == [c_bucket(k, n) for k in keys]


@pytest.mark.parametrize("kernel", supported_kernels())
def test_every_tail_and_offset(kernel, restore_kernel):
    jumpshard.set_kernel(kernel)
    keys = some_keys(80)
    for start in range(4):
        for length in range(71):
            view = keys[start : start + length]  # contiguous, shifted start
            assert jumpshard.batch(view, 1000).tolist() == [c_bucket(k, 1000) for k in view]


def test_golden_vectors():
    lines = (REPO / "testdata" / "golden.txt").read_text().splitlines()
    vectors = [tuple(int(x) for x in l.split()[1:]) for l in lines if l.startswith("u64 ")]
    assert len(vectors) > 100
    for key, n, expected in vectors:
        assert jumpshard.bucket(key, n) == expected
        keys = np.full(67, key, dtype=np.uint64)
        assert (jumpshard.batch(keys, n) == expected).all()


def test_byte_golden_vectors():
    lines = (REPO / "testdata" / "golden.txt").read_text().splitlines()
    vectors = [l.split()[1:] for l in lines if l.startswith("bytes ")]
    assert len(vectors) >= 50
    for hex_key, n, hash_, expected in vectors:
        key = b"" if hex_key == "-" else bytes.fromhex(hex_key)
        assert jumpshard.prehash_bytes(key) == int(hash_)
        assert jumpshard.bucket_bytes(key, int(n)) == int(expected)
        assert jumpshard.bucket_bytes(bytearray(key), int(n)) == int(expected)
        assert jumpshard.bucket_bytes(memoryview(key), int(n)) == int(expected)


def test_bad_byte_keys_raise():
    for key in ("user:42", 42, None, [1, 2]):
        with pytest.raises(TypeError):
            jumpshard.bucket_bytes(key, 10)
        with pytest.raises(TypeError):
            jumpshard.prehash_bytes(key)
    for n in (0, -1, 2**31):
        with pytest.raises(ValueError, match="invalid bucket count"):
            jumpshard.bucket_bytes(b"a", n)
    # Keys are (pointer, length): a NUL byte is part of the key, not its end.
    assert jumpshard.prehash_bytes(b"a\0b") != jumpshard.prehash_bytes(b"a")


def test_parallel_is_identical():
    keys = some_keys(300_000)
    one = jumpshard.batch(keys, 65536)
    for threads in (0, 1, 3, 100):
        assert np.array_equal(jumpshard.batch_parallel(keys, 65536, threads), one)
    assert np.array_equal(jumpshard.batch_parallel(keys, 65536), one)


def test_no_copies_shapes_and_out():
    keys = some_keys(24).reshape(4, 6)
    before = keys.copy()
    out = np.full((4, 6), -1, dtype=np.int32)
    assert jumpshard.batch(keys, 10, out=out) is out
    assert jumpshard.batch_parallel(keys, 10, out=out) is out
    assert out.tolist() == [[c_bucket(k, 10) for k in row] for row in keys]
    assert np.array_equal(keys, before)
    assert jumpshard.batch(np.empty(0, dtype=np.uint64), 5).shape == (0,)


@pytest.mark.parametrize(
    "keys, error",
    [
        ([1, 2, 3], TypeError),
        (np.arange(4, dtype=np.int64), TypeError),
        (np.arange(4, dtype=np.uint32), TypeError),
        (np.arange(4, dtype=">u8"), TypeError),
        (np.arange(8, dtype=np.uint64)[::2], ValueError),
        (np.arange(16, dtype=np.uint64).reshape(4, 4).T, ValueError),
        (np.frombuffer(bytearray(40), dtype=np.uint64, count=4, offset=4), ValueError),
    ],
)
def test_bad_keys_raise(keys, error):
    with pytest.raises(error):
        jumpshard.batch(keys, 10)
    with pytest.raises(error):
        jumpshard.batch_parallel(keys, 10)


@pytest.mark.parametrize("n", [0, -1, 2**31, -(2**31), 2**40])
def test_bad_bucket_counts_raise(n):
    with pytest.raises(ValueError, match="invalid bucket count"):
        jumpshard.bucket(1, n)
    with pytest.raises(ValueError, match="invalid bucket count"):
        jumpshard.batch(some_keys(3), n)


def test_other_bad_arguments_raise_and_write_nothing():
    keys = some_keys(8)
    for key in (-1, 2**64):
        with pytest.raises(ValueError):
            jumpshard.bucket(key, 10)
    with pytest.raises(TypeError):
        jumpshard.bucket(1.5, 10)
    with pytest.raises(TypeError):
        jumpshard.batch(keys, 10.0)
    with pytest.raises(ValueError):
        jumpshard.batch_parallel(keys, 10, -1)
    out = np.full(8, 7, dtype=np.int32)
    with pytest.raises(ValueError):
        jumpshard.batch(keys, 0, out=out)
    with pytest.raises(TypeError):
        jumpshard.batch(keys, 10, out=np.zeros(8, dtype=np.int64))
    with pytest.raises(ValueError):
        jumpshard.batch(keys, 10, out=np.zeros(7, dtype=np.int32))
    readonly = np.zeros(8, dtype=np.int32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError):
        jumpshard.batch(keys, 10, out=readonly)
    shared = np.zeros(8, dtype=np.uint64)
    with pytest.raises(ValueError):
        jumpshard.batch(shared, 10, out=shared.view(np.int32)[:8])
    assert (out == 7).all()


def test_kernel_errors_change_nothing(restore_kernel):
    for name, status in [("sse9", "UNKNOWN_KERNEL"), ("", "UNKNOWN_KERNEL"), ("Scalar", "UNKNOWN_KERNEL")]:
        with pytest.raises(JumpshardError) as e:
            jumpshard.set_kernel(name)
        assert e.value.name == status and e.value.status == 3
        assert jumpshard.kernel_name() == restore_kernel
    for name in set(jumpshard.KERNELS) - set(supported_kernels()):
        with pytest.raises(JumpshardError, match="not supported") as e:
            jumpshard.set_kernel(name)
        assert e.value.status == 4
        assert jumpshard.kernel_name() == restore_kernel
    with pytest.raises(TypeError):
        jumpshard.set_kernel(b"scalar")
    with pytest.raises(ValueError):
        jumpshard.set_kernel("scalar\0avx2")


def test_version_is_the_crate_version():
    cargo = (REPO / "Cargo.toml").read_text()
    assert f'version = "{jumpshard.version()}"' in cargo
    assert jumpshard.version() == jumpshard.__version__


def test_jumpshard_lib_is_obeyed():
    env = dict(os.environ, JUMPSHARD_LIB="/nonexistent/libjumpshard.so")
    run = subprocess.run(
        [sys.executable, "-c", "import jumpshard"], env=env, capture_output=True, text=True
    )
    assert run.returncode != 0
    assert "JUMPSHARD_LIB=/nonexistent/libjumpshard.so" in run.stderr
