// Both engines answer exactly the core's method table (apiMethods(), in order) through one `call`,
// which is also the generated API_METHODS of the TypeScript types; the library has a typed
// convenience for each method.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");

const { loadEngine, API_METHODS, Session } = require("../../npm/dist/index.js");

function sessionMethods(module) {
  return Object.getOwnPropertyNames(module.Session.prototype).filter(
    (n) => n !== "constructor" && typeof module.Session.prototype[n] === "function",
  );
}

test("native and wasm export the same list as the core API", () => {
  const native = loadEngine({ prefer: "native" });
  const wasm = loadEngine({ prefer: "wasm" });
  assert.equal(native.kind, "native");
  assert.equal(wasm.kind, "wasm");
  const core = native.module.apiMethods();
  assert.deepStrictEqual(wasm.module.apiMethods(), core);
  assert.deepStrictEqual([...API_METHODS], core);
  const exports = ["call", "invalidate", "prepare", "prepareSearch", "parseOnly", "takeNotes"];
  for (const engine of [native, wasm]) {
    const methods = sessionMethods(engine.module).filter((m) => !["free", "__destroy_into_raw"].includes(m));
    assert.deepStrictEqual(methods.sort(), [...exports].sort(), `${engine.kind} Session methods`);
    assert.equal(engine.module.version(), native.module.version());
    assert.deepStrictEqual(engine.module.supportedLanguages(), native.module.supportedLanguages());
    assert.equal(engine.module.engine(), engine.kind);
  }
  for (const m of core) assert.equal(typeof Session.prototype[m], "function", `library Session.${m}`);
});

test("CODEGRAPH_FORCE_WASM accepts only 1/0/true/false", () => {
  const { forceWasmFromEnv } = require("../../npm/dist/index.js");
  assert.equal(forceWasmFromEnv({ CODEGRAPH_FORCE_WASM: "1" }), true);
  assert.equal(forceWasmFromEnv({ CODEGRAPH_FORCE_WASM: "true" }), true);
  assert.equal(forceWasmFromEnv({ CODEGRAPH_FORCE_WASM: "0" }), false);
  assert.equal(forceWasmFromEnv({ CODEGRAPH_FORCE_WASM: "false" }), false);
  assert.equal(forceWasmFromEnv({}), false);
  for (const bad of ["yes", "2", "on", "wasm"]) {
    assert.throws(() => forceWasmFromEnv({ CODEGRAPH_FORCE_WASM: bad }), /CODEGRAPH_FORCE_WASM must be 1, 0, true or false/);
  }
});

test("the loader records every attempt", () => {
  const wasm = loadEngine({ prefer: "wasm" });
  assert.ok(wasm.attempts.length >= 1);
  assert.ok(wasm.attempts.every((a) => typeof a.path === "string" && typeof a.ok === "boolean"));
  const native = loadEngine({ prefer: "native", fresh: true });
  assert.ok(native.attempts.some((a) => a.ok && a.engine === "native"));
});
