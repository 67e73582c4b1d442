#!/usr/bin/env bash
# The C compiler of the wasm build: clang, except that tree-sitter-language's libc stand-ins for
# tree-sitter 0.26 (wasm/unsupported/…/std*.c, each one `#error`) are compiled as empty files.
# Grammar crates whose build scripts still compile those stand-ins (tree-sitter-c, -c-sharp) then build
# for wasm32 as the others do: tree-sitter 0.27 brings its own libc for wasm (BUILD-NOTES).
set -euo pipefail
empty="$(dirname "$0")/../target/wasm-include/empty.c"
args=()
for a in "$@"; do
  case "$a" in
    */tree-sitter-language-*/wasm/unsupported/*.c) args+=("$empty") ;;
    *) args+=("$a") ;;
  esac
done
exec clang "${args[@]}"
