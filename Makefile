# Entry points. `make test` runs every test on this machine; `.ci/run` adds
# formatting, clippy, the header check and the aarch64 cross tests.

CARGO ?= cargo

.PHONY: run test test-rust test-kernels test-consumers test-python lint check-header header
.PHONY: install uninstall dist check-symbols symbols fuzz miri test-huge

# Where cargo builds: target/, or CARGO_TARGET_DIR, or build.target-dir,
# as cargo itself says. Asked once, and only by the targets that use it.
TARGET_DIR = $(eval TARGET_DIR := $$(shell $(CARGO) metadata --format-version 1 --no-deps \
  | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p'))$(TARGET_DIR)

# The main job on built-in data.
run:
	$(CARGO) run --release -- reshard --from 10 --to 12 --generate 100000000

# The C consumers and the Python suite side by side, each one's output
# whole when it ends: the first is mostly C builds and valgrind on one
# core, the second mostly waits on Spark's, Ray's and Dask's start-ups.
test: test-rust test-kernels
	$(MAKE) --no-print-directory -j2 --output-sync=target test-consumers test-python

# With the Rust suites, the examples of README.md and docs/ run
# (cli/tests/doc_examples; docs/testing.md#doc-examples), the C ones
# compiled only: test-consumers links and runs them with the library it
# builds, and test-python runs the Python ones with its wheel.
test-rust:
	$(CARGO) test --workspace

# Every kernel this CPU runs, forced in turn through JUMPSHARD_KERNEL: the
# dispatched batch calls must use it and agree with Figure 1. Then every
# division strategy of each kernel, forced through JUMPSHARD_DIVISION
# (`kernels --divisions` lists the pairs), and one that a kernel lacks,
# which must be reported.
# The CLI is the one `cargo test --workspace` builds for its tests (the
# optimised test profile, the same features), so that after test-rust this
# builds nothing: not a release build, nor a second test-profile one.
JUMPSHARD_TEST_CLI = $(TARGET_DIR)/debug/jumpshard
test-kernels:
	$(CARGO) test --workspace --no-run -q
	for k in $$($(JUMPSHARD_TEST_CLI) kernels --supported); do \
	  echo "== JUMPSHARD_KERNEL=$$k"; \
	  JUMPSHARD_KERNEL=$$k $(CARGO) test -q --test dispatch || exit 1; \
	done
	# `verify` checks every kernel and strategy itself, whichever the batch
	# calls use, so once is enough.
	$(JUMPSHARD_TEST_CLI) verify
	for kd in $$($(JUMPSHARD_TEST_CLI) kernels --divisions); do \
	  echo "== JUMPSHARD_KERNEL=$${kd%:*} JUMPSHARD_DIVISION=$${kd#*:}"; \
	  JUMPSHARD_KERNEL=$${kd%:*} JUMPSHARD_DIVISION=$${kd#*:} $(CARGO) test -q --test dispatch || exit 1; \
	done
	JUMPSHARD_KERNEL=scalar JUMPSHARD_DIVISION=newton $(CARGO) test -q --test dispatch

test-consumers:
	@if [ -x .ci/consumers ]; then .ci/consumers; else echo "no C/C++/Python consumers yet"; fi

# The Python extension: a wheel built by pip in a fresh virtual environment,
# then its pytest suite (numpy, Arrow, pandas, polars, Dask on two workers).
# The Dask tests compare with the CLI: the one the Rust tests build (after
# test-rust this builds nothing), not a release build of its own, which
# took four minutes of every CI run.
test-python:
	$(CARGO) test --workspace --no-run -q
	JUMPSHARD_CLI=$(abspath $(JUMPSHARD_TEST_CLI)) .ci/python

lint:
	$(CARGO) fmt --all -- --check
	# No source file imports from another that imports from it, directly or
	# round a longer ring: every file has its place in a layering.
	.ci/module-cycles --self-test
	.ci/module-cycles
	# Every source file under ~500 lines, the two x86 kernels excepted.
	.ci/file-sizes
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	# Every doc link resolves, so the published API documentation holds.
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --workspace -q
	# Library users without a C++ compiler build without the reference; the
	# C library and the streaming engine build without rayon and Parquet.
	$(CARGO) clippy -p jumpshard --no-default-features -- -D warnings
	# Its tests build without the default features too (those of
	# `batch_parallel` and `plan_parallel` stand behind `parallel`); they
	# turn on the reference, so this is a check of its own.
	$(CARGO) clippy -p jumpshard --no-default-features --tests -- -D warnings
	$(CARGO) clippy -p jumpshard-capi --no-default-features -- -D warnings
	$(CARGO) clippy -p jumpshard-stream --no-default-features -- -D warnings
	# The Python extension crate is a workspace of its own, so that the
	# --workspace commands never build PyO3 (an extension module links no
	# libpython, and cross builds would need a target interpreter).
	cd bindings/python && $(CARGO) fmt -- --check && $(CARGO) clippy --all-targets -- -D warnings
	# The Python package, its tests and benchmarks: no undefined or unused
	# names, and ruff's formatting (ruff.toml).
	python3 -m ruff check bindings/python examples/python
	python3 -m ruff format --check bindings/python examples/python

# include/jumpshard.h is generated from the C ABI crate and checked in;
# `make header` regenerates it, `make check-header` fails if it is stale.
CBINDGEN = cbindgen --quiet --config capi/cbindgen.toml --output include/jumpshard.h capi
check-header:
	$(CBINDGEN) --verify || { echo "include/jumpshard.h is stale: run make header"; exit 1; }

header:
	$(CBINDGEN)

# Installation of the C library (see docs/c-abi.md):
#   make install PREFIX=/usr/local [LIBDIR=...] [INCLUDEDIR=...] [DESTDIR=...]
#   make uninstall (same variables) removes exactly the files installed.
#   make dist [TARGET=aarch64-unknown-linux-gnu] packs the same files, the
#   licenses and a README into DIST_DIR/jumpshard-VERSION-ARCH-linux.tar.gz
#   for the host or for TARGET (a cross build: see docs/arm.md).
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
INSTALL_DIRS = --prefix "$(PREFIX)" --libdir "$(LIBDIR)" --includedir "$(INCLUDEDIR)" --destdir "$(DESTDIR)"
# The release build of the C library, for TARGET when it is set.
CAPI_BUILD = $(TARGET_DIR)/$(if $(TARGET),$(TARGET)/)release
DIST_DIR ?= $(TARGET_DIR)/dist

install:
	$(CARGO) build --release -p jumpshard-capi
	capi/install/install install $(INSTALL_DIRS) --build "$(TARGET_DIR)/release"

uninstall:
	capi/install/install uninstall $(INSTALL_DIRS)

dist:
	$(CARGO) build --release -p jumpshard-capi $(if $(TARGET),--target $(TARGET))
	capi/install/dist --build "$(CAPI_BUILD)" --out "$(DIST_DIR)" \
	  --target "$(or $(TARGET),$(shell rustc -vV | sed -n 's/^host: //p'))"

# The shared library exports exactly the functions of capi/symbols.txt (a
# removed or renamed one breaks the ABI; a new one is listed on purpose, with
# `make symbols`), and its SONAME carries the ABI number of capi/ABI, which
# changes only when the ABI breaks, not with the version (docs/release.md).
check-symbols:
	$(CARGO) build --release -p jumpshard-capi
	capi/install/check-symbols $(TARGET_DIR)/release/libjumpshard.so

symbols:
	$(CARGO) build --release -p jumpshard-capi
	capi/install/check-symbols --write $(TARGET_DIR)/release/libjumpshard.so

# Every fuzz target for FUZZ_SECONDS each (10 minutes by default), two at
# a time; `FUZZ_SECONDS=8 make fuzz` is a smoke run of a few minutes. Not
# part of .ci/run (its sanitized build alone took 4 minutes of CI). Needs
# nightly and cargo-fuzz, which .ci/fuzz installs if missing.
FUZZ_SECONDS ?= 600
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) .ci/fuzz

# Miri over the unit tests of the unsafe code and the C ABI (also in .ci/run).
miri:
	.ci/miri

# One batch of more than 2^32 keys through every kernel (tests/huge.rs);
# not in `make test` (minutes: see docs/testing.md).
test-huge:
	$(CARGO) test --test huge -- --ignored --nocapture
