#!/usr/bin/env python3
"""Lines of a Rust corpus that rust-analyzer does not analyse, for scip2json.py --inactive.

    rust-inactive.py --root CORPUS_DIR --diagnostics DIAG.txt --index INDEX.scip [--ws-root WS_DIR] -o inactive.json

Two sources (line ranges are 1-based, inclusive):
  * cfg'd-out code: the `inactive-code` diagnostics that `rust-analyzer diagnostics WS_DIR` prints
    ("... file /abs/path.rs: WeakWarning Ra("inactive-code", ...) from LineCol { line: L, col: C }
    to LineCol { line: L2, col: C2 }: code is inactive due to #[cfg] directives: WHY"; LineCol is
    0-based). Absolute paths under WS_DIR are made relative to it (the scratch workspace mirrors the
    corpus, so they are corpus paths).
    The `diagnostics` command loads the workspace with rust-analyzer's bare CargoConfig, `scip` with
    the editor configuration: cfg(test) on local crates and the `cargo.cfgs` (truth.sh passes
    ["debug_assertions"]). So a region that `diagnostics` calls inactive only because
    `test`/`debug_assertions` is disabled (WHY names no other atom) was analysed by `scip` and is
    dropped; so is one whose WHY mentions them and that has occurrences of local variables in the
    SCIP index (--index; locals exist only where a body was lowered, e.g. cfg(any(test, fuzzing))).
    Code that is active for `diagnostics` but cfg'd out for `scip` (cfg(not(test))) is not found.
  * macro_rules! bodies: rust-analyzer resolves the tokens of a macro's expansion at its call sites,
    never the tokens of the definition, so a SCIP index has no occurrences there
    (--no-macro-bodies turns this off).
Output: {"inactive": {path: [[l1, l2], ...]}, "stats": {...}}
"""
import argparse
import collections
import json
import os
import re
import sys

SHARED = os.environ.get("CODEGRAPH_ACCURACY_SHARED", "/work/shared/accuracy")


def occurrence_lines(index_path):
    """{relative_path: set of 1-based lines with an occurrence of a local symbol}."""
    sys.path.insert(0, SHARED)
    from scip2json import load_scip_pb2  # noqa: compiles scip.proto once, cached

    pb = load_scip_pb2()
    idx = pb.Index()
    with open(index_path, "rb") as f:
        idx.ParseFromString(f.read())
    out = {}
    for doc in idx.documents:
        lines = set()
        for o in doc.occurrences:
            if not o.symbol.startswith("local "):
                continue
            r = list(o.range)
            if len(r) == 3:
                lines.add(r[0] + 1)
            elif len(r) == 4:
                lines.update(range(r[0] + 1, r[2] + 2))
        out[doc.relative_path] = lines
    return out

DIAG = re.compile(r'file (\S+?): \w+ Ra\("inactive-code", \w+\) from LineCol \{ line: (\d+), col: \d+ \} '
                  r'to LineCol \{ line: (\d+), col: \d+ \}: code is inactive due to #\[cfg\] directives: ([^\n]*)')
# cfg atoms that `scip` enables and `diagnostics` does not
SCIP_ONLY = {"test", "debug_assertions"}


def why_atoms(why):
    """'a, b and c are disabled' / 'x is enabled and y is disabled' -> (enabled, disabled) atom lists."""
    enabled, disabled = [], []
    rest = why.strip()
    m = re.match(r"(.*?) (?:is|are) enabled(?: and (.*))?$", rest)
    if m:
        enabled = re.split(r", | and ", m.group(1))
        rest = m.group(2) or ""
    m = re.match(r"(.*?) (?:is|are) disabled$", rest)
    if m:
        disabled = re.split(r", | and ", m.group(1))
    return [a.strip() for a in enabled], [a.strip() for a in disabled]


def macro_bodies(text):
    """[(first_line, last_line)] of the bracketed body of every `macro_rules! name { ... }`."""
    out = []
    n = len(text)
    i = 0
    line = 1
    starts = [m.start() for m in re.finditer(r"\bmacro_rules!\s*[A-Za-z_][A-Za-z0-9_]*\s*[\{\(\[]", text)]
    if not starts:
        return out
    # line number of an offset
    nl = [m.start() for m in re.finditer("\n", text)]

    def line_of(off):
        import bisect
        return bisect.bisect_right(nl, off - 1) + 1

    pairs = {"{": "}", "(": ")", "[": "]"}
    for s in starts:
        m = re.compile(r"macro_rules!\s*[A-Za-z_][A-Za-z0-9_]*\s*([\{\(\[])").match(text, s)
        if not m:
            continue
        if out and s < out[-1][2]:
            continue  # nested in a body already covered
        i = m.end(1)
        depth = 1
        while i < n and depth:
            c = text[i]
            if c == "/" and text.startswith("//", i):
                j = text.find("\n", i)
                i = n if j < 0 else j
                continue
            if c == "/" and text.startswith("/*", i):
                d, i = 1, i + 2
                while i < n and d:
                    if text.startswith("/*", i):
                        d, i = d + 1, i + 2
                    elif text.startswith("*/", i):
                        d, i = d - 1, i + 2
                    else:
                        i += 1
                continue
            if c == '"' or (c in "rbc" and re.match(r'(?:b|c)?r#*"|b"|c"', text[i:i + 8])
                            and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"))):
                mm = re.match(r'((?:b|c)?r)(#*)"', text[i:i + 8])
                if mm:  # raw string
                    end = '"' + mm.group(2)
                    j = text.find(end, i + len(mm.group(0)))
                    i = n if j < 0 else j + len(end)
                    continue
                i = text.index('"', i) + 1
                while i < n and text[i] != '"':
                    i += 2 if text[i] == "\\" else 1
                i += 1
                continue
            if c == "'":
                mm = re.match(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]{1,6}\}|.)|[^\\'\n])'", text[i:i + 12])
                if mm:  # char literal; otherwise a lifetime or label
                    i += len(mm.group(0))
                    continue
                i += 1
                continue
            if c in "{([":
                depth += 1
            elif c in "})]":
                depth -= 1
            i += 1
        out.append((line_of(m.end(1) - 1), line_of(i - 1), i))
    return [(a, b) for a, b, _ in out]


def merge(rows):
    rows = sorted(rows)
    out = []
    for a, b in rows:
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True, help="corpus directory (paths in the output are relative to it)")
    ap.add_argument("--diagnostics", help="output of `rust-analyzer diagnostics WS_DIR`")
    ap.add_argument("--index", help="the SCIP index: drop cfg regions that it has occurrences in")
    ap.add_argument("--ws-root", help="directory rust-analyzer ran in (default: --root)")
    ap.add_argument("--no-macro-bodies", action="store_true")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    ws = os.path.abspath(a.ws_root or a.root)
    rows = collections.defaultdict(list)
    stats = collections.Counter()
    if a.diagnostics:
        with open(a.diagnostics, encoding="utf-8", errors="replace") as f:
            text = f.read()
        seen = set()
        occ = occurrence_lines(a.index) if a.index else None
        for path, l1, l2, why in DIAG.findall(text):
            rel = os.path.relpath(os.path.abspath(path), ws).replace(os.sep, "/")
            if rel.startswith("../") or not os.path.isfile(os.path.join(root, rel)):
                stats["cfg_regions_outside_corpus"] += 1
                continue
            key = (rel, int(l1) + 1, int(l2) + 1)
            if key in seen:
                continue
            seen.add(key)
            en, dis = why_atoms(why)
            if not en and dis and set(dis) <= SCIP_ONLY:
                stats["cfg_regions_active_for_scip"] += 1
                continue
            if (occ is not None and SCIP_ONLY & set(en + dis)
                    and any(l in occ.get(rel, ()) for l in range(key[1], key[2] + 1))):
                stats["cfg_regions_with_locals_dropped"] += 1
                continue
            rows[rel].append((key[1], key[2]))
            stats["cfg_regions"] += 1
            stats["cfg_lines"] += key[2] - key[1] + 1
    if not a.no_macro_bodies:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in (".git", "target"))
            for fn in sorted(filenames):
                if not fn.endswith(".rs"):
                    continue
                p = os.path.join(dirpath, fn)
                rel = os.path.relpath(p, root).replace(os.sep, "/")
                with open(p, encoding="utf-8", errors="replace") as f:
                    src = f.read()
                for l1, l2 in macro_bodies(src):
                    rows[rel].append((l1, l2))
                    stats["macro_bodies"] += 1
                    stats["macro_body_lines"] += l2 - l1 + 1
    out = {p: merge(r) for p, r in sorted(rows.items())}
    stats["files"] = len(out)
    stats["lines_after_merge"] = sum(b - a + 1 for r in out.values() for a, b in r)
    with open(a.output, "w") as f:
        json.dump({"inactive": out, "stats": dict(stats)}, f, indent=None, separators=(",", ":"))
    print("rust-inactive: %s" % ", ".join("%s %d" % kv for kv in sorted(stats.items())))


if __name__ == "__main__":
    main()
