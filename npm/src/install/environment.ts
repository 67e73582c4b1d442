// The real process as the installer sees it: its HOME, working directory and executable, and a
// read-only view of the file system. The planner takes both as arguments, so tests pass their own.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { nodeFileOps } from "./apply";
import type { FileView, InstallEnvironment } from "./types";

/** The environment of this process: its HOME, working directory and the running executable. */
export function processEnvironment(): InstallEnvironment {
  const script = process.argv[1];
  return {
    home: os.homedir(),
    cwd: process.cwd(),
    platform: process.platform,
    env: process.env,
    executablePath: script ? path.resolve(script) : null,
    nodePath: process.execPath,
  };
}

export const nodeFileView: FileView = {
  readFile: (p) => nodeFileOps.readFile(p),
  exists: (p) => fs.existsSync(p),
};
