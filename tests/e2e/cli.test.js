// End-to-end tests for the codegraph CLI (bin/codegraph.js) on the polyglot fixture.
//
// Every command runs once in human form and once with --json, for both engines (native and wasm);
// JSON answers are checked against tests/fixtures/polyglot/expected.json and must be identical
// across engines. Also covered: --help / --version / no arguments, and exit codes for bad usage
// (2), not found (1) and outside-root paths (2).
//
// Run: node --test tests/e2e/

"use strict";

const { describe, test } = require("node:test");
const assert = require("node:assert/strict");
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const REPO = path.resolve(__dirname, "..", "..");
const CLI = path.join(REPO, "bin", "codegraph.js");
const FIXTURE = path.join(REPO, "tests", "fixtures", "polyglot");
const EXPECTED = require(path.join(FIXTURE, "expected.json"));
const { withoutClock } = require("../parity/questions.js");
const VERSION = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).version;

const ENGINES = ["native", "wasm"];
const COMMAND_NAMES = [
  "orient",
  "explore",
  "packet",
  "context",
  "search",
  "symbols",
  "file",
  "symbol",
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
  "rename-preview",
  "refactor-plan",
  "loc",
  "graph",
  "status",
];

// ---------------------------------------------------------------------------------------------
// Helpers

/** The environment for the CLI, without variables that would override the engine choice. */
function cleanEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  if (!("CODEGRAPH_FORCE_WASM" in extra)) delete env.CODEGRAPH_FORCE_WASM;
  delete env.CODEGRAPH_NATIVE_PATH;
  return env;
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs the CLI with exactly these arguments; returns { status, stdout, stderr }. */
function cli(args, { env } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, env: cleanEnv(env), encoding: "utf8", timeout: 60_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const memo = new Map();

/**
 * Runs `codegraph <args> --root <fixture> --engine <engine>` (memoized, so the cross-engine checks
 * reuse the per-engine runs). A background build may briefly replace the native addon; a failure
 * to load it is retried a few times instead of being reported as a CLI bug.
 */
function run(engine, args) {
  // --no-persist: the shared fixture folder stays as committed (persistence has its own tests).
  const full = [...args, "--root", FIXTURE, "--no-persist", ...(engine ? ["--engine", engine] : [])];
  const key = JSON.stringify(full);
  if (memo.has(key)) return memo.get(key);
  let r = cli(full);
  for (let i = 0; i < 5 && engine === "native" && /native engine could not be loaded/.test(r.stderr); i++) {
    sleep(2000);
    r = cli(full);
  }
  memo.set(key, r);
  return r;
}

/** Asserts a successful run and returns its stdout. */
function ok(r, what) {
  const info = `${what}\nexit ${r.status}\nstderr: ${r.stderr}\nstdout: ${r.stdout.slice(0, 2000)}`;
  assert.equal(r.status, 0, info);
  assert.equal(r.stderr, "", info);
  assert.notEqual(r.stdout.trim(), "", info);
  return r.stdout;
}

/** Runs a command with --json, asserts success and returns the parsed answer. */
function json(engine, args) {
  const out = ok(run(engine, [...args, "--json"]), `codegraph ${args.join(" ")} --json (${engine})`);
  return JSON.parse(out);
}

/** Asserts a failure: the exit code, and a single stderr line naming the command (plus `mentions`). */
function fails(r, code, command, mentions = []) {
  const info = `exit ${r.status}\nstderr: ${r.stderr}\nstdout: ${r.stdout}`;
  assert.equal(r.status, code, info);
  const message = r.stderr.trimEnd();
  assert.notEqual(message, "", info);
  assert.ok(!message.includes("\n"), `expected a one-line message\n${info}`);
  assert.match(message, new RegExp(`^codegraph ${command}: `), info);
  for (const m of mentions) assert.ok(message.includes(m), `expected the message to mention ${m}\n${info}`);
}

const where = (s) => (s.column === undefined ? `${s.path}:${s.line}` : `${s.path}:${s.line}:${s.column}`);
const sorted = (xs) => [...xs].sort();
const byKey = (list, key, value) => {
  const found = list.find((x) => x[key] === value);
  assert.ok(found, `expected.json has no entry with ${key} = ${value}`);
  return found;
};

/** Callers/callees groups in expected.json's shape: [{ symbol, callsites: ["path:line:col"] }]. */
function groupsAsExpected(answer) {
  return answer.groups
    .map((g) => ({ symbol: g.handle, callsites: sorted(g.callsites.map(where)) }))
    .sort((a, b) => a.symbol.localeCompare(b.symbol));
}
function expectedGroups(list) {
  return list.map((g) => ({ symbol: g.symbol, callsites: sorted(g.callsites) })).sort((a, b) => a.symbol.localeCompare(b.symbol));
}

// ---------------------------------------------------------------------------------------------
// One fixture case per command: its arguments, a text the human form must show, and a check of
// the JSON answer against expected.json.

const FIVE_LANGUAGES = ["go", "java", "python", "rust", "typescript"];
const FILE_PAGE = { file: "ts/src/main.ts", offset: 6, limit: 4 };

const CASES = [
  {
    command: "orient",
    args: [],
    human: "entry points:",
    check(r) {
      const langs = r.languages.map((l) => l.language);
      for (const l of FIVE_LANGUAGES) assert.ok(langs.includes(l), `orient misses ${l}`);
      assert.equal(
        r.files,
        r.languages.reduce((n, l) => n + l.files, 0),
      );
      for (const p of ["ts/src/main.ts", "py/shop/cli.py", "go/main.go"]) assert.ok(r.entryPoints.includes(p), `entry point ${p}`);
    },
  },
  {
    command: "explore",
    args: ["sum", "the", "areas", "of", "circles", "on", "a", "worker", "thread"],
    human: "rust/src/jobs.rs",
    check(r) {
      assert.equal(r.anchors[0].path, "rust/src/jobs.rs");
      assert.ok(r.packets.length > 0 && r.packets.every((p) => p.excerpt === undefined));
      assert.ok(r.followUps.some((f) => f.tool === "callers" || f.tool === "refs"));
    },
  },
  {
    command: "packet",
    args: ["slugify"],
    human: "Turn a product title into a URL-friendly slug.",
    check(r) {
      assert.equal(r.packet.target, "py/shop/util/text.py::slugify");
      assert.match(r.packet.excerpt.text, /^def slugify\(title\):/);
    },
  },
  {
    command: "context",
    args: ["py", "--compress", "skeleton", "--budget", "1k"],
    human: "compress skeleton",
    check(r) {
      assert.ok(r.usedTokens <= 1000 && r.entries.length > 0);
      assert.ok(r.entries.every((e) => e.path.startsWith("py/") && e.compress === "skeleton"));
    },
  },
  {
    command: "search",
    args: ["spawn_job"],
    human: "rust/src/jobs.rs::spawn_job",
    check(r) {
      const exp = byKey(EXPECTED.symbols, "handle", "rust/src/jobs.rs::spawn_job");
      const top = r.hits[0];
      assert.equal(top.symbol?.handle, exp.handle);
      assert.equal(top.symbol.line, exp.line);
    },
  },
  {
    command: "symbols",
    args: ["Circle", "--kind", "struct"],
    human: "rust/src/shapes/circle.rs::Circle",
    check(r) {
      const exp = byKey(EXPECTED.symbols, "handle", "rust/src/shapes/circle.rs::Circle");
      assert.deepEqual(
        r.symbols.map((s) => ({ handle: s.handle, kind: s.kind, line: s.line, exported: s.exported })),
        [exp],
      );
    },
  },
  {
    command: "file",
    args: [FILE_PAGE.file, "--offset", String(FILE_PAGE.offset), "--limit", String(FILE_PAGE.limit)],
    human: "\tfunction totalArea(): number {",
    check(r) {
      const { offset, limit } = FILE_PAGE;
      // A final newline counts as a last, empty line (documented on GetFileResponse.totalLines).
      const lines = fs.readFileSync(path.join(FIXTURE, FILE_PAGE.file), "utf8").split("\n");
      const rows = lines.slice(offset - 1, offset - 1 + limit).map((text, i) => `${offset + i}\t${text}`);
      assert.equal(r.file, FILE_PAGE.file);
      assert.equal(r.content, rows.join("\n"));
      assert.equal(r.totalLines, lines.length);
      assert.deepEqual(r.page, { nextOffset: offset + limit });
    },
  },
  {
    command: "symbol",
    args: ["java/src/main/java/com/example/shop/model/Order.java::Order::add"],
    human: "Order::add",
    check(r) {
      const exp = byKey(EXPECTED.symbols, "handle", "java/src/main/java/com/example/shop/model/Order.java::Order::add");
      const { handle, kind, line, exported } = r.symbol;
      assert.deepEqual({ handle, kind, line, exported }, exp);
    },
  },
  {
    command: "goto",
    args: ["ts/src/main.ts:7:17"],
    human: "ts/src/geo/circle.ts:3",
    check(r) {
      const exp = byKey(EXPECTED.goto, "from", "ts/src/main.ts:7:17");
      assert.deepEqual(
        r.definitions.map((d) => `${d.path}:${d.line}`),
        [exp.to],
      );
    },
  },
  {
    command: "refs",
    args: ["ts/src/format/date.ts::format"],
    human: "ts/src/components/OrderSummary.tsx:12:21",
    check(r) {
      const exp = byKey(EXPECTED.refs, "target", "ts/src/format/date.ts::format");
      assert.equal(r.symbol.handle, exp.target);
      assert.deepEqual(sorted(r.refs.map(where)), sorted(exp.sites));
      assert.equal(r.total, exp.sites.length);
    },
  },
  {
    command: "callers",
    args: ["rust/src/jobs.rs::spawn_job"],
    human: "rust/src/report.rs:6:17",
    check(r) {
      const exp = byKey(EXPECTED.callers, "target", "rust/src/jobs.rs::spawn_job");
      assert.deepEqual(groupsAsExpected(r), expectedGroups(exp.callers));
      // Spelled out as well: one group, rust/src/report.rs::summary, called at line 6 column 17.
      assert.equal(r.groups.length, 1);
      assert.equal(r.groups[0].handle, "rust/src/report.rs::summary");
      assert.deepEqual(r.groups[0].callsites, [{ path: "rust/src/report.rs", line: 6, column: 17 }]);
    },
  },
  {
    command: "callees",
    args: ["go/main.go::main"],
    human: "go/money/util.go::Percent",
    check(r) {
      const exp = byKey(EXPECTED.callees, "source", "go/main.go::main");
      assert.deepEqual(groupsAsExpected(r), expectedGroups(exp.callees));
    },
  },
  {
    command: "deps",
    args: ["ts/src/main.ts"],
    human: "ts/src/geo/index.ts",
    check(r) {
      const exp = byKey(EXPECTED.deps, "file", "ts/src/main.ts");
      assert.deepEqual(sorted(r.files), sorted(exp.deps));
      assert.equal(r.total, exp.deps.length);
    },
  },
  {
    command: "rdeps",
    args: ["rust/src/shapes/mod.rs"],
    human: "rust/src/shapes/square.rs",
    check(r) {
      const exp = byKey(EXPECTED.rdeps, "file", "rust/src/shapes/mod.rs");
      assert.deepEqual(sorted(r.files), sorted(exp.rdeps));
      assert.equal(r.total, exp.rdeps.length);
    },
  },
  {
    command: "path",
    args: ["java/src/main/java/com/example/shop/service/OrderService.java", "java/src/main/java/com/example/shop/model/Priced.java"],
    human: "→ java/src/main/java/com/example/shop/model/Order.java",
    check(r) {
      const exp = EXPECTED.path.find((p) => p.from === this.args[0] && p.to === this.args[1]);
      assert.ok(exp, "expected.json has this path case");
      assert.deepEqual(r.path, exp.path);
    },
  },
  {
    command: "supertypes",
    args: ["py/shop/promotions.py::Special"],
    human: "extends via py/shop/promotions.py::Special",
    check(r) {
      assert.deepEqual(
        r.types.map((t) => [t.symbol.handle, t.relation]),
        [["py/shop/models.py::Order", "extends"]],
      );
    },
  },
  {
    command: "subtypes",
    args: ["rust/src/shapes/mod.rs::Shape"],
    human: "rust/src/shapes/square.rs::Square",
    check(r) {
      assert.deepEqual(
        r.types.map((t) => t.symbol.handle),
        ["rust/src/shapes/circle.rs::Circle", "rust/src/shapes/square.rs::Square"],
      );
    },
  },
  {
    command: "implementations",
    args: ["ts/src/geo/shape.ts::Shape::area"],
    human: "ts/src/geo/square.ts::Square::area",
    check(r) {
      assert.equal(r.total, 3);
      assert.ok(r.implementations.every((i) => i.symbol.name === "area"));
    },
  },
  {
    command: "impact",
    args: ["--files", "rust/src/shapes/mod.rs", "--depth", "2"],
    human: "rust/src/shapes/mod.rs:",
    check(r) {
      const exp = byKey(EXPECTED.rdeps, "file", "rust/src/shapes/mod.rs");
      const direct = r.targets[0].dependents.filter((d) => d.distance === 1).map((d) => d.path);
      assert.deepEqual(sorted(direct), sorted(exp.rdeps));
      assert.equal(r.gate, null);
    },
  },
  {
    command: "rename-preview",
    args: ["py/shop/util/text.py::slugify", "make_slug"],
    human: "+++ b/py/shop/util/text.py",
    check(r) {
      assert.equal(r.safe, true, JSON.stringify(r.reasons));
      const exp = byKey(EXPECTED.refs, "target", "py/shop/util/text.py::slugify");
      assert.equal(r.edits.filter((e) => e.kind !== "definition").length, exp.sites.length);
    },
  },
  {
    command: "refactor-plan",
    args: ["rust/src/shapes/mod.rs::Shape", "--rename", "Figure"],
    human: "rename to Figure:",
    check(r) {
      assert.deepEqual(
        r.subtypes.map((t) => t.symbol.handle),
        ["rust/src/shapes/circle.rs::Circle", "rust/src/shapes/square.rs::Square"],
      );
      assert.ok(r.rename.edits.some((e) => e.kind === "definition" && e.path === "rust/src/shapes/mod.rs"));
    },
  },
  {
    command: "loc",
    args: [],
    human: "total",
    check(r) {
      for (const l of FIVE_LANGUAGES)
        assert.ok(
          r.languages.some((x) => x.language === l),
          `loc counts ${l}`,
        );
      assert.equal(
        r.total.files,
        r.languages.reduce((n, x) => n + x.files, 0),
      );
    },
  },
  {
    command: "graph",
    args: ["--depends-on", "rust/src/shapes/mod.rs", "--format", "mermaid"],
    human: "flowchart LR",
    check(r) {
      const exp = byKey(EXPECTED.rdeps, "file", "rust/src/shapes/mod.rs");
      assert.deepEqual(sorted(r.blastRadius.map((b) => b.path)), sorted(exp.rdeps));
    },
  },
  {
    command: "status",
    args: [],
    human: "files indexed",
    check(r) {
      const langs = r.languages.map((l) => l.language);
      for (const l of FIVE_LANGUAGES) assert.ok(langs.includes(l), `status misses ${l}`);
      assert.equal(
        r.files,
        r.languages.reduce((n, l) => n + l.files, 0),
      );
      assert.deepEqual(r.skipped, []);
    },
  },
];

test("the cases cover every command", () => {
  assert.deepEqual(sorted(CASES.map((c) => c.command)), sorted(COMMAND_NAMES));
});

// ---------------------------------------------------------------------------------------------
// Every command, for each engine

for (const engine of ENGINES) {
  describe(`commands (--engine ${engine})`, () => {
    for (const c of CASES) {
      const argv = [c.command, ...c.args];
      test(`${argv.join(" ")}`, () => {
        const out = ok(run(engine, argv), `codegraph ${argv.join(" ")} (${engine})`);
        assert.ok(out.includes(c.human), `human output should show ${JSON.stringify(c.human)}:\n${out}`);
      });
      test(`${argv.join(" ")} --json`, () => {
        c.check(json(engine, argv));
      });
    }
  });
}

describe("native and wasm give identical JSON", () => {
  for (const c of CASES) {
    const argv = [c.command, ...c.args];
    test(argv.join(" "), () => {
      const [a, b] = ENGINES.map((e) => withoutClock(json(e, argv)));
      assert.deepStrictEqual(b, a);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Help, version, no arguments

describe("help and version", () => {
  for (const flag of ["--help", "-h", "help"]) {
    test(`${flag} exits 0 and lists every command`, () => {
      const out = ok(cli([flag]), flag);
      for (const name of COMMAND_NAMES) assert.match(out, new RegExp(`^  ${name}\\b`, "m"), `help lists ${name}`);
      assert.ok(out.includes("exit codes"), out);
    });
  }

  test("<command> --help prints that command's usage", () => {
    const out = ok(cli(["goto", "--help"]), "goto --help");
    assert.match(out, /^usage: codegraph goto PATH:LINE\[:COLUMN\]/);
  });

  for (const flag of ["--version", "-V"]) {
    test(`${flag} prints the package.json version`, () => {
      assert.equal(ok(cli([flag]), flag), `${VERSION}\n`);
    });
  }

  test("no arguments exits 2 and prints the help", () => {
    const r = cli([]);
    assert.equal(r.status, 2);
    for (const name of COMMAND_NAMES) assert.match(r.stdout, new RegExp(`^  ${name}\\b`, "m"));
  });
});

// ---------------------------------------------------------------------------------------------
// Errors: bad usage exits 2, not found exits 1

for (const engine of ENGINES) {
  describe(`errors (--engine ${engine})`, () => {
    test("unknown command exits 2 and names it", () => {
      const r = run(engine, ["frobnicate"]);
      assert.equal(r.status, 2);
      assert.match(r.stderr.trimEnd(), /^codegraph: unknown command "frobnicate"[^\n]*$/);
    });

    test("unknown flag exits 2", () => {
      fails(run(engine, ["deps", "ts/src/main.ts", "--bogus"]), 2, "deps", ["--bogus"]);
    });

    for (const [command, what] of [
      ["goto", "PATH:LINE"],
      ["refs", "HANDLE"],
      ["callers", "HANDLE"],
      ["path", "FROM and TO"],
    ]) {
      test(`${command} with a missing argument exits 2`, () => {
        const args = command === "path" ? [command, "ts/src/main.ts"] : [command];
        fails(run(engine, args), 2, command, ["missing", what]);
      });
    }

    test("goto with a malformed position exits 2", () => {
      fails(run(engine, ["goto", "nonsense"]), 2, "goto", ["nonsense"]);
    });

    test("--limit abc exits 2", () => {
      fails(run(engine, ["deps", "ts/src/main.ts", "--limit", "abc"]), 2, "deps", ["--limit", "abc"]);
    });

    test("an invalid kind exits 2", () => {
      fails(run(engine, ["symbols", "x", "--kind", "bogus"]), 2, "symbols", ["bogus"]);
    });

    test("file outside the root exits 2", () => {
      fails(run(engine, ["file", "../../etc/passwd"]), 2, "file", ["../../etc/passwd"]);
    });

    test("refs with an unknown handle exits 1", () => {
      fails(run(engine, ["refs", "ts/src/nope.ts::Nope"]), 1, "refs", ["ts/src/nope.ts::Nope"]);
    });

    test("goto at a blank position exits 1", () => {
      fails(run(engine, ["goto", "ts/src/main.ts:5:1"]), 1, "goto", ["ts/src/main.ts:5:1"]);
    });

    test("symbols with no match exits 1 and still prints the (empty) answer", () => {
      const human = run(engine, ["symbols", "zzzznomatch"]);
      assert.equal(human.status, 1, human.stderr);
      assert.match(human.stdout, /zzzznomatch/);
      const asJson = run(engine, ["symbols", "zzzznomatch", "--json"]);
      assert.equal(asJson.status, 1, asJson.stderr);
      assert.deepEqual(JSON.parse(asJson.stdout).symbols, []);
    });
  });
}

test("--engine bogus exits 2", () => {
  fails(run("bogus", ["status"]), 2, "status", ["--engine", "bogus"]);
});

test("CODEGRAPH_FORCE_WASM=maybe fails with a message naming the variable", () => {
  const r = cli(["status", "--root", FIXTURE], { env: { CODEGRAPH_FORCE_WASM: "maybe" } });
  assert.notEqual(r.status, 0, r.stdout);
  assert.match(r.stderr, /CODEGRAPH_FORCE_WASM/);
  assert.match(r.stderr, /^codegraph status: /);
});

test("file names with ESC sequences and line breaks reach the terminal escaped, and --json keeps them", (t) => {
  const os = require("node:os");
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-cli-names-"));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const evil = "red\u001b[31mALERT\u001b[0m.py";
  const split = "two\nlines.py";
  fs.writeFileSync(path.join(root, evil), "def alpha():\n    return 1\n");
  fs.writeFileSync(path.join(root, split), "from x import alpha\n\nalpha()\n");
  for (const args of [["symbols", "alpha"], ["orient"], ["refs", `${evil}::alpha`]]) {
    const r = spawnSync(process.execPath, [CLI, ...args, "--root", root, "--no-persist"], { encoding: "utf8" });
    assert.equal(r.status, 0, `${args.join(" ")}: ${r.stderr}`);
    assert.ok(!r.stdout.includes("\u001b"), `${args.join(" ")}: no raw ESC on stdout`);
    assert.ok(!r.stdout.includes("two\nlines"), `${args.join(" ")}: no raw line break inside a name`);
  }
  const human = spawnSync(process.execPath, [CLI, "symbols", "alpha", "--root", root, "--no-persist"], { encoding: "utf8" });
  assert.match(human.stdout, /red\\x1b\[31mALERT\\x1b\[0m\.py/);
  const json = spawnSync(process.execPath, [CLI, "symbols", "alpha", "--json", "--root", root, "--no-persist"], { encoding: "utf8" });
  assert.equal(JSON.parse(json.stdout).symbols[0].path, evil, "JSON carries the name as it is");
});
