// The README's two commands run in that order on a fresh clone: the first must leave nothing
// behind that changes what the second tests. Its question is asked here as written.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const repo = path.resolve(__dirname, "../..");

test("the README's first command asks its question without writing into the fixtures", () => {
  const readme = fs.readFileSync(path.join(repo, "README.md"), "utf8");
  const first = /```sh\n([^\n]+)\n/.exec(readme)[1];
  const question = first.split("&&")[1].trim();
  assert.match(question, /^node bin\/codegraph\.js /);
  const args = question
    .replace(/^node bin\/codegraph\.js /, "")
    .match(/'[^']*'|\S+/g)
    .map((a) => a.replace(/^'|'$/g, ""));
  const index = path.join(repo, "tests/fixtures/polyglot/.codegraph");
  const existed = fs.existsSync(index);
  const r = spawnSync(process.execPath, [path.join(repo, "bin/codegraph.js"), ...args], { cwd: repo, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /callers of rust\/src\/jobs\.rs::spawn_job/);
  if (!existed) assert.ok(!fs.existsSync(index), "the first command persisted an index into the committed fixture");
});
