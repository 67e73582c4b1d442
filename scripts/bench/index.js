#!/usr/bin/env node
// Index benchmark (run by hand, not a test). For each corpus (rust, ts, py; built by
// ../shared/corpus/make-corpus.sh when missing) and each engine (native, wasm) it measures, on a
// private copy of the corpus:
//   parse-only   read + tree-sitter parse of the same files, nothing else (the floor)
//   cold index   in-process build without a snapshot (both cores; native also single-threaded)
//   cold CLI     `codegraph index` as a whole process, no snapshot yet
//   warm CLI     `codegraph symbols Q --json` and `codegraph refs H --json` with a snapshot
//   no-op / one-file-edit refresh inside a warm process, and the edit through the CLI
//   snapshot size and peak RSS of the cold build
// Every number is the median of --runs runs (default 5). Prints a table and writes JSON.
//   node scripts/bench/index.js [--corpus rust,ts,py] [--engine native,wasm] [--runs N] [--out FILE]
// Any other directory (a C, C++, C# or SQL codebase, say) is measured the same way with
//   node scripts/bench/index.js --dir NAME=PATH --query SYMBOL [--comment //] [--engine …] [--runs N]
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { parseArgs } = require("node:util");

const repo = path.resolve(__dirname, "../..");
const bin = path.join(repo, "bin/codegraph.js");
const corpusHome = process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache/codegraph-corpus");
const QUERIES = { rust: "spawn_blocking", ts: "Observable", py: "force_str" };
const COMMENT = { rust: "//", ts: "//", py: "#" };
/** Where each corpus is: the shared corpora by name, or a `--dir NAME=PATH`. */
const SOURCES = {};

// ---- child tasks: one measurement in a fresh process, printed as JSON ---------------------------

function child(task) {
  const { openSession } = require(path.join(repo, "npm/dist/index.js"));
  const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
  const open = (persist) => openSession({ root: task.root, engine: task.engine, persist });
  const out = {};
  if (task.kind === "parseOnly") {
    // Timed around the call, as the cold build is (the core's own totalMs leaves out the call's
    // crossing into the engine and back).
    const s = open(false);
    const t0 = process.hrtime.bigint();
    Object.assign(out, s.parseOnly());
    out.ms = ms(t0);
  } else if (task.kind === "cold") {
    const s = open(false);
    const t0 = process.hrtime.bigint();
    s.prepare();
    out.ms = ms(t0);
    out.timings = s.status().timings;
  } else if (task.kind === "refresh") {
    const s = open(true);
    s.prepare();
    const noop = [];
    for (let i = 0; i < 20; i++) {
      const t0 = process.hrtime.bigint();
      const r = s.refresh();
      noop.push(ms(t0));
      if (r.rebuilt) throw new Error("a no-op refresh rebuilt");
    }
    const edit = [];
    const file = path.join(task.root, task.editFile);
    const original = fs.readFileSync(file);
    try {
      for (let i = 0; i < task.runs; i++) {
        fs.appendFileSync(file, `\n${task.comment} bench edit ${i}\n`);
        const t0 = process.hrtime.bigint();
        const r = s.refresh();
        edit.push(ms(t0));
        if (!r.rebuilt) throw new Error(`the edit was not picked up: ${JSON.stringify(r)}`);
      }
    } finally {
      fs.writeFileSync(file, original);
      s.refresh();
    }
    out.noopMs = median(noop);
    out.editMs = median(edit);
    out.editTimings = s.status().timings;
  }
  out.maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify(out));
}

// ---- the parent -----------------------------------------------------------------------------------

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
}

function runChild(task, env = {}) {
  const r = spawnSync(process.execPath, [__filename, "--child", JSON.stringify(task)], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`child ${task.kind} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Wall time of one CLI process, in ms; the output is parsed when --json. */
function cli(args, engine) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, ...args, "--engine", engine], { encoding: "utf8", maxBuffer: 64 << 20 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`codegraph ${args.join(" ")}: ${r.stderr}`);
  return { wall, stdout: r.stdout };
}

function repeat(n, f) {
  return Array.from({ length: n }, (_, i) => f(i));
}

function privateCopy(name) {
  const src = SOURCES[name] ?? path.join(corpusHome, name);
  const dst = fs.mkdtempSync(path.join(os.tmpdir(), `codegraph-bench-${name}-`));
  fs.cpSync(src, dst, { recursive: true, filter: (p) => !/[\\/](\.git|\.codegraph)$/.test(p) });
  return dst;
}

function benchCorpus(name, engine, runs) {
  const root = privateCopy(name);
  try {
    const snapshotDir = path.join(root, ".codegraph");
    const parse = repeat(runs, () => runChild({ kind: "parseOnly", root, engine }));
    const cold = repeat(runs, () => runChild({ kind: "cold", root, engine }));
    const single = engine === "native" ? repeat(runs, () => runChild({ kind: "cold", root, engine }, { RAYON_NUM_THREADS: "1" })) : null;
    const coldCli = repeat(runs, () => {
      fs.rmSync(snapshotDir, { recursive: true, force: true });
      return cli(["index", "--root", root], engine).wall;
    });
    const snapshotBytes = fs.statSync(path.join(snapshotDir, "index.bin")).size;
    const query = QUERIES[name];
    const symbols = JSON.parse(cli(["symbols", query, "--json", "--root", root], engine).stdout);
    const handle = symbols.symbols[0]?.handle;
    if (!handle) throw new Error(`no symbol for ${query} in ${name}`);
    const warmSymbols = repeat(runs, () => cli(["symbols", query, "--json", "--root", root], engine).wall);
    const warmRefs = repeat(runs, () => cli(["refs", handle, "--json", "--root", root], engine).wall);
    const orient = JSON.parse(cli(["orient", "--json", "--root", root], engine).stdout);
    const editFile = orient.mostDependedOn[0].path;
    const refresh = runChild({ kind: "refresh", root, engine, editFile, runs, comment: COMMENT[name] });
    const file = path.join(root, editFile);
    const original = fs.readFileSync(file);
    const editCli = repeat(runs, (i) => {
      fs.appendFileSync(file, `\n${COMMENT[name]} bench cli edit ${i}\n`);
      return cli(["symbols", query, "--json", "--root", root], engine).wall;
    });
    fs.writeFileSync(file, original);
    const p = median(parse.map((r) => r.ms));
    const c = median(cold.map((r) => r.ms));
    return {
      corpus: name,
      engine,
      files: parse[0].files,
      bytes: parse[0].bytes,
      parseOnlyMs: p,
      coldIndexMs: c,
      coldOverParse: c / p,
      coldTimings: cold[Math.floor((runs - 1) / 2)].timings,
      coldSingleThreadMs: single ? median(single.map((r) => r.ms)) : null,
      coldCliMs: median(coldCli),
      warmSymbolsCliMs: median(warmSymbols),
      warmRefsCliMs: median(warmRefs),
      noopRefreshMs: refresh.noopMs,
      editRefreshMs: refresh.editMs,
      editTimings: refresh.editTimings,
      editCliMs: median(editCli),
      editFile,
      snapshotBytes,
      peakRssMb: Math.max(...cold.map((r) => r.maxRssMb)),
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function table(rows) {
  const f = (v, d = 0) => (v === null || v === undefined ? "-" : typeof v === "number" ? v.toFixed(d) : String(v));
  const cols = [
    ["corpus", (r) => r.corpus],
    ["engine", (r) => r.engine],
    ["files", (r) => f(r.files)],
    ["parse-only ms", (r) => f(r.parseOnlyMs)],
    ["cold ms", (r) => f(r.coldIndexMs)],
    ["cold/parse", (r) => f(r.coldOverParse, 2)],
    ["cold 1-thread ms", (r) => f(r.coldSingleThreadMs)],
    ["cold CLI ms", (r) => f(r.coldCliMs)],
    ["warm symbols CLI ms", (r) => f(r.warmSymbolsCliMs)],
    ["warm refs CLI ms", (r) => f(r.warmRefsCliMs)],
    ["no-op refresh ms", (r) => f(r.noopRefreshMs, 1)],
    ["edit refresh ms", (r) => f(r.editRefreshMs, 1)],
    ["edit CLI ms", (r) => f(r.editCliMs)],
    ["snapshot MB", (r) => f(r.snapshotBytes / 1e6, 1)],
    ["peak RSS MB", (r) => f(r.peakRssMb)],
  ];
  const cells = [cols.map((c) => c[0]), ...rows.map((r) => cols.map((c) => c[1](r)))];
  const widths = cols.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells.map((row) => row.map((c, i) => c.padStart(widths[i])).join("  ")).join("\n");
}

function main() {
  const { values } = parseArgs({
    options: {
      child: { type: "string" },
      corpus: { type: "string", default: "rust,ts,py" },
      engine: { type: "string", default: "native,wasm" },
      runs: { type: "string", default: "5" },
      out: { type: "string" },
      dir: { type: "string" },
      query: { type: "string" },
      comment: { type: "string", default: "//" },
    },
  });
  if (values.child) return child(JSON.parse(values.child));
  let corpora = values.corpus.split(",");
  if (values.dir) {
    const [name, dir] = values.dir.split("=");
    if (!name || !dir || !values.query) throw new Error("--dir NAME=PATH needs --query SYMBOL");
    SOURCES[name] = path.resolve(dir);
    QUERIES[name] = values.query;
    COMMENT[name] = values.comment;
    corpora = [name];
  }
  const engines = values.engine.split(",");
  const runs = Number(values.runs);
  if (corpora.some((c) => !SOURCES[c] && !fs.existsSync(path.join(corpusHome, c, ".git")))) {
    const r = spawnSync("bash", [path.join(repo, "../shared/corpus/make-corpus.sh"), corpusHome], { stdio: "inherit" });
    if (r.status !== 0) throw new Error("make-corpus.sh failed");
  }
  const rows = [];
  for (const c of corpora) {
    for (const e of engines) {
      process.stderr.write(`bench: ${c} ${e} …\n`);
      rows.push(benchCorpus(c, e, runs));
    }
  }
  const result = { date: new Date().toISOString(), cpus: os.cpus().length, node: process.version, runs, rows };
  const out = values.out ?? path.join(repo, "target", "bench", `index-${result.date.replace(/[:.]/g, "-")}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(table(rows));
  const native = new Map(rows.filter((r) => r.engine === "native").map((r) => [r.corpus, r]));
  for (const r of rows.filter((r) => r.engine === "wasm")) {
    const n = native.get(r.corpus);
    if (n) console.log(`${r.corpus}: wasm cold / native single-threaded cold = ${(r.coldIndexMs / n.coldSingleThreadMs).toFixed(2)}`);
  }
  console.log(`written: ${path.relative(process.cwd(), out)}`);
}

main();
