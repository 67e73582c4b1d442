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
  for (const p of expected.path ?? []) qs.push(["path", { from: p.from, to: p.to }]);
  // Names as the words of a search and as packet targets (a SQL object by its name, too).
  for (const s of expected.symbols.slice(0, 12)) {
    const name = s.handle.split("::").pop();
    qs.push(["search", { query: name }], ["packetGet", { target: name }]);
  }
  for (const s of expected.symbols)
    qs.push(
      ["supertypes", { handle: s.handle, depth: 3 }],
      ["subtypes", { handle: s.handle, depth: 3 }],
      ["implementations", { handle: s.handle }],
    );
  for (const d of expected.rdeps) qs.push(["impact", { files: [d.file], depth: 2, fail_on: 2 }]);
  return qs;
}

/**
 * Questions for any repository, one generator per tool family, drawn from the repository itself:
 * its most depended-on files, symbols found by common letters, their use sites, their names and doc
 * words as queries. `phrases` adds questions in words written for that corpus.
 */
const FAMILIES = {
  overview(session) {
    return [
      ["orient", { limit: 50 }],
      ["status", {}],
    ];
  },
  files(session, { files }) {
    const qs = [];
    for (const f of files)
      qs.push(
        ["deps", { file: f, limit: 1000 }],
        ["rdeps", { file: f, limit: 1000 }],
        ["getFile", { file: f, limit: 50, includeGraphContext: true }],
      );
    for (let i = 0; i + 1 < files.length; i += 2) qs.push(["path", { from: files[i + 1], to: files[i] }]);
    return qs;
  },
  navigation(session, { handles }) {
    const qs = [];
    for (const h of handles)
      qs.push(["getSymbol", { handle: h }], ["refs", { handle: h, limit: 2000 }], ["callers", { handle: h }], ["callees", { handle: h }]);
    // goto from real use sites: the first site of every 25th symbol.
    for (const h of handles.filter((_, i) => i % 25 === 0)) {
      const site = session.refs({ handle: h, limit: 1 }).refs[0];
      if (site)
        qs.push(
          ["goto", { file: site.path, line: site.line, column: site.column }],
          ["refs", { file: site.path, line: site.line, column: site.column }],
        );
    }
    return qs;
  },
  hierarchy(session, { handles }) {
    // Every handle: a type's relations, a member's implementations, anything else the same error.
    return handles.flatMap((h) => [
      ["supertypes", { handle: h, depth: 10 }],
      ["subtypes", { handle: h, depth: 10, limit: 500 }],
      ["implementations", { handle: h, limit: 500 }],
    ]);
  },
  impact(session, { files }) {
    return [
      ["impact", { files, depth: 3, fail_on: 10, format: "full", limit: 500 }],
      ...files.slice(0, 10).map((f) => ["impact", { files: [f], depth: 5, focus: [f.split("/")[0]] }]),
    ];
  },
  search(session, { names, phrases }) {
    const qs = [];
    for (const name of names)
      qs.push(["search", { query: name, limit: 100 }], ["workspaceSymbols", { query: name, limit: 500, includeImports: true }]);
    for (const query of phrases) qs.push(["search", { query, limit: 100 }]);
    return qs;
  },
  explore(session, { names, phrases, files, handles }) {
    const qs = [];
    for (const query of [...names.slice(0, 6), ...phrases]) qs.push(["explore", { query, includeSource: true, packets: 10 }]);
    for (const f of files.slice(0, 5)) qs.push(["explore", { query: f }], ["packetGet", { target: f }]);
    for (const h of handles.slice(0, 40)) qs.push(["packetGet", { target: h, limit: 50 }]);
    for (const name of names.slice(0, 10)) qs.push(["packetGet", { target: name, includeSource: false }]);
    return qs;
  },
  refactor(session, { handles }) {
    // Every 25th symbol renamed and planned: the edit half of the tools answers alike too.
    return handles
      .filter((_, i) => i % 25 === 3)
      .flatMap((h) => [
        ["renamePreview", { handle: h, newName: "zzRenamed" }],
        ["refactorPlan", { handle: h, renameTo: "zzRenamed", maxReferences: 50, maxCallers: 20 }],
      ]);
  },
  context(session, { files, names }) {
    const dir = files[0]?.includes("/") ? files[0].slice(0, files[0].lastIndexOf("/")) : undefined;
    return [
      ["context", { compress: "skeleton", budget: "50k" }],
      ["context", { compress: "signatures", format: "markdown" }],
      ["context", { focusSymbol: names.slice(0, 5), budget: "20k" }],
      ...(dir ? [["context", { focus: [dir], compress: "skeleton", budget: "8k", format: "markdown" }]] : []),
    ];
  },
};

function corpusQuestions(session, { maxSymbols = 1500, phrases = [] } = {}) {
  const status = session.status({});
  const found = new Set();
  for (const query of ["a", "e", "i", "o", "s", "t"]) {
    for (const s of session.workspaceSymbols({ query, limit: 500 }).symbols) found.add(s.handle);
  }
  const handles = [...found].sort().slice(0, maxSymbols);
  const files = session.orient({ limit: 50 }).mostDependedOn.map((f) => f.path);
  const names = [...new Set(handles.filter((_, i) => i % 50 === 0).map((h) => h.split("::").pop()))];
  const facts = { handles, files, names, phrases };
  const qs = Object.values(FAMILIES).flatMap((family) => family(session, facts));
  return { qs, fileCount: status.files };
}

/** Questions in words about rxjs, the TypeScript corpus. */
const RXJS_PHRASES = [
  "subscribe observable",
  "where does a failed stream get resubscribed a limited number of times?",
  "emit the latest value after a quiet period",
  "share one subscription between many subscribers",
  "Subscription",
];

/** Questions in words about Scrapy, the Python corpus. */
const SCRAPY_PHRASES = [
  "how are requests retried after a failed download?",
  "where are cookies stored between requests",
  "follow links found in a crawled page",
  "Spider",
];

module.exports = { ask, withoutClock, fixtureQuestions, corpusQuestions, RXJS_PHRASES, SCRAPY_PHRASES };
