#!/usr/bin/env node
// Rename round trip on the shared corpora (run by hand, not a test). For sampled symbols of the
// accuracy queries (../shared/accuracy; truth built by scripts/accuracy/truth.sh) it asks
// rename_preview for `<name>Renamed`, scores the edits against the SCIP occurrences of the symbol
// (definitions and references, exact positions; cfg'd-out Rust regions left out), and for a safe
// preview applies the edits to a copy and compiles it:
//   ts    the rxjs copy truth.sh type-checks (`tsc -p src`)
//   rust  the scratch cargo workspace of truth.sh: `cargo check --offline -p` each crate edited
//         (samples limited to the crates listed in RUST_CRATES, which build in seconds)
//   py    `python -m compileall` of the edited files, then a re-index of the copy: every former
//         use must resolve to the renamed declaration
// Prints, per corpus: previews, declined (safe: false), applied, compile-clean, edit P/R.
//   node scripts/bench/rename.js [--corpus ts,rust,py] [--n 25] [--engine native]
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { parseArgs } = require("node:util");

const repo = path.resolve(__dirname, "../..");
const { openSession } = require(path.join(repo, "npm/dist/index.js"));
const { applyEdits } = require(path.join(repo, "scripts/lib/apply-edits.js"));

const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "ts,rust,py" },
    n: { type: "string", default: "25" },
    engine: { type: "string", default: "native" },
    truth: { type: "string", default: process.env.CODEGRAPH_ACCURACY ?? path.join(os.homedir(), ".cache/codegraph-accuracy") },
    corpora: { type: "string", default: process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache/codegraph-corpus") },
  },
});
const N = Number(values.n);
const RUST_CRATES = ["memchr", "aho-corasick", "regex-syntax"];
const KINDS = new Set([
  "Function",
  "Method",
  "Class",
  "Field",
  "Property",
  "Interface",
  "Trait",
  "TraitMethod",
  "Struct",
  "StaticMethod",
  "Enum",
  "TypeAlias",
  "Variable",
  "Constant",
]);

function run(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 600_000, maxBuffer: 1 << 26, env: { ...process.env, ...env } });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** Evenly spread samples of eligible queries (deterministic). */
function sample(queries, eligible) {
  const list = queries.filter(eligible);
  if (list.length <= N) return list;
  const step = list.length / N;
  return Array.from({ length: N }, (_, i) => list[Math.floor(i * step)]);
}

function corpusSetup(name) {
  const truthDir = path.join(values.truth, name);
  const truth = JSON.parse(fs.readFileSync(path.join(truthDir, "truth.json"), "utf8"));
  const { queries } = JSON.parse(fs.readFileSync(path.join(truthDir, "queries.json"), "utf8"));
  const root = path.join(values.corpora, name);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `codegraph-rename-${name}-`));
  if (name === "ts") {
    fs.cpSync(path.join(truthDir, "work"), scratch, { recursive: true });
    return {
      truth,
      queries,
      root,
      copy: path.join(scratch, "src"),
      scratch,
      compile: () => run(path.join(repo, "node_modules/.bin/tsc"), ["-p", "src"], scratch),
    };
  }
  if (name === "rust") {
    fs.cpSync(path.join(truthDir, "ws"), scratch, { recursive: true, filter: (p) => !p.endsWith(`${path.sep}target`) });
    const target = path.join(os.tmpdir(), "codegraph-rename-rust-target");
    return {
      truth,
      queries,
      root,
      copy: scratch,
      scratch,
      eligible: (q) => RUST_CRATES.some((c) => q.def.path.startsWith(`${c}-`)),
      compile: (files) => {
        const crates = [...new Set(files.map((f) => f.split("/")[0].replace(/-\d+\.\d+\.\d+.*$/, "")))];
        return run("cargo", ["check", "--offline", "-q", ...crates.flatMap((c) => ["-p", c])], scratch, { CARGO_TARGET_DIR: target });
      },
    };
  }
  fs.cpSync(root, scratch, { recursive: true, filter: (p) => !p.includes(`${path.sep}.codegraph`) });
  return {
    truth,
    queries,
    root,
    copy: scratch,
    scratch,
    compile: (files) => run("python3", ["-m", "compileall", "-q", ...files], scratch),
    reindex: true,
  };
}

function inactive(truth, p, line) {
  return (truth.inactive?.[p] ?? []).some(([a, b]) => line >= a && line <= b);
}

const report = {};
for (const name of values.corpus.split(",")) {
  const c = corpusSetup(name);
  c.defs = new Map();
  for (const [key, sym] of Object.entries(c.truth.symbols)) for (const d of sym.defs ?? []) c.defs.set(`${d.path}:${d.line}:${d.col}`, key);
  const session = openSession({ root: c.root, engine: values.engine, persist: false });
  session.prepare();
  const picked = sample(c.queries, (q) => KINDS.has(q.kind) && (!c.eligible || c.eligible(q)));
  const r = { previews: 0, declined: 0, applied: 0, compiled: 0, reindexed: 0, tp: 0, fp: 0, fn: 0, failures: [], reasons: {} };
  for (const q of picked) {
    let target;
    try {
      target = session.refs({ file: q.def.path, line: q.def.line, column: q.def.col, limit: 1 }).symbol;
    } catch {
      continue;
    }
    const newName = `${q.name}Renamed`;
    let preview;
    try {
      preview = session.renamePreview({ handle: target.handle, newName });
    } catch (e) {
      r.failures.push(`${target.handle}: ${e.message}`);
      continue;
    }
    r.previews++;
    // Edit precision/recall against the SCIP occurrences of every renamed declaration (the asked
    // symbol and the overrides/implementations renamed with it, matched by definition position).
    const symbols = new Set([q.symbol]);
    for (const h of preview.renamed) {
      const d = session.getSymbol({ handle: h }).symbol;
      const key = c.defs.get(`${d.path}:${d.line}:${d.column}`);
      if (key) symbols.add(key);
    }
    const truthSites = new Set(
      [...symbols]
        .flatMap((k) => [...(c.truth.symbols[k]?.defs ?? []), ...(c.truth.symbols[k]?.refs ?? [])])
        .filter((o) => !inactive(c.truth, o.path, o.line))
        .map((o) => `${o.path}:${o.line}:${o.col}`),
    );
    const ours = new Set(
      preview.edits
        .filter((e) => e.kind !== "comment" && e.kind !== "string" && !inactive(c.truth, e.path, e.line))
        .map((e) => `${e.path}:${e.line}:${e.column}`),
    );
    for (const s of ours) truthSites.has(s) ? r.tp++ : r.fp++;
    for (const s of truthSites) if (!ours.has(s)) r.fn++;
    if (process.env.RENAME_DEBUG) {
      const fp = [...ours].filter((s) => !truthSites.has(s));
      const fn = [...truthSites].filter((s) => !ours.has(s));
      if (fp.length || fn.length) console.log(`  ${target.handle}: extra ${fp.slice(0, 4).join(" ")} | missed ${fn.slice(0, 4).join(" ")}`);
    }
    if (!preview.safe) {
      r.declined++;
      if (process.env.RENAME_DEBUG) {
        const sites = preview.unsafeSites.slice(0, 3).map((u) => `${u.kind} ${u.path}:${u.line}:${u.column}`);
        console.log(
          `  declined ${target.handle}: ${preview.unsafeSites.length} unsafe: ${sites.join(" ")}; conflicts ${preview.conflicts.length}`,
        );
      }
      for (const reason of preview.reasons) {
        const key = reason.replace(/^\d+ /, "N ").replace(/`[^`]*`/g, "`…`");
        r.reasons[key] = (r.reasons[key] ?? 0) + 1;
      }
      continue;
    }
    r.applied++;
    const saved = new Map();
    for (const e of preview.edits) if (!saved.has(e.path)) saved.set(e.path, fs.readFileSync(path.join(c.copy, e.path)));
    try {
      const files = applyEdits(c.copy, preview.edits);
      const built = c.compile(files.map((f) => (c.copy === c.scratch ? f : path.relative(c.scratch, path.join(c.copy, f)))));
      if (built.ok) r.compiled++;
      else r.failures.push(`${target.handle} → ${newName}: ${built.out.split("\n").slice(0, 3).join(" | ")}`);
      if (c.reindex && built.ok) {
        const again = openSession({ root: c.copy, engine: values.engine, persist: false });
        const renamed = target.handle.replace(/[^:]+$/, newName);
        try {
          const before = session.refs({ handle: target.handle, limit: 2000 }).refs.filter((x) => !x.alias).length;
          const after = again.refs({ handle: renamed, limit: 2000 }).refs.filter((x) => !x.alias).length;
          if (after === before) r.reindexed++;
          else r.failures.push(`${renamed}: ${after} uses after, ${before} before`);
        } catch (e) {
          r.failures.push(`${renamed}: ${e.message}`);
        }
      }
    } finally {
      for (const [p, bytes] of saved) fs.writeFileSync(path.join(c.copy, p), bytes);
    }
  }
  fs.rmSync(c.scratch, { recursive: true, force: true });
  const p = r.tp / Math.max(1, r.tp + r.fp);
  const rec = r.tp / Math.max(1, r.tp + r.fn);
  report[name] = { ...r, editPrecision: p, editRecall: rec };
  console.log(
    `${name}: ${r.previews} previews, ${r.declined} declined (${((100 * r.declined) / Math.max(1, r.previews)).toFixed(0)} %), ${r.applied} applied, ${r.compiled} compile clean (${((100 * r.compiled) / Math.max(1, r.applied)).toFixed(0)} %)${c.reindex ? `, ${r.reindexed} re-index clean` : ""}; edits P ${p.toFixed(3)} R ${rec.toFixed(3)}`,
  );
  for (const [k, v] of Object.entries(r.reasons).sort((a, b) => b[1] - a[1])) console.log(`    declined ${v}×: ${k}`);
  for (const f of r.failures.slice(0, 10)) console.log(`    failed: ${f}`);
}
fs.mkdirSync(path.join(repo, "target/bench"), { recursive: true });
fs.writeFileSync(path.join(repo, "target/bench/rename.json"), JSON.stringify(report, null, 2));
