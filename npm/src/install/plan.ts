// The pure planner: from targets, a scope, the environment and a read-only view of the files to the
// list of edits an install or uninstall would make. Nothing here writes (apply.ts alone does), so
// `--dry-run` prints exactly what a real run would do, and tests plan against any HOME or platform.

import { resolveLauncher } from "./launcher";
import { findRecorded, undo, type InstallRecord, type RecordedEdit } from "./record";
import { TARGETS, type Snippet, type TargetContext } from "./targets";
import {
  TARGET_IDS,
  type FileView,
  type InstallEnvironment,
  type PlannedEdit,
  type Plan,
  type Remote,
  type Scope,
  type TargetId,
} from "./types";

export interface PlanRequest {
  action: "install" | "uninstall";
  targets: TargetId[];
  scope: Scope;
  environment: InstallEnvironment;
  files: FileView;
  /** Replace (install) or remove (uninstall) a codegraph entry the installer did not write. */
  force?: boolean;
  /** What earlier installs wrote (record.ts): uninstall gives those files back byte for byte. */
  record?: InstallRecord;
  /** Point the clients at this shared server instead of having each start one (`--url`). */
  remote?: Remote | null;
}

/** Plans every target in table order. A malformed or unusable config throws an InstallError. */
export function plan(request: PlanRequest): Plan {
  const launcher = resolveLauncher(request.environment);
  const remote = request.remote ?? null;
  const ctx = {
    scope: request.scope,
    environment: request.environment,
    files: request.files,
    launcher,
    remote,
    force: Boolean(request.force),
  };
  const edits = TARGET_IDS.filter((id) => request.targets.includes(id)).flatMap((id) => {
    if (request.action === "install") return TARGETS[id].install(ctx);
    return TARGETS[id].uninstall(ctx).map((edit) => {
      const recorded = request.record && findRecorded(request.record, edit.path, id);
      return recorded ? restoreExactly(edit, recorded, ctx) : edit;
    });
  });
  return { action: request.action, scope: request.scope, launcher, remote, edits };
}

/**
 * An uninstall edit that gives the file back as it was before the recorded install, when that can
 * be done exactly and the target's own planner finds no codegraph entry in the result; else the
 * planner's edit as it is.
 */
function restoreExactly(edit: PlannedEdit, recorded: RecordedEdit, ctx: TargetContext): PlannedEdit {
  if (edit.before === null || (edit.kind !== "modify" && edit.kind !== "remove")) return edit;
  if (edit.kind === "remove" && recorded.createdFile) return edit; // deleting is already the exact inverse
  const restored = undo(recorded, edit.before);
  if (restored === undefined || restored === edit.after) return edit;
  const files: FileView = {
    readFile: (p) => (p === edit.path ? restored : ctx.files.readFile(p)),
    exists: (p) => p === edit.path || ctx.files.exists(p),
  };
  try {
    const again = TARGETS[edit.target].uninstall({ ...ctx, files }).find((e) => e.path === edit.path);
    if (again?.kind !== "unchanged") return edit;
  } catch {
    return edit;
  }
  if (restored === "" && recorded.createdFile) {
    return {
      ...edit,
      kind: "remove",
      after: null,
      ifKept: edit.after ?? "",
      description: "delete the file (codegraph install created it)",
      backup: false,
    };
  }
  return {
    ...edit,
    kind: "modify",
    after: restored,
    description: "give the file back exactly as it was before codegraph install",
    backup: true,
  };
}

/** Targets whose client looks present for the scope (its config directory exists). */
export function detectTargets(scope: Scope, environment: InstallEnvironment, files: FileView): TargetId[] {
  return TARGET_IDS.filter((id) => TARGETS[id].detect(scope, environment, files));
}

/** The snippet `--print-config` prints for a target, with the launcher of this environment (or
 * the shared server's URL). */
export function configSnippet(target: TargetId, environment: InstallEnvironment, remote: Remote | null = null): Snippet {
  return TARGETS[target].snippet(resolveLauncher(environment), remote);
}

/** One line per target on what to do after installing. */
export function nextSteps(targets: TargetId[], scope: Scope): string[] {
  return TARGET_IDS.filter((id) => targets.includes(id)).map((id) => TARGETS[id].nextStep(scope));
}

/** The first thing to ask an agent once codegraph is wired in. */
export const FIRST_QUESTION =
  "Use codegraph to orient yourself in this repository: what are the entry points and the most depended-on files, and who calls the main entry point?";
