// Native and wasm must give identical answers: every question of the fixture's answer set, asked of
// both engines, compared as whole JSON; and on real code (rxjs and Scrapy, built by
// scripts/corpus.sh into CODEGRAPH_CORPUS or ~/.cache/codegraph-corpus) the questions of every tool
// family (questions.js).
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { openSession } = require("../../npm/dist/index.js");
const { ask, fixtureQuestions, corpusQuestions, RXJS_PHRASES, SCRAPY_PHRASES } = require("./questions.js");

const fixture = path.resolve(__dirname, "../fixtures/polyglot");

function compare(root, questions, label) {
  const native = openSession({ root, engine: "native" });
  const wasm = openSession({ root, engine: "wasm" });
  assert.equal(native.engine, "native");
  assert.equal(wasm.engine, "wasm");
  const qs = typeof questions === "function" ? questions(native).qs : questions;
  let differing = [];
  for (const [method, request] of qs) {
    const a = ask(native, method, request);
    const b = ask(wasm, method, request);
    try {
      assert.deepStrictEqual(b, a);
    } catch {
      differing.push(`${method} ${JSON.stringify(request)}`);
    }
  }
  assert.deepStrictEqual(differing, [], `${label}: ${differing.length} of ${qs.length} answers differ between native and wasm`);
  return qs.length;
}

test("native and wasm answer every fixture question identically", () => {
  const n = compare(fixture, fixtureQuestions(fixture), "fixture");
  assert.ok(n > 300, `asked ${n} questions`);
});

// One small project per language (C, C++, C#, SQL, PHP, Ruby, Zig, Kotlin, Swift), each with its
// own hand-checked answers.
for (const name of ["lang-c", "lang-cpp", "lang-csharp", "lang-sql", "lang-php", "lang-ruby", "lang-zig", "lang-kotlin", "lang-swift"]) {
  test(`native and wasm answer every ${name} fixture question identically`, () => {
    const root = path.resolve(__dirname, "../fixtures", name);
    const n = compare(root, fixtureQuestions(root), name);
    assert.ok(n > 60, `asked ${n} questions`);
  });
}

// The hand-checked inference fixture (Rust, TypeScript, Python and more): every tool family's
// questions of its own symbols, Rust macros whose metavariables are bound across files among them.
test("native and wasm answer identically on the inference fixture", () => {
  const root = path.resolve(__dirname, "../fixtures/inference");
  const n = compare(root, (s) => corpusQuestions(s), "inference fixture");
  assert.ok(n > 300, `asked ${n} questions`);
});

// The corpora are built by scripts/corpus.sh (the test command runs it first): a missing corpus is a
// failure, not a skip.
const corpusRoot = process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache", "codegraph-corpus");

for (const [name, dir, phrases, minimum] of [
  ["TypeScript (rxjs)", "ts", RXJS_PHRASES, 1000],
  ["Python (Scrapy)", "py-small", SCRAPY_PHRASES, 1000],
]) {
  test(`native and wasm answer identically on the ${name} corpus`, () => {
    const root = path.join(corpusRoot, dir);
    assert.ok(fs.existsSync(root), `${root} is missing: run bash scripts/corpus.sh`);
    const n = compare(root, (s) => corpusQuestions(s, { phrases }), `${dir} corpus`);
    assert.ok(n > minimum, `asked ${n} questions`);
  });
}
