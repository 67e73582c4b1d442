#!/usr/bin/env bash
# Installs what building codegraph needs, idempotently and quickly when it is already there:
# clang + llvm (C grammars for wasm32), cloc and graphviz (tests of the reports), the wasm32 rust target, wasm-bindgen-cli at the pinned version,
# DuckDB and its SQLite extension (a test reads the SQLite artifact with it),
# and the npm dev dependencies. Safe to run on every build; each step checks before it installs.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
: "${WASM_BINDGEN_VERSION:?could not read the pinned wasm-bindgen version from Cargo.toml}"

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

if ! command -v clang >/dev/null || ! command -v llvm-ar >/dev/null; then
  echo "setup: installing clang and llvm (apt)" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang llvm >/dev/null
fi

# cloc and Graphviz: the loc report is checked against cloc, and dot output against dot.
if ! command -v cloc >/dev/null || ! command -v dot >/dev/null; then
  echo "setup: installing cloc and graphviz (apt)" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq cloc graphviz >/dev/null
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "setup: adding the wasm32-unknown-unknown target" >&2
  rustup target add wasm32-unknown-unknown
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  echo "setup: installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 3 minutes)" >&2
  cargo install --quiet wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features
fi

# npm ci only when node_modules does not match the lockfile.
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.codegraph-lock-stamp; then
  echo "setup: npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.codegraph-lock-stamp
fi

# DuckDB with its SQLite extension (pinned together, from PyPI): the SQLite artifact is checked to
# read in DuckDB. A virtualenv under target/, made once.
DUCKDB_VERSION=1.4.4
DUCKDB_SQLITE_VERSION=1.4.4.20260205
venv=target/venv-duckdb
if ! "$venv/bin/python" -c "import duckdb, sys; sys.exit(duckdb.__version__ != '$DUCKDB_VERSION')" 2>/dev/null; then
  echo "setup: installing duckdb $DUCKDB_VERSION and its sqlite extension (pip, into $venv)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "duckdb==$DUCKDB_VERSION" "duckdb-ext-sqlite==$DUCKDB_SQLITE_VERSION"
fi
