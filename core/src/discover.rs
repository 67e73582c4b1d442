//! Discovery: which files under the root are indexed. One implementation for every entry point
//! (CLI, MCP, library; native and wasm): it walks through the `Host`, honours `.gitignore` and
//! `.codegraphignore` in every directory, the include/ignore patterns, the size cap, minified
//! bundles, and classifies content (NUL bytes, invalid UTF-8). Skipped files are reported with their reason, never dropped
//! silently. Symlinks are not followed (no loops, no escapes from the root) and are reported.

use std::rc::Rc;

use globset::{GlobBuilder, GlobMatcher};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::host::{EntryKind, Host, HostEntry};
use crate::lang::Language;

/// Directories never walked: version control, our own snapshot folder, installed packages.
const ALWAYS_SKIPPED_DIRS: [&str; 5] = [".git", ".hg", ".svn", ".codegraph", "node_modules"];

/// Directory nesting beyond this is not walked (reported as skipped).
const MAX_DIR_DEPTH: usize = 128;

/// The default size cap: files larger than this are skipped.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Options that decide the file set. The same options give the same files from every front.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DiscoveryOptions {
    /// Only files matching one of these patterns are indexed. A pattern containing `*`, `?` or `[` is
    /// a glob matched against the file name and the root-relative path; any other is a regex searched
    /// in the root-relative path. Minified bundles (`*.min.js`) are indexed only when one of these
    /// matches them.
    pub include: Vec<String>,
    /// Files (and directories) matching one of these patterns are skipped; same syntax as `include`.
    pub ignore: Vec<String>,
    /// Don't read `.gitignore` / `.codegraphignore` files.
    pub no_gitignore: bool,
    /// Files larger than this many bytes are skipped (default 1 MiB).
    pub max_file_bytes: Option<u64>,
    /// Keep the index in `<root>/.codegraph/` so the next session starts warm (reads only files
    /// whose size or mtime changed). Off by default for the library; the CLI and MCP turn it on.
    pub persist: bool,
    /// Before every answer that reads the index, look for files changed on disk and take in a
    /// change set within these limits (else the answer says `stale`): the policy of a long-lived
    /// server. Off by default (then only `refresh` looks).
    pub auto_refresh: Option<RefreshLimits>,
    /// Write access for artifacts: `artifactBuild` writes them, and `querySqlite` rebuilds a stale
    /// one after a small change set. Off by default (the MCP server's `--allow-build` turns it on;
    /// the CLI's `artifact build` is itself the request to write).
    pub allow_build: bool,
}

/// The size of a change set a session takes in without being told to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RefreshLimits {
    /// At most this many changed files (default 50).
    pub max_files: Option<u32>,
    /// … whose new sizes add up to at most this many bytes (default 2 MiB).
    pub max_bytes: Option<u64>,
}

impl DiscoveryOptions {
    /// Files larger than this many bytes are not indexed (nor read to answer a question).
    pub(crate) fn file_cap(&self) -> u64 {
        self.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES)
    }

    /// What decides the file set: a snapshot made under other options is not reused.
    pub(crate) fn file_set_key(&self) -> String {
        format!("{:?}|{:?}|{}|{:?}", self.include, self.ignore, self.no_gitignore, self.max_file_bytes)
    }
}

/// A compiled include/ignore pattern.
enum Pattern {
    Glob(GlobMatcher),
    Regex(Regex),
}

impl Pattern {
    fn compile(p: &str) -> Result<Pattern, Error> {
        if p.contains(['*', '?', '[']) {
            let glob = GlobBuilder::new(p)
                .literal_separator(true)
                .build()
                .map_err(|e| Error::InvalidArgument(format!("invalid glob `{p}`: {e}")))?;
            Ok(Pattern::Glob(glob.compile_matcher()))
        } else {
            Regex::new(p).map(Pattern::Regex).map_err(|e| Error::InvalidArgument(format!("invalid regex `{p}`: {e}")))
        }
    }

    fn matches(&self, rel: &str) -> bool {
        match self {
            Pattern::Glob(g) => {
                let name = rel.rsplit('/').next().unwrap_or(rel);
                g.is_match(rel) || g.is_match(name)
            }
            Pattern::Regex(r) => r.is_match(rel),
        }
    }
}

/// The compiled rules of one discovery run.
pub(crate) struct Rules {
    include: Vec<Pattern>,
    ignore: Vec<Pattern>,
    use_ignore_files: bool,
    pub max_file_bytes: u64,
}

impl Rules {
    pub fn new(opts: &DiscoveryOptions) -> Result<Rules, Error> {
        Ok(Rules {
            include: opts.include.iter().map(|p| Pattern::compile(p)).collect::<Result<_, _>>()?,
            ignore: opts.ignore.iter().map(|p| Pattern::compile(p)).collect::<Result<_, _>>()?,
            use_ignore_files: !opts.no_gitignore,
            max_file_bytes: opts.file_cap(),
        })
    }

    fn ignored_by_patterns(&self, rel: &str) -> bool {
        self.ignore.iter().any(|p| p.matches(rel))
    }

    fn included(&self, rel: &str) -> bool {
        self.include.is_empty() || self.include.iter().any(|p| p.matches(rel))
    }

    /// Whether an include pattern names the file (not only the default of including everything).
    fn named_by_include(&self, rel: &str) -> bool {
        !self.include.is_empty() && self.include.iter().any(|p| p.matches(rel))
    }
}

/// Whether a file name is a minified bundle's (`jquery.min.js`, `app-min.mjs`): machine output whose
/// one-letter names and single lines no one navigates, usually beside its readable source, and
/// which made most of the reference sites of a repository that vendors a few of them (three such
/// files of Django's admin: 500,000 of its 590,000 sites).
fn minified_bundle(name: &str) -> bool {
    [".js", ".mjs", ".cjs"]
        .iter()
        .any(|ext| name.strip_suffix(ext).is_some_and(|stem| stem.ends_with(".min") || stem.ends_with("-min")))
}

/// A file that will be indexed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Candidate {
    pub path: String,
    pub language: Language,
    pub size: u64,
    pub mtime_ms: f64,
}

/// A file left out, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

/// The outcome of a walk: indexable candidates (sorted by path), skipped files, and counts of other
/// files by extension (for orient's language/size overview).
#[derive(Default)]
pub(crate) struct Walk {
    pub candidates: Vec<Candidate>,
    pub skipped: Vec<SkippedFile>,
    pub other_files: u64,
    /// Files named in config-like roles that resolution reads (`tsconfig.json`, `go.mod`,
    /// `Cargo.toml`, `package.json`, `compile_commands.json`, `composer.json`): root-relative paths.
    pub config_files: Vec<String>,
    /// What a later change check stats instead of walking again: every directory walked with its
    /// mtime (a file added, removed or renamed changes its directory's), and every ignore file read
    /// with its size and mtime (an edited one changes the rules).
    pub watch: Watch,
}

/// The directories and ignore files of a walk, with their stats when walked.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Watch {
    /// The host's clock when the walk started.
    pub taken_ms: f64,
    pub dirs: Vec<(String, f64)>,
    pub ignore_files: Vec<(String, u64, f64)>,
}

/// A directory modified this close to the walk may be modified again within the same tick of the
/// file system's clock without its mtime changing: such a watch is not trusted, and the check walks
/// (git's "racily clean" rule). A file system with sub-second timestamps stamps from the kernel's
/// coarse clock (a tick of at most 10 ms); one with whole seconds (FAT has 2 s) needs 2 s.
fn racy_ms(mtime_ms: f64) -> f64 {
    if mtime_ms % 1000.0 == 0.0 {
        2000.0
    } else {
        50.0
    }
}

impl Watch {
    /// Whether every directory and ignore file is as it was, and was already settled when walked:
    /// then a change can only be an edit of a file already known, and statting the known files
    /// finds them all.
    pub(crate) fn unchanged(&self, host: &dyn Host) -> bool {
        let settled = |mtime: f64| mtime < self.taken_ms - racy_ms(mtime);
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() && settled(b);
        if self.dirs.is_empty() {
            return false;
        }
        let paths: Vec<&str> = self
            .dirs
            .iter()
            .map(|(d, _)| d.as_str())
            .chain(self.ignore_files.iter().map(|(f, _, _)| f.as_str()))
            .collect();
        let stats = host.stat_many(&paths);
        let (dirs, ignore_files) = stats.split_at(self.dirs.len());
        self.dirs
            .iter()
            .zip(dirs)
            .all(|((_, mtime), now)| now.as_ref().is_ok_and(|e| e.kind == EntryKind::Dir && same(e.mtime_ms, *mtime)))
            && self
                .ignore_files
                .iter()
                .zip(ignore_files)
                .all(|((_, size, mtime), now)| now.as_ref().is_ok_and(|e| e.size == *size && same(e.mtime_ms, *mtime)))
    }
}

const CONFIG_NAMES: [&str; 7] = [
    "tsconfig.json",
    "jsconfig.json",
    "go.mod",
    "Cargo.toml",
    "package.json",
    "compile_commands.json",
    "composer.json",
];

/// Walks the root through the host and applies the rules: a level of directories at a time, each
/// level's listings read together (in parallel on the native host).
pub(crate) fn walk(host: &dyn Host, rules: &Rules) -> Result<Walk, Error> {
    let mut out = Walk::default();
    out.watch.taken_ms = host.now_ms();
    if let Ok(root) = host.stat("") {
        out.watch.dirs.push((String::new(), root.mtime_ms));
    }
    let mut level = vec![Dir { path: String::new(), depth: 0, matchers: Vec::new() }];
    while !level.is_empty() {
        let paths: Vec<String> = level.iter().map(|d| d.path.clone()).collect();
        let mut next = Vec::new();
        for (dir, listing) in level.into_iter().zip(host.read_dirs(&paths)) {
            let entries = match listing {
                Ok(entries) => entries,
                Err(e) if dir.path.is_empty() => {
                    return Err(Error::NotFound(format!("cannot read the root directory: {e}")))
                }
                Err(e) => {
                    out.skipped.push(SkippedFile { path: dir.path, reason: format!("unreadable directory: {e}") });
                    continue;
                }
            };
            walk_dir(host, rules, dir, entries, &mut next, &mut out);
        }
        level = next;
    }
    out.candidates.sort_by(|a, b| a.path.cmp(&b.path));
    // A `.h` is C++ in a repository with C++ sources (C++ parses the C a header holds; the C grammar
    // does not parse classes, namespaces and templates).
    if out.candidates.iter().any(|c| c.language == Language::Cpp) {
        for c in &mut out.candidates {
            if c.language == Language::C && c.path.ends_with(".h") {
                c.language = Language::Cpp;
            }
        }
    }
    out.skipped.sort();
    out.config_files.sort();
    Ok(out)
}

/// A directory still to walk: its path, depth, and the ignore rules of it and its parents (the
/// deepest last).
struct Dir {
    path: String,
    depth: usize,
    matchers: Vec<Rc<Gitignore>>,
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

fn gitignored(matchers: &[Rc<Gitignore>], rel: &str, is_dir: bool) -> bool {
    // The deepest ignore file that has an opinion wins, as in git.
    for m in matchers.iter().rev() {
        let matched = m.matched(format!("/{rel}"), is_dir);
        if matched.is_ignore() {
            return true;
        }
        if matched.is_whitelist() {
            return false;
        }
    }
    false
}

/// Ignore files larger than this are not read (and reported as skipped).
const IGNORE_FILE_CAP: u64 = 1024 * 1024;

/// The ignore rules of one directory, from its `.gitignore` and `.codegraphignore`. One that is not a
/// regular file (a symlink, a FIFO) or is over the cap is skipped with its reason, never followed.
fn load_ignore_files(host: &dyn Host, dir: &str, entries: &[HostEntry], out: &mut Walk) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(format!("/{dir}"));
    let mut any = false;
    for file in [".gitignore", ".codegraphignore"] {
        let Some(entry) = entries.iter().find(|e| e.name == file) else { continue };
        let rel = join(dir, file);
        let bytes = match entry.kind {
            EntryKind::File => host.read_file(&rel, IGNORE_FILE_CAP),
            EntryKind::Symlink => Err("a symlink (not followed)".to_string()),
            _ => Err("not a regular file".to_string()),
        };
        if let Ok(stat) = host.stat(&rel) {
            out.watch.ignore_files.push((rel.clone(), stat.size, stat.mtime_ms));
        }
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(e) => {
                out.skipped.push(SkippedFile { path: rel, reason: format!("ignore file not read: {e}") });
                continue;
            }
        };
        for line in String::from_utf8_lossy(&bytes).lines() {
            // A malformed line is skipped, as git does.
            let _ = builder.add_line(None, line);
            any = true;
        }
    }
    if !any {
        return None;
    }
    builder.build().ok()
}

/// Takes in one directory's entries: its files as candidates (or skipped), its subdirectories as
/// the next level's.
fn walk_dir(
    host: &dyn Host,
    rules: &Rules,
    dir: Dir,
    mut entries: Vec<HostEntry>,
    next: &mut Vec<Dir>,
    out: &mut Walk,
) {
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let mut matchers = dir.matchers;
    if rules.use_ignore_files {
        if let Some(m) = load_ignore_files(host, &dir.path, &entries, out) {
            matchers.push(Rc::new(m));
        }
    }
    let (dir, depth) = (dir.path.as_str(), dir.depth);
    for entry in entries {
        let rel = join(dir, &entry.name);
        match entry.kind {
            EntryKind::Dir => {
                if ALWAYS_SKIPPED_DIRS.contains(&entry.name.as_str())
                    || rules.ignored_by_patterns(&rel)
                    || gitignored(&matchers, &rel, true)
                {
                    continue;
                }
                if depth + 1 >= MAX_DIR_DEPTH {
                    out.skipped.push(SkippedFile {
                        path: rel,
                        reason: format!("directory nested deeper than {MAX_DIR_DEPTH} levels"),
                    });
                    continue;
                }
                out.watch.dirs.push((rel.clone(), entry.mtime_ms));
                next.push(Dir { path: rel, depth: depth + 1, matchers: matchers.clone() });
            }
            EntryKind::File | EntryKind::Symlink => {
                if rules.ignored_by_patterns(&rel) || gitignored(&matchers, &rel, false) {
                    continue;
                }
                if CONFIG_NAMES.contains(&entry.name.as_str()) && entry.kind == EntryKind::File {
                    out.config_files.push(rel.clone());
                }
                let Some(language) = Language::from_path(&rel) else {
                    out.other_files += 1;
                    continue;
                };
                if !rules.included(&rel) {
                    continue;
                }
                if entry.kind == EntryKind::Symlink {
                    out.skipped.push(SkippedFile { path: rel, reason: "symlink (not followed)".into() });
                    continue;
                }
                if entry.size > rules.max_file_bytes {
                    let reason = format!("larger than the size cap ({} > {} bytes)", entry.size, rules.max_file_bytes);
                    out.skipped.push(SkippedFile { path: rel, reason });
                    continue;
                }
                if minified_bundle(&entry.name) && !rules.named_by_include(&rel) {
                    let reason = "a minified bundle (indexed only when an include pattern names it)".to_string();
                    out.skipped.push(SkippedFile { path: rel, reason });
                    continue;
                }
                out.candidates.push(Candidate { path: rel, language, size: entry.size, mtime_ms: entry.mtime_ms });
            }
            EntryKind::Other => {
                if Language::from_path(&rel).is_some() {
                    out.skipped.push(SkippedFile { path: rel, reason: "not a regular file or name not UTF-8".into() });
                }
            }
        }
    }
}

/// Why file content can't be indexed as text, if it can't.
pub(crate) fn content_problem(bytes: &[u8]) -> Option<String> {
    if let Some(at) = memchr::memchr(0, bytes) {
        return Some(format!("binary content (NUL byte at offset {at})"));
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        return Some(format!("invalid UTF-8 at byte {}", e.valid_up_to()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_globs_or_regexes() {
        let glob = Pattern::compile("dist/**").expect("glob");
        assert!(glob.matches("dist/a/b.js"));
        assert!(!glob.matches("src/dist.js"));
        let name = Pattern::compile("*.min.js").expect("glob");
        assert!(name.matches("web/app.min.js"));
        let re = Pattern::compile(r"^vendor/").expect("regex");
        assert!(re.matches("vendor/x.go"));
        assert!(!re.matches("src/vendor/x.go"));
        assert!(Pattern::compile("(").is_err());
    }

    #[test]
    fn minified_bundles_are_known_by_name() {
        for name in ["jquery.min.js", "select2.full.min.js", "app-min.mjs", "x.min.cjs"] {
            assert!(minified_bundle(name), "{name}");
        }
        for name in ["admin.js", "min.js", "terminal.js", "x.min.ts", "jquery.min.js.map", "domain.js"] {
            assert!(!minified_bundle(name), "{name}");
        }
    }

    #[test]
    fn content_problems_are_named() {
        assert!(content_problem(b"ok").is_none());
        assert!(content_problem(b"a\0b").expect("nul").contains("NUL byte at offset 1"));
        assert!(content_problem(&[b'a', 0xff]).expect("utf8").contains("invalid UTF-8 at byte 1"));
    }
}
