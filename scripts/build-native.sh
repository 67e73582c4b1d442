#!/usr/bin/env bash
# Builds the N-API addon and copies it to npm/native/codegraph.<target>.node, where the loader finds
# a development build.   scripts/build-native.sh [--debug]
set -euo pipefail
cd "$(dirname "$0")/.."
profile=release
[ "${1:-}" = "--debug" ] && profile=dev
cargo build --quiet -p codegraph-node --profile "$profile"
dir=$([ "$profile" = dev ] && echo debug || echo release)
target=$(node -e 'const r=process.report.getReport();const {platform:p,arch:a}=process;
  console.log(p==="linux"?`${p}-${a}-${r.header.glibcVersionRuntime?"gnu":"musl"}`:p==="win32"?`${p}-${a}-msvc`:`${p}-${a}`)')
case "$(uname -s)" in
  Darwin) lib=libcodegraph_node.dylib ;;
  MINGW*|MSYS*|CYGWIN*) lib=codegraph_node.dll ;;
  *) lib=libcodegraph_node.so ;;
esac
mkdir -p npm/native
# Copy to a temp name and rename: a process loading the old file never sees half a new one.
# Debug builds are copied without their debug info (90 MB → 13 MB): tests copy and hash the addon.
strip_tool=$(command -v llvm-strip || command -v strip || true)
if [ "$profile" = dev ] && [ -n "$strip_tool" ]; then
  "$strip_tool" --strip-debug -o "npm/native/.codegraph.$target.node.tmp" "target/$dir/$lib"
else
  cp "target/$dir/$lib" "npm/native/.codegraph.$target.node.tmp"
fi
mv -f "npm/native/.codegraph.$target.node.tmp" "npm/native/codegraph.$target.node"
echo "native: npm/native/codegraph.$target.node ($profile)" >&2
