#!/usr/bin/env node
// Navigation benchmark: questions in plain words (scripts/bench/questions/<corpus>.json, each with the
// file(s) that answer it, checked by reading the code) asked of `search` and `explore` on the shared
// corpora, against a naive baseline that ranks files by how many distinct query words they contain.
// Reports hit@1, hit@5 and MRR (first answer file within the top 20), in-process latency of search
// and explore (p50/p99, after the first query built the lexical index), and the size in tokens
// (bytes/4) of a default explore answer.
//   node scripts/bench/navigation.js [--corpus rust,ts,py] [--engine native|wasm] [--verbose]
//   NAV_DEPTH=100 … ranks to 100 instead of 20 (to see how far a miss is)
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { parseArgs } = require("node:util");

const repo = path.resolve(__dirname, "../..");
const corpusHome = process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache/codegraph-corpus");
const DEPTH = Number(process.env.NAV_DEPTH ?? 20);

// The baseline's stop words: the question words every question shares.
const BASELINE_STOP = new Set(
  "a an the and or of to in on for by with from at as is are was be it its this that what where which who how why when does do did can get gets into".split(
    " ",
  ),
);

function baselineIndex(root, files) {
  return files.map((rel) => ({ rel, text: fs.readFileSync(path.join(root, rel), "utf8").toLowerCase() }));
}

/** Files ranked by the number of distinct query words they contain (ties: more occurrences, then path). */
function baseline(docs, query) {
  const words = [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^a-z0-9_]+/)
        .filter((w) => w.length > 2 && !BASELINE_STOP.has(w)),
    ),
  ];
  const scored = [];
  for (const d of docs) {
    let distinct = 0;
    let count = 0;
    for (const w of words) {
      let i = d.text.indexOf(w);
      if (i < 0) continue;
      distinct++;
      while (i >= 0 && count < 1e6) {
        count++;
        i = d.text.indexOf(w, i + w.length);
      }
    }
    if (distinct > 0) scored.push({ rel: d.rel, distinct, count });
  }
  scored.sort((a, b) => b.distinct - a.distinct || b.count - a.count || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return scored.slice(0, DEPTH).map((s) => s.rel);
}

function distinctFiles(paths) {
  const out = [];
  for (const p of paths) if (!out.includes(p)) out.push(p);
  return out.slice(0, DEPTH);
}

function score(ranked, answers) {
  const rank = ranked.findIndex((p) => answers.includes(p));
  return { hit1: rank === 0 ? 1 : 0, hit5: rank >= 0 && rank < 5 ? 1 : 0, rr: rank >= 0 ? 1 / (rank + 1) : 0, rank };
}

function summary(rows) {
  const n = rows.length;
  const sum = (k) => rows.reduce((a, r) => a + r[k], 0);
  return { hit1: sum("hit1") / n, hit5: sum("hit5") / n, mrr: sum("rr") / n };
}

function pct(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function main() {
  const { values } = parseArgs({
    options: { corpus: { type: "string", default: "rust,ts,py" }, engine: { type: "string" }, verbose: { type: "boolean" } },
  });
  const { openSession } = require(path.join(repo, "npm/dist/index.js"));
  const results = {};
  for (const corpus of values.corpus.split(",")) {
    const root = path.join(corpusHome, corpus);
    const { questions } = JSON.parse(fs.readFileSync(path.join(__dirname, "questions", `${corpus}.json`), "utf8"));
    const session = openSession({ root, engine: values.engine, persist: false });
    let t0 = process.hrtime.bigint();
    session.prepare();
    const indexMs = Number(process.hrtime.bigint() - t0) / 1e6;
    t0 = process.hrtime.bigint();
    session.search({ query: "warm up the lexical index" });
    const textIndexMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const files = [];
    const walk = (dir) => {
      for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (e.isDirectory()) walk(rel);
        else if (/\.(rs|ts|tsx|js|py)$/.test(e.name)) files.push(rel);
      }
    };
    walk("");
    const docs = baselineIndex(root, files);
    const rows = { search: [], explore: [], baseline: [], files: [] };
    const times = { search: [], explore: [] };
    const sizes = [];
    for (const q of questions) {
      for (const p of q.files) if (!fs.existsSync(path.join(root, p))) throw new Error(`${corpus}: no file ${p}`);
      let t = process.hrtime.bigint();
      const s = session.search({ query: q.q, limit: DEPTH > 20 ? 100 : undefined });
      times.search.push(Number(process.hrtime.bigint() - t) / 1e6);
      t = process.hrtime.bigint();
      const e = session.explore({ query: q.q });
      times.explore.push(Number(process.hrtime.bigint() - t) / 1e6);
      sizes.push(JSON.stringify(e).length);
      const ranked = {
        search: distinctFiles(s.hits.map((h) => h.path)),
        files: distinctFiles(s.hits.filter((h) => h.kind === "file").map((h) => h.path)),
        explore: distinctFiles(e.anchors.map((a) => a.path)),
        baseline: baseline(docs, q.q),
      };
      for (const k of Object.keys(rows)) rows[k].push({ q: q.q, ...score(ranked[k], q.files) });
      if (values.verbose) {
        const r = rows.search[rows.search.length - 1].rank;
        console.log(
          `${r === 0 ? "  " : r < 0 ? "xx" : `${r + 1} `.padStart(2)} ${q.q}\n     want ${q.files.join(", ")}\n     got  ${ranked.search.slice(0, 3).join(", ")}`,
        );
      }
    }
    results[corpus] = {
      questions: questions.length,
      files: files.length,
      indexMs: Math.round(indexMs),
      textIndexMs: Math.round(textIndexMs),
      search: summary(rows.search),
      explore: summary(rows.explore),
      baseline: summary(rows.baseline),
      files: summary(rows.files),
      latencyMs: {
        search: { p50: pct(times.search, 50), p99: pct(times.search, 99) },
        explore: { p50: pct(times.explore, 50), p99: pct(times.explore, 99) },
      },
      exploreTokens: { mean: Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length / 4), max: Math.round(Math.max(...sizes) / 4) },
      engine: session.engine,
    };
  }
  const f = (x) => x.toFixed(2);
  console.log(
    "corpus questions  search hit@1 hit@5 MRR | explore hit@1 hit@5 MRR | baseline hit@1 hit@5 MRR | search p50/p99 ms | explore p50/p99 ms | explore tokens mean/max | text index ms",
  );
  for (const [c, r] of Object.entries(results)) {
    console.log(
      [
        c.padEnd(6),
        String(r.questions).padEnd(9),
        `       ${f(r.search.hit1)}  ${f(r.search.hit5)} ${f(r.search.mrr)}`,
        `       ${f(r.explore.hit1)}  ${f(r.explore.hit5)} ${f(r.explore.mrr)}`,
        `        ${f(r.baseline.hit1)}  ${f(r.baseline.hit5)} ${f(r.baseline.mrr)}`,
        `${r.latencyMs.search.p50.toFixed(1)}/${r.latencyMs.search.p99.toFixed(1)}`.padStart(17),
        `${r.latencyMs.explore.p50.toFixed(1)}/${r.latencyMs.explore.p99.toFixed(1)}`.padStart(18),
        `${r.exploreTokens.mean}/${r.exploreTokens.max}`.padStart(23),
        String(r.textIndexMs).padStart(13),
        `files ${f(r.files.hit1)}  ${f(r.files.hit5)} ${f(r.files.mrr)}`,
      ].join(" "),
    );
  }
  const out = path.join(repo, "target/bench");
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, "navigation.json"), JSON.stringify(results, null, 2));
}

main();
