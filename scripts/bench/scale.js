#!/usr/bin/env node
// Scale check (run by hand, not a test): generates a synthetic repository of N files — TypeScript,
// Python and Rust in packages of 100 files, each file importing and calling functions and classes of
// three others in its language — then times a cold in-process index of it in a fresh process and
// reports time per file and peak RSS, relative to the smallest N.
//   node scripts/bench/scale.js [--sizes 1000,10000,100000] [--engine native|wasm] [--out FILE]
//   node scripts/bench/scale.js --generate DIR --sizes N      (only writes the tree, for profiling)
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { parseArgs } = require("node:util");

const repo = path.resolve(__dirname, "../..");
const PER_PACKAGE = 100;
const LANGS = ["ts", "ts", "py", "rs"]; // TypeScript-heavy, like most repositories agents work in

/** Deterministic small PRNG, so every run generates the same tree. */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function tsFile(i, deps, pkg) {
  const imports = deps.map((d) => `import { Service${d}, helper${d} } from "../p${pkg(d)}/m${d}";`).join("\n");
  const calls = deps.map((d) => `    total += helper${d}(n) + new Service${d}().run(n);`).join("\n");
  return `${imports}

/** Service ${i}: combines its dependencies. */
export class Service${i} {
  private count = 0;
  run(n: number): number {
    let total = this.step(n);
${calls}
    return total;
  }
  step(n: number): number {
    this.count += 1;
    return n * ${i % 7} + this.count;
  }
}

export function helper${i}(n: number): number {
  return n > 0 ? n - 1 : ${i};
}

export const config${i} = { name: "service-${i}", retries: ${i % 5} };
`;
}

function pyFile(i, deps, pkg) {
  const imports = deps.map((d) => `from p${pkg(d)}.m${d} import Service${d}, helper${d}`).join("\n");
  const calls = deps.map((d) => `        total += helper${d}(n) + Service${d}().run(n)`).join("\n");
  return `${imports}


class Service${i}:
    """Service ${i}: combines its dependencies."""

    def __init__(self):
        self.count = 0

    def run(self, n):
        total = self.step(n)
${calls}
        return total

    def step(self, n):
        self.count += 1
        return n * ${i % 7} + self.count


def helper${i}(n):
    return n - 1 if n > 0 else ${i}
`;
}

function rsFile(i, deps) {
  const uses = deps.map((d) => `use crate::m${d}::{helper${d}, Service${d}};`).join("\n");
  const calls = deps.map((d) => `        total += helper${d}(n) + Service${d}::new().run(n);`).join("\n");
  return `${uses}

/// Service ${i}: combines its dependencies.
pub struct Service${i} {
    count: u64,
}

impl Service${i} {
    pub fn new() -> Self {
        Service${i} { count: 0 }
    }

    pub fn run(&mut self, n: u64) -> u64 {
        let mut total = self.step(n);
${calls}
        total
    }

    fn step(&mut self, n: u64) -> u64 {
        self.count += 1;
        n * ${i % 7} + self.count
    }
}

pub fn helper${i}(n: u64) -> u64 {
    if n > 0 { n - 1 } else { ${i} }
}
`;
}

/** Writes the tree; returns the number of source files. */
function generate(root, n) {
  const next = rng(n);
  const pkg = (i) => Math.floor(i / PER_PACKAGE);
  const byLang = new Map();
  for (let i = 0; i < n; i++) {
    const lang = LANGS[pkg(i) % LANGS.length];
    const dir = path.join(root, `p${pkg(i)}`);
    if (i % PER_PACKAGE === 0) {
      fs.mkdirSync(path.join(dir, lang === "rs" ? "src" : ""), { recursive: true });
      if (lang === "py") fs.writeFileSync(path.join(dir, "__init__.py"), "");
    }
    // Dependencies: earlier files of the same language (a DAG, like real layering), mostly nearby.
    const earlier = byLang.get(lang) ?? [];
    const deps = new Set();
    for (let k = 0; k < 3 && earlier.length; k++) {
      const near = next() < 0.7;
      const span = near ? Math.min(earlier.length, 200) : earlier.length;
      deps.add(earlier[earlier.length - 1 - Math.floor(next() * span)]);
    }
    // Rust files import within their crate only.
    const ds = [...deps].filter((d) => lang !== "rs" || pkg(d) === pkg(i));
    const text = lang === "ts" ? tsFile(i, ds, pkg) : lang === "py" ? pyFile(i, ds, pkg) : rsFile(i, ds);
    fs.writeFileSync(path.join(dir, lang === "rs" ? "src" : "", `m${i}.${lang}`), text);
    earlier.push(i);
    byLang.set(lang, earlier);
  }
  // Rust crates: a manifest and a lib.rs declaring the modules.
  for (let p = 0; p * PER_PACKAGE < n; p++) {
    if (LANGS[p % LANGS.length] !== "rs") continue;
    const dir = path.join(root, `p${p}`);
    fs.writeFileSync(path.join(dir, "Cargo.toml"), `[package]\nname = "p${p}"\nversion = "0.1.0"\nedition = "2021"\n`);
    const mods = [];
    for (let i = p * PER_PACKAGE; i < Math.min(n, (p + 1) * PER_PACKAGE); i++) mods.push(`pub mod m${i};`);
    fs.writeFileSync(path.join(dir, "src/lib.rs"), `${mods.join("\n")}\n`);
  }
  fs.writeFileSync(path.join(root, "tsconfig.json"), `{ "compilerOptions": { "strict": true } }\n`);
}

function child(root, engine) {
  const { openSession } = require(path.join(repo, "npm/dist/index.js"));
  const s = openSession({ root, engine, persist: false });
  const t0 = process.hrtime.bigint();
  s.prepare();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const status = s.status();
  const probe = s.workspaceSymbols({ query: "helper1", limit: 1 }).symbols[0];
  const callers = probe ? s.callers({ handle: probe.handle }).total : 0;
  process.stdout.write(
    JSON.stringify({
      ms,
      files: status.files,
      timings: status.timings,
      callersOfProbe: callers,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
    }),
  );
}

function main() {
  const { values } = parseArgs({
    options: {
      child: { type: "string" },
      engine: { type: "string", default: "native" },
      sizes: { type: "string", default: "1000,10000,100000" },
      out: { type: "string" },
      generate: { type: "string" },
    },
  });
  if (values.child) return child(values.child, values.engine);
  if (values.generate) return generate(values.generate, Number(values.sizes));
  const rows = [];
  for (const n of values.sizes.split(",").map(Number)) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `codegraph-scale-${n}-`));
    try {
      const g0 = Date.now();
      generate(root, n);
      process.stderr.write(`scale: generated ${n} files in ${((Date.now() - g0) / 1000).toFixed(1)} s; indexing …\n`);
      const r = spawnSync(process.execPath, [__filename, "--child", root, "--engine", values.engine], {
        encoding: "utf8",
        maxBuffer: 16 << 20,
      });
      if (r.status !== 0) throw new Error(`index of ${n} files failed: ${r.stderr}`);
      const m = JSON.parse(r.stdout);
      rows.push({ n, ...m, msPerFile: m.ms / m.files });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  const base = rows[0].msPerFile;
  console.log("files      index s   ms/file   vs first   peak RSS MB   parse s   resolve s   callers of probe");
  for (const r of rows) {
    console.log(
      `${String(r.files).padEnd(9)}  ${(r.ms / 1000).toFixed(2).padStart(7)}   ${r.msPerFile.toFixed(3).padStart(7)}   ${(r.msPerFile / base).toFixed(2).padStart(8)}   ${r.maxRssMb.toFixed(0).padStart(11)}   ${(r.timings.parseMs / 1000).toFixed(2).padStart(7)}   ${(r.timings.resolveMs / 1000).toFixed(2).padStart(9)}   ${r.callersOfProbe}`,
    );
  }
  const out = values.out ?? path.join(repo, "target", "bench", `scale-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify({ engine: values.engine, rows }, null, 2)}\n`);
  console.log(`written: ${path.relative(process.cwd(), out)}`);
}

main();
