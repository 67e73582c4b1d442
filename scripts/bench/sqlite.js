#!/usr/bin/env node
// SQLite artifact benchmark (run by hand, not a test). For each corpus (rust, ts, py; built by
// ../shared/corpus/make-corpus.sh when missing, see scripts/corpus.sh) and engine it indexes the
// corpus in process (not timed), then measures:
//   build     artifactBuild into a scratch folder under the corpus's .codegraph/ (median of --runs),
//             and the database's size
//   first     the first query of a fresh session after the build (reads and opens the file)
//   queries   typical queries, warm (the artifact kept open), median of 20 each
//   cli       `codegraph sql` as a whole process on the warm persisted index (median of --runs)
//   node scripts/bench/sqlite.js [--corpus rust,ts,py] [--engine native,wasm] [--runs 3]
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { parseArgs } = require("node:util");

const repo = path.resolve(__dirname, "../..");
const { openSession } = require(path.join(repo, "npm/dist/index.js"));
const corpusHome = process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache/codegraph-corpus");

const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "rust,ts,py" },
    engine: { type: "string", default: "native,wasm" },
    runs: { type: "string", default: "3" },
  },
});
const runs = Number(values.runs);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function timed(f) {
  const t0 = process.hrtime.bigint();
  const r = f();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, r };
}

const QUERIES = {
  "symbol by name": (s) => ({ query: "SELECT handle, path, line FROM symbols WHERE name = ?", params: [s.name] }),
  "callers of the most called": (s) => ({ query: "SELECT caller, path, line FROM calls WHERE callee = ?", params: [s.handle] }),
  "top fan-in (scan + sort)": () => ({ query: "SELECT handle, fan_in FROM symbols ORDER BY fan_in DESC LIMIT 10" }),
  "unresolved by name (group)": () => ({
    query: "SELECT name, count(*) AS n FROM unresolved GROUP BY name ORDER BY n DESC LIMIT 20",
  }),
  "imports per language (join)": () => ({
    query: "SELECT f.language, count(*) FROM file_deps d JOIN files f ON f.path = d.from_path GROUP BY f.language",
  }),
};

for (const corpus of values.corpus.split(",")) {
  const root = path.join(corpusHome, corpus);
  if (!fs.existsSync(root)) {
    console.log(`${corpus}: missing ${root} (bash scripts/corpus.sh builds it)`);
    continue;
  }
  for (const engine of values.engine.split(",")) {
    const out = `.codegraph/bench-artifact-${engine}`;
    const s = openSession({ root, engine, persist: false, allowBuild: true });
    s.prepare();
    const builds = [];
    let built;
    for (let i = 0; i < runs; i++) {
      const t = timed(() => s.artifactBuild({ out }));
      builds.push(t.ms);
      built = t.r;
    }
    const db = built.files.find((f) => f.path.endsWith("codegraph.sqlite"));
    // The default place, for the queries.
    s.artifactBuild({});
    const fresh = openSession({ root, engine, persist: false });
    fresh.prepare();
    const first = timed(() => fresh.querySqlite({ query: "SELECT count(*) FROM symbols" })).ms;
    const top = fresh.querySqlite({ query: "SELECT name, handle FROM symbols ORDER BY fan_in DESC LIMIT 1" }).rows[0];
    const sample = { name: top[0], handle: top[1] };
    const lines = [];
    for (const [label, make] of Object.entries(QUERIES)) {
      const req = make(sample);
      const times = [];
      let rows = 0;
      for (let i = 0; i < 20; i++) {
        const t = timed(() => fresh.querySqlite(req));
        times.push(t.ms);
        rows = t.r.rows.length;
      }
      lines.push(`    ${label.padEnd(30)} ${median(times).toFixed(2).padStart(8)} ms  (${rows} rows)`);
    }
    // A whole process: the CLI on the warm persisted index.
    spawnSync(process.execPath, [path.join(repo, "bin/codegraph.js"), "index", "--root", root, "--engine", engine]);
    const cli = [];
    for (let i = 0; i < runs; i++) {
      const t0 = Date.now();
      const r = spawnSync(process.execPath, [
        path.join(repo, "bin/codegraph.js"),
        "sql",
        "SELECT handle FROM symbols WHERE name = ?",
        "--param",
        sample.name,
        "--root",
        root,
        "--engine",
        engine,
        "--json",
      ]);
      if (r.status !== 0) throw new Error(`codegraph sql failed: ${r.stderr}`);
      cli.push(Date.now() - t0);
    }
    console.log(
      `${corpus} ${engine}: ${built.rows.files} files, ${built.rows.symbols} symbols, ${built.rows.refs} refs, ${built.rows.calls} calls`,
    );
    console.log(`    build ${median(builds).toFixed(0)} ms (median of ${runs}), database ${(db.bytes / 1048576).toFixed(1)} MiB`);
    console.log(`    first query of a session (read + open)  ${first.toFixed(1)} ms`);
    for (const l of lines) console.log(l);
    console.log(`    codegraph sql, whole process             ${median(cli)} ms (median of ${runs})`);
    fs.rmSync(path.join(root, out), { recursive: true, force: true });
    fs.rmSync(path.join(root, ".codegraph/artifacts"), { recursive: true, force: true });
  }
}
