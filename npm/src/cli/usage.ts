// Usage lines of the subcommands that live in heavier modules (MCP server, installer, doctor), kept
// here so `--help` and the fast commands don't load the MCP SDK or the installer to print them.

export const MCP_USAGE =
  "mcp serve [--root DIR] [--stdio | --port N [--host H] [--auth-token T] [--max-sessions N]] [--tools LIST] [--warmup] [--allow-build]";
export const INSTALL_USAGE =
  "install --target T[,T...] | --all | --detect [--url URL [--auth-token-env NAME]] [--scope user|project] [--dry-run] [--yes] [--force] [--json]";
export const PRINT_CONFIG_USAGE = "install --print-config T [--url URL [--auth-token-env NAME]]";
export const UNINSTALL_USAGE =
  "uninstall --target T[,T...] | --all | --detect [--scope user|project] [--dry-run] [--yes] [--force] [--json]";
export const DOCTOR_USAGE = "doctor [--json] [--root DIR]";
