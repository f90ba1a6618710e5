# Everyday commands. The scripts do the work; this file only names them.
# Every cargo command says --workspace (the root manifest is also the app
# package, so a bare `cargo test` would test only the app) and uses the
# feature set of the tests, so one variant of the app is compiled.

FEATURES := --features tauri/custom-protocol

.PHONY: help setup app dev demo test fmt ui lint check e2e sim bench bench-desktop bench-ui bindings fuzz icons clean package test-package

help:
	@echo "make setup   install what building needs (scripts/setup.sh)"
	@echo "make app     build and open the release desktop app (scripts/app.sh)"
	@echo "make package build the release .deb and .rpm (Tauri's bundler)"
	@echo "make test-package  install the .deb here, run it, remove it; read the .rpm and run its app (tests/package/)"
	@echo "make dev     the app with Vite hot reload (tauri dev)"
	@echo "make demo    the app against hearth-sim with a scripted conversation"
	@echo "make test    every check CI runs (scripts/test.sh)"
	@echo "make fmt     format Rust code"
	@echo "make ui      build the web UI into ui/dist"
	@echo "make lint    clippy (warnings are errors) + svelte-check"
	@echo "make check   cargo check of the whole workspace + svelte-check"
	@echo "make e2e     build the app and run the desktop end-to-end test"
	@echo "make sim     run the Ollama simulator on port 11435"
	@echo "make bench   run the benchmarks (release build)"
	@echo "make bench-desktop  cold start and idle memory of the real app"
	@echo "make bench-ui       frame time while streaming (Chromium)"
	@echo "make bench-real     memory, cache and voice benchmarks on a real llama.cpp model"
	@echo "make bindings regenerate ui/src/bindings.ts from the Rust commands"
	@echo "make fuzz    10 minutes per fuzz target (nightly + cargo-fuzz)"
	@echo "make icons   regenerate icons/ with ImageMagick"
	@echo "make clean   remove build outputs"

setup:
	scripts/setup.sh

app:
	scripts/app.sh

dev:
	scripts/app.sh --dev

demo:
	scripts/app.sh --demo

test:
	scripts/test.sh

fmt:
	cargo fmt --all

# The app embeds ui/dist at compile time (custom-protocol): build it first.
ui:
	npm run --silent build

lint: ui
	cargo clippy --workspace --all-targets $(FEATURES) -- -D warnings
	npm run --silent check

check: ui
	cargo check --workspace --all-targets $(FEATURES)
	npm run --silent check

# The release .deb: desktop entry, icons, name and version from
# tauri.conf.json and Cargo; it depends on bubblewrap (run_shell's sandbox).
package:
	npx tauri build --bundles deb,rpm
	@ls -1 $${CARGO_TARGET_DIR:-target}/release/bundle/deb/*.deb $${CARGO_TARGET_DIR:-target}/release/bundle/rpm/*.rpm

test-package: package
	tests/package/run.sh
	tests/package/rpm.sh

e2e:
	npx tauri build --debug --no-bundle
	tests/e2e/run.sh

sim:
	cargo run -p hearth-sim -- --port 11435

bench-desktop:
	npx tauri build --debug --no-bundle
	HEARTH_E2E_TESTS=bench/desktop/desktop.bench.mjs tests/e2e/run.sh

bench-ui:
	npm run --silent bench:ui

# CI only replays the corpora (crates/*/tests/suite/corpus.rs).
fuzz:
	cd fuzz && for t in ndjson repair sanitize; do \
		cargo +nightly fuzz run $$t -- -max_total_time=$${FUZZ_SECONDS:-600} || exit 1; done

bindings:
	cargo run -q $(FEATURES) --bin hearth-app -- --export-bindings ui/src/bindings.ts

bench:
	cargo run -p hearth-bench --release

icons:
	scripts/icons.sh

clean:
	cargo clean
	rm -rf ui/dist gen

# The CLI against a real llama.cpp server and a small real model, through the
# OpenAI-compatible backend. Not part of CI or `make test`: the first run
# builds llama-server and downloads ~500 MB, and it needs quiet cores.
.PHONY: test-real bench-real
test-real:
	scripts/test-real.sh

# The full real-engine benchmarks (memory on every conversation, 30 cache
# turns, voice latency) whose figures BENCHMARKS.md records; CI runs only
# test-real's small samples.
bench-real:
	scripts/bench-real.sh
