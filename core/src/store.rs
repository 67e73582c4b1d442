//! The `.codegraph/` folder under the root: the persisted index (`index.bin`, `text.bin`), the
//! writer lock, its own `.gitignore`, and the user's `config`. A cloned repository controls what is
//! there, so every access goes through this module: `.codegraph` must be a real directory (a
//! symlink could send reads and writes anywhere), and every file is read under a size cap.

use crate::host::{EntryKind, Host};

pub(crate) const DIR: &str = ".codegraph";

/// Small files of the folder (`config`, the lock) are read up to this size.
pub(crate) const SMALL_FILE_CAP: u64 = 1024 * 1024;

/// The root-relative path of a file of the folder.
pub(crate) fn path(name: &str) -> String {
    format!("{DIR}/{name}")
}

/// Whether the folder may be used: absent (writing creates it) or a real directory.
pub(crate) fn usable(host: &dyn Host) -> Result<(), String> {
    match host.lstat(DIR) {
        Ok(entry) if entry.kind != EntryKind::Dir => Err(format!(
            "`{DIR}` is {}, not a directory: codegraph neither reads nor writes through it (remove it, or run with --no-persist)",
            match entry.kind {
                EntryKind::Symlink => "a symlink",
                EntryKind::File => "a file",
                _ => "not a regular directory",
            }
        )),
        _ => Ok(()),
    }
}

/// The content of `.codegraph/<name>`, at most `limit` bytes; `Ok(None)` when there is no such file.
pub(crate) fn read(host: &dyn Host, name: &str, limit: u64) -> Result<Option<Vec<u8>>, String> {
    usable(host)?;
    let rel = path(name);
    if host.lstat(&rel).is_err() {
        return Ok(None);
    }
    host.read_file(&rel, limit).map(Some).map_err(|e| format!("cannot read {rel}: {e}"))
}

/// Writes `.codegraph/<name>` atomically (creating the folder).
pub(crate) fn write(host: &dyn Host, name: &str, bytes: &[u8]) -> Result<(), String> {
    usable(host)?;
    host.write_file_atomic(&path(name), bytes)
}

/// Writes `.codegraph/<name>`, a file codegraph can make again, atomically (creating the folder).
pub(crate) fn write_cache(host: &dyn Host, name: &str, bytes: &[u8]) -> Result<(), String> {
    usable(host)?;
    host.write_cache_file(&path(name), bytes)
}

/// Creates `.codegraph/<name>` only if it does not exist; `Ok(false)` when it does.
pub(crate) fn create_exclusive(host: &dyn Host, name: &str, bytes: &[u8]) -> Result<bool, String> {
    usable(host)?;
    host.create_exclusive(&path(name), bytes)
}

/// Removes `.codegraph/<name>` (a missing file is not an error).
pub(crate) fn remove(host: &dyn Host, name: &str) -> Result<(), String> {
    usable(host)?;
    host.remove_file(&path(name))
}

/// What `.codegraph/.gitignore` says.
const GITIGNORE_TEXT: &[u8] = b"# codegraph's index and artifacts are never committed; its config (context profiles, MCP tools)\n# and custom SQL tools (tools.yaml) may be.\n*\n!config\n!tools.yaml\n";
/// What earlier versions wrote (it hid tools.yaml from git): replaced when found unchanged.
const OLD_GITIGNORE_TEXT: &[u8] =
    b"# codegraph's index is never committed; its config (context profiles) may be.\n*\n!config\n";

/// Writes the folder's own `.gitignore` unless it has one (a user's own is left alone).
pub(crate) fn ensure_gitignore(host: &dyn Host) -> Result<(), String> {
    match read(host, ".gitignore", SMALL_FILE_CAP)? {
        Some(text) if text != OLD_GITIGNORE_TEXT => Ok(()),
        _ => write(host, ".gitignore", GITIGNORE_TEXT),
    }
}

/// The cap on a persisted index read back: generous for the sources it describes (the index of a
/// repository is a small multiple of its source), so a crafted or sparse file can't fill memory.
pub(crate) fn index_cap(source_bytes: u64) -> u64 {
    64 * 1024 * 1024 + source_bytes.saturating_mul(32)
}
