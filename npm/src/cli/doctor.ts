// `codegraph doctor [--json] [--root DIR]`: what is installed, how it was launched, which engine runs
// and where its binary came from, whether an update needs a restart, the languages, the wasm module,
// the index of the root and which agent clients have codegraph configured. Every check runs on its
// own: a failing one reports its error in its section and the rest still run. Exit 0 unless no engine
// can be loaded at all.

import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { openSession, packageVersion } from "../index";
import { loadEngine, packageRoot, platformTarget, readBuildManifest, type LoadedEngine } from "../loader";
import { configuredClients, type ConfiguredClient } from "../install/clients";
import { blake3File, listCache, nativeCacheRoot } from "../native-cache";
import { DOCTOR_USAGE } from "./usage";

type Section<T> = ({ ok: true } & T) | { ok: false; error: string };

function check<T extends object>(f: () => T): Section<T> {
  try {
    return { ok: true, ...f() };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** Leftover `.codegraph-*` folders npm leaves beside a replaced package; listed, never deleted. */
const STALE_LIST_CAP = 20;

function readInstalledVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { version: string }).version;
}

/** How this process was started: npx, a global install, a project dependency or a source checkout. */
function launchedAs(): string {
  const script = process.argv[1] ? path.resolve(process.argv[1]) : "";
  if (fs.existsSync(path.join(packageRoot, ".git")) || fs.existsSync(path.join(packageRoot, "Cargo.toml"))) return "source checkout";
  if (/[\\/]_npx[\\/]/.test(packageRoot) || process.env.npm_command === "exec") return "npx";
  const parent = path.dirname(packageRoot);
  if (path.basename(parent) === "node_modules") {
    const owner = path.dirname(parent);
    // A global prefix holds node_modules directly under lib/ (POSIX) or the prefix itself (Windows).
    if (path.basename(owner) === "lib" || fs.existsSync(path.join(owner, "node.exe"))) return "global install";
    return script.includes(`${path.sep}node_modules${path.sep}.bin${path.sep}`)
      ? "project dependency (via node_modules/.bin)"
      : "project dependency";
  }
  return "unknown";
}

export function doctorReport(root: string | undefined) {
  const runningVersion = packageVersion();
  const pkg = check(() => ({
    name: "codegraph",
    version: runningVersion,
    installPath: packageRoot,
    launchedAs: launchedAs(),
    argv: process.argv.slice(1),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    target: platformTarget(),
  }));
  let loaded: LoadedEngine | undefined;
  const engine = check(() => {
    loaded = loadEngine({ fresh: true });
    const profile = typeof loaded.module.buildProfile === "function" ? loaded.module.buildProfile() : "release";
    return { kind: loaded.kind, path: loaded.path, version: loaded.module.version(), profile, attempts: loaded.attempts };
  });
  const native = check(() => {
    const origin = loaded?.origin ?? null;
    const manifest = readBuildManifest();
    const installedVersion = readInstalledVersion();
    const parent = path.dirname(packageRoot);
    const stale = fs
      .readdirSync(parent)
      .filter((n) => n.startsWith(".codegraph-"))
      .map((n) => path.join(parent, n));
    const restartRequired = installedVersion !== runningVersion;
    let cache: object;
    try {
      const dir = nativeCacheRoot();
      cache = { dir, entries: listCache(dir) };
    } catch (e) {
      cache = { error: (e as Error).message };
    }
    return {
      origin,
      manifest: manifest ? { version: manifest.version, artifacts: manifest.artifacts } : null,
      cache,
      update: {
        staleRetirementPaths: stale.slice(0, STALE_LIST_CAP),
        omittedStaleRetirementPaths: Math.max(0, stale.length - STALE_LIST_CAP),
        runningVersion,
        installedVersion,
        restartRequired,
        reason: restartRequired
          ? `codegraph ${installedVersion} is installed but ${runningVersion} is running: restart the MCP server to use it`
          : origin?.updateSafeForCurrentProcess
            ? "running from a verified cache copy: an update of the package can't disturb this process"
            : origin
              ? `the addon is loaded from ${origin.mode === "workspace" ? "the development build" : "the package folder"}: restart after updating it`
              : "no native addon in use",
      },
    };
  });
  const languages = check(() => ({ languages: loaded ? loaded.module.supportedLanguages() : [] }));
  const wasm = check(() => {
    const file = path.join(packageRoot, "npm", "wasm", "codegraph_wasm_bg.wasm");
    const size = fs.statSync(file).size;
    const expected = readBuildManifest()?.artifacts.find((a) => a.kind === "wasm")?.blake3;
    const hash = expected ? blake3File(file) : undefined;
    const w = loadEngine({ prefer: "wasm" });
    return {
      path: file,
      size,
      loads: true,
      version: w.module.version(),
      ...(expected ? { hash, hashMatchesManifest: hash === expected } : {}),
    };
  });
  const index = check(() => {
    const dir = path.resolve(root ?? ".");
    const snapshotFile = path.join(dir, ".codegraph", "index.bin");
    const persisted = fs.existsSync(snapshotFile);
    if (!persisted) return { root: dir, snapshot: "none (run `codegraph init` or `codegraph index`)" };
    const s = openSession({ root: dir, persist: true });
    const st = s.status();
    return {
      root: dir,
      snapshot: st.snapshot,
      files: st.files,
      languages: st.languages,
      freshness: st.freshness,
      skipped: st.skipped.length,
    };
  });
  // The custom SQL tools of .codegraph/tools.yaml: what loads, and each definition skipped with why.
  const tools = check(() => {
    const r = openSession({ root: path.resolve(root ?? "."), persist: false }).customTools();
    return { path: r.path, exists: r.exists, tools: r.tools.map((t) => t.name), issues: r.issues };
  });
  const clients = check(() => ({ clients: configuredClients(root) }));
  return { package: pkg, engine, native, languages, wasm, index, tools, clients };
}

function human(report: ReturnType<typeof doctorReport>): string {
  const lines: string[] = [];
  const section = (title: string, s: Section<object>, body: (s: Record<string, unknown>) => string[]) => {
    lines.push(`${title}`);
    if (!s.ok) lines.push(`  ERROR: ${s.error}`);
    else lines.push(...body(s as Record<string, unknown>).map((l) => `  ${l}`));
    lines.push("");
  };
  section("package", report.package, (p) => [
    `codegraph ${p.version} at ${p.installPath}`,
    `launched as: ${p.launchedAs}`,
    `node ${p.node} on ${p.platform} (target ${p.target})`,
  ]);
  section("engine", report.engine, (e) => [
    `${e.kind} ${e.version} (${e.profile} build${e.profile === "debug" ? ", 3-4x slower" : ""}) from ${e.path}`,
    ...(e.attempts as Array<{ ok: boolean; engine: string; source: string; path: string; error?: string }>).map(
      (a) => `${a.ok ? "ok  " : "fail"} ${a.engine} (${a.source}) ${a.path}${a.error ? `: ${a.error}` : ""}`,
    ),
  ]);
  section("native", report.native, (n) => {
    const o = n.origin as Record<string, unknown> | null;
    const u = n.update as Record<string, unknown>;
    const cache = n.cache as { dir?: string; entries?: Array<{ key: string }>; error?: string };
    return [
      o ? `mode ${o.mode}: ${o.loadedPath}` : "not in use",
      ...(o?.sourcePath && o.sourcePath !== o.loadedPath ? [`source: ${o.sourcePath}`] : []),
      ...(o?.hash ? [`blake3 ${o.hash} (verified against build-manifest.json)`] : []),
      ...(o?.cacheKey ? [`cache key: ${o.cacheKey}`] : []),
      ...(o?.cacheError ? [`cache not used: ${o.cacheError}`] : []),
      cache.dir
        ? `cache: ${cache.dir} (${cache.entries?.length ?? 0} entries${cache.entries?.length ? `: ${cache.entries.map((e) => e.key).join(", ")}` : ""})`
        : `cache: ${cache.error}`,
      `update: running ${u.runningVersion}, installed ${u.installedVersion}${u.restartRequired ? " — RESTART REQUIRED" : ""}; ${u.reason}`,
      ...((u.staleRetirementPaths as string[]).length
        ? [`leftover folders from earlier updates (safe to delete): ${(u.staleRetirementPaths as string[]).join(", ")}`]
        : []),
    ];
  });
  section("languages", report.languages, (l) => [(l.languages as string[]).join(", ")]);
  section("wasm", report.wasm, (w) => [
    `${w.path} (${w.size} bytes), loads${w.hash ? `, blake3 ${w.hashMatchesManifest ? "matches" : "DOES NOT MATCH"} the build manifest` : ""}`,
  ]);
  section("index", report.index, (i) => {
    const snap = i.snapshot as string | { state: string; bytes?: number; ageMs?: number };
    if (typeof snap === "string") return [`${i.root}: ${snap}`];
    const fresh = i.freshness as { state: string; changedFileCount?: number };
    return [
      `${i.root}: ${i.files} files, snapshot ${snap.state}${snap.bytes ? ` (${snap.bytes} bytes)` : ""}, ${fresh.state}${fresh.changedFileCount ? ` (${fresh.changedFileCount} files changed)` : ""}, ${i.skipped} skipped`,
    ];
  });
  section("custom tools", report.tools, (t) => {
    if (!t.exists) return [`none (${t.path} does not exist)`];
    const issues = t.issues as Array<{ tool?: string; message: string }>;
    return [
      `${t.path}: ${(t.tools as string[]).length ? (t.tools as string[]).join(", ") : "no tools"}`,
      ...issues.map((i) => `SKIPPED ${i.tool ?? "(file)"}: ${i.message}`),
    ];
  });
  section("clients", report.clients, (c) => {
    const list = c.clients as Array<ConfiguredClient & { health?: Health }>;
    return list.length
      ? list.flatMap((x) => [
          `${x.target} (${x.scope}): ${x.state}${x.transport ? ` [${x.transport === "http" ? x.url : "stdio"}]` : ""}${x.path ? ` — ${x.path}` : ""}${x.error ? `: ${x.error}` : ""}`,
          ...(x.health
            ? [
                x.health.answers
                  ? `  server answers: codegraph ${x.health.version} for ${x.health.root}`
                  : `  no server answers at ${x.url}: ${x.health.error} (start it: codegraph mcp serve --root REPO --port N --warmup)`,
              ]
            : []),
        ])
      : ["none configured (codegraph install --target …)"];
  });
  return lines.join("\n").trimEnd();
}

/** What a shared server's `/health` says. */
export interface Health {
  answers: boolean;
  version?: string;
  root?: string;
  error?: string;
}

/** Asks `/health` beside a client's server URL (with its bearer token when the environment has it). */
export async function probeHealth(url: string, tokenEnv: string | null | undefined, timeoutMs = 2000): Promise<Health> {
  try {
    const token = tokenEnv ? process.env[tokenEnv] : undefined;
    const res = await fetch(new URL("/health", url), {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return { answers: false, error: `HTTP ${res.status}` };
    const body = (await res.json()) as { name?: string; version?: string; root?: string };
    if (body.name !== "codegraph") return { answers: false, error: "something else answers there" };
    return { answers: true, version: body.version, root: body.root };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    return { answers: false, error: err.cause?.code ?? err.message };
  }
}

/** Runs doctor; returns the exit code (0 unless no engine can be loaded). */
export async function runDoctor(argv: string[], io: { out(t: string): void; err(t: string): void }): Promise<number> {
  let values: { json?: boolean; root?: string; help?: boolean };
  try {
    values = parseArgs({
      args: argv,
      options: { json: { type: "boolean" }, root: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
    }).values;
  } catch (e) {
    io.err(`codegraph doctor: ${(e as Error).message}; usage: codegraph ${DOCTOR_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(`usage: codegraph ${DOCTOR_USAGE}`);
    return 0;
  }
  const report = doctorReport(values.root);
  if (report.clients.ok) {
    // Each shared server once, however many clients point at it.
    const probes = new Map<string, Promise<Health>>();
    for (const c of report.clients.clients as Array<ConfiguredClient & { health?: Health }>) {
      if (c.transport !== "http" || !c.url) continue;
      if (!probes.has(c.url)) probes.set(c.url, probeHealth(c.url, c.tokenEnv));
      c.health = await probes.get(c.url)!;
    }
  }
  io.out(values.json ? JSON.stringify(report, null, 2) : human(report));
  return report.engine.ok ? 0 : 1;
}
