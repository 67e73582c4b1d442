#!/usr/bin/env bash
# Builds the wasm module (codegraph-wasm) and its Node glue into npm/wasm/.
#   scripts/build-wasm.sh [--debug]
# The grammar crates' C code needs clang and tree-sitter-language's libc shim headers (BUILD-NOTES).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=wasm-release
[ "${1:-}" = "--debug" ] && profile=dev
shim=$(cargo metadata --format-version 1 2>/dev/null | node -e '
  const m = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const p = m.packages.find((p) => p.name === "tree-sitter-language");
  process.stdout.write(require("path").dirname(p.manifest_path) + "/wasm/include");')
export CFLAGS_wasm32_unknown_unknown="-I$shim"
export CC_wasm32_unknown_unknown=clang AR_wasm32_unknown_unknown=llvm-ar
cargo build --quiet -p codegraph-wasm --target wasm32-unknown-unknown --profile "$profile"
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
mkdir -p npm/wasm
wasm-bindgen --target nodejs --remove-name-section --remove-producers-section \
  --out-dir npm/wasm --out-name codegraph_wasm "target/wasm32-unknown-unknown/$dir/codegraph_wasm.wasm"
echo "wasm: npm/wasm/codegraph_wasm_bg.wasm ($(stat -c %s npm/wasm/codegraph_wasm_bg.wasm) bytes)" >&2
