#!/usr/bin/env node
// The test command's last word: the summary of each runner (cargo test's `test result:` lines, the
// node test runner's `# tests/pass/fail/skipped` counts), and a failure when a runner executed no
// test, or when a test was skipped or ignored on Linux (where every test has what it needs; other
// platforms may skip for a platform reason, such as symlinks on Windows).
//   node scripts/test-summary.js RUST_LOG JS_LOG
"use strict";
const fs = require("node:fs");

const [rustLog, jsLog] = process.argv.slice(2);
const rust = { passed: 0, failed: 0, ignored: 0 };
for (const m of fs.readFileSync(rustLog, "utf8").matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm)) {
  rust.passed += Number(m[1]);
  rust.failed += Number(m[2]);
  rust.ignored += Number(m[3]);
}
const js = {};
for (const m of fs.readFileSync(jsLog, "utf8").matchAll(/^# (tests|pass|fail|skipped|todo|cancelled) (\d+)$/gm)) js[m[1]] = Number(m[2]);

console.log(
  `summary: rust ${rust.passed} passed, ${rust.failed} failed, ${rust.ignored} ignored; ` +
    `js ${js.pass ?? 0} passed, ${js.fail ?? 0} failed, ${js.skipped ?? 0} skipped (${js.tests ?? 0} tests)`,
);
const problems = [];
if (rust.passed === 0) problems.push("the Rust runner executed no test");
if (!js.tests) problems.push("the JS runner executed no test");
if (rust.failed || js.fail || js.cancelled) problems.push("tests failed");
if (process.platform === "linux" && (rust.ignored || js.skipped || js.todo)) problems.push("tests were skipped or ignored on Linux");
if (problems.length) {
  console.error(`test command failed: ${problems.join("; ")}`);
  process.exit(1);
}
