#!/usr/bin/env node
// Impact and review benchmark (run by hand, not a test). For each corpus (rust, ts, py; built by
// ../shared/corpus/make-corpus.sh) it makes a private git repository of a copy: the corpus as the
// base commit, then 20 commits that each change one number inside a function of a different file
// (a body change, spread over the tree, chosen deterministically). Then, with a warm persisted
// index, it measures:
//   in-process  impact/review of HEAD~1..HEAD and HEAD~20..HEAD in a warm session (median of --runs)
//   CLI         the same as whole processes (`codegraph impact --base … --head … --json`)
//   size        each answer's JSON bytes and estimated tokens (bytes / 4)
//   node scripts/bench/impact.js [--corpus rust,ts,py] [--runs N] [--engine native|wasm]
"use strict";
const { spawnSync, execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { parseArgs } = require("node:util");

const repo = path.resolve(__dirname, "../..");
const bin = path.join(repo, "bin/codegraph.js");
const corpusHome = process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache/codegraph-corpus");
const EXT = { rust: /\.rs$/, ts: /\.ts$/, py: /\.py$/ };
const DIRS = { rust: "rust", ts: "ts", py: "py" };

const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "rust,ts,py" },
    runs: { type: "string", default: "5" },
    engine: { type: "string", default: "native" },
  },
});
const runs = Number(values.runs);

function git(cwd, ...args) {
  return execFileSync("git", ["-c", "user.email=b@example.com", "-c", "user.name=b", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    stdio: "pipe",
    maxBuffer: 1 << 30,
  }).toString();
}

function listFiles(dir, re, out = [], rel = "") {
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory() && e.name !== ".git" && e.name !== ".codegraph") listFiles(dir, re, out, p);
    else if (e.isFile() && re.test(e.name)) out.push(p);
  }
  return out;
}

/** Changes one digit on an indented line (inside a body) of `file`; false when it has none. */
function editBody(root, file) {
  const full = path.join(root, file);
  const lines = fs.readFileSync(full, "utf8").split("\n");
  const i = lines.findIndex((l) => /^\s+\S/.test(l) && /\b\d\b/.test(l) && !/^\s*(\/\/|#|\*)/.test(l));
  if (i < 0) return false;
  lines[i] = lines[i].replace(/\b(\d)\b/, (d) => String((Number(d) + 1) % 10));
  fs.writeFileSync(full, lines.join("\n"));
  return true;
}

function makeRepo(corpus) {
  const src = path.join(corpusHome, DIRS[corpus]);
  if (!fs.existsSync(src)) throw new Error(`no corpus at ${src}: run ../shared/corpus/make-corpus.sh ${corpus}`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `codegraph-impact-${corpus}-`));
  fs.cpSync(src, root, { recursive: true, filter: (p) => !p.includes(`${path.sep}.codegraph`) && !p.endsWith(`${path.sep}.git`) });
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "base");
  const files = listFiles(root, EXT[corpus]);
  const step = Math.max(1, Math.floor(files.length / 20));
  let made = 0;
  for (let i = 0; made < 20 && i < files.length * 2; i++) {
    const f = files[(i * step + Math.floor(i / 20)) % files.length];
    if (!editBody(root, f)) continue;
    git(root, "commit", "-qam", `edit ${f}`);
    made++;
  }
  return { root, files: files.length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function inProcess(root, engine) {
  const { openSession } = require(path.join(repo, "npm/dist/index.js"));
  const s = openSession({ root, engine, persist: true });
  s.prepare();
  const out = {};
  for (const [name, method, req] of [
    ["impact 1", "impact", { base: "HEAD~1", head: "HEAD" }],
    ["impact 20", "impact", { base: "HEAD~20", head: "HEAD" }],
    ["review 1", "review", { base: "HEAD~1", head: "HEAD" }],
    ["review 20", "review", { base: "HEAD~20", head: "HEAD" }],
  ]) {
    const times = [];
    let answer;
    for (let i = 0; i < runs; i++) {
      const t0 = process.hrtime.bigint();
      answer = s[method](req);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const bytes = Buffer.byteLength(JSON.stringify(answer));
    out[name] = {
      ms: median(times),
      bytes,
      tokens: Math.round(bytes / 4),
      changed: answer.changed?.length ?? answer.changedCounts,
      impacted: answer.impacted?.length,
    };
  }
  return out;
}

function cli(root, engine, args) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [bin, ...args, "--root", root, "--engine", engine, "--json"], {
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 0) throw new Error(`${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  }
  return median(times);
}

const results = {};
for (const corpus of values.corpus.split(",")) {
  const { root, files } = makeRepo(corpus);
  // A warm start: the persisted index exists before anything is timed.
  spawnSync(process.execPath, [bin, "index", "--root", root, "--engine", values.engine], { stdio: "ignore" });
  const r = { files, inProcess: inProcess(root, values.engine) };
  r.cli = {
    "impact 1": cli(root, values.engine, ["impact", "--base", "HEAD~1", "--head", "HEAD"]),
    "impact 20": cli(root, values.engine, ["impact", "--base", "HEAD~20", "--head", "HEAD"]),
    "review 20": cli(root, values.engine, ["review", "--base", "HEAD~20", "--head", "HEAD"]),
  };
  results[corpus] = r;
  fs.rmSync(root, { recursive: true, force: true });
  console.log(`${corpus} (${files} files, ${values.engine}):`);
  for (const [k, v] of Object.entries(r.inProcess))
    console.log(
      `  ${k.padEnd(10)} in-process ${v.ms.toFixed(1).padStart(7)} ms  ${String(v.tokens).padStart(6)} tokens  changed ${JSON.stringify(v.changed)} impacted ${v.impacted ?? "-"}`,
    );
  for (const [k, v] of Object.entries(r.cli)) console.log(`  ${k.padEnd(10)} CLI        ${v.toFixed(0).padStart(7)} ms (whole process)`);
}
console.log(JSON.stringify(results));
