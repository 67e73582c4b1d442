#!/usr/bin/env node
// Warm start and cold build side by side with optave's codegraph (run by hand, never by the tests).
// For each corpus (rust, ts, py; built by ../shared/corpus/make-corpus.sh when missing) it makes two
// copies of the same files, one per tool, and measures whole processes, alternating the two tools
// run by run so both see the same machine:
//   cold build   ours: `codegraph index` (release addon), optave: `codegraph build .` (native engine),
//                each after removing its .codegraph/
//   in process   our walk + read + tree-sitter parse of the same files (the floor of a cold build)
//                and our cold build without a snapshot, each in a fresh process: cold/parse
//   warm lookup  ours: `codegraph symbols Q --json`, optave: `codegraph where Q`
//   warm status  ours: `codegraph status --json`
// Every figure is the median of --runs runs (default 5) with the peak RSS of that process (through
// /usr/bin/time). optave is installed from the npm registry into a temporary folder, at the version
// pinned below (or --optave).
//   node scripts/bench/warm.js [--corpus rust,ts,py] [--runs N] [--optave VERSION] [--out FILE]
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { parseArgs } = require("node:util");

const repo = path.resolve(__dirname, "../..");
const bin = path.join(repo, "bin/codegraph.js");
const corpusHome = process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache/codegraph-corpus");
const OPTAVE_VERSION = "3.11.2";
const QUERIES = { rust: "spawn_blocking", ts: "Observable", py: "force_str" };
const TIME = "/usr/bin/time";

const { values: args } = parseArgs({
  options: {
    corpus: { type: "string", default: "rust,ts,py" },
    runs: { type: "string", default: "5" },
    optave: { type: "string", default: OPTAVE_VERSION },
    out: { type: "string" },
  },
});
const runs = Number(args.runs);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** One whole process: wall ms and peak RSS in MiB (from /usr/bin/time). */
function run(argv, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(TIME, ["-f", "%M", ...argv], { cwd, encoding: "utf8", maxBuffer: 256 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed in ${cwd}: ${r.stderr}`);
  const rssKb = Number(r.stderr.trim().split("\n").pop());
  return { ms, rssMb: rssKb / 1024, stdout: r.stdout };
}

function installOptave(version) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-bench-optave-"));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "bench", private: true }));
  const r = spawnSync("npm", ["i", "--no-audit", "--no-fund", `@optave/codegraph@${version}`], {
    cwd: dir,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`npm i @optave/codegraph@${version}: ${r.stderr}`);
  return { dir, cli: path.join(dir, "node_modules/@optave/codegraph/dist/cli.js") };
}

function corpus(name) {
  const src = path.join(corpusHome, name);
  if (!fs.existsSync(src)) {
    const r = spawnSync("bash", [path.join(repo, "../shared/corpus/make-corpus.sh"), name], { stdio: "inherit" });
    if (r.status !== 0) throw new Error(`cannot build the ${name} corpus`);
  }
  return src;
}

function copyOf(src, label) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `codegraph-bench-${label}-`));
  fs.cpSync(src, dir, { recursive: true, filter: (p) => path.basename(p) !== ".codegraph" });
  return dir;
}

/** In a fresh process: the parse-only floor, or a cold build without a snapshot (`prepare`), in ms. */
function inProcessMs(root, kind) {
  const code = `const { openSession } = require(${JSON.stringify(path.join(repo, "npm/dist/index.js"))});
    const s = openSession({ root: ${JSON.stringify(root)}, engine: "native", persist: false });
    const t0 = process.hrtime.bigint();
    const out = ${JSON.stringify(kind)} === "parse" ? s.parseOnly().totalMs : (s.prepare(), Number(process.hrtime.bigint() - t0) / 1e6);
    process.stdout.write(String(out));`;
  const r = spawnSync(process.execPath, ["-e", code], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return Number(r.stdout);
}

/** Alternates `a` and `b` for `runs` rounds; each returns {ms, rssMb}. */
function alternate(a, b) {
  const out = { a: [], b: [] };
  for (let i = 0; i < runs; i++) {
    out.a.push(a());
    out.b.push(b());
  }
  const m = (xs) => ({ ms: median(xs.map((x) => x.ms)), rssMb: median(xs.map((x) => x.rssMb)) });
  return { ours: m(out.a), optave: m(out.b) };
}

function bench(name, optave) {
  const src = corpus(name);
  const ours = copyOf(src, `ours-${name}`);
  const theirs = copyOf(src, `optave-${name}`);
  try {
    const rm = (root) => fs.rmSync(path.join(root, ".codegraph"), { recursive: true, force: true });
    const cold = alternate(
      () => (rm(ours), run([process.execPath, bin, "index", "--root", ours], ours)),
      () => (rm(theirs), run([process.execPath, optave.cli, "build", "."], theirs)),
    );
    const parse = [];
    const build = [];
    for (let i = 0; i < runs; i++) {
      parse.push(inProcessMs(ours, "parse"));
      build.push(inProcessMs(ours, "build"));
    }
    const q = QUERIES[name];
    const warm = alternate(
      () => run([process.execPath, bin, "symbols", q, "--json", "--root", ours], ours),
      () => run([process.execPath, optave.cli, "where", q], theirs),
    );
    const status = [];
    for (let i = 0; i < runs; i++) status.push(run([process.execPath, bin, "status", "--json", "--root", ours], ours));
    return {
      corpus: name,
      query: q,
      cold,
      parseOnlyMs: median(parse),
      coldInProcessMs: median(build),
      coldOverParse: median(build) / median(parse),
      warm,
      status: { ms: median(status.map((s) => s.ms)), rssMb: median(status.map((s) => s.rssMb)) },
    };
  } finally {
    fs.rmSync(ours, { recursive: true, force: true });
    fs.rmSync(theirs, { recursive: true, force: true });
  }
}

function main() {
  if (!fs.existsSync(TIME)) throw new Error(`${TIME} is needed for peak RSS (apt-get install time)`);
  const optave = installOptave(args.optave);
  const results = [];
  try {
    for (const name of args.corpus.split(",")) results.push(bench(name, optave));
  } finally {
    fs.rmSync(optave.dir, { recursive: true, force: true });
  }
  const f = (x) => x.toFixed(0);
  const s = (x) => (x / 1000).toFixed(2);
  console.log(`whole-process medians of ${runs}, alternating; optave ${args.optave} (native engine)`);
  for (const r of results) {
    console.log(`\n${r.corpus} (query ${r.query})`);
    console.log(
      `  cold build   ours ${s(r.cold.ours.ms)} s ${f(r.cold.ours.rssMb)} MiB | optave ${s(r.cold.optave.ms)} s ${f(r.cold.optave.rssMb)} MiB | ${(r.cold.optave.ms / r.cold.ours.ms).toFixed(2)}x faster`,
    );
    console.log(
      `  in process   parse-only ${s(r.parseOnlyMs)} s, cold build ${s(r.coldInProcessMs)} s | cold/parse ${r.coldOverParse.toFixed(2)}`,
    );
    console.log(
      `  warm lookup  ours ${s(r.warm.ours.ms)} s ${f(r.warm.ours.rssMb)} MiB | optave ${s(r.warm.optave.ms)} s ${f(r.warm.optave.rssMb)} MiB | ${(r.warm.optave.ms / r.warm.ours.ms).toFixed(2)}x faster`,
    );
    console.log(`  warm status  ours ${s(r.status.ms)} s ${f(r.status.rssMb)} MiB`);
  }
  if (args.out) fs.writeFileSync(args.out, JSON.stringify({ optave: args.optave, runs, results }, null, 2));
}

main();
