// The MCP server in-process, with a real SDK Client over an in-memory linked transport: the tool
// list (flat schemas that reject unknown fields, small), every tool on the fixture, wrong arguments
// as invalid params and other failures as isError results while the server keeps serving, a tool
// subset, freshness, and version drift.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { openSession } = require("../../npm/dist/index.js");
const { CodegraphMcp } = require("../../npm/dist/mcp/server.js");
const { fixture, inProcessClient, body } = require("./helpers.js");

function mcpFor(root, extra = {}, sessionOptions = {}) {
  return new CodegraphMcp({
    session: openSession({ root, autoRefresh: {}, ...sessionOptions }),
    version: "9.9.9",
    packageJsonPath: path.join(__dirname, "../../package.json"),
    warn: () => {},
    ...extra,
  });
}

test("tools/list: every tool, flat schemas that reject unknown fields, small", async () => {
  const client = await inProcessClient(mcpFor(fixture));
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.deepStrictEqual(names, [
    "orient",
    "explore",
    "search",
    "packet_get",
    "workspace_symbols",
    "get_file",
    "get_symbol",
    "goto",
    "refs",
    "callers",
    "callees",
    "deps",
    "rdeps",
    "path",
    "supertypes",
    "subtypes",
    "implementations",
    "impact",
    "review",
    "rename_preview",
    "refactor_plan",
    "loc",
    "graph",
    "context",
    "query_sqlite",
    "artifact_build",
    "status",
    "refresh_index",
  ]);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object", t.name);
    assert.equal(t.inputSchema.additionalProperties, false, t.name);
    for (const [field, prop] of Object.entries(t.inputSchema.properties ?? {})) {
      assert.ok(!("$ref" in prop) && !("anyOf" in prop), `${t.name}.${field} is flat`);
    }
    assert.ok(t.description.length > 20, `${t.name} says when to use it`);
  }
  const bytes = Buffer.byteLength(JSON.stringify({ tools }));
  assert.ok(bytes < 19500, `tools/list is ${bytes} bytes`);
  await client.close();
});

test("every tool answers on the fixture; failures are isError and the server keeps serving", async () => {
  const client = await inProcessClient(mcpFor(fixture));
  const call = (name, args) => client.callTool({ name, arguments: args });
  const ok = async (name, args) => {
    const r = await call(name, args);
    assert.ok(!r.isError, `${name}: ${r.content[0].text}`);
    assert.deepStrictEqual(r.structuredContent, body(r));
    return r.structuredContent;
  };
  assert.equal((await ok("orient", {})).files, 41);
  assert.ok((await ok("search", { query: "spawn job" })).hits.length > 0);
  const explored = await ok("explore", { query: "sum the areas of circles on a worker thread" });
  assert.equal(explored.anchors[0].path, "rust/src/jobs.rs");
  assert.ok(explored.packets.length > 0 && explored.followUps.length > 0);
  assert.equal((await ok("explore", { query: "ts/src/main.ts" })).fileView.file, "ts/src/main.ts");
  assert.equal((await ok("packet_get", { target: "slugify" })).packet.target, "py/shop/util/text.py::slugify");
  const pack = await ok("context", { budget: "2k", compress: "signatures" });
  assert.ok(pack.usedTokens <= 2000 && pack.entries.length > 0);
  // A markdown pack is the tool's text; the rest stays structured.
  const md = await call("context", { format: "markdown", focusSymbol: ["slugify"] });
  assert.ok(!md.isError);
  assert.match(md.content[0].text, /^# Context pack\n/);
  assert.match(md.content[0].text, /```python\ndef slugify\(title\):/);
  assert.equal(md.structuredContent.entries[0].handle, "py/shop/util/text.py::slugify");
  assert.equal(md.structuredContent.markdown, undefined);
  assert.equal((await ok("workspace_symbols", { query: "Circle::new" })).symbols[0].handle, "rust/src/shapes/circle.rs::Circle::new");
  assert.match((await ok("get_file", { file: "ts/src/main.ts", limit: 2 })).content, /^1\t/);
  assert.equal((await ok("get_symbol", { handle: "go/cart/cart.go::Cart" })).symbol.kind, "struct");
  assert.equal((await ok("goto", { file: "ts/src/main.ts", line: 7, column: 17 })).definitions[0].path, "ts/src/geo/circle.ts");
  assert.ok((await ok("refs", { handle: "ts/src/geo/circle.ts::Circle" })).total >= 3);
  assert.equal((await ok("callers", { handle: "rust/src/jobs.rs::spawn_job" })).groups[0].handle, "rust/src/report.rs::summary");
  assert.ok((await ok("callees", { handle: "rust/src/report.rs::summary" })).groups.length >= 4);
  assert.ok((await ok("deps", { file: "ts/src/main.ts" })).files.includes("ts/src/geo/index.ts"));
  assert.ok((await ok("rdeps", { file: "rust/src/shapes/mod.rs" })).total >= 1);
  assert.ok((await ok("path", { from: "ts/src/main.ts", to: "ts/src/geo/shape.ts" })).path.length === 3);
  // The type hierarchy in four languages (Go's is in the core's tests).
  const handlesOf = (list) => list.map((t) => t.symbol.handle);
  assert.deepStrictEqual(handlesOf((await ok("subtypes", { handle: "ts/src/geo/shape.ts::Shape" })).types), [
    "ts/src/geo/circle.ts::Circle",
    "ts/src/geo/shape.ts::Polygon",
  ]);
  assert.deepStrictEqual(handlesOf((await ok("implementations", { handle: "ts/src/geo/shape.ts::Shape::area" })).implementations), [
    "ts/src/geo/circle.ts::Circle::area",
    "ts/src/geo/shape.ts::Polygon::area",
    "ts/src/geo/square.ts::Square::area",
  ]);
  const java = "java/src/main/java/com/example/shop/model/";
  assert.deepStrictEqual(handlesOf((await ok("implementations", { handle: `${java}Priced.java::Priced` })).implementations), [
    `${java}Order.java::Order`,
    `${java}DiscountedOrder.java::DiscountedOrder`,
  ]);
  const upJava = (await ok("supertypes", { handle: `${java}DiscountedOrder.java::DiscountedOrder`, depth: 2 })).types;
  assert.deepStrictEqual(
    upJava.map((t) => [t.symbol.handle, t.depth, t.relation]),
    [
      [`${java}Order.java::Order`, 1, "extends"],
      [`${java}Priced.java::Priced`, 2, "implements"],
    ],
  );
  assert.deepStrictEqual(handlesOf((await ok("supertypes", { handle: "py/shop/promotions.py::Special" })).types), [
    "py/shop/models.py::Order",
  ]);
  assert.deepStrictEqual(handlesOf((await ok("implementations", { handle: "rust/src/shapes/mod.rs::Shape::area" })).implementations), [
    "rust/src/shapes/circle.rs::Circle::area",
    "rust/src/shapes/square.rs::Square::area",
  ]);
  // The files form of impact needs no git; its gate is data.
  const gated = await ok("impact", { files: ["rust/src/shapes/mod.rs"], fail_on: 1 });
  assert.equal(gated.gate.crossed, true);
  assert.equal(gated.gate.exit_code, 2);
  assert.equal((await ok("impact", { files: ["rust/src/shapes/mod.rs"] })).gate, null);
  const renamed = await ok("rename_preview", { handle: "ts/src/geo/shape.ts::Shape::area", newName: "size" });
  assert.ok(renamed.edits.some((e) => e.kind === "implementation" && e.path === "ts/src/geo/circle.ts"));
  assert.ok(renamed.renamed.length >= 4);
  const planned = await ok("refactor_plan", { handle: "ts/src/geo/shape.ts::Shape", renameTo: "Figure", maxReferences: 0 });
  assert.equal(planned.references.length, 0);
  assert.ok(planned.referenceCount > 0 && planned.rename.edits.length > 0);
  assert.equal((await ok("status", {})).files, 41);
  assert.equal((await ok("refresh_index", {})).rebuilt, true);

  const bad = [
    ["refs", { handle: "x", file: "y", line: 1 }, "INVALID_ARGUMENT"],
    ["workspace_symbols", { query: "x", bogus: true }, "INVALID_ARGUMENT"],
    ["callers", { handle: "no::such" }, "NOT_FOUND"],
    ["get_file", { file: "../../etc/passwd" }, "OUTSIDE_ROOT"],
    ["callers", { handle: "rust/src/jobs.rs::spawn_job", depth: 6 }, "INVALID_ARGUMENT"],
    ["no_such_tool", {}, "INVALID_ARGUMENT"],
    ["explore", { query: "" }, "INVALID_ARGUMENT"],
    ["context", { diff: "--output=/tmp/pwned" }, "INVALID_ARGUMENT"],
    ["context", { budget: "lots" }, "INVALID_ARGUMENT"],
    ["packet_get", { target: "nothing_like_this" }, "NOT_FOUND"],
    ["refs", { handle: 5 }, "INVALID_ARGUMENT"],
    ["refresh_index", { bogus: 1 }, "INVALID_ARGUMENT"],
    ["status", { verbose: true }, "INVALID_ARGUMENT"],
    ["supertypes", { handle: "rust/src/jobs.rs::spawn_job" }, "INVALID_ARGUMENT"],
    ["subtypes", { handle: "ts/src/geo/shape.ts::Shape", depth: 11 }, "INVALID_ARGUMENT"],
    ["impact", { base: "--output=/tmp/pwned" }, "INVALID_ARGUMENT"],
    ["review", { base: "HEAD", reviewDepth: "endless" }, "INVALID_ARGUMENT"],
    ["rename_preview", { handle: "ts/src/geo/shape.ts::Shape", newName: "class" }, "INVALID_ARGUMENT"],
    ["refactor_plan", { handle: "ts/src/geo/shape.ts::Shape", maxHierarchy: 501 }, "INVALID_ARGUMENT"],
  ];
  for (const [name, args, code] of bad) {
    if (code === "INVALID_ARGUMENT") {
      // Arguments the tool does not take are the protocol's invalid params, with the core's code.
      await assert.rejects(call(name, args), (e) => e.code === -32602 && e.data?.code === code, `${name} ${JSON.stringify(args)}`);
      continue;
    }
    const r = await call(name, args);
    assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
    assert.equal(body(r).error.code, code, `${name}: ${r.content[0].text}`);
  }
  // Still serving.
  assert.equal((await ok("orient", {})).files, 41);
  await client.close();
});

test("a tool subset: only those are listed and answered; an unknown name is refused with the list", async () => {
  const { selectTools } = require("../../npm/dist/mcp/server.js");
  const client = await inProcessClient(mcpFor(fixture, { tools: ["explore", "refs"] }));
  assert.deepStrictEqual(
    (await client.listTools()).tools.map((t) => t.name),
    ["explore", "refs"],
  );
  await assert.rejects(
    client.callTool({ name: "callers", arguments: { handle: "rust/src/jobs.rs::spawn_job" } }),
    /unknown tool "callers"; tools: explore, refs/,
  );
  await client.close();
  assert.throws(() => selectTools(["refs", "nope"]), /unknown tool nope; tools: orient, explore/);
});

test("freshness: one edit refreshes, a burst over the limit is stale with counts", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-mcp-fresh-"));
  fs.writeFileSync(path.join(root, "a.py"), "def alpha():\n    return 1\n");
  fs.writeFileSync(path.join(root, "b.py"), "from a import alpha\n\nalpha()\n");
  const client = await inProcessClient(mcpFor(root, {}, { autoRefresh: { maxFiles: 5 } }));
  const callers = async () => (await client.callTool({ name: "callers", arguments: { handle: "a.py::alpha" } })).structuredContent;
  assert.equal((await callers()).freshness.state, "fresh");
  fs.writeFileSync(path.join(root, "a.py"), "def alpha():\n    return 1\n\n\ndef beta():\n    return alpha()\n");
  const refreshed = await callers();
  assert.equal(refreshed.freshness.state, "refreshed");
  assert.equal(refreshed.freshness.changedFileCount, 1);
  assert.deepStrictEqual(
    refreshed.groups.map((g) => g.handle),
    ["a.py::beta", "b.py"],
  );
  for (let i = 0; i < 8; i++) fs.writeFileSync(path.join(root, `n${i}.py`), `def f${i}():\n    pass\n`);
  const stale = await callers();
  assert.equal(stale.freshness.state, "stale");
  assert.equal(stale.freshness.changedFileCount, 8);
  assert.equal(stale.freshness.omittedChangedFileCount, 0);
  assert.equal(stale.freshness.changedFiles.length, 8);
  // refresh_index forces the rebuild.
  await client.callTool({ name: "refresh_index", arguments: {} });
  assert.equal((await callers()).freshness.state, "fresh");
  await client.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test("version drift: one deduplicated warning, calls keep succeeding", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-mcp-drift-"));
  const pkg = path.join(dir, "package.json");
  fs.writeFileSync(pkg, JSON.stringify({ name: "codegraph", version: "9.9.9" }));
  const warnings = [];
  let now = 0;
  const mcp = mcpFor(fixture, { packageJsonPath: pkg, driftIntervalMs: 30000, now: () => now, warn: (m) => warnings.push(m) });
  const client = await inProcessClient(mcp);
  const call = async () => assert.ok(!(await client.callTool({ name: "orient", arguments: {} })).isError);
  fs.writeFileSync(pkg, JSON.stringify({ name: "codegraph", version: "10.0.0" }));
  now += 1000;
  await call(); // within the interval: not read yet
  assert.equal(warnings.length, 0);
  now += 30000;
  await call();
  now += 30000;
  await call();
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /10\.0\.0.*9\.9\.9.*restart/);
  fs.rmSync(pkg);
  now += 30000;
  await call(); // unreadable: a second, different warning, and still no failure
  now += 30000;
  await call();
  assert.equal(warnings.length, 2);
  assert.match(warnings[1], /cannot read/);
  await client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
