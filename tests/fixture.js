// The shared fixture repository, copied for tests that write into their root: never with a
// `.codegraph/` some earlier run left in the committed fixture folder (it is ignored by git, so a
// fresh-looking checkout can hold one).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const fixture = path.resolve(__dirname, "fixtures/polyglot");

/** Copies the polyglot fixture to `to`, leaving out any `.codegraph` folder. */
function copyFixture(to) {
  fs.cpSync(fixture, to, { recursive: true, filter: (src) => path.basename(src) !== ".codegraph" });
  return to;
}

module.exports = { fixture, copyFixture };
