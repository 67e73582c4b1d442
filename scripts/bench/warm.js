#!/usr/bin/env node
// Warm start and cold build side by side with optave's codegraph (run by hand, never by the tests).
// For each corpus (rust, ts, py; built by ../shared/corpus/make-corpus.sh when missing) it makes two
// copies of the same files, one per tool, and measures whole processes, alternating the two tools
// run by run so both see the same machine:
//   cold build   ours: `codegraph index` (release addon), optave: `codegraph build .` (native engine),
//                each after removing its .codegraph/
//                with the median of each phase of ours (from `codegraph index --json`'s timings)
//   in process   our walk + read + tree-sitter parse of the same files (the floor of a cold build)
//                and our cold build without a snapshot, each in a fresh process: cold/parse, in
//                wall time and in CPU time (user + system of the process while it ran)
//   warm lookup  ours: `codegraph symbols Q --json`, optave: `codegraph where Q`, for a name of a few
//                declarations and for a name of thousands (`new`, `get`, `map`: what a lookup costs
//                when every match must be ranked and counted)
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
const COMMON = { rust: "new", ts: "map", py: "get" };
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

/** In a fresh process: the parse-only floor, or a cold build without a snapshot (`prepare`), as
 *  wall ms and CPU ms (user + system of the whole process over the same span). */
function inProcess(root, kind) {
  const code = `const { openSession } = require(${JSON.stringify(path.join(repo, "npm/dist/index.js"))});
    const s = openSession({ root: ${JSON.stringify(root)}, engine: "native", persist: false });
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    if (${JSON.stringify(kind)} === "parse") s.parseOnly(); else s.prepare();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    process.stdout.write(JSON.stringify({ ms, cpuMs: (c.user + c.system) / 1000 }));`;
  const r = spawnSync(process.execPath, ["-e", code], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

/** The median of each phase of our cold builds, from the timings `codegraph index --json` prints. */
function phases(runs) {
  const timings = runs.map((r) => JSON.parse(r.stdout).timings);
  const of = (f) => median(timings.map(f));
  return {
    walkReadMs: of((t) => t.walkMs + t.readMs),
    parseMs: of((t) => t.parseMs),
    resolveMs: of((t) => t.resolveMs),
    saveMs: of((t) => t.snapshotSaveMs),
  };
}

/** Alternates `a` and `b` for `runs` rounds; each returns {ms, rssMb}. */
function alternate(a, b) {
  const out = { a: [], b: [] };
  for (let i = 0; i < runs; i++) {
    out.a.push(a());
    out.b.push(b());
  }
  const m = (xs) => ({ ms: median(xs.map((x) => x.ms)), rssMb: median(xs.map((x) => x.rssMb)) });
  return { ours: m(out.a), optave: m(out.b), runs: out };
}

function bench(name, optave) {
  const src = corpus(name);
  const ours = copyOf(src, `ours-${name}`);
  const theirs = copyOf(src, `optave-${name}`);
  try {
    const rm = (root) => fs.rmSync(path.join(root, ".codegraph"), { recursive: true, force: true });
    const cold = alternate(
      () => (rm(ours), run([process.execPath, bin, "index", "--json", "--root", ours], ours)),
      () => (rm(theirs), run([process.execPath, optave.cli, "build", "."], theirs)),
    );
    const parse = [];
    const build = [];
    for (let i = 0; i < runs; i++) {
      parse.push(inProcess(ours, "parse"));
      build.push(inProcess(ours, "build"));
    }
    const wall = (xs) => median(xs.map((x) => x.ms));
    const cpu = (xs) => median(xs.map((x) => x.cpuMs));
    const lookup = (q) =>
      alternate(
        () => run([process.execPath, bin, "symbols", q, "--json", "--root", ours], ours),
        () => run([process.execPath, optave.cli, "where", q], theirs),
      );
    const q = QUERIES[name];
    const warm = lookup(q);
    const common = lookup(COMMON[name]);
    const status = [];
    for (let i = 0; i < runs; i++) status.push(run([process.execPath, bin, "status", "--json", "--root", ours], ours));
    return {
      corpus: name,
      query: q,
      commonQuery: COMMON[name],
      cold: { ours: cold.ours, optave: cold.optave },
      phases: phases(cold.runs.a),
      parseOnlyMs: wall(parse),
      coldInProcessMs: wall(build),
      coldOverParse: wall(build) / wall(parse),
      parseOnlyCpuMs: cpu(parse),
      coldInProcessCpuMs: cpu(build),
      coldOverParseCpu: cpu(build) / cpu(parse),
      warm: { ours: warm.ours, optave: warm.optave },
      common: { ours: common.ours, optave: common.optave },
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
    const p = r.phases;
    console.log(
      `  our phases   walk+read ${f(p.walkReadMs)} ms, parse+extract ${f(p.parseMs)} ms, resolve ${f(p.resolveMs)} ms, snapshot write ${f(p.saveMs)} ms`,
    );
    console.log(
      `  in process   parse-only ${f(r.parseOnlyMs)} ms, cold build ${f(r.coldInProcessMs)} ms | cold/parse ${r.coldOverParse.toFixed(2)}` +
        ` (CPU ${f(r.parseOnlyCpuMs)} ms, ${f(r.coldInProcessCpuMs)} ms | ${r.coldOverParseCpu.toFixed(2)})`,
    );
    console.log(
      `  warm lookup  ours ${s(r.warm.ours.ms)} s ${f(r.warm.ours.rssMb)} MiB | optave ${s(r.warm.optave.ms)} s ${f(r.warm.optave.rssMb)} MiB | ${(r.warm.optave.ms / r.warm.ours.ms).toFixed(2)}x faster`,
    );
    console.log(
      `  warm ${r.commonQuery.padEnd(7)}  ours ${s(r.common.ours.ms)} s ${f(r.common.ours.rssMb)} MiB | optave ${s(r.common.optave.ms)} s ${f(r.common.optave.rssMb)} MiB | ${(r.common.optave.ms / r.common.ours.ms).toFixed(2)}x faster`,
    );
    console.log(`  warm status  ours ${s(r.status.ms)} s ${f(r.status.rssMb)} MiB`);
  }
  if (args.out) fs.writeFileSync(args.out, JSON.stringify({ optave: args.optave, runs, results }, null, 2));
}

main();
