// The pure planner: from targets, a scope, the environment and a read-only view of the files to the
// list of edits an install or uninstall would make. Nothing here writes (apply.ts alone does), so
// `--dry-run` prints exactly what a real run would do, and tests plan against any HOME or platform.

import { resolveLauncher } from "./launcher";
import { TARGETS, type Snippet } from "./targets";
import { TARGET_IDS, type FileView, type InstallEnvironment, type Plan, type Scope, type TargetId } from "./types";

export interface PlanRequest {
  action: "install" | "uninstall";
  targets: TargetId[];
  scope: Scope;
  environment: InstallEnvironment;
  files: FileView;
  /** Replace (install) or remove (uninstall) a codegraph entry the installer did not write. */
  force?: boolean;
}

/** Plans every target in table order. A malformed or unusable config throws an InstallError. */
export function plan(request: PlanRequest): Plan {
  const launcher = resolveLauncher(request.environment);
  const ctx = { scope: request.scope, environment: request.environment, files: request.files, launcher, force: Boolean(request.force) };
  const edits = TARGET_IDS.filter((id) => request.targets.includes(id)).flatMap((id) =>
    request.action === "install" ? TARGETS[id].install(ctx) : TARGETS[id].uninstall(ctx),
  );
  return { action: request.action, scope: request.scope, launcher, edits };
}

/** Targets whose client looks present for the scope (its config directory exists). */
export function detectTargets(scope: Scope, environment: InstallEnvironment, files: FileView): TargetId[] {
  return TARGET_IDS.filter((id) => TARGETS[id].detect(scope, environment, files));
}

/** The snippet `--print-config` prints for a target, with the launcher of this environment. */
export function configSnippet(target: TargetId, environment: InstallEnvironment): Snippet {
  return TARGETS[target].snippet(resolveLauncher(environment));
}

/** One line per target on what to do after installing. */
export function nextSteps(targets: TargetId[], scope: Scope): string[] {
  return TARGET_IDS.filter((id) => targets.includes(id)).map((id) => TARGETS[id].nextStep(scope));
}

/** The first thing to ask an agent once codegraph is wired in. */
export const FIRST_QUESTION =
  "Use codegraph to orient yourself in this repository: what are the entry points and the most depended-on files, and who calls the main entry point?";
