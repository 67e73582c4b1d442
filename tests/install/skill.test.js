// The agents skill: SKILL.md names only tools that the MCP server lists (asked of a real server
// over an in-process SDK client), every CLI command in its fallback section exists, and its front matter follows the Agent
// Skills format (name = folder name, a description of at most 1024 characters).
"use strict";

const { before, test } = require("node:test");
const path = require("node:path");
const assert = require("node:assert/strict");
const { spawnSync } = require("node:child_process");

const { bin, dist } = require("./helpers");
const { openSession } = require("../../npm/dist/index.js");
const { CodegraphMcp } = require("../../npm/dist/mcp/server.js");
const { fixture, inProcessClient } = require("../mcp/helpers.js");
const { SKILL_MD, markerText, markerHash, sha256 } = require(`${dist}/install/skill.js`);

/** Words in backticks that are not tool names: the freshness field and its states. */
const NOT_TOOLS = new Set(["freshness", "fresh", "refreshed", "stale"]);

/** The tool names the server's tools/list returns. */
let listed;
before(async () => {
  const mcp = new CodegraphMcp({
    session: openSession({ root: fixture }),
    version: "0",
    packageJsonPath: path.join(__dirname, "../../package.json"),
  });
  const client = await inProcessClient(mcp);
  listed = new Set((await client.listTools()).tools.map((t) => t.name));
  await client.close();
});

/** SKILL.md without its fenced code blocks. */
const prose = SKILL_MD.replace(/```[\s\S]*?```/g, "");

test("every identifier in backticks is a tool the server lists", () => {
  const named = [...prose.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  assert.ok(named.length > 10);
  const unknown = named.filter((word) => /^[a-z][a-z_]*$/.test(word) && !listed.has(word) && !NOT_TOOLS.has(word));
  assert.deepEqual(unknown, [], `SKILL.md names tools the server does not list: ${unknown.join(", ")}`);
  // Every span in backticks is either a tool or one of the few field words: nothing else hides there.
  assert.deepEqual(
    named.filter((w) => !listed.has(w) && !NOT_TOOLS.has(w)),
    [],
  );
});

test("the skill teaches the intended workflow with tools that exist", () => {
  for (const tool of [
    "orient",
    "search",
    "workspace_symbols",
    "get_file",
    "refs",
    "goto",
    "callers",
    "callees",
    "deps",
    "rdeps",
    "path",
    "refresh_index",
  ]) {
    assert.ok(listed.has(tool), `${tool} is listed by the server`);
    assert.ok(prose.includes(`\`${tool}\``), `SKILL.md mentions ${tool}`);
  }
  assert.ok(prose.indexOf("`orient`") < prose.indexOf("`workspace_symbols`"), "orient first, follow-ups after");
  assert.match(prose, /## After editing, check freshness/);
  assert.match(SKILL_MD, /## Without the MCP tools/);
});

test("no tool name outside backticks refers to a tool the server lacks", () => {
  // Tools of the wider design that this server may not list must not be recommended by name.
  const designed = [
    "explore",
    "packet_get",
    "rename_preview",
    "refactor_plan",
    "supertypes",
    "subtypes",
    "implementations",
    "impact",
    "review",
    "query_sqlite",
    "artifact_build",
  ];
  for (const name of designed.filter((n) => !listed.has(n))) {
    assert.ok(!new RegExp(`\\b${name}\\b`).test(SKILL_MD), `SKILL.md mentions ${name}, which the server does not list`);
  }
});

test("every CLI command in the fallback section exists", () => {
  const help = spawnSync(process.execPath, [bin, "--help"], { encoding: "utf8" }).stdout;
  const fenced = [...SKILL_MD.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join("");
  const commands = [...fenced.matchAll(/^codegraph ([a-z]+)/gm)].map((m) => m[1]);
  assert.ok(commands.length >= 10);
  for (const command of commands) assert.match(help, new RegExp(`^  ${command}\\b`, "m"), `codegraph ${command} is a command`);
});

test("front matter: name matches the folder, description within the Agent Skills limits", () => {
  const front = /^---\n([\s\S]*?)\n---\n/.exec(SKILL_MD)[1];
  assert.equal(/^name: (.*)$/m.exec(front)[1], "codegraph");
  const description = /^description: (.*)$/m.exec(front)[1];
  assert.ok(description.length >= 1 && description.length <= 1024);
  // A plain YAML scalar: no `: ` or ` #` inside, no leading indicator character.
  assert.ok(
    !description.includes(": ") && !description.includes(" #") && /^[A-Za-z]/.test(description),
    "the description is a plain YAML scalar",
  );
});

test("the marker records the hash of the SKILL.md it goes with", () => {
  assert.equal(markerHash(markerText(SKILL_MD)), sha256(SKILL_MD));
  assert.equal(markerHash("something else"), undefined);
  assert.equal(markerHash(undefined), undefined);
});
