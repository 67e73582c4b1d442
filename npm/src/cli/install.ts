// `codegraph install` and `codegraph uninstall`: parse the flags, plan, print the plan, ask (or
// require --yes when nobody can be asked), apply, and print what to do next. Exit codes: 0 done (or
// nothing to do, or --dry-run), 1 a collision, a malformed config, a failed write or a declined
// prompt, 2 bad usage or a non-interactive run without --yes.

import * as readline from "node:readline";
import { parseArgs } from "node:util";

import { applyPlan, type AppliedEdit, type ApplyOptions } from "../install/apply";
import { nodeFileView, processEnvironment } from "../install/environment";
import { launchArgs } from "../install/launcher";
import { configSnippet, detectTargets, FIRST_QUESTION, nextSteps, plan } from "../install/plan";
import { forget, loadRecord, recordInstall, recordPath, saveRecord, type InstallRecord } from "../install/record";
import {
  InstallError,
  TARGET_IDS,
  type FileView,
  type InstallEnvironment,
  type Plan,
  type PlannedEdit,
  type Remote,
  type Scope,
  type TargetId,
} from "../install/types";

import { INSTALL_USAGE, PRINT_CONFIG_USAGE, UNINSTALL_USAGE } from "./usage";

export { INSTALL_USAGE, PRINT_CONFIG_USAGE, UNINSTALL_USAGE };

/** Where the command reads and writes; every field defaults to the real process. */
export interface InstallIo {
  out(text: string): void;
  err(text: string): void;
  environment?: InstallEnvironment;
  files?: FileView;
  /** Whether a person can answer the prompt (stdin is a terminal). */
  interactive?: boolean;
  ask?(question: string): Promise<string>;
  apply?: ApplyOptions;
}

function askOnTerminal(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    rl.on("close", () => resolve(""));
    rl.question(question, (answer) => {
      resolve(answer);
      rl.close();
    });
  });
}

class UsageError extends Error {}

const OPTIONS = {
  target: { type: "string", multiple: true },
  all: { type: "boolean" },
  detect: { type: "boolean" },
  scope: { type: "string" },
  "dry-run": { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  force: { type: "boolean" },
  json: { type: "boolean" },
  "print-config": { type: "string" },
  url: { type: "string" },
  "auth-token-env": { type: "string" },
  "auth-token": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

interface Values {
  target?: string[];
  all?: boolean;
  detect?: boolean;
  scope?: string;
  "dry-run"?: boolean;
  yes?: boolean;
  force?: boolean;
  json?: boolean;
  "print-config"?: string;
  url?: string;
  "auth-token-env"?: string;
  "auth-token"?: string;
  help?: boolean;
}

/** The variable the server reads its token from (`mcp serve --auth-token`'s environment form). */
const DEFAULT_TOKEN_ENV = "CODEGRAPH_MCP_TOKEN";

/** Whether a URL's host is this machine: a server there needs no token. */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The shared server of `--url`: an http(s) URL without credentials, and the environment
 * variable its token comes from — required beyond loopback (default CODEGRAPH_MCP_TOKEN, the one
 * the server itself reads). A token is never written into a client's config. */
function remoteOf(values: Values): Remote | null {
  if (values["auth-token"] !== undefined)
    throw new UsageError(
      `codegraph never writes a token into a client config: export it where the clients run (e.g. ${DEFAULT_TOKEN_ENV}=…) and pass --auth-token-env NAME`,
    );
  if (values.url === undefined) {
    if (values["auth-token-env"] !== undefined) throw new UsageError("--auth-token-env goes with --url");
    return null;
  }
  let url: URL;
  try {
    url = new URL(values.url);
  } catch {
    throw new UsageError(`--url must be an http(s) URL such as http://127.0.0.1:7331/mcp (got ${JSON.stringify(values.url)})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--url must be http:// or https:// (got ${JSON.stringify(values.url)})`);
  if (url.username || url.password)
    throw new UsageError("--url must not carry credentials: the token comes from an environment variable (--auth-token-env)");
  const named = values["auth-token-env"];
  if (named !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(named))
    throw new UsageError(`--auth-token-env takes an environment variable name (got ${JSON.stringify(named)})`);
  const tokenEnv = named ?? (isLoopback(url.hostname) ? null : DEFAULT_TOKEN_ENV);
  return { url: url.href, tokenEnv };
}

function targetId(name: string): TargetId {
  const id = name.trim().toLowerCase();
  if (!(TARGET_IDS as readonly string[]).includes(id))
    throw new UsageError(`unknown target ${JSON.stringify(name)}; targets: ${TARGET_IDS.join(", ")}`);
  return id as TargetId;
}

function selectTargets(values: Values, scope: Scope, environment: InstallEnvironment, files: FileView): TargetId[] {
  const chosen = [values.target !== undefined, Boolean(values.all), Boolean(values.detect)].filter(Boolean).length;
  if (chosen !== 1)
    throw new UsageError(
      chosen === 0 ? "choose the clients: --target T[,T...], --all or --detect" : "--target, --all and --detect are exclusive",
    );
  if (values.all) return [...TARGET_IDS];
  if (values.detect) return detectTargets(scope, environment, files);
  const ids = values
    .target!.flatMap((t) => t.split(","))
    .filter((t) => t.trim() !== "")
    .map(targetId);
  if (ids.length === 0) throw new UsageError("--target needs at least one of " + TARGET_IDS.join(", "));
  return [...new Set(ids)];
}

/** `~/…` for paths under the home directory. */
function shown(p: string, environment: InstallEnvironment): string {
  const home = environment.home.replace(/[\\/]+$/, "");
  if (p === home) return "~";
  if (p.startsWith(home) && (p[home.length] === "/" || p[home.length] === "\\")) return `~${p.slice(home.length)}`;
  return p;
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./${}-]+$/.test(word) ? word : JSON.stringify(word);
}

const ACTIONABLE = new Set(["create", "modify", "remove"]);

function describePlan(p: Plan, environment: InstallEnvironment, verb: string): string[] {
  const lines: string[] = [];
  lines.push(`codegraph ${verb} (${p.scope} scope)`);
  if (p.action === "install" && p.remote) {
    lines.push(`shared server: ${p.remote.url}${p.remote.tokenEnv ? ` (bearer token from $${p.remote.tokenEnv}, never written)` : ""}`);
    lines.push(`  one \`codegraph mcp serve --root REPO --port N --warmup\` per repository; every client connects to it`);
  } else if (p.action === "install") {
    lines.push(`server command: ${[p.launcher.command, ...launchArgs(p.launcher)].map(shellWord).join(" ")}`);
    lines.push(`  ${p.launcher.note}`);
  }
  lines.push("");
  const width = Math.max(...p.edits.map((e) => e.target.length));
  for (const e of p.edits) {
    lines.push(`${e.target.padEnd(width)}  ${e.kind.padEnd(9)}  ${shown(e.path, environment)}`);
    lines.push(`${" ".repeat(width + 2)}${e.description}`);
    if (e.preview && ACTIONABLE.has(e.kind)) {
      for (const line of e.preview.replace(/\n$/, "").split("\n")) lines.push(`${" ".repeat(width + 2)}| ${line}`);
    }
  }
  const count = (kind: string) => p.edits.filter((e) => e.kind === kind).length;
  const toWrite = p.edits.filter((e) => ACTIONABLE.has(e.kind)).length;
  const parts = [`${toWrite} to ${p.action === "install" ? "write" : "change"}`, `${count("unchanged")} unchanged`];
  if (count("collision") > 0) parts.push(`${count("collision")} collision${count("collision") > 1 ? "s" : ""}`);
  lines.push("", parts.join(", "));
  return lines;
}

function jsonEdit(e: PlannedEdit, applied?: AppliedEdit) {
  return {
    target: e.target,
    path: e.path,
    kind: e.kind,
    description: e.description,
    ...(applied ? { status: applied.status } : {}),
    ...(applied?.backup ? { backup: applied.backup } : {}),
    ...(applied?.reason && applied.status !== "skipped" ? { reason: applied.reason } : {}),
  };
}

/** Targets that are wired in after the run: none of their edits collided, failed or was skipped. */
function installedTargets(p: Plan, results: AppliedEdit[] | undefined): TargetId[] {
  return TARGET_IDS.filter((id) => {
    const edits = p.edits.filter((e) => e.target === id);
    if (edits.length === 0 || edits.some((e) => e.kind === "collision")) return false;
    if (!results) return edits.every((e) => e.kind === "unchanged");
    return results.filter((r) => r.edit.target === id).every((r) => r.status === "written" || r.edit.kind === "unchanged");
  });
}

function nextStepLines(targets: TargetId[], scope: Scope, remote: Remote | null): string[] {
  if (targets.length === 0) return [];
  const server = remote
    ? [
        `  - start the shared server (it keeps running; one per repository): codegraph mcp serve --root REPO --port ${new URL(remote.url).port || "7331"} --warmup${remote.tokenEnv ? `, with the token in $${remote.tokenEnv} for it and for the clients` : ""}`,
      ]
    : [];
  return ["", "next:", ...server, ...nextSteps(targets, scope).map((s) => `  - ${s}`), `  then ask your agent: "${FIRST_QUESTION}"`];
}

/** Runs `codegraph install` (action "install") or `codegraph uninstall`; resolves to the exit code. */
export async function runInstallCommand(action: "install" | "uninstall", argv: string[], io: InstallIo): Promise<number> {
  const usage = action === "install" ? `${INSTALL_USAGE}\n       codegraph ${PRINT_CONFIG_USAGE}` : UNINSTALL_USAGE;
  const fail = (message: string) => {
    io.err(`codegraph ${action}: ${message}; usage: codegraph ${usage}`);
    return 2;
  };
  let values: Values;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values as Values;
  } catch (e) {
    return fail((e as Error).message);
  }
  if (values.help) {
    io.out(`usage: codegraph ${usage}\n\ntargets: ${TARGET_IDS.join(", ")}`);
    return 0;
  }
  const environment = io.environment ?? processEnvironment();
  const files = io.files ?? nodeFileView;
  try {
    const scope = (values.scope ?? "user") as Scope;
    if (scope !== "user" && scope !== "project")
      throw new UsageError(`--scope must be user or project (got ${JSON.stringify(values.scope)})`);
    if (values["print-config"] !== undefined) {
      if (action === "uninstall") throw new UsageError("--print-config belongs to install");
      if (values.target !== undefined || values.all || values.detect)
        throw new UsageError("--print-config takes one target and no --target/--all/--detect");
      const snippet = configSnippet(targetId(values["print-config"]), environment, remoteOf(values));
      io.out(snippet.text.replace(/\n$/, ""));
      return 0;
    }
    const remote = remoteOf(values);
    if (remote && action === "uninstall") throw new UsageError("uninstall takes no --url: it removes codegraph's entries of either form");
    const targets = selectTargets(values, scope, environment, files);
    if (targets.length === 0) {
      io.err(
        `codegraph ${action}: no supported client found (${scope} scope: none of their config folders exist); name them with --target ${TARGET_IDS.join(",")}`,
      );
      return 1;
    }
    const recordFile = recordPath(environment);
    const record = loadRecord(recordFile);
    const p = plan({ action, targets, scope, environment, files, force: values.force, record, remote });
    return await carryOut(p, values, io, environment, { file: recordFile, record });
  } catch (e) {
    if (e instanceof UsageError) return fail(e.message);
    const err = e as Error;
    io.err(`codegraph ${action}: ${err instanceof InstallError ? err.message : `${err.message}; nothing was written`}`);
    return 1;
  }
}

/** The install record after a run: what was written is recorded, what was removed forgotten. */
function updatedRecord(record: InstallRecord, p: Plan, results: AppliedEdit[]): InstallRecord {
  const at = new Date().toISOString();
  let next = record;
  for (const r of results) {
    const e = r.edit;
    if (p.action === "install" && r.status === "written") next = recordInstall(next, e, at);
    if (p.action === "uninstall" && (r.status === "written" || e.kind === "unchanged")) next = forget(next, e.path, e.target);
  }
  return next;
}

async function carryOut(
  p: Plan,
  values: Values,
  io: InstallIo,
  environment: InstallEnvironment,
  recording: { file: string; record: InstallRecord },
): Promise<number> {
  const json = Boolean(values.json);
  const collisions = p.edits.some((e) => e.kind === "collision");
  const toWrite = p.edits.filter((e) => ACTIONABLE.has(e.kind));
  const report = (applied: boolean, results?: AppliedEdit[]) => {
    const installed = p.action === "install" ? installedTargets(p, results) : [];
    io.out(
      JSON.stringify(
        {
          action: p.action,
          scope: p.scope,
          dryRun: Boolean(values["dry-run"]),
          applied,
          server: p.remote
            ? { url: p.remote.url, tokenEnv: p.remote.tokenEnv }
            : { command: p.launcher.command, args: launchArgs(p.launcher), note: p.launcher.note },
          edits: p.edits.map((e, i) => jsonEdit(e, results?.[i])),
          ...(installed.length > 0 ? { nextSteps: nextSteps(installed, p.scope), firstQuestion: FIRST_QUESTION } : {}),
        },
        null,
        2,
      ),
    );
  };
  if (!json) io.out(describePlan(p, environment, p.action).join("\n"));

  if (values["dry-run"]) {
    if (json) report(false);
    else io.out("dry run: nothing was written.");
    return 0;
  }
  if (toWrite.length === 0) {
    if (json) report(false);
    else {
      const what = p.action === "install" ? "already installed" : "nothing of codegraph's to remove";
      io.out(
        [
          collisions ? "nothing written." : `nothing to do: ${what}.`,
          ...(p.action === "install" ? nextStepLines(installedTargets(p, undefined), p.scope, p.remote) : []),
        ].join("\n"),
      );
    }
    return collisions ? 1 : 0;
  }
  if (!values.yes) {
    const interactive = io.interactive ?? process.stdin.isTTY === true;
    if (!interactive) {
      if (json) report(false);
      io.err(
        `codegraph ${p.action}: not run from a terminal, so nothing was written; run again with --yes to apply this plan (or --dry-run to only print it)`,
      );
      return 2;
    }
    const answer = await (io.ask ?? askOnTerminal)("Apply these changes? [y/N] ");
    if (!/^(y|yes)$/i.test(answer.trim())) {
      if (json) report(false);
      io.err("nothing written.");
      return 1;
    }
  }

  const results = applyPlan(p.edits, io.apply);
  const failed = results.some((r) => r.status === "failed");
  const record = updatedRecord(recording.record, p, results);
  if (JSON.stringify(record) !== JSON.stringify(recording.record)) {
    try {
      saveRecord(recording.file, record);
    } catch (e) {
      // The configs are written; only a later uninstall's exactness is lost.
      io.err(`codegraph ${p.action}: note: cannot write the install record ${recording.file}: ${(e as Error).message}`);
    }
  }
  if (json) {
    report(true, results);
  } else {
    const lines = [""];
    const width = Math.max(...results.map((r) => r.edit.target.length));
    for (const r of results) {
      if (r.status === "skipped") continue;
      const where = shown(r.edit.path, environment);
      if (r.status === "failed") {
        lines.push(`failed   ${r.edit.target.padEnd(width)}  ${where}: ${r.reason}`);
        continue;
      }
      const did = r.edit.kind === "create" ? "created" : r.edit.kind === "remove" ? "deleted" : "updated";
      lines.push(
        `${did.padEnd(8)} ${r.edit.target.padEnd(width)}  ${where}${r.backup ? `  (backup: ${shown(r.backup, environment)})` : ""}`,
      );
    }
    if (p.action === "install") lines.push(...nextStepLines(installedTargets(p, results), p.scope, p.remote));
    else lines.push("", "restart the clients to drop the codegraph server.");
    io.out(lines.join("\n"));
  }
  return failed || collisions ? 1 : 0;
}

/** `codegraph install …` */
export function runInstall(argv: string[], io: InstallIo): Promise<number> {
  return runInstallCommand("install", argv, io);
}

/** `codegraph uninstall …` */
export function runUninstall(argv: string[], io: InstallIo): Promise<number> {
  return runInstallCommand("uninstall", argv, io);
}
