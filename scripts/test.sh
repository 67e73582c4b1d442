#!/usr/bin/env bash
# Runs every test: generated types up to date, Rust core tests (unit, fixture answers, bad input,
# snapshots), then the JS suites (engine exports, native/wasm parity, CLI end to end, MCP, installer,
# packaging: loader and native cache on a packed layout, `npm i -g` of the tarballs without a
# compiler, an upgrade under a running server) against a debug addon and the release wasm module. Installs what it needs first (scripts/setup.sh, idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== generated types" >&2
node scripts/gen-types.js --check
echo "== rust tests" >&2
cargo test -p codegraph-core
echo "== engines (native debug, wasm release: a debug wasm parses too slowly for the corpus checks)" >&2
bash scripts/build-native.sh --debug
bash scripts/build-wasm.sh
npm run -s build:ts
node scripts/pack.js --check-platforms
echo "== js tests (tests/dist packs the tarballs and installs them into a temporary prefix and HOME)" >&2
node --test tests/
