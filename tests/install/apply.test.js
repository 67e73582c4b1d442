// apply.ts, the installer's only writer: a write interrupted between the temporary file and the
// rename leaves the original intact (and no temporary file behind), a file changed since the plan
// is refused, backups are byte-for-byte copies, and a failure stops the rest of that target only.
"use strict";

const { test } = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const { sandbox, planner, apply, snapshot, write, read, fixture } = require("./helpers");
const nodeFiles = require("./helpers").environment.nodeFileView;

function planFor(box, targets, action = "install") {
  return planner.plan({ action, targets, scope: "user", environment: box.environment, files: nodeFiles });
}

test("a rename that fails leaves the original byte-identical and removes the temporary file", (t) => {
  const box = sandbox(t);
  const file = path.join(box.home, ".claude.json");
  const original = fixture("claude.claude.json");
  write(file, original);
  const p = planFor(box, ["claude"]);
  assert.equal(p.edits[0].kind, "modify");
  let renamed = 0;
  const results = apply.applyPlan(p.edits, {
    ops: {
      rename: () => {
        renamed++;
        const err = new Error("EIO: simulated crash between write and rename");
        err.code = "EIO";
        throw err;
      },
    },
  });
  assert.equal(renamed, 1);
  assert.equal(results[0].status, "failed");
  assert.match(results[0].reason, /simulated crash.*left as it was/);
  assert.equal(read(file), original, "the original is intact");
  const left = Object.keys(snapshot(box.home));
  assert.ok(!left.some((name) => name.includes("codegraph-tmp")), `no temporary file left: ${left}`);
});

test("a crash after the temporary file is written (before the rename) never exposes a partial file", (t) => {
  const box = sandbox(t);
  const file = path.join(box.home, ".codex/config.toml");
  const original = fixture("codex.config.toml");
  write(file, original);
  const p = planFor(box, ["codex"]);
  let seenTemp;
  apply.applyPlan(p.edits, {
    ops: {
      rename: (from) => {
        seenTemp = from;
        // The temporary file is complete and in the same directory, so the rename would be atomic.
        assert.equal(path.dirname(from), path.dirname(file));
        assert.equal(fs.readFileSync(from, "utf8"), p.edits[0].after);
        assert.equal(read(file), original);
        throw new Error("killed");
      },
    },
  });
  assert.ok(seenTemp);
  assert.equal(read(file), original);
  assert.equal(fs.existsSync(seenTemp), false);
});

test("a file changed after planning is not written", (t) => {
  const box = sandbox(t);
  const file = path.join(box.home, ".gemini/settings.json");
  write(file, '{ "theme": "a" }\n');
  const p = planFor(box, ["gemini"]);
  write(file, '{ "theme": "b" }\n');
  const [result] = apply.applyPlan(p.edits);
  assert.equal(result.status, "failed");
  assert.match(result.reason, /changed since the plan was made/);
  assert.equal(read(file), '{ "theme": "b" }\n');
});

test("a file created after planning a create is not overwritten", (t) => {
  const box = sandbox(t);
  const p = planFor(box, ["cursor"]);
  assert.equal(p.edits[0].kind, "create");
  write(path.join(box.home, ".cursor/mcp.json"), "{}\n");
  assert.equal(apply.applyPlan(p.edits)[0].status, "failed");
  assert.equal(read(path.join(box.home, ".cursor/mcp.json")), "{}\n");
});

test("one backup per file, an exact copy as private as the file, replaced by the next; file modes are kept", (t) => {
  const box = sandbox(t);
  const file = path.join(box.home, ".claude.json");
  write(file, '{"numStartups": 3}');
  fs.chmodSync(file, 0o600);
  const p = planFor(box, ["claude"]);
  const [result] = apply.applyPlan(p.edits);
  assert.equal(result.status, "written");
  assert.equal(result.backup, `${file}.codegraph-backup`);
  assert.equal(read(result.backup), '{"numStartups": 3}');
  assert.equal(fs.statSync(result.backup).mode & 0o777, 0o600, "the backup is as private as the config");
  assert.equal(fs.statSync(file).mode & 0o777, 0o600, "the config keeps its permissions");
  const installed = read(file);
  // The next cycle replaces it: one backup, holding the file as the last run found it.
  const u = planFor(box, ["claude"], "uninstall");
  const [second] = apply.applyPlan(u.edits);
  assert.equal(second.backup, `${file}.codegraph-backup`);
  assert.equal(read(second.backup), installed);
  assert.doesNotMatch(read(file), /codegraph/);
  assert.deepStrictEqual(
    fs.readdirSync(box.home).filter((n) => n.includes("backup")),
    [".claude.json.codegraph-backup"],
  );
});

test("a failed write stops the later edits of that target, not of the others", (t) => {
  const box = sandbox(t);
  const p = planFor(box, ["gemini", "agents"]);
  const marker = p.edits.find((e) => e.target === "agents");
  const results = apply.applyPlan(p.edits, {
    ops: {
      writeNewFile: (file, data, mode) => {
        if (file.includes(".codegraph-install")) {
          fs.writeFileSync(file, data.slice(0, 5)); // a partial temporary file, then the disk is full
          throw new Error("ENOSPC: disk full");
        }
        apply.nodeFileOps.writeNewFile(file, data, mode);
      },
    },
  });
  const byPath = (p2) => results.find((r) => r.edit.path === p2);
  assert.equal(byPath(path.join(box.home, ".gemini/settings.json")).status, "written");
  assert.equal(byPath(marker.path).status, "failed");
  assert.equal(byPath(path.join(box.home, ".agents/skills/codegraph/SKILL.md")).status, "skipped");
  assert.equal(read(path.join(box.home, ".agents/skills/codegraph/SKILL.md")), undefined);
  const left = Object.keys(snapshot(box.home));
  assert.ok(!left.some((name) => name.includes("codegraph-tmp")), `the partial temporary file is removed: ${left}`);
});
