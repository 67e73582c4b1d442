// Progress of long builds: the engines report parse batches and the start of resolution through
// Session.prepare; the CLI turns them into redrawn stderr lines only when stderr is a terminal, never
// with --json, and never for a build short enough not to need it.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { copyFixture } = require("../fixture.js");

const { openSession } = require("../../npm/dist/index.js");
const { progressReporter, run } = require("../../npm/dist/cli/main.js");

const bin = path.resolve(__dirname, "../../bin/codegraph.js");
const fixture = path.resolve(__dirname, "../fixtures/polyglot");

for (const engine of ["native", "wasm"]) {
  test(`${engine}: prepare reports every parsed file, then resolution, and builds once`, () => {
    const session = openSession({ root: fixture, engine });
    const events = [];
    session.prepare((phase, done, total) => events.push([phase, done, total]));
    const files = session.status().files;
    const parse = events.filter((e) => e[0] === "parse");
    assert.ok(parse.length >= 1);
    assert.deepStrictEqual(parse.at(-1).slice(1), [files, files], "the last parse report covers every file");
    for (let i = 1; i < parse.length; i++) assert.ok(parse[i][1] > parse[i - 1][1], "done only grows");
    assert.deepStrictEqual(events.at(-1), ["resolve", 0, files]);
    const again = [];
    session.prepare((...e) => again.push(e));
    assert.deepStrictEqual(again, [], "a built index is not built again");
  });
}

test("a throwing progress callback does not break the build", () => {
  const session = openSession({ root: fixture, engine: "native" });
  session.prepare(() => {
    throw new Error("listener bug");
  });
  assert.ok(session.status().files > 0);
});

test("the reporter is silent for half a second, throttles, and clears what it drew", () => {
  let clock = 0;
  const lines = [];
  const p = progressReporter(
    (l) => lines.push(l),
    () => clock,
  );
  p.report("parse", 512, 4000);
  clock = 400;
  p.report("parse", 1024, 4000);
  assert.deepStrictEqual(lines, [], "nothing before 500 ms");
  clock = 1000;
  p.report("parse", 2048, 4000);
  clock = 1050;
  p.report("parse", 2560, 4000);
  clock = 1200;
  p.report("parse", 4000, 4000);
  p.report("resolve", 0, 4000);
  p.finish();
  assert.deepStrictEqual(lines, [
    "indexing: 2048/4000 files parsed (2048 files/s)",
    "indexing: 4000/4000 files parsed (3333 files/s)",
    "indexing: resolving references across 4000 files",
    "",
  ]);
  const quiet = progressReporter(
    (l) => lines.push(l),
    () => 0,
  );
  quiet.report("parse", 1, 1);
  quiet.finish();
  assert.equal(lines.length, 4, "a build that never showed progress clears nothing");
});

test("the CLI asks for progress only for people: not with --json", async () => {
  const calls = [];
  const io = { out: () => {}, err: () => {}, progress: (l) => calls.push(l) };
  // The fixture builds in well under half a second, so a shown line would be a bug either way; what
  // is checked is that --json never even builds through the progress path.
  assert.equal(await run(["status", "--json", "--no-persist", "--root", fixture], io), 0);
  assert.equal(await run(["status", "--no-persist", "--root", fixture], io), 0);
  assert.deepStrictEqual(calls, []);
});

test("stderr that is not a terminal gets no progress", (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-progress-"));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  copyFixture(root);
  const r = spawnSync(process.execPath, [bin, "index", "--root", root], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
});
