// Applies a rename preview's edits to a copy of a repository (the product has no apply tool; the
// rename round-trip test and scripts/bench/rename.js check that applied previews still compile).
// Columns are 1-based Unicode characters, endColumn exclusive; every edit's oldText is checked.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

/** Applies `edits` (kinds other than comment/string unless `all`) under `root`; returns the files changed. */
function applyEdits(root, edits, { all = false } = {}) {
  const byFile = new Map();
  for (const e of edits) {
    if (!all && (e.kind === "comment" || e.kind === "string")) continue;
    if (!byFile.has(e.path)) byFile.set(e.path, []);
    byFile.get(e.path).push(e);
  }
  for (const [file, list] of byFile) {
    const full = path.join(root, file);
    const lines = fs.readFileSync(full, "utf8").split("\n");
    // Right to left within a line, so earlier columns stay valid.
    list.sort((a, b) => b.line - a.line || b.column - a.column);
    for (const e of list) {
      const chars = [...lines[e.line - 1]];
      const old = chars.slice(e.column - 1, e.endColumn - 1).join("");
      if (old !== e.oldText)
        throw new Error(`${file}:${e.line}:${e.column}: expected ${JSON.stringify(e.oldText)}, found ${JSON.stringify(old)}`);
      chars.splice(e.column - 1, e.endColumn - e.column, ...e.newText);
      lines[e.line - 1] = chars.join("");
    }
    fs.writeFileSync(full, lines.join("\n"));
  }
  return [...byFile.keys()];
}

module.exports = { applyEdits };
