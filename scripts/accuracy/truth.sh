#!/usr/bin/env bash
# Builds compiler-grade ground truth (SCIP indexes) for the shared accuracy corpora, so that
# codegraph's refs / goto / callers can be scored against it with /work/shared/accuracy/score.py.
#
#   usage: scripts/accuracy/truth.sh [rust] [ts] [py]         (default: all three, one at a time)
#   env:   CODEGRAPH_CORPUS   corpora made by shared/corpus/make-corpus.sh (~/.cache/codegraph-corpus)
#          CODEGRAPH_ACCURACY output and tool cache (~/.cache/codegraph-accuracy)
#          CODEGRAPH_ACCURACY_SHARED  scip2json.py / score.py (default: shared/accuracy beside this repo)
#          FORCE=1            rebuild everything even when cached
#
# Writes, for each corpus C:  $CODEGRAPH_ACCURACY/C/{index.scip, truth.json, queries.json}
#   truth.json = scip2json.py index.scip --root $CODEGRAPH_CORPUS/C --corpus C  (paths relative to
#   the corpus root), queries.json = score.py sample --n 300 (its default seed). Also
#   oracle-report.json / grep-report.json (score.py oracle, and the name-only grep floor; both printed),
#   timings.txt, and the indexers' logs. Idempotent: an index is reused while index.key (recipe,
#   corpus commit, tool versions) matches; truth/queries/reports are redone only when older than
#   their inputs. Takes ~3 min for rust (rust-analyzer scip ~1 min, diagnostics ~30 s, grep floor
#   ~1.5 min), ~10 s for ts, ~1.5 min for py, on 2 cores; rust-analyzer peaks at ~3.6 GB.
# Helpers beside this script: rust-inactive.py (cfg'd-out code and macro_rules! bodies ->
#   truth["inactive"]), ts-extents.cjs (extents of arrow functions, for callers), rust-ws.Cargo.lock
#   (pins the crates.io part of the Rust scratch workspace).
#
# Tools (pinned; installed into $CODEGRAPH_ACCURACY, nothing global except rustup components):
#   Rust        rust-analyzer 1.95.0 (`rustup component add rust-analyzer rust-src` on toolchain 1.95.0;
#               if rustup cannot fetch rust-src, Debian's rust-web-src is installed and RUST_SRC_PATH set)
#   TypeScript  npm @sourcegraph/scip-typescript@0.4.0 with typescript@5.9.3       (tools/ts)
#   Python      npm @sourcegraph/scip-python@0.6.6                               (tools/py)
#   venv        protobuf==7.36.2 grpcio-tools==1.85.1 (scip2json.py), and Django 5.1.4's dependencies
#               asgiref==3.13.0 sqlparse==0.6.1 (so scip-python resolves them)     (venv)
#
# How each corpus is indexed (the corpus directories themselves are only read):
#   rust  A scratch cargo workspace ($OUT/rust/ws) holds a copy of the vendored crate dirs under their
#         corpus names (tokio-1.54.1/, ...), so rust-analyzer's document paths are corpus paths. Its
#         root package depends on tokio(full) serde(derive) regex clap at the corpus versions, and
#         [patch.crates-io] points every corpus crate at its copy, so they are all local (indexed)
#         crates; only windows-sys/windows-link and dev-dependencies come from crates.io (`cargo
#         fetch`, pinned by rust-ws.Cargo.lock). tokio, bytes, regex and regex-automata are
#         workspace members, so their tests/benches are indexed and their dev-dependencies resolved
#         (this unifies a few extra features on, e.g. tokio test-util, syn full). rust-analyzer runs with cargo.cfgs=["debug_assertions"]
#         (its default adds `miri`, which would switch off e.g. tokio's parking_lot paths).
#         `rust-analyzer diagnostics` lists cfg'd-out regions; rust-inactive.py turns them and the
#         macro_rules! bodies (never resolved) into truth["inactive"] lines, neutral in score.py.
#         The root package's own file is dropped from the index. Not indexed (so neutral): crates and
#         files only for other targets (windows, bsd, wasm, redox: most of libc, bitflags,
#         redox_syscall, anstyle-wincon, wasi), feature-gated files, and tests/examples/benches of the
#         non-member crates (clap's examples need clap_derive, which is not in the corpus).
#   ts    A copy of the corpus in $OUT/ts/work/src with rxjs 7.8.1's own package tsconfig.json one
#         level up (it is what tsconfig.base.json extends) and a tsconfig.json that extends
#         tsconfig.base.json; `tsc -p .` must type-check; scip-typescript runs there, so paths are
#         corpus paths. ts-extents.cjs gives extents to arrow functions bound to names (callers).
#   py    A copy of the corpus in $OUT/py/work (django/...), scip-python with the venv's python.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CORPUS=${CODEGRAPH_CORPUS:-$HOME/.cache/codegraph-corpus}
OUT=${CODEGRAPH_ACCURACY:-$HOME/.cache/codegraph-accuracy}
SHARED=${CODEGRAPH_ACCURACY_SHARED:-$(cd "$HERE/../../.." && pwd)/shared/accuracy}
[ -f "$SHARED/scip2json.py" ] || SHARED=/work/shared/accuracy
export CODEGRAPH_ACCURACY_SHARED=$SHARED
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$OUT/cache}   # scip2json.py keeps its compiled scip_pb2 here

RA_TOOLCHAIN=1.95.0
SCIP_TS=0.4.0
TYPESCRIPT=5.9.3
SCIP_PY=0.6.6
PIP_PKGS="protobuf==7.36.2 grpcio-tools==1.85.1 asgiref==3.13.0 sqlparse==0.6.1"
RECIPE=3            # bump when the way an index is built changes (invalidates cached indexes)
TOP_CRATES='tokio = { version = "=1.54.1", features = ["full"] }
serde = { version = "=1.0.229", features = ["derive"] }
regex = "=1.13.2"
clap = "=4.6.9"'
RUST_MEMBERS="tokio bytes regex regex-automata"

VENV=$OUT/venv
PY=$VENV/bin/python
mkdir -p "$OUT"

log() { printf '[truth %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# step NAME CMD...: run, time, and append the duration to $TIMINGS
step() {
  local name=$1; shift
  local t0=$SECONDS
  log "$name ..."
  "$@"
  local dt=$((SECONDS - t0))
  log "$name done in ${dt}s"
  printf '%-28s %5ds\n' "$name" "$dt" >>"$TIMINGS"
}

# copy_tree SRC DEST: DEST becomes a copy of SRC's working tree without .git and .codegraph (an index)
copy_tree() {
  rm -rf "$2"
  mkdir -p "$2"
  tar -C "$1" --exclude=./.git --exclude=./.codegraph -cf - . | tar -C "$2" -xf -
}

corpus_rev() { git -C "$1" rev-parse HEAD 2>/dev/null || echo "no-git"; }

# ------------------------------------------------------------------------------ tools
install_venv() {
  local stamp=$VENV/.truth-pkgs
  if [ -x "$PY" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$PIP_PKGS" ]; then return; fi
  log "venv: $PIP_PKGS"
  python3 -m venv "$VENV"
  "$PY" -m pip install --quiet --disable-pip-version-check $PIP_PKGS
  echo "$PIP_PKGS" >"$stamp"
}

# npm_tool DIR SPEC...: install exact versions into $OUT/tools/DIR
npm_tool() {
  local dir=$OUT/tools/$1; shift
  local want="$*"
  if [ "$(cat "$dir/.truth-pkgs" 2>/dev/null)" = "$want" ]; then return; fi
  log "npm: $want -> $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  npm install --silent --no-audit --no-fund --save-exact --prefix "$dir" "$@"
  echo "$want" >"$dir/.truth-pkgs"
}

install_rust_tools() {
  if ! rustup toolchain list | grep -q "^$RA_TOOLCHAIN"; then
    rustup toolchain install "$RA_TOOLCHAIN" --profile minimal
  fi
  rustup component add --toolchain "$RA_TOOLCHAIN" rust-analyzer >/dev/null 2>&1 \
    || die "rustup could not install rust-analyzer for $RA_TOOLCHAIN"
  if ! rustup component add --toolchain "$RA_TOOLCHAIN" rust-src >/dev/null 2>&1; then
    log "rustup could not fetch rust-src: using Debian's rust-web-src"
    dpkg -s rust-web-src >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq rust-web-src; }
    local core
    core=$(dpkg -L rust-web-src | grep -m1 '/library/core/Cargo.toml$') || die "no library/core in rust-web-src"
    export RUST_SRC_PATH=${core%/core/Cargo.toml}
  fi
  RA() { rustup run "$RA_TOOLCHAIN" rust-analyzer "$@"; }
  RA --version >/dev/null || die "rust-analyzer does not run"
}

# ------------------------------------------------------------------------------ common tail
# fresh OUT IN...: OUT exists and is newer than every IN that is a file (and FORCE is unset)
fresh() {
  local o=$1; shift
  [ -z "${FORCE:-}" ] && [ -s "$o" ] || return 1
  local i
  for i in "$@"; do [ ! -f "$i" ] || [ "$o" -nt "$i" ] || return 1; done
}

# finish NAME ROOT [scip2json args...]: truth.json, queries.json and the two sanity scores
finish() {
  local name=$1 root=$2; shift 2
  local d=$OUT/$name
  if fresh "$d/truth.json" "$d/index.scip" "$SHARED/scip2json.py" "$@"; then
    log "$name: truth.json is up to date"
  else
    step "$name scip2json" "$PY" "$SHARED/scip2json.py" "$d/index.scip" --root "$root" --corpus "$name" \
      -o "$d/truth.json" "$@"
  fi
  if fresh "$d/queries.json" "$d/truth.json" "$SHARED/score.py"; then
    log "$name: queries.json is up to date"
  else
    step "$name sample" "$PY" "$SHARED/score.py" sample --truth "$d/truth.json" --n 300 -o "$d/queries.json"
  fi
  local kind
  for kind in oracle grep; do
    if ! fresh "$d/$kind.json" "$d/queries.json"; then
      if [ $kind = oracle ]; then
        "$PY" "$SHARED/score.py" oracle --truth "$d/truth.json" --queries "$d/queries.json" -o "$d/oracle.json" >/dev/null
      else
        step "$name grep baseline" "$PY" "$SHARED/score.py" grep --truth "$d/truth.json" \
          --queries "$d/queries.json" --root "$root" -o "$d/grep.json" >/dev/null
      fi
    fi
    "$PY" "$SHARED/score.py" score --truth "$d/truth.json" --queries "$d/queries.json" --pred "$d/$kind.json" \
      -o "$d/$kind-report.json" | sed "s/^/$kind: /"
  done
}

# cached KEYFILE KEY: true when the index was built with exactly this key
cached() { [ -z "${FORCE:-}" ] && [ -s "$(dirname "$1")/index.scip" ] && [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }

# ------------------------------------------------------------------------------ rust
do_rust() {
  local root=$CORPUS/rust d=$OUT/rust
  [ -d "$root/.git" ] || die "no corpus at $root (run shared/corpus/make-corpus.sh)"
  mkdir -p "$d"
  TIMINGS=$d/timings.txt; echo "== $(date -u +%FT%TZ) ${FORCE:+FORCE=1}" >>"$TIMINGS"
  step "rust tools" install_rust_tools
  local key="recipe=$RECIPE corpus=$(corpus_rev "$root") ra=$(RA --version) members=$RUST_MEMBERS"
  if cached "$d/index.key" "$key"; then
    log "rust: cached index matches ($key)"
  else
    rm -f "$d/index.key"
    local ws=$d/ws
    mkdir -p "$ws"
    # the copy of the crates (target/ and Cargo.lock are kept as a build cache)
    find "$ws" -mindepth 1 -maxdepth 1 ! -name target ! -name Cargo.lock -exec rm -rf {} +
    step "rust copy corpus" bash -c "tar -C '$root' --exclude=./.git --exclude=./.codegraph -cf - . | tar -C '$ws' -xf -"
    mkdir -p "$ws/_root"
    echo '//! Only here so that cargo resolves the corpus crates with the features the corpus was vendored with.' \
      >"$ws/_root/lib.rs"
    local members="" excluded="" patches="" dir b name m
    for dir in "$root"/*/; do
      b=$(basename "$dir")
      [ -f "$dir/Cargo.toml" ] || continue
      name=$(awk -F'"' '/^\[package\]/{p=1} p&&/^name *=/{print $2; exit}' "$dir/Cargo.toml")
      patches+="$name = { path = \"$b\" }"$'\n'
      m=no
      for x in $RUST_MEMBERS; do [ "$x" = "$name" ] && m=yes; done
      if [ $m = yes ]; then members+="\"$b\", "; else excluded+="\"$b\", "; fi
    done
    cat >"$ws/Cargo.toml" <<EOF
# generated by scripts/accuracy/truth.sh: a workspace over a copy of the vendored corpus crates
[package]
name = "codegraph-truth-root"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "_root/lib.rs"

[dependencies]
$TOP_CRATES

[workspace]
members = [${members%, }]
exclude = [${excluded%, }]

[patch.crates-io]
$patches
EOF
    echo '{"cargo": {"cfgs": ["debug_assertions"]}}' >"$d/ra-config.json"
    # a Cargo.lock kept beside this script pins crates.io's part (windows-sys, dev-dependencies)
    [ -f "$ws/Cargo.lock" ] || [ ! -f "$HERE/rust-ws.Cargo.lock" ] || cp "$HERE/rust-ws.Cargo.lock" "$ws/Cargo.lock"
    step "rust cargo fetch" bash -c "cd '$ws' && cargo +$RA_TOOLCHAIN fetch >'$d/fetch.log' 2>&1" \
      || { grep -v -e '^warning' -e '^package:' -e '^workspace:' "$d/fetch.log" | tail -20; die "cargo fetch failed"; }
    step "rust rust-analyzer scip" bash -c "cd '$ws' && rustup run $RA_TOOLCHAIN rust-analyzer scip . \
      --config-path '$d/ra-config.json' --output '$d/index.raw.scip' >'$d/scip.log' 2>&1" \
      || { tail -20 "$d/scip.log"; die "rust-analyzer scip failed (log: $d/scip.log)"; }
    # exits non-zero when it finds error diagnostics; the scan itself must complete
    step "rust rust-analyzer diagnostics" bash -c "cd '$ws' && rustup run $RA_TOOLCHAIN rust-analyzer \
      diagnostics . >'$d/diagnostics.txt' 2>'$d/diagnostics.log' || true"
    grep -q 'diagnostic scan complete' "$d/diagnostics.txt" || die "rust-analyzer diagnostics failed ($d/diagnostics.log)"
    # keep only documents that are corpus files (drops _root/lib.rs)
    "$PY" - "$d/index.raw.scip" "$d/index.scip" "$root" <<'EOF'
import os, sys
sys.path.insert(0, os.environ["CODEGRAPH_ACCURACY_SHARED"])
from scip2json import load_scip_pb2
pb = load_scip_pb2()
src, dst, root = sys.argv[1:]
idx = pb.Index()
with open(src, "rb") as f:
    idx.ParseFromString(f.read())
keep = [d for d in idx.documents if os.path.isfile(os.path.join(root, d.relative_path))]
dropped = [d.relative_path for d in idx.documents if not os.path.isfile(os.path.join(root, d.relative_path))]
del idx.documents[:]
idx.documents.extend(keep)
with open(dst, "wb") as f:
    f.write(idx.SerializeToString())
print("rust: %d documents kept, dropped (not corpus files): %s" % (len(keep), dropped or "none"))
EOF
    rm -f "$d/index.raw.scip"
    echo "$key" >"$d/index.key"
  fi
  if fresh "$d/inactive.json" "$d/index.scip" "$d/diagnostics.txt" "$HERE/rust-inactive.py"; then
    log "rust: inactive.json is up to date"
  else
    step "rust inactive" "$PY" "$HERE/rust-inactive.py" --root "$root" --diagnostics "$d/diagnostics.txt" \
      --index "$d/index.scip" --ws-root "$d/ws" -o "$d/inactive.json"
  fi
  finish rust "$root" --inactive "$d/inactive.json"
}

# ------------------------------------------------------------------------------ ts
do_ts() {
  local root=$CORPUS/ts d=$OUT/ts
  [ -d "$root/.git" ] || die "no corpus at $root (run shared/corpus/make-corpus.sh)"
  mkdir -p "$d"
  TIMINGS=$d/timings.txt; echo "== $(date -u +%FT%TZ) ${FORCE:+FORCE=1}" >>"$TIMINGS"
  step "ts tools" npm_tool ts "@sourcegraph/scip-typescript@$SCIP_TS" "typescript@$TYPESCRIPT"
  local bin=$OUT/tools/ts/node_modules/.bin
  local key="recipe=$RECIPE corpus=$(corpus_rev "$root") scip-typescript=$SCIP_TS typescript=$TYPESCRIPT"
  if cached "$d/index.key" "$key"; then
    log "ts: cached index matches ($key)"
  else
    rm -f "$d/index.key"
    local w=$d/work
    step "ts copy corpus" copy_tree "$root" "$w/src"
    # rxjs's package tsconfig.json (what src/tsconfig.base.json extends), from the npm tarball
    local pk=$OUT/tools/rxjs-pack
    if [ ! -f "$pk/package/tsconfig.json" ]; then
      rm -rf "$pk" && mkdir -p "$pk"
      (cd "$pk" && npm pack --silent rxjs@7.8.1 >/dev/null && tar -xzf rxjs-7.8.1.tgz package/tsconfig.json)
    fi
    cp "$pk/package/tsconfig.json" "$w/tsconfig.json"
    printf '{\n  "extends": "./tsconfig.base.json",\n  "compilerOptions": {"noEmit": true, "incremental": false}\n}\n' \
      >"$w/src/tsconfig.json"
    step "ts tsc -p" bash -c "cd '$w/src' && '$bin/tsc' -p . >'$d/tsc.log' 2>&1" \
      || { head -30 "$d/tsc.log"; die "rxjs does not type-check (log: $d/tsc.log)"; }
    step "ts scip-typescript" bash -c "cd '$w/src' && '$bin/scip-typescript' index --no-progress-bar \
      --output '$d/index.scip' >'$d/scip.log' 2>&1" || { tail -20 "$d/scip.log"; die "scip-typescript failed"; }
    step "ts extents" env NODE_PATH="$OUT/tools/ts/node_modules" node "$HERE/ts-extents.cjs" "$w/src" "$d/extents.json"
    echo "$key" >"$d/index.key"
  fi
  finish ts "$root" --extents "$d/extents.json"
}

# ------------------------------------------------------------------------------ py
do_py() {
  local root=$CORPUS/py d=$OUT/py
  [ -d "$root/.git" ] || die "no corpus at $root (run shared/corpus/make-corpus.sh)"
  mkdir -p "$d"
  TIMINGS=$d/timings.txt; echo "== $(date -u +%FT%TZ) ${FORCE:+FORCE=1}" >>"$TIMINGS"
  step "py tools" npm_tool py "@sourcegraph/scip-python@$SCIP_PY"
  local key="recipe=$RECIPE corpus=$(corpus_rev "$root") scip-python=$SCIP_PY pip=$PIP_PKGS"
  if cached "$d/index.key" "$key"; then
    log "py: cached index matches ($key)"
  else
    rm -f "$d/index.key"
    local w=$d/work
    step "py copy corpus" copy_tree "$root" "$w"
    # scip-python asks the `python`/`pip` on PATH for the environment: the venv with asgiref, sqlparse
    step "py scip-python" bash -c "cd '$w' && PATH='$VENV/bin':\"\$PATH\" NODE_OPTIONS=--max-old-space-size=8192 \
      '$OUT/tools/py/node_modules/.bin/scip-python' index --project-name django --project-version 5.1.4 \
      --output '$d/index.scip' >'$d/scip.log' 2>&1" || { tail -20 "$d/scip.log"; die "scip-python failed"; }
    echo "$key" >"$d/index.key"
  fi
  finish py "$root"
}

# ------------------------------------------------------------------------------ main
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(rust ts py)
for t in "${targets[@]}"; do
  case "$t" in rust|ts|py) ;; *) die "unknown corpus '$t' (rust, ts, py)";; esac
done
t_all=$SECONDS
install_venv
for t in "${targets[@]}"; do
  t0=$SECONDS
  "do_$t"
  log "$t: $((SECONDS - t0))s total; outputs in $OUT/$t"
done
log "all done in $((SECONDS - t_all))s"
