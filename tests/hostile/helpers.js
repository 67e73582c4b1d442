// Hostile repositories for the end-to-end crash and hardening suite, and a runner that holds each
// codegraph process to a time and memory bound: a case ends with a clear answer or error, never a
// signal, a hang or a runaway allocation.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const repo = path.resolve(__dirname, "../..");
const bin = path.join(repo, "bin/codegraph.js");

/** The environment of a spawned codegraph, without overrides of the engine choice. */
function cleanEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  delete env.CODEGRAPH_FORCE_WASM;
  delete env.CODEGRAPH_NATIVE_PATH;
  return env;
}

/** Resident memory of a process in MiB (Linux), or 0 when it can't be read. */
function rssMib(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs `codegraph ...args` with stdin `input`, killing it past `timeoutMs` or `maxRssMib`.
 * Resolves to { code, signal, stdout, stderr, killed ("time" | "memory" | undefined), peakMib }.
 */
function runBounded(args, { timeoutMs = 60_000, maxRssMib = 1536, input, env, onStdout, onStart } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: cleanEnv(env), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let killed;
    let peakMib = 0;
    child.stdout.on("data", (d) => {
      stdout += d;
      onStdout?.(stdout, child);
    });
    child.stderr.on("data", (d) => (stderr += d));
    const watch = setInterval(() => {
      peakMib = Math.max(peakMib, rssMib(child.pid));
      if (peakMib > maxRssMib && !killed) {
        killed = "memory";
        child.kill("SIGKILL");
      }
    }, 25);
    const timer = setTimeout(() => {
      killed = "time";
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("exit", (code, signal) => {
      clearInterval(watch);
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, killed, peakMib: Math.round(peakMib) });
    });
    child.stdin.on("error", () => {});
    if (input !== undefined) child.stdin.end(input);
    onStart?.(child);
  });
}

/**
 * Asks `codegraph mcp serve --stdio` the tool `calls` ([name, arguments] pairs) after initialize,
 * under the same bounds; resolves with the run and its answers by request id (calls are ids 2, 3…).
 */
function mcpCalls(root, engine, calls, bounds = {}) {
  const ids = calls.map((_, i) => i + 2);
  const lines = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hostile", version: "0" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    ...calls.map(([name, args], i) => ({ jsonrpc: "2.0", id: i + 2, method: "tools/call", params: { name, arguments: args } })),
  ];
  return runBounded(["mcp", "serve", "--root", root, "--engine", engine, "--stdio", ...(bounds.args ?? [])], {
    ...bounds,
    onStart(child) {
      for (const l of lines) child.stdin.write(JSON.stringify(l) + "\n");
    },
    onStdout(out, child) {
      const answered = Object.keys(parseAnswers(out)).map(Number);
      if (ids.every((id) => answered.includes(id))) child.stdin.end();
    },
  }).then((r) => ({ ...r, answers: parseAnswers(r.stdout) }));
}

/** Complete JSON-RPC messages printed so far, by id. */
function parseAnswers(stdout) {
  const byId = {};
  for (const line of stdout.split("\n")) {
    if (!line.trim()) continue;
    try {
      const m = JSON.parse(line);
      if (m.id !== undefined) byId[m.id] = m;
    } catch {
      // A line still being written.
    }
  }
  return byId;
}

function tempRepo(t, prefix = "codegraph-hostile-") {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function write(root, rel, text) {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** Every long-chain form of core/tests/suite/hostile.rs, at `n` segments. */
function chainForms(n) {
  const rep = (s) => s.repeat(n);
  const join = (s, sep) => Array(n).fill(s).join(sep);
  return {
    "js/member.ts": `export const x = y${rep(".b")};\n`,
    "js/optional.ts": `export const x = y${rep("?.b")};\n`,
    "js/namespace.ts": `namespace ${join("A", ".")} {}\n`,
    "js/type.ts": `let x: ${join("A", ".")};\n`,
    "js/calls.ts": `class S { b(): S { return this; } }\nfunction f(s: S) { s${rep(".b()")}; }\n`,
    "js/opaque.js": `a[0]${rep(".b()")};\n`,
    "py/member.py": `y${rep(".b")}()\n`,
    "py/assign.py": `${rep("a = ")}1\n`,
    "py/calls.py": `class S:\n    def b(self) -> 'S':\n        return self\ndef f(s: S):\n    s${rep(".b()")}\n`,
    "rs/member.rs": `fn f() { y${rep(".b")}(); }\n`,
    "rs/path.rs": `fn f() { ${join("a", "::")}(); }\n`,
    "rs/use.rs": `use ${join("a", "::")};\n`,
    "rs/use_list.rs": `use ${rep("a::{")}b${rep("}")};\n`,
    "rs/calls.rs": `struct S;\nimpl S { fn b(&self) -> S { S } }\nfn f(s: S) { s${rep(".b()")}; }\n`,
    "java/Import.java": `import ${join("a", ".")};\nclass Import {}\n`,
    "java/Calls.java": `class Calls { Calls b() { return this; } void f(Calls s) { s${rep(".b()")}; } }\n`,
    "go/member.go": `package p\nvar x = y${rep(".b")}\n`,
    "go/calls.go": `package p\ntype S struct{}\nfunc (s S) B() S { return s }\nfunc f(s S) { s${rep(".B()")} }\n`,
  };
}

function mkfifo(file) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  require("node:child_process").execFileSync("mkfifo", [file]);
}

function sparse(file, bytes) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, "w");
  fs.ftruncateSync(fd, bytes);
  fs.closeSync(fd);
}

module.exports = { repo, bin, runBounded, mcpCalls, tempRepo, write, chainForms, mkfifo, sparse };
