// The SQLite artifact, query_sqlite and the custom tools of .codegraph/tools.yaml: the artifact
// holds every symbol, reference and call the index answers with (read back by Python's sqlite3 and
// by DuckDB through its sqlite extension), two artifacts attach and union, native and wasm write
// the same bytes (on the fixture and on the TypeScript corpus), hostile SQL through a real MCP
// client over stdio is refused or cut within seconds with the file unchanged and nothing written,
// and the write-access and freshness rules hold.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync, spawnSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const { openSession } = require("../../npm/dist/index.js");
const { copyFixture } = require("../fixture.js");

const REPO = path.resolve(__dirname, "..", "..");
const CLI = path.join(REPO, "bin", "codegraph.js");
const CORPORA = process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache", "codegraph-corpus");
const DUCKDB_PYTHON = path.join(REPO, "target", "venv-duckdb", "bin", "python");
const DB = ".codegraph/artifacts/codegraph.sqlite";
const TABLES = ["meta", "files", "symbols", "refs", "calls", "file_deps", "type_relations", "unresolved"];

function tmpCopy(name) {
  return copyFixture(fs.mkdtempSync(path.join(os.tmpdir(), `cg-sqlite-${name}-`)));
}

function sha(file) {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** Every file under `root` with its size and mtime: what "nothing was written" is checked against. */
function tree(root) {
  const out = {};
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.lstatSync(p);
        out[path.relative(root, p)] = `${st.size}:${st.mtimeMs}`;
      }
    }
  };
  walk(root);
  return out;
}

/** Runs Python (the DuckDB virtualenv's, or the system's) on a script; returns its JSON output. */
function python(exe, script, ...args) {
  return JSON.parse(execFileSync(exe, ["-c", script, ...args], { maxBuffer: 1 << 28 }).toString());
}

const DUMP = `
import json, sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
out = {}
for t in sys.argv[2].split(","):
    cur = db.execute("SELECT * FROM " + t)
    cols = [c[0] for c in cur.description]
    out[t] = [dict(zip(cols, r)) for r in cur.fetchall()]
print(json.dumps(out))
`;

test("the artifact holds every symbol, reference and call of the index, as sqlite3 and DuckDB read it", () => {
  const root = tmpCopy("rows");
  const s = openSession({ root, engine: "native", persist: false, allowBuild: true });
  const built = s.artifactBuild({});
  assert.deepEqual(
    built.files.map((f) => f.path),
    [DB, ".codegraph/artifacts/manifest.json", ".codegraph/artifacts/CODEGRAPH_REPORT.md"],
  );
  const rows = python("python3", DUMP, path.join(root, DB), TABLES.join(","));
  for (const t of TABLES) assert.equal(rows[t].length, built.rows[t], `rows of ${t}`);

  const status = s.status({});
  assert.equal(rows.files.length, status.files);
  assert.equal(
    rows.symbols.length,
    status.languages.reduce((n, l) => n + l.symbols, 0),
  );
  const meta = Object.fromEntries(rows.meta.map((m) => [m.key, m.value]));
  assert.equal(meta.index_fingerprint, built.indexFingerprint);
  assert.equal(meta.schema_version, String(built.schemaVersion));

  const refsOf = new Map();
  for (const r of rows.refs) refsOf.set(r.symbol, [...(refsOf.get(r.symbol) ?? []), r]);
  const callsOf = new Map();
  for (const c of rows.calls) callsOf.set(c.callee, [...(callsOf.get(c.callee) ?? []), c]);
  let checkedRefs = 0;
  for (const sym of rows.symbols) {
    const info = s.getSymbol({ handle: sym.handle }).symbol;
    assert.deepEqual(
      [sym.path, sym.name, sym.kind, sym.line, sym.column, sym.end_line, Boolean(sym.exported), sym.container ?? undefined],
      [info.path, info.name, info.kind, info.line, info.column, info.endLine, info.exported, info.container],
      sym.handle,
    );
    const refs = s.refs({ handle: sym.handle, limit: 1000 });
    const key = (r) => `${r.path}:${r.line}:${r.column}:${r.kind}:${r.enclosing ?? ""}`;
    assert.deepEqual((refsOf.get(sym.handle) ?? []).map(key).sort(), refs.refs.map(key).sort(), `refs of ${sym.handle}`);
    checkedRefs += refs.refs.length;
    if (["function", "method"].includes(sym.kind)) {
      const callers = s.callers({ handle: sym.handle, limit: 500 });
      const sites = callers.groups.flatMap((g) => g.callsites.map((c) => `${c.path}:${c.line}:${c.column}`)).sort();
      assert.deepEqual(
        (callsOf.get(sym.handle) ?? []).map((c) => `${c.path}:${c.line}:${c.column}`).sort(),
        sites,
        `callers of ${sym.handle}`,
      );
      assert.equal(sym.fan_in, callers.groups.length, `fan_in of ${sym.handle}`);
    }
  }
  assert.equal(checkedRefs, rows.refs.length, "every reference row belongs to a symbol the index answers for");
  // File dependencies are the index's deps, with how each was made.
  for (const f of rows.files) {
    const deps = s.deps({ file: f.path, limit: 1000 }).files;
    assert.deepEqual(
      rows.file_deps
        .filter((d) => d.from_path === f.path)
        .map((d) => d.to_path)
        .sort(),
      [...deps].sort(),
      `deps of ${f.path}`,
    );
  }
  assert.ok(
    rows.file_deps.some((d) => d.from_path === "ts/src/main.ts" && d.kind === "import" && d.raw === "./geo"),
    JSON.stringify(rows.file_deps),
  );
  assert.ok(rows.type_relations.length > 0 && rows.unresolved.length > 0);

  // DuckDB through its sqlite extension reads the same tables.
  assert.ok(fs.existsSync(DUCKDB_PYTHON), "scripts/setup.sh installs DuckDB into target/venv-duckdb");
  const counts = python(
    DUCKDB_PYTHON,
    `
import duckdb, glob, json, os, sys
ext = glob.glob(os.path.join(os.path.dirname(duckdb.__file__), "..", "duckdb_ext", "extensions", "*", "*", "sqlite_scanner.duckdb_extension"))[0]
con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
# A query slower than two seconds (a loaded CI machine) would draw a progress bar on stdout.
con.execute("SET enable_progress_bar = false")
con.execute("LOAD '" + ext + "'")
con.execute("ATTACH '" + sys.argv[1] + "' AS cg (TYPE sqlite, READ_ONLY)")
out = {t: con.execute("SELECT count(*) FROM cg." + t).fetchone()[0] for t in sys.argv[2].split(",")}
out["top"] = con.execute('SELECT handle, "column" FROM cg.symbols ORDER BY fan_in DESC, handle LIMIT 1').fetchone()
print(json.dumps(out))
`,
    path.join(root, DB),
    TABLES.join(","),
  );
  for (const t of TABLES) assert.equal(counts[t], built.rows[t], `DuckDB rows of ${t}`);
  const top = [...rows.symbols].sort((a, b) => b.fan_in - a.fan_in || (a.handle < b.handle ? -1 : 1))[0];
  assert.deepEqual(counts.top, [top.handle, top.column]);

  // Two artifacts (two repositories) attached and unioned by any SQLite reader.
  const other = fs.mkdtempSync(path.join(os.tmpdir(), "cg-sqlite-other-"));
  fs.cpSync(path.join(REPO, "tests/fixtures/inference/py"), other, { recursive: true });
  const second = openSession({ root: other, engine: "native", persist: false, allowBuild: true }).artifactBuild({});
  const union = python(
    "python3",
    `
import json, sqlite3, sys
db = sqlite3.connect(":memory:")
db.execute("ATTACH ? AS a", (sys.argv[1],))
db.execute("ATTACH ? AS b", (sys.argv[2],))
rows = db.execute("SELECT repo, count(*) FROM (SELECT 'a' AS repo, handle FROM a.symbols UNION ALL SELECT 'b', handle FROM b.symbols) GROUP BY repo ORDER BY repo").fetchall()
print(json.dumps(rows))
`,
    path.join(root, DB),
    path.join(other, DB),
  );
  assert.deepEqual(union, [
    ["a", built.rows.symbols],
    ["b", second.rows.symbols],
  ]);
});

/** Every function the authorizer allows, called once: the two engines' SQLite builds must agree. */
const EVERY_FUNCTION = [
  `SELECT abs(-1), avg(x), char(65), coalesce(NULL, 1), concat('a', 'b'), concat_ws('-', 'a', 'b'), count(*),
     format('%d', 5), glob('a*', 'ab'), group_concat(x), hex('a'), ifnull(NULL, 2), iif(1, 2, 3), instr('abc', 'b'),
     length('abc'), like('a%', 'ab'), likelihood(1, 0.5), likely(1), lower('A'), ltrim(' a'), max(x), min(x),
     nullif(1, 1), octet_length('é'), printf('%5.2f', 3.14159), quote('a'), replace('aa', 'a', 'b'), round(2.567, 2),
     rtrim('a '), sign(-3), string_agg(x, ','), substr('abc', 2), substring('abc', 1, 2), sum(x), total(x),
     trim(' a '), typeof(1.5), unicode('A'), unlikely(0), upper('a')
   FROM (SELECT 1 AS x UNION ALL SELECT 2)`,
  `SELECT x, row_number() OVER w, rank() OVER w, dense_rank() OVER w, percent_rank() OVER w, cume_dist() OVER w,
     ntile(2) OVER w, lag(x) OVER w, lead(x) OVER w, first_value(x) OVER w, last_value(x) OVER w, nth_value(x, 1) OVER w
   FROM (SELECT 1 AS x UNION ALL SELECT 2) WINDOW w AS (ORDER BY x)`,
];

test("native and wasm write byte-identical artifacts (fixture and TypeScript corpus), and answer queries alike", () => {
  const ts = path.join(CORPORA, "ts");
  assert.ok(fs.existsSync(ts), `the test command builds ${ts}`);
  for (const root of [tmpCopy("parity"), ts]) {
    const out = `.codegraph/test-artifact-${process.pid}`;
    try {
      const hashes = {};
      const answers = {};
      for (const engine of ["native", "wasm"]) {
        const s = openSession({ root, engine, persist: false, allowBuild: true });
        const built = s.artifactBuild({ out: `${out}-${engine}` });
        hashes[engine] = sha(path.join(root, `${out}-${engine}`, "codegraph.sqlite"));
        s.artifactBuild({});
        answers[engine] = [
          "SELECT kind, count(*), sum(fan_in) FROM symbols GROUP BY kind ORDER BY kind",
          "SELECT * FROM meta ORDER BY key",
          ...EVERY_FUNCTION,
        ].map((query) => s.querySqlite({ query, limit: 500 }).rows);
        answers[engine].push(built.rows);
      }
      assert.equal(hashes.wasm, hashes.native, `byte-identical artifacts of ${root}`);
      assert.deepEqual(answers.wasm, answers.native);
    } finally {
      for (const engine of ["native", "wasm"]) fs.rmSync(path.join(root, `${out}-${engine}`), { recursive: true, force: true });
      if (root === ts) fs.rmSync(path.join(root, ".codegraph/artifacts"), { recursive: true, force: true });
    }
  }
});

const TOOLS_YAML = `
tools:
  - name: files_under
    description: Files whose path starts with a prefix, largest first
    sql: |
      SELECT path, code_lines FROM files WHERE path LIKE {prefix} || '%' AND code_lines >= {min_lines}
      ORDER BY code_lines DESC, path
    parameters:
      - name: prefix
        type: string
        default: ""
      - name: min_lines
        type: int
        default: 0
  - name: drop_it
    description: not a select
    sql: DROP TABLE files
`;

async function mcpClient(root, engine, extra = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "serve", "--root", root, "--stdio", "--engine", engine, ...extra],
    env: process.env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr.on("data", (d) => (stderr += d));
  const client = new Client({ name: "sqlite-test", version: "0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** A tool's outcome: its answer, or the error code (a tool error or the protocol's invalid params). */
async function outcome(client, name, args) {
  try {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) return { code: JSON.parse(r.content[0].text).error.code };
    return { answer: r.structuredContent };
  } catch (e) {
    return { code: e.data?.code ?? String(e.code) };
  }
}

const HOSTILE = [
  "DELETE FROM symbols",
  "DROP TABLE files",
  "INSERT INTO meta VALUES ('x', 'y')",
  "UPDATE files SET hash = 'x'",
  "CREATE TABLE x(a)",
  "ATTACH DATABASE '/tmp/cg-evil.db' AS evil",
  "PRAGMA writable_schema = ON",
  "SELECT 1; DELETE FROM symbols",
  "VACUUM INTO '/tmp/cg-evil.db'",
  "SELECT load_extension('/tmp/evil.so')",
  "SELECT readfile('/etc/passwd')",
  "SELECT writefile('/tmp/cg-evil', 'x')",
  "SELECT randomblob(2000000000)",
  "SELECT zeroblob(2000000000)",
  "SELECT length(printf('%.*c', 2000000000, 'x'))",
  "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n",
  "SELECT count(*) FROM refs a, refs b, refs c, refs d",
  "SELECT count(*) FROM symbols a CROSS JOIN symbols b CROSS JOIN symbols c CROSS JOIN symbols d CROSS JOIN symbols e",
  "DE/**/LETE FROM symbols",
  "SELECT 1 /* ; */ ; DROP TABLE files",
  "/* SELECT */ DELETE FROM symbols",
  "WITH x AS (SELECT 1) DELETE FROM symbols",
  "SELECT * FROM sqlite_temp_master",
  "SELECT * FROM pragma_table_info('files')",
  "SELECT date('now')",
];

for (const engine of ["native", "wasm"]) {
  test(`query_sqlite and custom tools over MCP (${engine}): hostile SQL refused or cut, the artifact unchanged, nothing written`, async () => {
    const root = tmpCopy(`hostile-${engine}`);
    fs.mkdirSync(path.join(root, ".codegraph"), { recursive: true });
    fs.writeFileSync(path.join(root, ".codegraph/tools.yaml"), TOOLS_YAML);
    const { client, stderr } = await mcpClient(root, engine, ["--allow-build", "--no-persist"]);
    try {
      const listed = (await client.listTools()).tools;
      const names = listed.map((t) => t.name);
      for (const n of ["query_sqlite", "artifact_build", "files_under"]) assert.ok(names.includes(n), n);
      assert.ok(!names.includes("drop_it"));
      assert.match(stderr(), /tool drop_it: .*not DROP/);
      const schema = listed.find((t) => t.name === "files_under").inputSchema;
      assert.deepEqual(schema.properties.min_lines, { type: "integer", default: 0 });
      assert.equal(schema.additionalProperties, false);

      const built = await outcome(client, "artifact_build", {});
      assert.ok(built.answer, JSON.stringify(built));
      const db = path.join(root, DB);
      const before = sha(db);
      const files = tree(root);
      const evil = "/tmp/cg-evil.db";
      fs.rmSync(evil, { force: true });

      for (const query of HOSTILE) {
        const t0 = Date.now();
        const r = await outcome(client, "query_sqlite", { query });
        const ms = Date.now() - t0;
        // The budget is counted in SQLite steps, not time (see core/src/sql.rs): this bound only
        // says the query ended instead of running on. On wasm, under the whole suite's load on a
        // 2-core machine, the four-way join was cut at 24 s (why its steps cost that much is not
        // yet known).
        assert.ok(ms < 55000, `${query} took ${ms} ms`);
        if (r.answer) {
          // Only a cut answer is acceptable: the budget stopped it.
          assert.ok(r.answer.truncated && r.answer.truncatedBy === "steps", `${query}: ${JSON.stringify(r.answer).slice(0, 300)}`);
        } else {
          assert.ok(["INVALID_ARGUMENT", "LIMIT_EXCEEDED"].includes(r.code), `${query}: ${r.code}`);
        }
      }
      for (const params of [
        { prefix: "x' OR '1'='1" },
        { prefix: "ts; DROP TABLE files" },
        { prefix: "ts --" },
        { prefix: 'a"b' },
        { prefix: "/* x */" },
        { min_lines: "1 OR 1=1" },
        { min_lines: "DROP" },
        { unknown: 1 },
      ]) {
        const r = await outcome(client, "files_under", params);
        assert.equal(r.code, "INVALID_ARGUMENT", JSON.stringify(params));
      }
      const ok = await outcome(client, "files_under", { prefix: "ts/", min_lines: 2 });
      assert.ok(ok.answer.rows.length > 0 && ok.answer.rows.every(([p, n]) => p.startsWith("ts/") && n >= 2), JSON.stringify(ok));
      const q = await outcome(client, "query_sqlite", {
        query: "SELECT DISTINCT name FROM symbols WHERE name = ? AND line > ?",
        params: ["Circle", 0],
      });
      assert.deepEqual(q.answer.rows, [["Circle"]]);
      assert.equal(q.answer.artifact.state, "fresh");
      assert.equal(sha(db), before, "the artifact is unchanged");
      assert.deepEqual(tree(root), files, "nothing was written under the root");
      assert.ok(!fs.existsSync(evil), "nothing was written outside it");
    } finally {
      await client.close();
    }
  });
}

test("artifact_build needs --allow-build and a fresh index; a stale artifact is refused, or rebuilt after a small edit", async () => {
  const root = tmpCopy("fresh");
  // Without write access: nothing is built, and a query says what to run.
  const ro = await mcpClient(root, "native", ["--no-persist"]);
  try {
    assert.equal((await outcome(ro.client, "artifact_build", {})).code, "FORBIDDEN");
    assert.equal((await outcome(ro.client, "query_sqlite", { query: "SELECT 1" })).code, "NOT_FOUND");
    assert.ok(!fs.existsSync(path.join(root, ".codegraph/artifacts")));
    // The CLI's `artifact build` is itself the request to write.
    const cli = spawnSync(process.execPath, [CLI, "artifact", "build", "--root", root, "--no-persist"], { encoding: "utf8" });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /codegraph\.sqlite/);
    assert.equal((await outcome(ro.client, "query_sqlite", { query: "SELECT count(*) FROM files" })).answer.artifact.state, "fresh");
    fs.appendFileSync(path.join(root, "ts/src/main.ts"), "\nexport const added = 1;\n");
    const stale = await outcome(ro.client, "query_sqlite", { query: "SELECT count(*) FROM files" });
    assert.equal(stale.code, "STALE_ARTIFACT", JSON.stringify(stale));
  } finally {
    await ro.client.close();
  }
  const rw = await mcpClient(root, "native", ["--no-persist", "--allow-build"]);
  try {
    const r = await outcome(rw.client, "query_sqlite", { query: "SELECT name FROM symbols WHERE name = 'added'" });
    assert.deepEqual(r.answer.rows, [["added"]]);
    assert.equal(r.answer.artifact.state, "rebuilt");
    assert.equal(r.answer.artifact.changedFiles, 1);
    // A burst of changes larger than a refresh takes in: the index is stale, and nothing is written from it.
    for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(root, `burst${i}.py`), `def f${i}():\n    return ${i}\n`);
    assert.equal((await outcome(rw.client, "artifact_build", {})).code, "STALE_INDEX");
    // The artifact still describes the index, and the answer says the index is stale, as every answer does.
    const q = await outcome(rw.client, "query_sqlite", { query: "SELECT count(*) FROM files" });
    assert.equal(q.answer.freshness.state, "stale");
    assert.equal(q.answer.artifact.state, "fresh");
    await outcome(rw.client, "refresh_index", {});
    const after = await outcome(rw.client, "artifact_build", {});
    assert.equal(after.answer.rows.files, openSession({ root, persist: false }).status({}).files);
  } finally {
    await rw.client.close();
  }
});

test("the CLI: sql, tools and tool, with --json equal to the MCP answer's rows", () => {
  const root = tmpCopy("cli");
  fs.mkdirSync(path.join(root, ".codegraph"), { recursive: true });
  fs.writeFileSync(path.join(root, ".codegraph/tools.yaml"), TOOLS_YAML);
  const run = (...args) => spawnSync(process.execPath, [CLI, ...args, "--root", root, "--no-persist"], { encoding: "utf8" });
  assert.equal(run("sql", "SELECT 1").status, 1, "no artifact yet");
  assert.equal(run("artifact", "build").status, 0);
  // The folder's .gitignore keeps the artifact out of commits and lets the team commit its tools.
  execFileSync("git", ["init", "-q"], { cwd: root });
  const ignored = (p) => spawnSync("git", ["check-ignore", "-q", p], { cwd: root }).status === 0;
  assert.ok(ignored(".codegraph/artifacts/codegraph.sqlite"));
  assert.ok(!ignored(".codegraph/tools.yaml"));
  const human = run("sql", "SELECT path, code_lines FROM files WHERE path LIKE ? ORDER BY path", "--param", "py/%");
  assert.equal(human.status, 0, human.stderr);
  assert.match(human.stdout, /^path\s+code_lines\n/);
  assert.match(human.stdout, /py\/shop\/util\/text\.py\s+\d+/);
  const json = JSON.parse(run("sql", "SELECT count(*) AS n FROM symbols WHERE line > ?", "--param", "0", "--json").stdout);
  assert.deepEqual(json.columns, ["n"]);
  assert.ok(json.rows[0][0] > 0);
  const tools = run("tools");
  assert.equal(tools.status, 1, "a definition was skipped");
  assert.match(tools.stdout, /files_under\(prefix: string = "", min_lines: int = 0\)/);
  assert.match(tools.stdout, /skipped drop_it: .*not DROP/);
  const tool = JSON.parse(run("tool", "files_under", "--param", "prefix=rust/", "--param", "min_lines=1", "--json").stdout);
  assert.ok(tool.rows.length > 0 && tool.rows.every(([p]) => p.startsWith("rust/")));
  const bad = run("tool", "files_under", "--param", "min_lines=many");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /min_lines.*not an integer/);
  const doctor = spawnSync(process.execPath, [CLI, "doctor", "--root", root], { encoding: "utf8" });
  assert.match(doctor.stdout, /custom tools\n {2}\.codegraph\/tools\.yaml: files_under\n {2}SKIPPED drop_it/);
});
