#!/usr/bin/env node
// The package's executable: starts the CLI from the compiled TypeScript.
"use strict";
// A CLI process is short and owns its V8: without optimised wasm code it no longer waits at exit for
// the background optimisation of a grammar's large lexer function (tree-sitter-swift's: ~5 s on
// the wasm engine), and parsing is as fast in a process this short. The library, loaded into
// someone else's process, leaves that process's flags alone.
require("node:v8").setFlagsFromString("--no-wasm-opt");
require("../npm/dist/cli/main.js").main(process.argv.slice(2));
