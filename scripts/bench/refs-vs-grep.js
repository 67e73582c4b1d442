#!/usr/bin/env node
// Recall/precision check by hand (run by hand, not a test): the proven call sites of every declaration
// named NAME, against a word-boundary grep for `NAME(` outside comment lines and declarations. Prints
// the counts and both difference lists, which are what to read by hand.
//   node scripts/bench/refs-vs-grep.js NAME [--root DIR] [--engine native|wasm]
//   e.g. node scripts/bench/refs-vs-grep.js spawn_blocking --root ~/.cache/codegraph-corpus/rust
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { parseArgs } = require("node:util");

const { openSession } = require("../../npm/dist/index.js");

const EXTENSIONS = /\.(rs|ts|tsx|js|jsx|mjs|cjs|py|go|java|c|h|cc|cpp|cxx|hpp|hh|cs|sql|php|rb|kt|swift|zig)$/;
const COMMENT = /^\s*(\/\/|#(?!\s*define)|\*|\/\*|--)/;

function main() {
  const { values, positionals } = parseArgs({
    options: { root: { type: "string", default: "." }, engine: { type: "string" } },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (!name) throw new Error("usage: refs-vs-grep.js NAME [--root DIR] [--engine native|wasm]");
  const root = path.resolve(values.root);
  const session = openSession({ root, engine: values.engine });
  const defs = session.workspaceSymbols({ query: name, limit: 100 }).symbols.filter((s) => s.name === name);
  const ours = new Set();
  for (const d of defs) {
    for (const r of session.refs({ handle: d.handle, limit: 2000 }).refs) if (r.kind === "call") ours.add(`${r.path}:${r.line}`);
  }
  const call = new RegExp(`(^|[^A-Za-z0-9_$])${name.replace(/[$]/g, "\\$")}\\s*\\(`);
  // A declaration: `fn name`, `def name`, …; in C, C++ and C# the name after its type at the start of
  // a line (`static int name(`, `Status DBImpl::name(`); in SQL `CREATE … FUNCTION name(`.
  const declaration = new RegExp(
    `\\b(fn|def|fun|function|func|FUNCTION|PROCEDURE)\\s+(self\\.)?([\\w.:"]+\\.)?"?${name}\\b|^(\\s*)(?!return\\b)(\\w[\\w<>,:*&\\s]*?[\\s*&]+)(\\w+::)?${name}\\s*\\(`,
    "i",
  );
  const grep = new Set();
  (function walk(dir) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (![".git", ".codegraph", "node_modules"].includes(e.name)) walk(p);
      } else if (EXTENSIONS.test(e.name)) {
        fs.readFileSync(p, "utf8")
          .split("\n")
          .forEach((line, i) => {
            if (!COMMENT.test(line) && call.test(line) && !declaration.test(line)) grep.add(`${path.relative(root, p)}:${i + 1}`);
          });
      }
    }
  })(root);
  const both = [...ours].filter((x) => grep.has(x));
  console.log(
    JSON.stringify({ name, definitions: defs.map((d) => d.handle), proven: ours.size, grep: grep.size, both: both.length }, null, 2),
  );
  console.log("grep only (read each: a missed site, or text that is not a call of these):");
  for (const x of [...grep].filter((x) => !ours.has(x)).sort()) console.log(`  ${x}`);
  console.log("proven only (read each: an alias or re-export grep can't see, or a mistake):");
  for (const x of [...ours].filter((x) => !grep.has(x)).sort()) console.log(`  ${x}`);
}

main();
