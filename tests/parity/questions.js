// The questions the parity suite asks an engine about a repository: every hand-checked question of
// a fixture's expected.json, plus the broad requests (orient, status, search, symbols). Answers are
// collected as plain JSON (errors as { error: code }) so two engines can be compared whole.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

/** A status answer without its clock readings (build timings, snapshot age), which differ from run
 *  to run on any engine; every other answer as it is. Everything else must match exactly. */
function withoutClock(answer) {
  if (answer && typeof answer === "object" && answer.timings && answer.snapshot) {
    const { timings, ...rest } = answer;
    const { ageMs, ...snapshot } = answer.snapshot;
    return { ...rest, snapshot };
  }
  return answer;
}

function ask(session, method, request) {
  try {
    return withoutClock(session[method](request));
  } catch (e) {
    return { error: e.code ?? "NO_CODE", message: e.message };
  }
}

function pos(text) {
  const m = /^(.+?):(\d+)(?::(\d+))?$/.exec(text);
  return { file: m[1], line: Number(m[2]), column: m[3] === undefined ? undefined : Number(m[3]) };
}

/** Questions from a fixture's expected.json. */
function fixtureQuestions(root) {
  const expected = JSON.parse(fs.readFileSync(path.join(root, "expected.json"), "utf8"));
  const qs = [
    ["orient", {}],
    ["status", {}],
    ["search", { query: "circle area" }],
    ["search", { query: "slugify" }],
    ["search", { query: "where is the discount applied to an order total?", limit: 100 }],
    ["explore", { query: "sum the areas of circles on a worker thread", includeSource: true }],
    ["explore", { query: "cart total with a discount", limit: 30, packets: 10, listLimit: 50 }],
    ["explore", { query: "go/money/util.go" }],
    ["packetGet", { target: "Order" }],
    ["packetGet", { target: "ts/src/geo/circle.ts" }],
    ["context", { compress: "skeleton", format: "markdown" }],
    ["context", { compress: "signatures", budget: "3k" }],
    ["context", { focusSymbol: ["Circle", "slugify"], budget: 1000 }],
    ["workspaceSymbols", { query: "Order" }],
    ["workspaceSymbols", { query: "format", includeImports: true }],
    ["getFile", { file: "ts/src/main.ts", offset: 2, limit: 3, includeGraphContext: true }],
  ];
  for (const s of expected.symbols) qs.push(["getSymbol", { handle: s.handle }]);
  for (const g of expected.goto) qs.push(["goto", pos(g.from)]);
  for (const r of expected.refs) qs.push(["refs", { handle: r.target }]);
  for (const c of expected.callers) qs.push(["callers", { handle: c.target, depth: 2 }]);
  for (const c of expected.callees) qs.push(["callees", { handle: c.source, depth: 2 }]);
  for (const d of expected.deps) qs.push(["deps", { file: d.file }]);
  for (const d of expected.rdeps) qs.push(["rdeps", { file: d.file }]);
  for (const p of expected.path) qs.push(["path", { from: p.from, to: p.to }]);
  return qs;
}

/** Questions for any repository: every file's deps/rdeps and every symbol's refs/callers/callees. */
function corpusQuestions(session, { maxSymbols = 1500 } = {}) {
  const qs = [
    ["orient", { limit: 50 }],
    ["status", {}],
  ];
  const status = session.status({});
  const handles = new Set();
  for (const query of ["a", "e", "i", "o", "s", "t"]) {
    for (const s of session.workspaceSymbols({ query, limit: 500 }).symbols) handles.add(s.handle);
  }
  const files = session.orient({ limit: 50 }).mostDependedOn.map((f) => f.path);
  for (const f of files) {
    qs.push(["deps", { file: f, limit: 1000 }], ["rdeps", { file: f, limit: 1000 }]);
    qs.push(["getFile", { file: f, limit: 50, includeGraphContext: true }]);
  }
  for (const h of [...handles].sort().slice(0, maxSymbols)) {
    qs.push(["getSymbol", { handle: h }], ["refs", { handle: h, limit: 2000 }], ["callers", { handle: h }], ["callees", { handle: h }]);
  }
  qs.push(["search", { query: "subscribe observable" }], ["workspaceSymbols", { query: "pipe", limit: 500 }]);
  for (const query of [
    "where does a failed stream get resubscribed a limited number of times?",
    "emit the latest value after a quiet period",
    "share one subscription between many subscribers",
    "Subscription",
  ]) {
    qs.push(["search", { query, limit: 100 }], ["explore", { query, includeSource: true, packets: 10 }]);
  }
  qs.push(["context", { compress: "skeleton", budget: "50k" }], ["context", { compress: "signatures", format: "markdown" }]);
  return { qs, fileCount: status.files };
}

module.exports = { ask, withoutClock, fixtureQuestions, corpusQuestions };
