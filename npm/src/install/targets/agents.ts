// Generic agents: an Agent Skills folder (agentskills.io format: a folder named after the skill with
// SKILL.md, YAML front matter `name` + `description`, then Markdown). Location chosen:
// `~/.agents/skills/codegraph/` (user) and `.agents/skills/codegraph/` (project), the cross-client
// convention. Sources checked (docs corpus): Codex scans `$HOME/.agents/skills` and `.agents/skills`
// from the working directory up to the repository root (developers.openai.com/codex/skills);
// OpenCode reads `~/.agents/skills/*/SKILL.md` and project `.agents/skills` ("agent-compatible",
// opencode.ai/v1/docs/skills); kanonak.org/agent-skills lists `~/.agents/skills` as the
// cross-client default. Claude Code reads ~/.claude/skills instead and is served by the `claude`
// target's MCP entry. Windows: %USERPROFILE%\.agents\skills\codegraph.
//
// Ownership: a marker file beside SKILL.md records the hash of the SKILL.md the installer wrote. A
// folder without the marker, or a SKILL.md edited since, is someone else's: reported, not touched.

import { markerHash, markerText, MARKER_FILE, sha256, SKILL_FILE, SKILL_NAME, skillFor } from "../skill";
import { leftAlone, type InstallEnvironment, type PlannedEdit, type Scope } from "../types";
import { pathsFor, scopeDir, type Target, type TargetContext } from "./target";

function location(scope: Scope, environment: InstallEnvironment): string {
  const p = pathsFor(environment.platform);
  return p.join(scopeDir(scope, environment), ".agents", "skills", SKILL_NAME);
}

function paths(ctx: TargetContext) {
  const p = pathsFor(ctx.environment.platform);
  const dir = location(ctx.scope, ctx.environment);
  return { dir, skill: p.join(dir, SKILL_FILE), marker: p.join(dir, MARKER_FILE) };
}

function fileEdit(path: string, before: string | undefined, after: string, what: string, backup: boolean): PlannedEdit {
  if (before === after) return leftAlone({ target: "agents", path, before }, "unchanged", `${what} is already installed`);
  return {
    target: "agents",
    path,
    kind: before === undefined ? "create" : "modify",
    before: before ?? null,
    after,
    description: before === undefined ? `create ${what}` : `update ${what}`,
    preview: what === SKILL_FILE ? `${SKILL_FILE} (${after.split("\n").length - 1} lines)` : undefined,
    backup,
  };
}

function install(ctx: TargetContext): PlannedEdit[] {
  const { skill, marker } = paths(ctx);
  const text = skillFor(ctx.remote);
  const skillBefore = ctx.files.readFile(skill);
  const markerBefore = ctx.files.readFile(marker);
  const recorded = markerHash(markerBefore);
  // Ours when our marker is there and SKILL.md is what it recorded (or gone); a folder without the
  // marker is ours only when it has no SKILL.md yet.
  const ours = recorded !== undefined ? skillBefore === undefined || sha256(skillBefore) === recorded : skillBefore === undefined;
  if (!ours && !ctx.force) {
    const why =
      recorded !== undefined
        ? "SKILL.md was edited since codegraph installed it"
        : "a codegraph skill without codegraph's marker is already there";
    return [
      leftAlone(
        { target: "agents", path: skill, before: skillBefore ?? null },
        "collision",
        `${why}; left alone (--force replaces it, keeping a backup)`,
      ),
    ];
  }
  // The marker goes first: if writing SKILL.md then fails, the folder is still known to be ours.
  return [fileEdit(marker, markerBefore, markerText(text), MARKER_FILE, false), fileEdit(skill, skillBefore, text, SKILL_FILE, !ours)];
}

function uninstall(ctx: TargetContext): PlannedEdit[] {
  const { dir, skill, marker } = paths(ctx);
  const skillBefore = ctx.files.readFile(skill);
  const markerBefore = ctx.files.readFile(marker);
  const recorded = markerHash(markerBefore);
  if (recorded === undefined) {
    const description =
      skillBefore === undefined ? "not installed (no skill folder)" : "the codegraph skill there has no codegraph marker; left alone";
    return [
      leftAlone({ target: "agents", path: skillBefore === undefined ? dir : skill, before: skillBefore ?? null }, "unchanged", description),
    ];
  }
  const edits: PlannedEdit[] = [];
  const edited = skillBefore !== undefined && sha256(skillBefore) !== recorded;
  if (edited && !ctx.force) {
    return [
      leftAlone(
        { target: "agents", path: skill, before: skillBefore },
        "collision",
        "SKILL.md was edited since codegraph installed it; left alone with its marker (--force removes it, keeping a backup)",
      ),
    ];
  }
  if (skillBefore !== undefined) {
    edits.push({
      target: "agents",
      path: skill,
      kind: "remove",
      before: skillBefore,
      after: null,
      description: `delete ${SKILL_FILE}`,
      backup: edited,
    });
  }
  edits.push({
    target: "agents",
    path: marker,
    kind: "remove",
    before: markerBefore!,
    after: null,
    description: `delete ${MARKER_FILE}, then the folder if it is empty`,
    backup: false,
    pruneDirs: [dir],
  });
  return edits;
}

export const agents: Target = {
  id: "agents",
  client: "Agent Skills clients",
  location,
  detect: (scope, environment, files) => {
    const p = pathsFor(environment.platform);
    return files.exists(p.join(scopeDir(scope, environment), ".agents"));
  },
  install,
  uninstall,
  snippet: (_launcher, remote) => ({ format: "markdown", text: skillFor(remote) }),
  connection: () => undefined,
  nextStep: (scope) =>
    `Agents that read ${scope === "project" ? ".agents/skills" : "~/.agents/skills"} (Codex, OpenCode, …) load the codegraph skill in their next session.`,
};
