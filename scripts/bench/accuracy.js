#!/usr/bin/env node
// Accuracy against compiler-grade ground truth (run by hand, not a test): asks codegraph the sampled
// questions of ../shared/accuracy — refs at each definition, goto from a reference, callers of
// function-like symbols, all by position — writes the predictions file, and scores it with the
// shared score.py (precision/recall/F1 by symbol kind, goto@1, callers F1).
//   scripts/accuracy/truth.sh [rust] [ts] [py]      builds the truth and the sampled queries once
//   node scripts/bench/accuracy.js [rust|ts|py ...] [--engine native|wasm] [--truth DIR] [--corpus DIR]
// Truth from ~/.cache/codegraph-accuracy/<corpus>/{truth,queries}.json, corpora from
// ~/.cache/codegraph-corpus/<corpus>; predictions and reports go to target/bench/accuracy/.
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { parseArgs } = require("node:util");

const { openSession } = require("../../npm/dist/index.js");

const repo = path.resolve(__dirname, "../..");
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    engine: { type: "string", default: "native" },
    truth: { type: "string", default: path.join(os.homedir(), ".cache/codegraph-accuracy") },
    corpus: { type: "string", default: process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache/codegraph-corpus") },
    score: { type: "string", default: path.resolve(repo, "../shared/accuracy/score.py") },
    verbose: { type: "boolean", default: false },
  },
});
const corpora = positionals.length ? positionals : ["rust", "ts", "py"];
const out = path.join(repo, "target/bench/accuracy");
fs.mkdirSync(out, { recursive: true });

/** Asks one question; a failure (nothing at the position, not found) is an empty answer. */
function ask(session, method, request) {
  try {
    return session.call(method, request);
  } catch (e) {
    if (e.code === "NOT_FOUND") return undefined;
    throw e;
  }
}

function predict(session, queries) {
  const pred = { refs: {}, goto: [], callers: {} };
  for (const q of queries) {
    const at = { file: q.def.path, line: q.def.line, column: q.def.col };
    const refs = ask(session, "refs", { ...at, limit: 2000 });
    // Uses through an import alias are neutral in the scorer when the indexer reports them (flagged
    // name_mismatch); scip-python doesn't report them at all, so they are left out everywhere.
    if (refs) pred.refs[q.def_key] = refs.refs.filter((r) => !r.alias).map((r) => [r.path, r.line]);
    const goto = ask(session, "goto", { file: q.ref.path, line: q.ref.line, column: q.ref.col });
    if (goto) pred.goto.push({ from: [q.ref.path, q.ref.line, q.ref.col], to: goto.definitions.map((d) => [d.path, d.line]) });
    if (q.function_like) {
      const callers = ask(session, "callers", { ...at, limit: 500 });
      if (callers) pred.callers[q.def_key] = callers.groups.filter((g) => g.symbol).map((g) => [g.symbol.path, g.symbol.line]);
    }
  }
  return pred;
}

const rows = [];
for (const name of corpora) {
  const truthDir = path.join(values.truth, name);
  const truth = path.join(truthDir, "truth.json");
  const queriesFile = path.join(truthDir, "queries.json");
  if (!fs.existsSync(truth) || !fs.existsSync(queriesFile)) {
    console.error(`accuracy: no truth for ${name} in ${truthDir}; build it with scripts/accuracy/truth.sh ${name}`);
    process.exitCode = 1;
    continue;
  }
  const root = path.join(values.corpus, name);
  const { queries } = JSON.parse(fs.readFileSync(queriesFile, "utf8"));
  const t0 = Date.now();
  const session = openSession({ root, engine: values.engine, persist: false });
  session.prepare();
  const buildMs = Date.now() - t0;
  const t1 = Date.now();
  const pred = predict(session, queries);
  const askMs = Date.now() - t1;
  const predFile = path.join(out, `${name}.${values.engine}.pred.json`);
  const reportFile = path.join(out, `${name}.${values.engine}.report.json`);
  fs.writeFileSync(predFile, JSON.stringify(pred));
  const scored = spawnSync(
    "python3",
    [values.score, "score", "--truth", truth, "--queries", queriesFile, "--pred", predFile, "-o", reportFile],
    {
      encoding: "utf8",
    },
  );
  if (scored.status !== 0) throw new Error(`score.py failed: ${scored.stderr}`);
  process.stdout.write(scored.stdout);
  const report = JSON.parse(fs.readFileSync(reportFile, "utf8"));
  rows.push({ name, report, buildMs, askMs, queries: queries.length });
  if (values.verbose) {
    for (const [kind, k] of Object.entries(report.refs.by_kind)) {
      console.log(
        `  ${kind.padEnd(16)} ${String(k.queries).padStart(4)} q  P ${k.precision.toFixed(2)}  R ${k.recall.toFixed(2)}  F1 ${k.f1.toFixed(2)}`,
      );
    }
  }
}

if (rows.length) {
  const f = (x) => x.toFixed(2);
  console.log("\ncorpus  queries  refs P  refs R  refs F1  goto@1  callers P  callers R  callers F1  build ms  ask ms");
  for (const { name, report: r, buildMs, askMs, queries } of rows) {
    const c = r.callers?.micro;
    console.log(
      [
        name.padStart(6),
        String(queries).padStart(7),
        f(r.refs.micro.precision).padStart(7),
        f(r.refs.micro.recall).padStart(7),
        f(r.refs.micro.f1).padStart(8),
        f(r.goto.accuracy_at_1).padStart(7),
        (c ? f(c.precision) : "-").padStart(10),
        (c ? f(c.recall) : "-").padStart(10),
        (c ? f(c.f1) : "-").padStart(11),
        String(buildMs).padStart(9),
        String(askMs).padStart(7),
      ].join(" "),
    );
  }
  console.log(`\nby kind (refs F1, queries): see --verbose; reports in ${path.relative(repo, out)}/`);
}
