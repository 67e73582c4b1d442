#!/usr/bin/env bash
# Runs every check and test, what CI runs (.ci/run): formatting (rustfmt, prettier), clippy with
# warnings denied, the TypeScript type check, the generated types' freshness, the Rust core tests
# (unit, fixture answers, hostile repositories, snapshots), then the JS suites (engine exports,
# native/wasm parity on the fixture and on real corpora, CLI end to end, MCP, installer, packaging:
# loader and native cache on a packed layout, `npm i -g` of the tarballs, an upgrade under a running
# server) against a debug addon (its own file: the release addon of scripts/build.sh stays) and the
# release wasm module. Installs what it needs first (scripts/setup.sh and scripts/corpus.sh,
# idempotent). Prints each runner's summary; a run that executes no test, or skips one, fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/corpus.sh
mkdir -p target
echo "== formatting and lints" >&2
cargo fmt --all -- --check
npx prettier --check --log-level warn "npm/src/**/*.ts" "tests/**/*.js" "scripts/**/*.js" "bin/*.js"
cargo clippy --quiet --workspace --all-targets -- -D warnings
echo "== generated types" >&2
node scripts/gen-types.js --check
echo "== rust tests" >&2
cargo test -p codegraph-core 2>&1 | tee target/test-rust.log
echo "== engines (native debug, wasm release: a debug wasm parses too slowly for the corpus checks)" >&2
bash scripts/build-native.sh --debug
bash scripts/build-wasm.sh
npm run -s build:ts
node scripts/pack.js --check-platforms
echo "== js tests (tests/dist packs the tarballs and installs them into a temporary prefix and HOME)" >&2
CODEGRAPH_WORKSPACE_PROFILE=debug node --test tests/ 2>&1 | tee target/test-js.log
node scripts/test-summary.js target/test-rust.log target/test-js.log
