#!/usr/bin/env bash
# Builds the real-code corpora the test command compares both engines on, from the package
# registries with their ordinary clients, pinned to exact versions; idempotent and cached (a corpus
# that exists is left alone).
#   scripts/corpus.sh [ts] [py]      (default: both; into $CODEGRAPH_CORPUS or ~/.cache/codegraph-corpus)
#   ts  rxjs 7.8.1 sources (~250 .ts files; the same bytes as ../shared/corpus/make-corpus.sh builds)
#   py  Scrapy 2.12.0 sdist (~350 .py files: the package, its tests and extras)
# Each corpus is a git repository with one commit, as the benchmarks expect. Fails (non-zero) when a
# corpus can't be built: the parity tests then fail instead of being skipped.
set -euo pipefail
ROOT=${CODEGRAPH_CORPUS:-$HOME/.cache/codegraph-corpus}
wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=(ts py)
mkdir -p "$ROOT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

commit() {
  (cd "$1" && git init -q && git add -A -f &&
    git -c user.name=corpus -c user.email=corpus@localhost -c commit.gpgsign=false commit -qm corpus)
}

for corpus in "${wanted[@]}"; do
  case "$corpus" in
    ts)
      dest="$ROOT/ts"
      if [ ! -d "$dest/.git" ]; then
        echo "corpus: building ts (rxjs 7.8.1 from npm)" >&2
        rm -rf "$dest"
        npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$work/ts" rxjs@7.8.1 >/dev/null
        cp -r "$work/ts/node_modules/rxjs/src" "$dest"
        commit "$dest"
      fi
      ;;
    py)
      dest="$ROOT/py-small"
      if [ ! -d "$dest/.git" ]; then
        echo "corpus: building py-small (Scrapy 2.12.0 from PyPI)" >&2
        rm -rf "$dest"
        python3 -m pip download --quiet --no-deps --no-binary :all: scrapy==2.12.0 -d "$work/py" >/dev/null
        tar --no-same-owner -xzf "$work"/py/[Ss]crapy-2.12.0.tar.gz -C "$work/py"
        mv "$work"/py/[Ss]crapy-2.12.0 "$dest"
        commit "$dest"
      fi
      ;;
    *)
      echo "corpus: unknown corpus $corpus (ts, py)" >&2
      exit 2
      ;;
  esac
  echo "corpus $corpus: $(git -C "$dest" ls-files | wc -l) files in $dest" >&2
done
