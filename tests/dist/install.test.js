// End to end: the tarballs scripts/pack.js makes install and work on a machine without Rust or a
// compiler. `npm i -g` into a temporary prefix with a temporary HOME and a PATH holding only node,
// npm and sh; a project install used from ESM, CJS and TypeScript and through npx; and an upgrade
// under a running MCP server.
"use strict";
const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { repo, target, pack } = require("./helpers.js");

const fixture = path.join(repo, "tests/fixtures/polyglot");
const realNpmCache = path.join(os.homedir(), ".npm");
let work;
let v1;
let env;

/** A PATH with node, npm, npx and sh and nothing else: no cargo, cc, clang or rustc. */
function barePath(dir) {
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  const real = (cmd) => fs.realpathSync(execFileSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).trim());
  for (const cmd of ["node", "npm", "npx", "sh"]) fs.symlinkSync(real(cmd), path.join(bin, cmd));
  return bin;
}

function npm(args, cwd = work) {
  // The shared npm cache keeps the registry traffic down; HOME, prefix and PATH are the test's own.
  const r = spawnSync("npm", [...args, "--cache", realNpmCache, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel", "error"], {
    cwd,
    env,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, `npm ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", cwd: work, ...opts });
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-e2e-"));
  const bin = barePath(work);
  fs.mkdirSync(path.join(work, "home"));
  env = {
    ...process.env,
    HOME: path.join(work, "home"),
    PATH: `${path.join(work, "prefix", "bin")}${path.delimiter}${bin}`,
    XDG_CACHE_HOME: "",
    CODEGRAPH_NATIVE_PATH: "",
    CODEGRAPH_FORCE_WASM: "",
    CODEGRAPH_NATIVE_CACHE: "",
    npm_config_prefix: path.join(work, "prefix"),
  };
  v1 = pack(path.join(work, "pack-v1"));
});
after(() => fs.rmSync(work, { recursive: true, force: true }));

function tarballs(staged) {
  return staged.packed.map((p) => p.file);
}

test("the tarballs hold exactly what is needed", () => {
  const [main, platform] = v1.packed;
  assert.equal(main.name, "codegraph");
  const unexpected = main.files.filter(
    (f) =>
      !/^(package\.json|README\.md|LICENSE|build-manifest\.json|bin\/codegraph\.js|npm\/dist\/.+\.(js|mjs|d\.ts|json)|npm\/wasm\/codegraph_wasm(\.js|\.d\.ts|_bg\.wasm))$/.test(
        f,
      ),
  );
  assert.deepStrictEqual(unexpected, []);
  for (const f of [
    "bin/codegraph.js",
    "build-manifest.json",
    "npm/dist/index.js",
    "npm/dist/index.mjs",
    "npm/dist/index.d.ts",
    "npm/wasm/codegraph_wasm_bg.wasm",
  ])
    assert.ok(main.files.includes(f), f);
  assert.ok(!main.files.some((f) => f.endsWith(".node")), "no addon in the main package");
  // Most of it is the wasm module's sixteen grammar tables (5.0 MB packed with all of them).
  assert.ok(main.size < 7e6, `main tarball ${main.size} bytes`);
  assert.equal(platform.name, `@codegraph/${target}`);
  assert.deepStrictEqual(platform.files, [`codegraph.${target}.node`, "package.json"]);
  const pkg = JSON.parse(fs.readFileSync(path.join(v1.main, "package.json"), "utf8"));
  assert.equal(pkg.optionalDependencies[`@codegraph/${target}`], pkg.version);
  assert.equal(pkg.scripts, undefined, "no install scripts");
});

test("npm i -g without Rust or a compiler: version, doctor, orient", () => {
  for (const tool of ["cargo", "rustc", "cc", "gcc", "clang"]) {
    assert.notEqual(spawnSync("sh", ["-c", `command -v ${tool}`], { env }).status, 0, `${tool} must not be on PATH`);
  }
  npm(["i", "-g", ...tarballs(v1)]);
  assert.equal(run("codegraph", ["--version"]).trim(), "0.1.0");
  const doctor = JSON.parse(run("codegraph", ["doctor", "--json", "--root", fixture]));
  const native = v1.manifest.artifacts.find((a) => a.kind === "native");
  assert.equal(doctor.package.version, "0.1.0");
  assert.equal(doctor.package.launchedAs, "global install");
  assert.equal(doctor.engine.kind, "native");
  assert.equal(doctor.native.origin.mode, "cache");
  assert.equal(doctor.native.origin.hash, native.blake3);
  assert.ok(doctor.native.origin.loadedPath.startsWith(path.join(work, "home", ".cache", "codegraph", "native-cache")));
  assert.equal(doctor.wasm.hashMatchesManifest, true);
  const orient = run("codegraph", ["orient", "--root", fixture, "--no-persist"]);
  assert.match(orient, /^41 files, \d+ symbols/);
});

test("a project install: ESM, CJS and TypeScript consumers, and npx codegraph mcp serve --stdio", async () => {
  const project = path.join(work, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
  npm(["i", ...tarballs(v1)], project);
  fs.writeFileSync(
    path.join(project, "esm.mjs"),
    `import { openSession } from "codegraph";\nconst s = openSession({ root: ${JSON.stringify(fixture)} });\nconsole.log(s.engine, s.orient({}).files);\n`,
  );
  fs.writeFileSync(
    path.join(project, "cjs.cjs"),
    `const { openSession } = require("codegraph");\nconst s = openSession({ root: ${JSON.stringify(fixture)} });\nconsole.log(s.engine, s.callers({ handle: "rust/src/jobs.rs::spawn_job" }).total);\n`,
  );
  assert.equal(run("node", ["esm.mjs"], { cwd: project }).trim(), "native 41");
  assert.match(run("node", ["cjs.cjs"], { cwd: project }).trim(), /^native [1-9]\d*$/);
  fs.writeFileSync(
    path.join(project, "consumer.ts"),
    `import { openSession, type CallsResponse, type Session } from "codegraph";\nconst s: Session = openSession({ root: "." });\nconst r: CallsResponse = s.callers({ handle: "a.ts::f", depth: 2 });\nconst n: number = r.total;\n// @ts-expect-error depth is a number\ns.callers({ handle: "a.ts::f", depth: "2" });\nexport { n };\n`,
  );
  fs.writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: "node16", moduleResolution: "node16", types: [] },
      files: ["consumer.ts"],
    }),
  );
  run("node", [path.join(repo, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: project });

  const client = new Client({ name: "e2e", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: "npx",
      args: ["codegraph", "mcp", "serve", "--root", fixture, "--no-persist", "--stdio"],
      cwd: project,
      env,
      stderr: "pipe",
    }),
  );
  try {
    assert.equal(client.getServerVersion().version, "0.1.0");
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "callers"));
  } finally {
    await client.close();
  }
});

test("an upgrade under a running server: the old server keeps answering; doctor sees the new version", async () => {
  const cliPath = path.join(work, "prefix", "lib", "node_modules", "codegraph", "bin", "codegraph.js");
  const client = new Client({ name: "e2e", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, "mcp", "serve", "--root", fixture, "--no-persist", "--stdio"],
      env,
      stderr: "pipe",
    }),
  );
  try {
    const before = await client.callTool({ name: "callers", arguments: { handle: "rust/src/jobs.rs::spawn_job" } });
    assert.ok(!before.isError);
    const v2 = pack(path.join(work, "pack-v2"), { version: "0.1.1" });
    npm(["i", "-g", ...tarballs(v2)]);
    const during = await client.callTool({ name: "callers", arguments: { handle: "rust/src/jobs.rs::spawn_job" } });
    assert.ok(!during.isError, JSON.stringify(during));
    assert.deepStrictEqual(during.structuredContent.groups, before.structuredContent.groups);
    const doctor = JSON.parse(run("codegraph", ["doctor", "--json"]));
    assert.equal(doctor.package.version, "0.1.1");
    assert.equal(doctor.native.update.installedVersion, "0.1.1");
    assert.equal(doctor.native.origin.mode, "cache");
    assert.match(doctor.native.origin.cacheKey, new RegExp(`^${target}/0\\.1\\.1-`));
    const keys = doctor.native.cache.entries.map((e) => e.key);
    assert.equal(keys.filter((k) => k.startsWith(`${target}/0.1.0-`)).length, 1, `cache keeps the old entry: ${keys}`);
    assert.equal(keys.filter((k) => k.startsWith(`${target}/0.1.1-`)).length, 1, `and has the new one: ${keys}`);
  } finally {
    await client.close();
  }
});
