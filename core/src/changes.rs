//! The change set of a git range, down to declarations. Git says which files changed between two
//! sides (a revision, the index — `STAGED` — or the working tree — `WORKTREE`); both versions of
//! every changed source file are parsed with the same extractor as the index, and their
//! declarations compared by qualified name: added, removed, signature changed, body changed, or
//! moved with its file. A declaration's own tokens (its text outside nested declarations, comments
//! left out) decide whether its body changed, so an edit of a comment, of whitespace or of one
//! method changes nothing else. Every git call goes through `crate::git` (the repository's config
//! runs nothing); a ref is checked to be a revision, never an option, before git sees it.

use crate::extract::{Field, Kind};
use rustc_hash::FxHashMap as HashMap;
use tree_sitter::Parser;

use crate::error::Error;
use crate::extract;
use crate::facts::{FileFacts, Symbol, SymbolKind};
use crate::host::Host;
use crate::lang::Language;

/// The working tree, as a side of a range.
pub const WORKTREE: &str = "WORKTREE";
/// The git index (what is staged), as a side of a range.
pub const STAGED: &str = "STAGED";

/// One side of a range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Rev(String),
    Staged,
    Worktree,
}

impl Side {
    fn parse(spec: &str, field: &str) -> Result<Side, Error> {
        match spec {
            WORKTREE => Ok(Side::Worktree),
            STAGED => Ok(Side::Staged),
            rev if crate::git::is_revision(rev) => Ok(Side::Rev(rev.to_string())),
            other => Err(Error::InvalidArgument(format!(
                "`{field}` is a git ref (branch, tag, commit, HEAD~3), {WORKTREE} or {STAGED} (got {other:?})"
            ))),
        }
    }

    /// How `git show` names `path` on this side (`./` keeps paths relative to the root, which may
    /// be a folder inside the repository).
    fn blob(&self, path: &str) -> String {
        match self {
            Side::Rev(rev) => format!("{rev}:./{path}"),
            _ => format!(":./{path}"),
        }
    }
}

/// A git range: what changed from `base` to `head`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Range {
    pub base: Side,
    pub head: Side,
}

impl Range {
    /// A range from the request's refs: `base` a revision (or `STAGED` before `WORKTREE`), `head` a
    /// revision, `STAGED` or `WORKTREE` (the default).
    pub fn parse(host: &dyn Host, base: &str, head: Option<&str>) -> Result<Range, Error> {
        let base_side = Side::parse(base, "base")?;
        let head_side = Side::parse(head.unwrap_or(WORKTREE), "head")?;
        match (&base_side, &head_side) {
            (Side::Worktree, _) => {
                return Err(Error::InvalidArgument(format!("`base` can't be {WORKTREE}: it is always the newest side")))
            }
            (Side::Staged, Side::Worktree) | (Side::Rev(_), _) => {}
            (Side::Staged, _) => {
                return Err(Error::InvalidArgument(format!("with `base` {STAGED}, `head` is {WORKTREE}")));
            }
        }
        for side in [&base_side, &head_side] {
            if let Side::Rev(rev) = side {
                verify(host, rev)?;
            }
        }
        Ok(Range { base: base_side, head: head_side })
    }
}

/// Fails unless `rev` names a commit of the repository.
fn verify(host: &dyn Host, rev: &str) -> Result<(), Error> {
    let spec = format!("{rev}^{{commit}}");
    crate::git::run_plain(host, &["rev-parse", "--verify", "--quiet", "--end-of-options", &spec]).map(|_| ()).map_err(
        |e| {
            if e.contains("not a git repository") {
                Error::InvalidArgument(format!("the root is not inside a git repository: {}", e.trim()))
            } else {
                Error::InvalidArgument(format!(
                    "`{rev}` is not a commit of this repository (git rev-parse found nothing)"
                ))
            }
        },
    )
}

/// How git says a file changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileStatus {
    Added,
    Deleted,
    Modified,
    Renamed,
}

impl FileStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Added => "added",
            FileStatus::Deleted => "deleted",
            FileStatus::Modified => "modified",
            FileStatus::Renamed => "renamed",
        }
    }
}

/// One changed file with both versions (`None` on the side where it does not exist, or where it
/// could not be read — then `unreadable` says why).
#[derive(Clone, Debug)]
pub(crate) struct ChangedFile {
    /// The path on the head side (on the base side for a deleted file).
    pub path: String,
    /// The path on the base side of a renamed file.
    pub old_path: Option<String>,
    pub status: FileStatus,
    pub language: Option<Language>,
    pub old_text: Option<String>,
    pub new_text: Option<String>,
    pub unreadable: Option<String>,
}

/// The files changed in a range, by path; both versions read for the files of a language the core
/// parses (at most `max_bytes` each).
pub(crate) fn changed_files(host: &dyn Host, range: &Range, max_bytes: u64) -> Result<Vec<ChangedFile>, Error> {
    let git = |args: &[&str]| -> Result<String, Error> {
        crate::git::run(host, args).map_err(|e| Error::InvalidArgument(format!("git: {}", e.trim())))
    };
    let mut args = vec!["diff", "-z", "--name-status", "-M", "--no-ext-diff", "--no-textconv", "--relative"];
    match (&range.base, &range.head) {
        (Side::Rev(b), Side::Rev(h)) => args.extend([b.as_str(), h.as_str()]),
        (Side::Rev(b), Side::Staged) => args.extend(["--cached", b.as_str()]),
        (Side::Rev(b), Side::Worktree) => args.push(b.as_str()),
        (Side::Staged, _) => {}
        (Side::Worktree, _) => unreachable!("`Range::parse` refuses a worktree base"),
    }
    args.push("--");
    let listed = git(&args)?;
    let mut files = parse_name_status(&listed);
    if range.head == Side::Worktree {
        let untracked = git(&["ls-files", "-z", "--others", "--exclude-standard"])?;
        files.extend(untracked.split('\0').filter(|p| !p.is_empty()).map(|p| (FileStatus::Added, None, p.to_string())));
    }
    files.sort_by(|a, b| a.2.cmp(&b.2));
    files.dedup_by(|a, b| a.2 == b.2);
    // Which version of which file each side must give, read in one batch per side.
    let parsed = |p: &str| Language::from_path(p).is_some();
    let base_paths: Vec<&str> = files
        .iter()
        .filter(|(status, _, path)| *status != FileStatus::Added && parsed(path))
        .map(|(_, old, path)| old.as_deref().unwrap_or(path))
        .collect();
    let head_paths: Vec<&str> = files
        .iter()
        .filter(|(status, _, path)| *status != FileStatus::Deleted && parsed(path))
        .map(|(_, _, p)| p.as_str())
        .collect();
    let mut base_texts = read_many(host, &range.base, &base_paths, max_bytes);
    let mut head_texts = read_many(host, &range.head, &head_paths, max_bytes);
    let mut out = Vec::with_capacity(files.len());
    for (status, old_path, path) in files {
        let language = Language::from_path(&path);
        let mut file =
            ChangedFile { path, old_path, status, language, old_text: None, new_text: None, unreadable: None };
        if language.is_some() {
            let old = file.old_path.as_deref().unwrap_or(&file.path);
            let old_text = if status == FileStatus::Added { Ok(None) } else { take(&mut base_texts, old).map(Some) };
            let new_text =
                if status == FileStatus::Deleted { Ok(None) } else { take(&mut head_texts, &file.path).map(Some) };
            match (old_text, new_text) {
                (Ok(o), Ok(n)) => (file.old_text, file.new_text) = (o, n),
                (Err(why), _) | (_, Err(why)) => file.unreadable = Some(why),
            }
        }
        out.push(file);
    }
    Ok(out)
}

type Texts = HashMap<String, Result<String, String>>;

fn take(texts: &mut Texts, path: &str) -> Result<String, String> {
    texts.remove(path).unwrap_or_else(|| Err(format!("git gave no version of {path}")))
}

/// Blobs of a revision read per batch of paths: `git ls-tree -l` gives their sizes, one `git
/// show REV:./a REV:./b …` their contents back to back, split by those sizes. A batch whose output
/// isn't text, or any other side, is read file by file.
fn read_many(host: &dyn Host, side: &Side, paths: &[&str], max_bytes: u64) -> Texts {
    let mut out = Texts::default();
    let Side::Rev(rev) = side else {
        for p in paths {
            out.insert((*p).to_string(), read_side(host, side, p, max_bytes));
        }
        return out;
    };
    for batch in paths.chunks(200) {
        let mut args = vec!["ls-tree".to_string(), "-l".into(), "-z".into(), rev.clone(), "--".into()];
        args.extend(batch.iter().map(|p| format!("./{p}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let sizes: HashMap<String, u64> = crate::git::run_plain(host, &args)
            .unwrap_or_default()
            .split('\0')
            .filter_map(|entry| {
                let (meta, path) = entry.split_once('\t')?;
                let mut meta = meta.split_whitespace();
                let kind = meta.nth(1)?;
                let size = meta.nth(1)?.parse().ok()?;
                (kind == "blob").then(|| (path.to_string(), size))
            })
            .collect();
        let mut wanted = Vec::new();
        for p in batch {
            match sizes.get(*p) {
                Some(&size) if size > max_bytes => {
                    out.insert((*p).to_string(), Err(format!("{p} is larger than {max_bytes} bytes")));
                }
                Some(&size) => wanted.push((*p, size as usize)),
                None => {
                    out.insert((*p).to_string(), read_side(host, side, p, max_bytes));
                }
            }
        }
        let mut args = vec!["show".to_string(), "--no-textconv".into()];
        args.extend(wanted.iter().map(|(p, _)| side.blob(p)));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let shown = if wanted.is_empty() { Err(String::new()) } else { crate::git::run_plain(host, &args) };
        match shown {
            Ok(all) if all.len() == wanted.iter().map(|(_, n)| n).sum::<usize>() => {
                let mut at = 0;
                for (p, n) in wanted {
                    let text = all.get(at..at + n).map(str::to_string);
                    at += n;
                    let text = match text {
                        Some(t) if t.contains('\0') => Err(format!("{p} is binary")),
                        Some(t) => Ok(t),
                        None => read_side(host, side, p, max_bytes),
                    };
                    out.insert(p.to_string(), text);
                }
            }
            _ => {
                for (p, _) in wanted {
                    out.insert(p.to_string(), read_side(host, side, p, max_bytes));
                }
            }
        }
    }
    out
}

/// `git diff -z --name-status` output: `M\0path\0`, `R087\0old\0new\0`, `A\0path\0`, …
fn parse_name_status(listed: &str) -> Vec<(FileStatus, Option<String>, String)> {
    let mut fields = listed.split('\0').filter(|f| !f.is_empty());
    let mut out = Vec::new();
    while let Some(code) = fields.next() {
        let Some(first) = fields.next() else { break };
        match code.as_bytes()[0] {
            b'R' => {
                let Some(new) = fields.next() else { break };
                out.push((FileStatus::Renamed, Some(first.to_string()), new.to_string()));
            }
            // A copy leaves the source as it was: the copy is a new file.
            b'C' => {
                let Some(new) = fields.next() else { break };
                out.push((FileStatus::Added, None, new.to_string()));
            }
            b'A' => out.push((FileStatus::Added, None, first.to_string())),
            b'D' => out.push((FileStatus::Deleted, None, first.to_string())),
            _ => out.push((FileStatus::Modified, None, first.to_string())),
        }
    }
    out
}

/// One version of a file as text, or why it can't be had (too large, binary, not UTF-8).
fn read_side(host: &dyn Host, side: &Side, path: &str, max_bytes: u64) -> Result<String, String> {
    let bytes = if *side == Side::Worktree {
        host.read_file(path, max_bytes + 1).map_err(|e| format!("cannot read {path}: {e}"))?
    } else {
        let blob = side.blob(path);
        let size = crate::git::run_plain(host, &["cat-file", "-s", &blob]).map_err(|e| e.trim().to_string())?;
        let size: u64 = size.trim().parse().map_err(|_| format!("git gave no size for {blob}"))?;
        if size > max_bytes {
            return Err(format!("{path} is larger than {max_bytes} bytes"));
        }
        crate::git::run_plain(host, &["cat-file", "blob", &blob]).map_err(|e| e.trim().to_string())?.into_bytes()
    };
    if bytes.len() as u64 > max_bytes {
        return Err(format!("{path} is larger than {max_bytes} bytes"));
    }
    if bytes.contains(&0) {
        return Err(format!("{path} is binary"));
    }
    String::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8"))
}

/// How a declaration changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ChangeKind {
    Added,
    Removed,
    ModifiedSignature,
    ModifiedBody,
    /// Unchanged, in a file that was renamed: its handle changed.
    Moved,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::ModifiedSignature => "modifiedSignature",
            ChangeKind::ModifiedBody => "modifiedBody",
            ChangeKind::Moved => "moved",
        }
    }
}

/// One changed declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeclChange {
    /// Its file on the side where it exists (the head side, but for a removed one).
    pub path: String,
    /// Its `Container::name` (with `#2` for a second declaration of the same name).
    pub qualified: String,
    pub name: String,
    pub kind: SymbolKind,
    pub change: ChangeKind,
    /// 1-based line of its name, on the side where it exists.
    pub line: u32,
    pub exported: bool,
    pub signature: String,
    /// The base side's signature, when it changed.
    pub old_signature: Option<String>,
    /// The base side's path of a moved declaration.
    pub old_path: Option<String>,
}

/// One side's declarations: qualified name → (symbol, hashes of its own tokens).
struct Version {
    facts: FileFacts,
    by_name: Vec<(String, usize, Tokens)>,
}

impl Version {
    fn of(language: Language, text: &str) -> Version {
        let facts = extract::extract(language, text);
        let hashes = own_tokens(language, text, &facts.symbols);
        let mut seen: HashMap<String, u32> = HashMap::default();
        let by_name = (0..facts.symbols.len())
            .map(|i| {
                let base = crate::index::qualified_in(&facts.symbols, i as u32);
                let n = seen.entry(base.clone()).or_insert(0);
                *n += 1;
                let name = if *n == 1 { base } else { format!("{base}#{n}") };
                (name, i, hashes[i])
            })
            .collect();
        Version { facts, by_name }
    }
}

/// The declarations that changed in one file.
pub(crate) fn declaration_changes(file: &ChangedFile) -> Vec<DeclChange> {
    let Some(language) = file.language else { return Vec::new() };
    let old = file.old_text.as_deref().map(|t| Version::of(language, t));
    let new = file.new_text.as_deref().map(|t| Version::of(language, t));
    let old_path = file.old_path.clone().unwrap_or_else(|| file.path.clone());
    let change = |v: &Version, i: usize, qualified: &str, path: &str, change: ChangeKind| {
        let s = &v.facts.symbols[i];
        DeclChange {
            path: path.to_string(),
            qualified: qualified.to_string(),
            name: s.name.clone(),
            kind: s.kind,
            change,
            line: s.name_pos.line,
            exported: s.exported,
            signature: s.signature.clone(),
            old_signature: None,
            old_path: None,
        }
    };
    let mut out = Vec::new();
    let empty = Vec::new();
    let old_list = old.as_ref().map_or(&empty, |v| &v.by_name);
    let new_list = new.as_ref().map_or(&empty, |v| &v.by_name);
    let old_by: HashMap<&str, (usize, Tokens)> = old_list.iter().map(|(n, i, h)| (n.as_str(), (*i, *h))).collect();
    let new_names: rustc_hash::FxHashSet<&str> = new_list.iter().map(|(n, _, _)| n.as_str()).collect();
    if let Some(new) = &new {
        for (name, i, hash) in &new.by_name {
            let Some(&(j, old_hash)) = old_by.get(name.as_str()) else {
                out.push(change(new, *i, name, &file.path, ChangeKind::Added));
                continue;
            };
            let old = old.as_ref().expect("a name found on the base side");
            let o = &old.facts.symbols[j];
            let kind = if hash.header != old_hash.header {
                Some(ChangeKind::ModifiedSignature)
            } else if hash.body != old_hash.body {
                Some(ChangeKind::ModifiedBody)
            } else if file.status == FileStatus::Renamed {
                Some(ChangeKind::Moved)
            } else {
                None
            };
            if let Some(kind) = kind {
                let mut c = change(new, *i, name, &file.path, kind);
                if kind == ChangeKind::ModifiedSignature {
                    c.old_signature = Some(o.signature.clone());
                }
                if file.status == FileStatus::Renamed {
                    c.old_path = Some(old_path.clone());
                }
                out.push(c);
            }
        }
    }
    if let Some(old) = &old {
        for (name, i, _) in &old.by_name {
            if !new_names.contains(name.as_str()) {
                out.push(change(old, *i, name, &old_path, ChangeKind::Removed));
            }
        }
    }
    out.sort_by(|a, b| (&a.path, a.line, &a.qualified).cmp(&(&b.path, b.line, &b.qualified)));
    out
}

/// Hashes of a declaration's own tokens — the leaves of the syntax tree inside its range and not
/// inside a nested declaration's, comments left out, each as (kind, text): those before its body
/// or value (its signature), and the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tokens {
    header: blake3::Hash,
    body: blake3::Hash,
}

fn own_tokens(language: Language, text: &str, symbols: &[Symbol]) -> Vec<Tokens> {
    let mut header: Vec<blake3::Hasher> = (0..symbols.len()).map(|_| blake3::Hasher::new()).collect();
    let mut body = header.clone();
    let done = |header: &[blake3::Hasher], body: &[blake3::Hasher]| {
        header.iter().zip(body).map(|(h, b)| Tokens { header: h.finalize(), body: b.finalize() }).collect()
    };
    let mut parser = Parser::new();
    let tree = parser.set_language(&language.grammar()).ok().and_then(|()| parser.parse(text, None));
    let Some(tree) = tree else { return done(&header, &body) };
    let line_starts = extract::line_starts(text);
    // A 1-based (line, character column) position as a byte offset.
    let byte_of = |line: u32, col: u32| -> usize {
        let start = line_starts.get(line.saturating_sub(1) as usize).copied().unwrap_or(text.len());
        let rest = &text[start..];
        start + rest.char_indices().nth(col.saturating_sub(1) as usize).map_or(rest.len(), |(i, _)| i)
    };
    let ranges: Vec<(usize, usize)> =
        symbols.iter().map(|s| (byte_of(s.start.line, s.start.col), byte_of(s.end.line, s.end.col))).collect();
    let root = tree.root_node();
    let body_start: Vec<usize> = ranges.iter().map(|&(a, b)| body_offset(root, a, b).unwrap_or(b)).collect();
    // Symbols by start, outer before inner; a stack of nested ranges holding the current leaf.
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    order.sort_by_key(|&i| (ranges[i].0, std::cmp::Reverse(ranges[i].1)));
    let mut next = 0;
    let mut stack: Vec<usize> = Vec::new();
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let is_comment = node.kind_str().contains("comment");
        if !is_comment && node.child_count() == 0 && !node.byte_range().is_empty() {
            let at = node.start_byte();
            while next < order.len() && ranges[order[next]].0 <= at {
                let i = order[next];
                next += 1;
                while stack.last().is_some_and(|&j| ranges[j].1 <= ranges[i].0) {
                    stack.pop();
                }
                stack.push(i);
            }
            while stack.last().is_some_and(|&j| ranges[j].1 <= at) {
                stack.pop();
            }
            if let Some(&owner) = stack.last() {
                let h = if at < body_start[owner] { &mut header[owner] } else { &mut body[owner] };
                h.update(node.kind_str().as_bytes());
                h.update(&[0]);
                h.update(text.as_bytes().get(node.byte_range()).unwrap_or_default());
                h.update(&[0]);
            }
        }
        if !is_comment && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return done(&header, &body);
            }
        }
    }
}

/// Where the body (or value) of the declaration spanning `start..end` begins: the `body` or
/// `value` field of its node, or of a node nested in it at most two levels down (`const f = () =>
/// {…}`).
fn body_offset(root: tree_sitter::Node, start: usize, end: usize) -> Option<usize> {
    let mut node = root.descendant_for_byte_range(start, end)?;
    while let Some(parent) = node.parent() {
        if parent.start_byte() != node.start_byte() || parent.end_byte() != node.end_byte() {
            break;
        }
        node = parent;
    }
    let mut level = vec![node];
    for _ in 0..3 {
        for n in &level {
            if let Some(body) = n.field("body").or_else(|| n.field("value")) {
                return Some(body.start_byte());
            }
        }
        level = level.iter().flat_map(|n| crate::extract::named_children(*n)).collect();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{declaration_changes, ChangeKind, ChangedFile, FileStatus};
    use crate::lang::Language;

    fn changes(old: &str, new: &str) -> Vec<(String, ChangeKind)> {
        let file = ChangedFile {
            path: "a.ts".into(),
            old_path: None,
            status: FileStatus::Modified,
            language: Some(Language::TypeScript),
            old_text: Some(old.into()),
            new_text: Some(new.into()),
            unreadable: None,
        };
        declaration_changes(&file).into_iter().map(|c| (c.qualified, c.change)).collect()
    }

    #[test]
    fn declarations_change_by_their_own_tokens() {
        let old = "export class A {\n  m() { return 1; }\n  n() { return 2; }\n}\nexport function f(x: number) { return x; }\nfunction gone() {}\n";
        // A comment and whitespace change nothing.
        let commented = "export class A {\n  // why\n  m() {   return 1; }\n  n() { return 2; }\n}\nexport function f(x: number) { return x; } // note\nfunction gone() {}\n";
        assert_eq!(changes(old, commented), []);
        // One method's body: that method only, not its class.
        let body = old.replace("return 1", "return 10");
        assert_eq!(changes(old, &body), [("A::m".to_string(), ChangeKind::ModifiedBody)]);
        let signature = old
            .replace("f(x: number)", "f(x: number, y: number)")
            .replace("function gone() {}\n", "function added() {}\n");
        assert_eq!(
            changes(old, &signature),
            [
                ("f".to_string(), ChangeKind::ModifiedSignature),
                ("added".to_string(), ChangeKind::Added),
                ("gone".to_string(), ChangeKind::Removed),
            ]
        );
    }
}
