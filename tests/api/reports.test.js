// loc and graph: the loc figures against cloc on real corpora (code and blank lines within 3 %,
// comments within 10 %, per language), every graph format parsed by a real parser (JSON.parse,
// Python's XML parser, Graphviz's dot), the blast radius equal to rdeps, focus and depth, the CLI's
// --json equal to the MCP tool's answer, and native = wasm.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { spawnSync, execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { openSession } = require("../../npm/dist/index.js");

const REPO = path.resolve(__dirname, "..", "..");
const CLI = path.join(REPO, "bin", "codegraph.js");
const FIXTURE = path.join(REPO, "tests", "fixtures", "polyglot");
const CORPORA = process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache", "codegraph-corpus");
const CLOC_NAMES = { typescript: "TypeScript", javascript: "JavaScript", python: "Python", rust: "Rust", go: "Go", java: "Java" };

function has(cmd) {
  return spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0;
}

for (const corpus of ["ts", "py-small"]) {
  test(
    `loc agrees with cloc on the ${corpus} corpus`,
    { skip: !has("cloc") && "cloc is not installed (scripts/setup.sh installs it)" },
    () => {
      const root = path.join(CORPORA, corpus);
      assert.ok(fs.existsSync(root), `the test command builds ${root}`);
      const ours = openSession({ root, engine: "native", persist: false }).loc({});
      const cloc = JSON.parse(
        execFileSync("cloc", ["--json", "--quiet", "--skip-uniqueness", "--exclude-dir=.codegraph", root], {
          maxBuffer: 1 << 26,
        }).toString(),
      );
      const within = (a, b, pct) => Math.abs(a - b) <= Math.max(2, (b * pct) / 100);
      for (const row of ours.languages) {
        const c = cloc[CLOC_NAMES[row.language]];
        if (!c || c.code < 200) continue;
        assert.ok(within(row.code, c.code, 3), `${corpus} ${row.language} code ${row.code} vs cloc ${c.code}`);
        assert.ok(within(row.blank, c.blank, 3), `${corpus} ${row.language} blank ${row.blank} vs cloc ${c.blank}`);
        assert.ok(within(row.comment, c.comment, 10), `${corpus} ${row.language} comment ${row.comment} vs cloc ${c.comment}`);
      }
      assert.equal(
        ours.total.code,
        ours.languages.reduce((n, r) => n + r.code, 0),
      );
    },
  );
}

test("loc counts declarations from the syntax tree, with detail", () => {
  const s = openSession({ root: FIXTURE, engine: "native", persist: false });
  const r = s.loc({ detail: true, limit: 20000 });
  const py = r.languages.find((l) => l.language === "python");
  const declared = r.declarations.filter((d) => d.language === "python");
  assert.equal(declared.filter((d) => ["function", "method"].includes(d.kind)).length, py.functions);
  assert.ok(r.declarations.some((d) => d.path === "py/shop/util/text.py" && d.name === "slugify" && d.kind === "function"));
  assert.deepStrictEqual(openSession({ root: FIXTURE, engine: "wasm", persist: false }).loc({ detail: true, limit: 20000 }), r);
});

test("graph: every format parses; the blast radius is rdeps; focus and depth", () => {
  const native = openSession({ root: FIXTURE, engine: "native", persist: false });
  const wasm = openSession({ root: FIXTURE, engine: "wasm", persist: false });
  const target = "rust/src/shapes/mod.rs";
  for (const format of ["json", "markdown", "xml", "dot", "mermaid"]) {
    const req = { format, dependsOn: target, depth: 2 };
    const a = native.graph(req);
    assert.deepStrictEqual(wasm.graph(req), a, `${format}: native = wasm`);
    if (format === "json") JSON.parse(JSON.stringify(a));
    if (format === "mermaid") assert.match(a.text, /^flowchart LR\n/);
    if (format === "markdown") {
      assert.match(a.text, /^# Files that depend on `rust\/src\/shapes\/mod.rs`\n\n## Blast radius\n/);
      assert.match(a.text, /```mermaid\nflowchart LR\n/);
    }
    if (format === "xml") {
      const py = spawnSync(
        "python3",
        ["-c", "import sys, xml.etree.ElementTree as E; r = E.fromstring(sys.stdin.read()); print(len(r.findall('node')))"],
        {
          input: a.text,
          encoding: "utf8",
        },
      );
      assert.equal(py.status, 0, py.stderr);
      assert.equal(Number(py.stdout.trim()), a.nodes.length);
    }
    if (format === "dot" && has("dot")) {
      const svg = spawnSync("dot", ["-Tsvg"], { input: a.text, encoding: "utf8" });
      assert.equal(svg.status, 0, svg.stderr);
      assert.match(svg.stdout, /<svg/);
    }
  }
  const rdeps = native.rdeps({ file: target, limit: 1000 }).files;
  const blast = native.graph({ dependsOn: target }).blastRadius.map((b) => b.path);
  assert.deepStrictEqual([...blast].sort(), [...rdeps].sort());
  // The dependent count is impact's for the same target and depth.
  const counted = native.impact({ files: [target], depth: 2 }).targets[0].dependent_count;
  assert.equal(native.graph({ dependsOn: target, depth: 2 }).dependentCount, counted);
  // Focus narrows a reverse answer; the target stays. Forward from a root, to a depth.
  const narrowed = native.graph({ dependsOn: target, depth: 3, focus: ["rust/src/report.rs"] });
  assert.ok(
    narrowed.nodes.every((n) => n.path === target || n.path === "rust/src/report.rs"),
    JSON.stringify(narrowed.nodes),
  );
  assert.equal(narrowed.nodes[0].path, target);
  const forward = native.graph({ focus: ["ts/src/main.ts"], depth: 1 });
  assert.deepStrictEqual(
    forward.nodes
      .filter((n) => n.distance === 1)
      .map((n) => n.path)
      .sort(),
    native.deps({ file: "ts/src/main.ts", limit: 1000 }).files.sort(),
  );
});

test("the CLI's --json is the MCP tool's answer", async () => {
  const { CodegraphMcp } = require("../../npm/dist/mcp/server.js");
  const { inProcessClient } = require("../mcp/helpers.js");
  const cli = (args) =>
    JSON.parse(execFileSync(process.execPath, [CLI, ...args, "--root", FIXTURE, "--no-persist", "--json"], { encoding: "utf8" }));
  const mcp = new CodegraphMcp({
    session: openSession({ root: FIXTURE, persist: false }),
    version: "9.9.9",
    packageJsonPath: path.join(REPO, "package.json"),
    warn: () => {},
  });
  const client = await inProcessClient(mcp);
  const viaMcp = async (name, args) => (await client.callTool({ name, arguments: args })).structuredContent;
  const { freshness: _f1, ...loc } = cli(["loc"]);
  const { freshness: _f2, ...mcpLoc } = await viaMcp("loc", {});
  assert.deepStrictEqual(mcpLoc, loc);
  const graph = cli(["graph", "--depends-on", "rust/src/shapes/mod.rs", "--format", "markdown"]);
  const mcpGraph = await client.callTool({ name: "graph", arguments: { dependsOn: "rust/src/shapes/mod.rs", format: "markdown" } });
  assert.equal(mcpGraph.content[0].text, graph.text, "the rendered graph is the tool's text");
  await client.close();
});
