// The platforms codegraph ships a native addon for: one npm package each, named after the target,
// with the os/cpu/libc fields npm uses to install only the matching one. Shared by the loader and the
// packaging scripts (scripts/pack.js), so the names can't drift apart.

export interface Platform {
  /** `linux-x64-gnu`, … — also the suffix of the `.node` file. */
  target: string;
  /** The Rust target triple the release workflow builds. */
  rustTarget: string;
  os: "linux" | "darwin" | "win32";
  cpu: string;
  libc?: "glibc" | "musl";
  /** A GitHub Actions runner that builds it natively. */
  runner: string;
}

export const PLATFORMS: readonly Platform[] = [
  { target: "linux-x64-gnu", rustTarget: "x86_64-unknown-linux-gnu", os: "linux", cpu: "x64", libc: "glibc", runner: "ubuntu-22.04" },
  {
    target: "linux-arm64-gnu",
    rustTarget: "aarch64-unknown-linux-gnu",
    os: "linux",
    cpu: "arm64",
    libc: "glibc",
    runner: "ubuntu-22.04-arm",
  },
  { target: "linux-x64-musl", rustTarget: "x86_64-unknown-linux-musl", os: "linux", cpu: "x64", libc: "musl", runner: "ubuntu-22.04" },
  {
    target: "linux-arm64-musl",
    rustTarget: "aarch64-unknown-linux-musl",
    os: "linux",
    cpu: "arm64",
    libc: "musl",
    runner: "ubuntu-22.04-arm",
  },
  { target: "darwin-x64", rustTarget: "x86_64-apple-darwin", os: "darwin", cpu: "x64", runner: "macos-13" },
  { target: "darwin-arm64", rustTarget: "aarch64-apple-darwin", os: "darwin", cpu: "arm64", runner: "macos-14" },
  { target: "win32-x64-msvc", rustTarget: "x86_64-pc-windows-msvc", os: "win32", cpu: "x64", runner: "windows-2022" },
  { target: "win32-arm64-msvc", rustTarget: "aarch64-pc-windows-msvc", os: "win32", cpu: "arm64", runner: "windows-11-arm" },
];

/** The npm package that carries one target's addon. */
export function platformPackageName(target: string): string {
  return `@codegraph/${target}`;
}

/** The file name of one target's addon, in its package and in the native cache. */
export function nativeFileName(target: string): string {
  return `codegraph.${target}.node`;
}

/** The file name of a development build of the addon: the release build has the package's name,
 *  the debug build (what the test command builds) its own, so one never replaces the other. */
export function workspaceFileName(target: string, profile: "release" | "debug"): string {
  return profile === "release" ? nativeFileName(target) : `codegraph.${target}.debug.node`;
}

/** The development builds to try, in order: the one CODEGRAPH_WORKSPACE_PROFILE names (`release` or
 *  `debug`), else the release build first (the fast one) and the debug build after it. */
export function workspaceProfiles(env: Record<string, string | undefined> = process.env): Array<"release" | "debug"> {
  const chosen = env.CODEGRAPH_WORKSPACE_PROFILE;
  if (chosen === "release" || chosen === "debug") return [chosen];
  if (chosen) throw new Error(`CODEGRAPH_WORKSPACE_PROFILE must be release or debug (got ${JSON.stringify(chosen)})`);
  return ["release", "debug"];
}

/** What `build-manifest.json` (at the package root) records about every shipped binary. */
export interface BuildManifest {
  name: string;
  version: string;
  artifacts: Array<{
    kind: "native" | "wasm";
    target: string;
    /** For native: the platform package that carries it. */
    package?: string;
    /** Path inside its package. */
    path: string;
    blake3: string;
    size: number;
  }>;
}
