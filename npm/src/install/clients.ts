// Which agent clients have codegraph configured, per scope, as `codegraph doctor` reports them:
// planning an uninstall of every target shows what exists without writing anything.

import * as path from "node:path";

import { nodeFileView, processEnvironment } from "./environment";
import { plan } from "./plan";
import { TARGETS } from "./targets";
import { TARGET_IDS, type Scope, type TargetId, type Transport } from "./types";

export interface ConfiguredClient {
  target: TargetId;
  scope: Scope;
  state: "configured by codegraph install" | "has a codegraph entry not written by the installer" | "unreadable config";
  path?: string;
  /** How the entry reaches the server (none for the agents skill). */
  transport?: Transport;
  url?: string;
  tokenEnv?: string | null;
  error?: string;
}

/** The clients configured for this process's HOME and for the project at `root`. */
export function configuredClients(root: string | undefined): ConfiguredClient[] {
  const environment = { ...processEnvironment(), cwd: path.resolve(root ?? ".") };
  const out: ConfiguredClient[] = [];
  for (const scope of ["user", "project"] as const) {
    for (const target of TARGET_IDS) {
      try {
        const edits = plan({ action: "uninstall", targets: [target], scope, environment, files: nodeFileView }).edits;
        const owned = edits.find((e) => e.kind === "remove" || e.kind === "modify");
        const foreign = edits.find((e) => e.kind === "collision");
        const found = owned ?? foreign;
        if (!found) continue;
        const connection = TARGETS[target].connection(scope, environment, nodeFileView);
        out.push({
          target,
          scope,
          state: owned ? "configured by codegraph install" : "has a codegraph entry not written by the installer",
          path: found.path,
          ...(connection ?? {}),
        });
      } catch (e) {
        out.push({ target, scope, state: "unreadable config", error: (e as Error).message });
      }
    }
  }
  return out;
}
