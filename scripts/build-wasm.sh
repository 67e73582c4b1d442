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
# SQLite (through rusqlite) needs the compiler's own stdint.h, which tree-sitter's minimal one shadows
# (`unknown type name 'int_fast64_t'`): the include directory is a copy of the shim whose stdint.h
# defers to the compiler's.
include=target/wasm-include
mkdir -p "$include"
for h in "$shim"/*.h; do
  case "$(basename "$h")" in stdint.h | assert.h | stdlib.h) ;; *) cp -p "$h" "$include/" ;; esac
done
printf '%s\n' '#ifndef CODEGRAPH_WASM_STDINT_H_' '#define CODEGRAPH_WASM_STDINT_H_' \
  '#include_next <stdint.h>' '#include <stddef.h>' '#endif' >"$include/stdint.h.new"
cmp -s "$include/stdint.h.new" "$include/stdint.h" && rm "$include/stdint.h.new" || mv "$include/stdint.h.new" "$include/stdint.h"
# C11's `static_assert` (tree-sitter-cpp's scanner uses it) is a macro of <assert.h> the shim lacks:
# without it the compiler takes it for a function the module would import.
{ cat "$shim/assert.h"; printf '%s\n' '#ifndef static_assert' '#define static_assert _Static_assert' '#endif'; } >"$include/assert.h.new"
cmp -s "$include/assert.h.new" "$include/assert.h" && rm "$include/assert.h.new" || mv "$include/assert.h.new" "$include/assert.h"
# `exit` (tree-sitter-swift's scanner calls it when out of memory) is no function of the module's libc:
# it becomes `abort`, which is.
{ cat "$shim/stdlib.h"; printf '%s\n' '#ifndef exit' '#define exit(status) abort()' '#endif'; } >"$include/stdlib.h.new"
cmp -s "$include/stdlib.h.new" "$include/stdlib.h" && rm "$include/stdlib.h.new" || mv "$include/stdlib.h.new" "$include/stdlib.h"
export CFLAGS_wasm32_unknown_unknown="-I$PWD/$include"
# clang, with tree-sitter-language's 0.26-era libc stand-ins compiled empty (see scripts/wasm-cc.sh).
: >"$include/empty.c"
export CC_wasm32_unknown_unknown="$PWD/scripts/wasm-cc.sh" AR_wasm32_unknown_unknown=llvm-ar
cargo build --quiet -p codegraph-wasm --target wasm32-unknown-unknown --profile "$profile"
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
mkdir -p npm/wasm
wasm-bindgen --target nodejs --remove-name-section --remove-producers-section \
  --out-dir npm/wasm --out-name codegraph_wasm "target/wasm32-unknown-unknown/$dir/codegraph_wasm.wasm"
echo "wasm: npm/wasm/codegraph_wasm_bg.wasm ($(stat -c %s npm/wasm/codegraph_wasm_bg.wasm) bytes)" >&2
