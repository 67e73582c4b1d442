#!/usr/bin/env bash
# Builds the N-API addon and copies it to npm/native/, where the loader finds a development build:
# codegraph.<target>.node (release) or codegraph.<target>.debug.node (--debug, what the test command
# builds; it never replaces the release build, which the loader prefers unless
# CODEGRAPH_WORKSPACE_PROFILE=debug).   scripts/build-native.sh [--debug]
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
name="codegraph.$target.node"
[ "$profile" = dev ] && name="codegraph.$target.debug.node"
mkdir -p npm/native
# Copy to a temp name and rename: a process loading the old file never sees half a new one.
# Debug builds are copied without their debug info (90 MB → 13 MB): tests copy and hash the addon.
strip_tool=$(command -v llvm-strip || command -v strip || true)
if [ "$profile" = dev ] && [ -n "$strip_tool" ]; then
  "$strip_tool" --strip-debug -o "npm/native/.$name.tmp" "target/$dir/$lib"
else
  cp "target/$dir/$lib" "npm/native/.$name.tmp"
fi
mv -f "npm/native/.$name.tmp" "npm/native/$name"
echo "native: npm/native/$name ($profile)" >&2
