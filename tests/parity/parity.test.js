// Native and wasm must give identical answers: every question of the fixture's answer set, asked of
// both engines, compared as whole JSON. On a corpus (CODEGRAPH_CORPUS or ~/.cache/codegraph-corpus,
// built by ../shared/corpus/make-corpus.sh), the same comparison runs over the TypeScript corpus.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { openSession } = require("../../npm/dist/index.js");
const { ask, fixtureQuestions, corpusQuestions } = require("./questions.js");

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

const corpusRoot = process.env.CODEGRAPH_CORPUS ?? path.join(os.homedir(), ".cache", "codegraph-corpus");
const tsCorpus = path.join(corpusRoot, "ts");
test(
  "native and wasm answer identically on the TypeScript corpus",
  { skip: !fs.existsSync(tsCorpus) && "corpus not built (../shared/corpus/make-corpus.sh)" },
  () => {
    const n = compare(tsCorpus, (s) => corpusQuestions(s), "ts corpus");
    assert.ok(n > 1000, `asked ${n} questions`);
  },
);
