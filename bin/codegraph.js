#!/usr/bin/env node
// The package's executable: starts the CLI from the compiled TypeScript.
"use strict";
require("../npm/dist/cli/main.js").main(process.argv.slice(2));
