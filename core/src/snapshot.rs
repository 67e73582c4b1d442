//! The persistent snapshot under `<root>/.codegraph/`: every indexed file's stat, hash and extracted
//! facts, so that the next session reads and parses only what changed. One file, written atomically
//! (temp + rename) by one writer at a time (an exclusive lock file that expires), never trusted
//! unless its magic, format version, core version, options, length and blake3 checksum all match.
//! The wasm engine persists the same bytes through its host.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::facts::FileFacts;
use crate::host::Host;
use crate::lang::Language;
use crate::store;

/// The snapshot's file in `.codegraph/`, and its root-relative path.
pub(crate) const NAME: &str = "index.bin";
pub(crate) const FILE: &str = ".codegraph/index.bin";
const LOCK: &str = "lock";
const MAGIC: [u8; 8] = *b"CODEGRPH";
/// Bumped whenever the payload layout or the meaning of facts changes.
pub(crate) const FORMAT_VERSION: u32 = 13;
/// A lock older than this was left by a crashed writer and is broken.
const LOCK_EXPIRY_MS: f64 = 120_000.0;
const HEADER_LEN: usize = 8 + 4 + 8 + 32;

/// One file as the snapshot remembers it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SnapshotFile {
    pub path: String,
    pub language: Language,
    pub hash: String,
    pub size: u64,
    pub mtime_ms: f64,
    pub lines: u32,
    pub facts: Arc<FileFacts>,
}

impl SnapshotFile {
    /// The indexed file this entry remembers.
    pub(crate) fn indexed(&self) -> crate::index::IndexedFile {
        crate::index::IndexedFile {
            path: self.path.clone(),
            language: self.language,
            hash: self.hash.clone(),
            size: self.size,
            mtime_ms: self.mtime_ms,
            lines: self.lines,
            facts: self.facts.clone(),
            sym_base: 0,
        }
    }

    /// What the snapshot remembers of an indexed file.
    pub(crate) fn of(f: &crate::index::IndexedFile) -> SnapshotFile {
        SnapshotFile {
            path: f.path.clone(),
            language: f.language,
            hash: f.hash.clone(),
            size: f.size,
            mtime_ms: f.mtime_ms,
            lines: f.lines,
            facts: f.facts.clone(),
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Snapshot {
    pub core_version: String,
    pub options_key: String,
    pub files: Vec<SnapshotFile>,
    /// blake3 of the config files the graph was resolved with.
    pub configs_key: String,
    /// The resolved graph of exactly `files` (ids = positions in path order) under those configs.
    pub graph: Option<crate::index::GraphParts>,
}

/// Frames a payload: magic, format version, payload length, blake3 of the payload, payload.
pub(crate) fn frame(magic: [u8; 8], version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(&magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(blake3::hash(payload).as_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of a framed file, verified; the error says why it can't be trusted.
pub(crate) fn unframe(bytes: &[u8], magic: [u8; 8], version: u32) -> Result<&[u8], String> {
    if bytes.len() < HEADER_LEN || bytes[..8] != magic {
        return Err("not a codegraph snapshot (bad header)".into());
    }
    let found = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if found != version {
        return Err(format!("snapshot format {found}, this codegraph reads format {version}"));
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes")) as usize;
    let payload = &bytes[HEADER_LEN..];
    if payload.len() != len {
        return Err(format!("truncated snapshot ({} of {len} payload bytes)", payload.len()));
    }
    if blake3::hash(payload).as_bytes() != &bytes[20..52] {
        return Err("snapshot checksum mismatch (corrupt file)".into());
    }
    Ok(payload)
}

/// Encodes a snapshot.
pub(crate) fn encode(snapshot: &Snapshot) -> Result<Vec<u8>, String> {
    let payload = postcard::to_allocvec(snapshot).map_err(|e| e.to_string())?;
    Ok(frame(MAGIC, FORMAT_VERSION, &payload))
}

/// Decodes and verifies a snapshot; the error says why it can't be trusted.
pub(crate) fn decode(bytes: &[u8], options_key: &str) -> Result<Snapshot, String> {
    let payload = unframe(bytes, MAGIC, FORMAT_VERSION)?;
    let snapshot: Snapshot = postcard::from_bytes(payload).map_err(|e| format!("undecodable snapshot: {e}"))?;
    if snapshot.core_version != crate::VERSION {
        return Err(format!("snapshot written by codegraph {}, this is {}", snapshot.core_version, crate::VERSION));
    }
    if snapshot.options_key != options_key {
        return Err("snapshot made with other discovery options".into());
    }
    Ok(snapshot)
}

/// Why a snapshot was not used: it is damaged (or unreadable), or only made by another version or
/// under other options (then rebuilding it is routine, not news).
pub(crate) struct Rejection {
    pub why: String,
    pub damaged: bool,
}

/// Reads the snapshot (at most `cap` bytes); `Ok(None)` when there is none.
pub(crate) fn load(host: &dyn Host, options_key: &str, cap: u64) -> Result<Option<Snapshot>, Rejection> {
    let bytes = store::read(host, NAME, cap).map_err(|why| Rejection { why, damaged: true })?;
    let Some(bytes) = bytes else { return Ok(None) };
    decode(&bytes, options_key).map(Some).map_err(|why| {
        let outdated = why.starts_with("snapshot format ")
            || why.starts_with("snapshot written by codegraph")
            || why.starts_with("snapshot made with other");
        Rejection { why, damaged: !outdated }
    })
}

/// Writes the snapshot unless another writer holds the lock (then its snapshot will do). Returns
/// whether this process wrote it.
pub(crate) fn save(host: &dyn Host, snapshot: &Snapshot) -> Result<bool, String> {
    let bytes = encode(snapshot)?;
    with_lock(host, || store::write(host, NAME, &bytes))
}

/// Runs `write` holding the writer lock of `.codegraph/`; `Ok(false)` (nothing written) when
/// another writer holds it.
pub(crate) fn with_lock(host: &dyn Host, write: impl FnOnce() -> Result<(), String>) -> Result<bool, String> {
    store::usable(host)?;
    let now_ms = host.now_ms();
    let stamp = match host.pid() {
        Some(pid) => format!("{pid} {now_ms}"),
        None => format!("{now_ms}"),
    };
    if !store::create_exclusive(host, LOCK, stamp.as_bytes())? {
        if lock_is_held(host, now_ms) {
            return Ok(false);
        }
        store::remove(host, LOCK)?;
        if !store::create_exclusive(host, LOCK, stamp.as_bytes())? {
            return Ok(false);
        }
    }
    remove_stray_temp_files(host, now_ms);
    let result = (|| {
        store::ensure_gitignore(host)?;
        write()
    })();
    let _ = store::remove(host, LOCK);
    result.map(|()| true)
}

/// Whether the lock someone else holds is live: its writer's process runs (when the host can tell)
/// and it is younger than the expiry. A lock whose stamp can't be read yet (its writer is between
/// creating and filling it) is dated by its mtime.
fn lock_is_held(host: &dyn Host, now_ms: f64) -> bool {
    let stamp = store::read(host, LOCK, store::SMALL_FILE_CAP).ok().flatten().and_then(|b| String::from_utf8(b).ok());
    let (pid, recorded) = match stamp.as_deref().map(str::trim).and_then(|s| s.split_once(' ')) {
        Some((pid, at)) => (pid.parse::<u32>().ok(), at.parse::<f64>().ok()),
        None => (None, stamp.as_deref().and_then(|s| s.trim().parse::<f64>().ok())),
    };
    if pid.and_then(|p| host.process_alive(p)) == Some(false) {
        return false;
    }
    let held_since = recorded.or_else(|| host.lstat(&store::path(LOCK)).ok().map(|e| e.mtime_ms));
    held_since.is_some_and(|t| now_ms - t < LOCK_EXPIRY_MS)
}

/// Removes the temporary files a writer killed mid-write left in `.codegraph/`
/// (`.<name>.tmp-<pid>-<nonce>`): those of a process that is gone, or older than the lock expiry.
/// Only the lock holder does this, so no live write loses its temporary file.
fn remove_stray_temp_files(host: &dyn Host, now_ms: f64) {
    let Ok(entries) = host.read_dir(store::DIR) else { return };
    for e in entries.iter().filter(|e| e.kind == crate::host::EntryKind::File && e.name.starts_with('.')) {
        let Some((_, tail)) = e.name.split_once(".tmp-") else { continue };
        let pid = tail.split('-').next().and_then(|p| p.parse::<u32>().ok());
        let gone = pid.and_then(|p| host.process_alive(p)).map(|alive| !alive);
        let old = host.lstat(&store::path(&e.name)).is_ok_and(|s| now_ms - s.mtime_ms > LOCK_EXPIRY_MS);
        let ours = pid.is_some() && pid == host.pid();
        if gone.unwrap_or(old) && !ours {
            let _ = store::remove(host, &e.name);
        }
    }
}

/// Facts of the snapshot by path, for the stat fast path.
pub(crate) fn by_path(snapshot: Snapshot) -> rustc_hash::FxHashMap<String, SnapshotFile> {
    snapshot.files.into_iter().map(|f| (f.path.clone(), f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Snapshot {
        Snapshot {
            core_version: crate::VERSION.into(),
            options_key: "k".into(),
            configs_key: String::new(),
            graph: None,
            files: vec![SnapshotFile {
                path: "a.py".into(),
                language: Language::Python,
                hash: "h".into(),
                size: 3,
                mtime_ms: 1.0,
                lines: 1,
                facts: Arc::new(crate::extract::extract(Language::Python, "def f():\n    g(1)\n")),
            }],
        }
    }

    #[test]
    fn round_trips_and_rejects_damage() {
        let bytes = encode(&sample()).unwrap();
        let back = decode(&bytes, "k").unwrap();
        assert_eq!(back.files[0].facts, sample().files[0].facts);
        assert!(decode(&bytes[..bytes.len() - 1], "k").unwrap_err().contains("truncated"));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(decode(&flipped, "k").unwrap_err().contains("checksum"));
        let mut old = bytes.clone();
        old[8] = 0;
        assert!(decode(&old, "k").unwrap_err().contains("format 0"));
        assert!(decode(&bytes, "other").unwrap_err().contains("options"));
        assert!(decode(b"garbage", "k").is_err());
    }
}
