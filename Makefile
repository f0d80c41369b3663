# Entry points. `make test` runs every test on this machine; `.ci/run` adds
# formatting, clippy, the header check and the aarch64 cross tests.

CARGO ?= cargo

.PHONY: run test test-rust test-kernels test-consumers lint check-header fuzz miri test-huge

# The main job on built-in data.
run:
	$(CARGO) run --release -- reshard --from 10 --to 12 --generate 100000000

test: test-rust test-kernels test-consumers

test-rust:
	$(CARGO) test --workspace

# Every kernel this CPU runs, forced in turn through JUMPSHARD_KERNEL: the
# dispatched batch calls and `jumpshard verify` must use it and agree with
# Figure 1.
test-kernels:
	$(CARGO) build --release -p jumpshard-cli
	for k in $$(./target/release/jumpshard kernels --supported); do \
	  echo "== JUMPSHARD_KERNEL=$$k"; \
	  JUMPSHARD_KERNEL=$$k $(CARGO) test -q --test dispatch || exit 1; \
	  JUMPSHARD_KERNEL=$$k ./target/release/jumpshard verify || exit 1; \
	done

test-consumers:
	@if [ -x .ci/consumers ]; then .ci/consumers; else echo "no C/C++/Python consumers yet"; fi

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	# Library users without a C++ compiler build without the reference.
	$(CARGO) clippy -p jumpshard --no-default-features -- -D warnings

check-header:
	@if [ -f cbindgen.toml ]; then \
	  cbindgen --quiet --config cbindgen.toml --verify --output include/jumpshard.h \
	  || { echo "include/jumpshard.h is stale: regenerate it with cbindgen"; exit 1; }; \
	fi

# Every fuzz target for FUZZ_SECONDS each (10 minutes by default; CI runs
# 30 s each through the same script). Needs nightly and cargo-fuzz, which
# .ci/fuzz installs if missing.
FUZZ_SECONDS ?= 600
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) .ci/fuzz

# Miri over the library's unit tests (also in .ci/run).
miri:
	.ci/miri

# One batch of more than 2^32 keys through every kernel (tests/huge.rs);
# not in `make test` (minutes: see the README).
test-huge:
	$(CARGO) test --test huge -- --ignored --nocapture
