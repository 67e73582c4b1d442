//! `status` and `refresh`: what the session indexed and skipped, what the persisted snapshot did
//! and where the last build's time went; and taking in changed files on request. Both report on
//! the session itself rather than through an index-backed answer.

use serde::{Deserialize, Serialize};

use super::{Error, Freshness, LanguageSummary, Session, SkippedFile};
use crate::session::{BuildTimings, SnapshotStatus, REFRESH_MAX_BYTES_DEFAULT, REFRESH_MAX_FILES_DEFAULT};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StatusRequest {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StatusResponse {
    pub indexed: bool,
    pub snapshot: SnapshotStatus,
    /// The phases of the last build.
    pub timings: BuildTimings,
    pub files: u64,
    pub languages: Vec<LanguageSummary>,
    pub skipped: Vec<SkippedFile>,
    pub freshness: Freshness,
}

/// Detects files changed since the index was built (size and mtime, no hashing) and refreshes the
/// index when the change set is small, or always with `force`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RefreshRequest {
    /// Rebuild whatever changed, however much.
    pub force: bool,
    /// Refresh automatically when at most this many files changed (default 50).
    pub max_files: Option<u32>,
    /// … and their new sizes add up to at most this many bytes (default 2 MiB).
    pub max_bytes: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RefreshResponse {
    /// `fresh` (nothing changed), `refreshed` (changes picked up) or `stale` (too many changes).
    pub freshness: Freshness,
    /// Whether the index was rebuilt by this call.
    pub rebuilt: bool,
    /// The changes were taken in without a full build: every changed file kept its interface
    /// (declarations, imports, relations), so only its own references were resolved again.
    pub incremental: bool,
    pub files: u64,
}

/// What is indexed, what the snapshot did, where the build's time went, and whether the files on
/// disk changed since (reported as `stale` with the change set; status never rebuilds).
pub(crate) fn status(session: &mut Session, _req: StatusRequest) -> Result<StatusResponse, Error> {
    // An index built by this very call has just walked the tree; only an older one is compared.
    let built_now = !session.is_built();
    session.index()?;
    if !built_now {
        session.note_changes()?;
    }
    let mut snapshot = session.snapshot_status().clone();
    let host = session.host();
    if session.options().persist && crate::store::usable(host).is_ok() {
        if let Ok(entry) = host.lstat(crate::snapshot::FILE) {
            snapshot.age_ms = Some((host.now_ms() - entry.mtime_ms).max(0.0) as u64);
            snapshot.bytes = Some(entry.size);
        }
    }
    let timings = session.timings().clone();
    let freshness = session.take_freshness();
    let index = session.index()?;
    Ok(StatusResponse {
        indexed: true,
        snapshot,
        timings,
        files: index.files.len() as u64,
        languages: LanguageSummary::all(index),
        skipped: index.skipped.clone(),
        freshness,
    })
}

/// Takes in what changed on disk when the change set is within the limits (or `force`).
pub(crate) fn refresh(session: &mut Session, req: RefreshRequest) -> Result<RefreshResponse, Error> {
    let max_files = req.max_files.unwrap_or(REFRESH_MAX_FILES_DEFAULT) as usize;
    let max_bytes = req.max_bytes.unwrap_or(REFRESH_MAX_BYTES_DEFAULT);
    let outcome = session.take_in_changes(req.force, max_files, max_bytes)?;
    // The SQLite artifact is opened again from its file by the next query.
    *session.artifact_cache().borrow_mut() = None;
    Ok(RefreshResponse {
        freshness: outcome.freshness,
        rebuilt: outcome.rebuilt,
        incremental: outcome.incremental,
        files: outcome.files,
    })
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::{RefreshRequest, StatusRequest};

    #[test]
    fn status_reports_and_refresh_takes_in_changes() {
        let (dir, mut s) = repo(&[("a.py", "def f():\n    pass\n"), ("bad.py", "x = 1\0\n")]);
        let status = s.status(StatusRequest {}).unwrap();
        assert_eq!(status.files, 1);
        assert!(status.skipped[0].reason.contains("NUL byte"));
        assert_eq!(status.snapshot.state, "disabled");
        std::fs::write(dir.path().join("a.py"), "def f():\n    return 2\n").unwrap();
        assert_eq!(s.status(StatusRequest {}).unwrap().freshness.state, "stale");
        let r = s.refresh(RefreshRequest::default()).unwrap();
        assert_eq!((r.freshness.state.as_str(), r.rebuilt, r.incremental), ("refreshed", true, true));
        assert!(!s.refresh(RefreshRequest::default()).unwrap().rebuilt);
    }
}
