//! `rename_preview`: the exact edits a rename makes, and whether they are safe — read-only, there
//! is no apply. The renamed set is the declaration plus the members linked to it by proven
//! relations (the overrides and implementations below its type, the members it overrides or
//! implements above), so a method is never renamed half. Edits are the proven sites of every
//! member of the set, checked against the file's text. `safe` is false when a conflict is found
//! (the new name already declared beside it, in its type hierarchy, in a file whose sites it would
//! reach, or a local that would capture a renamed use) or a site could not be proven either way
//! (a same-named use the resolver left unresolved in a file that can see the declaration, a
//! string that names it for dynamic access); the reasons say which. Comment and string matches
//! are candidates only when asked for, and never count towards `safe`.

use crate::extract::{Field, Kind};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use tree_sitter::Parser;

use super::hierarchy::{members, walk, Direction};
use super::{bounded, CandidateTest, Ctx, Error, Freshness, Omitted, SymbolInfo};
use crate::facts::{ImportKind, Namespace, Pos, RefChain, SymbolKind};
use crate::index::{walks, FileId, Index, SymId};
use crate::lang::Language;

pub const RENAME_MAX_EDITS_DEFAULT: u32 = 5000;
pub const RENAME_MAX_EDITS_CAP: u32 = 10000;
/// Unsafe sites and conflicts listed (all are counted).
const LIST_CAP: usize = 200;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RenamePreviewRequest {
    pub handle: String,
    pub new_name: String,
    /// Also list matches in comments (kind `comment`; never counted towards `safe`).
    #[serde(default)]
    pub include_comments: bool,
    /// Also list matches inside string literals (kind `string`; never counted towards `safe`).
    #[serde(default)]
    pub include_strings: bool,
    /// Suggest renaming the file of an exported class, interface or type named like it.
    #[serde(default)]
    pub include_filenames: bool,
    /// Maximum edits (default 5000, cap 10000).
    #[serde(default)]
    pub max_edits: Option<u32>,
}

/// One edit: replace `oldText` at `line`, `column`..`endColumn` (1-based, Unicode characters,
/// `endColumn` exclusive) by `newText`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RenameEdit {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub end_column: u32,
    pub old_text: String,
    pub new_text: String,
    /// `definition`, `reference`, `import`, `export`, `override`, `implementation`, `comment` or `string`.
    pub kind: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RenameConflict {
    /// `alreadyDeclared`, `hierarchyMember`, `importCollision` or `shadowed`.
    pub kind: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UnsafeSite {
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// `unresolvedSameName` (a use of the name nobody could prove either way), `dynamicAccess` (a
    /// string that is exactly the name: `getattr(o, "name")`, `obj["name"]`), `notWritten` (a
    /// proven site whose text is not the name), `inMacro` (a Rust macro argument spells it),
    /// `importPath` (a segment of an import's module path names it),
    /// `changedSinceIndexed`.
    pub kind: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FilenameSuggestion {
    pub path: String,
    pub new_path: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RenamePreviewResponse {
    pub symbol: SymbolInfo,
    pub new_name: String,
    /// Sorted by path and position.
    pub edits: Vec<RenameEdit>,
    /// Whether applying `edits` (comments and strings aside) keeps every use resolving as before.
    pub safe: bool,
    /// Why not, when `safe` is false.
    pub reasons: Vec<String>,
    pub conflicts: Vec<RenameConflict>,
    pub unsafe_sites: Vec<UnsafeSite>,
    pub filename_suggestions: Vec<FilenameSuggestion>,
    pub candidate_tests: Vec<CandidateTest>,
    /// Every declaration renamed with it (overrides, implementations, the members it implements).
    pub renamed: Vec<String>,
    pub provenance: Vec<String>,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

pub(crate) fn rename_preview(ctx: &Ctx, req: RenamePreviewRequest) -> Result<RenamePreviewResponse, Error> {
    let max_edits = bounded(req.max_edits, RENAME_MAX_EDITS_DEFAULT, RENAME_MAX_EDITS_CAP, "maxEdits")?;
    let index = ctx.index();
    let root = index.handle_id(&req.handle)?;
    let sym = index.symbol(root);
    let language = index.files[index.file_of(root) as usize].language;
    let new_name = req.new_name.trim().to_string();
    if !language.is_identifier(&new_name) {
        return Err(Error::InvalidArgument(format!(
            "`{new_name}` is not a {} identifier (or is a keyword)",
            language.name()
        )));
    }
    if new_name == sym.name {
        return Err(Error::InvalidArgument(format!("`{}` is already named `{new_name}`", req.handle)));
    }
    let plan = Plan::new(ctx, root, &new_name);
    let mut p = plan.run(&req);
    let total = p.edits.len();
    let mut omitted = Omitted::default();
    if total > max_edits {
        p.reasons
            .push(format!("{total} edits are over maxEdits ({max_edits}): the listed edits are not the whole rename"));
    }
    let edits = omitted.cut(p.edits, max_edits, "edits");
    let conflicts = omitted.cut(p.conflicts, LIST_CAP, "conflicts");
    let unsafe_sites = omitted.cut(p.unsafe_sites, LIST_CAP, "unsafeSites");
    let safe = p.reasons.is_empty();
    Ok(RenamePreviewResponse {
        symbol: SymbolInfo::of(index, root),
        new_name,
        edits,
        safe,
        reasons: p.reasons,
        conflicts,
        unsafe_sites,
        filename_suggestions: p.filenames,
        candidate_tests: omitted.cut(p.tests, 20, "candidateTests"),
        renamed: plan.group.iter().map(|(&g, _)| index.handle(g)).collect(),
        provenance: vec![
            "definitions and uses from proven references only; overrides and implementations through declared relations".into(),
            "each edit checked against the file's indexed text".into(),
            "unsafe sites: same-named uses left unresolved in the files that can see the declaration (its file and every file importing it, transitively)".into(),
        ],
        omitted,
        freshness: ctx.freshness(),
    })
}

/// How a member of the renamed set relates to the asked declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Asked,
    /// Overrides or implements it (or a member it is linked to), from below.
    Override,
    Implementation,
    /// A member it overrides or implements, above it.
    Above,
}

struct Plan<'a> {
    ctx: &'a Ctx<'a>,
    index: &'a Index,
    root: SymId,
    old: String,
    new: String,
    group: BTreeMap<SymId, Role>,
    /// Each file's indexed text, read (and checked against its hash) once for the whole preview;
    /// `None` when it changed since it was indexed.
    texts: RefCell<HashMap<FileId, Option<Rc<FileText>>>>,
    /// `takes_no_names` by macro name, asked once.
    macros: RefCell<HashMap<String, bool>>,
}

/// A file's text with the start of every line, and its syntax tree once one is asked for.
struct FileText {
    text: String,
    language: Language,
    line_starts: Vec<usize>,
    tree: std::cell::OnceCell<Option<tree_sitter::Tree>>,
}

impl FileText {
    fn new(text: String, language: Language) -> FileText {
        let line_starts = crate::extract::line_starts(&text);
        FileText { text, language, line_starts, tree: std::cell::OnceCell::new() }
    }

    /// The text parsed, once for the looks at an edited file's syntax (shorthands, overloads, then its
    /// macro tokens and literals).
    fn tree(&self) -> Option<&tree_sitter::Tree> {
        self.tree.get_or_init(|| parse(self.language, &self.text)).as_ref()
    }

    /// Line `n` (1-based) without its newline.
    fn line(&self, n: u32) -> Option<&str> {
        let start = *self.line_starts.get(n.checked_sub(1)? as usize)?;
        let end = self.line_starts.get(n as usize).map_or(self.text.len(), |&e| e - 1);
        self.text.get(start..end)
    }

    /// The byte offset of a 1-based (line, character column) position.
    fn byte_of(&self, pos: Pos) -> usize {
        let Some(line) = self.line(pos.line) else { return self.text.len() };
        let start = self.line_starts[pos.line as usize - 1];
        start + line.char_indices().nth(pos.col.saturating_sub(1) as usize).map_or(line.len(), |(i, _)| i)
    }
}

struct Found {
    edits: Vec<RenameEdit>,
    conflicts: Vec<RenameConflict>,
    unsafe_sites: Vec<UnsafeSite>,
    reasons: Vec<String>,
    filenames: Vec<FilenameSuggestion>,
    tests: Vec<CandidateTest>,
}

impl<'a> Plan<'a> {
    fn new(ctx: &'a Ctx<'a>, root: SymId, new: &str) -> Plan<'a> {
        let index = ctx.index();
        let old = index.symbol(root).name.clone();
        let mut plan = Plan {
            ctx,
            index,
            root,
            old,
            new: new.to_string(),
            group: BTreeMap::new(),
            texts: RefCell::default(),
            macros: RefCell::default(),
        };
        plan.group = plan.linked_members();
        plan
    }

    /// The declaration and every member linked to it: the same-named members of the types below
    /// and above its owner, transitively (a sibling implementation of the same interface member
    /// is linked through that member).
    fn linked_members(&self) -> BTreeMap<SymId, Role> {
        let index = self.index;
        let mut group = BTreeMap::from([(self.root, Role::Asked)]);
        // TypeScript merges same-named declarations of one scope (an interface and a const, a
        // class and a namespace), and a Python scope's writings of one name (`def f` under an
        // `if`, then `f = wrap(f)`) are one binding: they are one name.
        let file = index.file_of(self.root);
        let language = index.files[file as usize].language;
        if language.is_js_family() || language == Language::Python {
            let sym = index.symbol(self.root);
            for (i, other) in index.files[file as usize].facts.symbols.iter().enumerate() {
                let id = index.global(file, i as u32);
                if id != self.root && other.name == sym.name && other.container == sym.container {
                    group.insert(id, Role::Above);
                }
            }
        }
        // A Rust impl member whose type the index doesn't declare (`impl U16 for u16`) is linked
        // to its trait's member by the trait's name, in the same Cargo package.
        let root_sym = index.symbol(self.root);
        if let Some(trait_name) = root_sym.impl_trait.as_ref().and_then(|t| t.last()) {
            for t in self.rust_traits_named(trait_name, index.file_of(self.root)) {
                for m in members(index, t) {
                    if index.symbol(m).name == self.old {
                        group.entry(m).or_insert(Role::Above);
                    }
                }
            }
        }
        let mut queue: Vec<SymId> = group.keys().copied().collect();
        while let Some(m) = queue.pop() {
            let Some(owner) = owner_type(index, m) else { continue };
            let owner_abstract = matches!(index.symbol(owner).kind, SymbolKind::Interface | SymbolKind::Trait);
            for (dir, steps) in [
                (Direction::Down, walk(index, owner, Direction::Down, 10)),
                (Direction::Up, walk(index, owner, Direction::Up, 10)),
            ] {
                for step in steps {
                    for other in same_named_members(index, step.id, &self.old, owner) {
                        if group.contains_key(&other) {
                            continue;
                        }
                        let role = match dir {
                            Direction::Up => Role::Above,
                            Direction::Down if owner_abstract => Role::Implementation,
                            Direction::Down => Role::Override,
                        };
                        group.insert(other, role);
                        queue.push(other);
                    }
                }
            }
        }
        // …and a trait's member is implemented in impls for such types too.
        let trait_members: Vec<SymId> = group
            .keys()
            .copied()
            .filter(|&g| owner_type(index, g).is_some_and(|t| index.symbol(t).kind == SymbolKind::Trait))
            .collect();
        for m in trait_members {
            let owner = owner_type(index, m).expect("a trait member");
            let trait_name = index.symbol(owner).name.clone();
            let home = index.rust_package(&index.files[index.file_of(owner) as usize].path);
            for id in index.named(&self.old) {
                let file = &index.files[index.file_of(id) as usize];
                if file.language != Language::Rust || index.rust_package(&file.path) != home {
                    continue;
                }
                let s = index.symbol(id);
                if s.impl_trait.as_ref().and_then(|t| t.last()).is_some_and(|t| *t == trait_name) {
                    group.entry(id).or_insert(Role::Implementation);
                }
            }
        }
        group
    }

    /// Rust traits of this name in the Cargo package of `file`.
    fn rust_traits_named(&self, name: &str, file: FileId) -> Vec<SymId> {
        let index = self.index;
        let home = index.rust_package(&index.files[file as usize].path);
        let mut traits = index.named(name);
        traits.retain(|&t| {
            index.traits()[t as usize].kind() == SymbolKind::Trait
                && index.rust_package(&index.files[index.file_of(t) as usize].path) == home
        });
        traits
    }

    /// A file's text for one look: the one kept, else read and not kept (the literal pass reads
    /// every visible file once; only the texts of edited files and macro definitions are kept).
    fn text_passing(&self, f: FileId) -> Option<Rc<FileText>> {
        if let Some(kept) = self.texts.borrow().get(&f) {
            return kept.clone();
        }
        let file = &self.index.files[f as usize];
        file.indexed_text(self.ctx.host).map(|t| Rc::new(FileText::new(t, file.language)))
    }

    /// A file's indexed text (`None`: it changed since it was indexed).
    fn text(&self, f: FileId) -> Option<Rc<FileText>> {
        self.texts
            .borrow_mut()
            .entry(f)
            .or_insert_with(|| {
                let file = &self.index.files[f as usize];
                file.indexed_text(self.ctx.host).map(|t| Rc::new(FileText::new(t, file.language)))
            })
            .clone()
    }

    fn run(&self, req: &RenamePreviewRequest) -> Found {
        let index = self.index;
        let mut found = Found {
            edits: Vec::new(),
            conflicts: Vec::new(),
            unsafe_sites: Vec::new(),
            reasons: Vec::new(),
            filenames: Vec::new(),
            tests: Vec::new(),
        };
        let proven: Vec<(SymId, Role, std::borrow::Cow<'_, [crate::index::RefSite]>)> =
            self.group.iter().map(|(&g, &role)| (g, role, index.sites_of(g))).collect();
        let reexports = self.reexport_positions(proven.iter().flat_map(|(_, _, sites)| sites.iter().map(|r| r.file)));
        let mut stale: BTreeSet<FileId> = BTreeSet::new();
        let mut sites: Vec<(FileId, Pos, &'static str)> = Vec::new();
        // The proven uses renamed (for `shared_uses`).
        let mut uses: BTreeSet<(FileId, Pos)> = BTreeSet::new();
        for (g, role, proven) in &proven {
            let s = index.symbol(*g);
            let kind = match role {
                Role::Asked | Role::Above => "definition",
                Role::Override => "override",
                Role::Implementation => "implementation",
            };
            sites.push((index.file_of(*g), s.name_pos, kind));
            for r in proven.iter() {
                if r.alias {
                    continue;
                }
                let kind = if reexports.contains(&(r.file, r.pos)) {
                    "export"
                } else if r.import {
                    "import"
                } else {
                    "reference"
                };
                sites.push((r.file, r.pos, kind));
                uses.insert((r.file, r.pos));
            }
        }
        // TypeScript overloads are one declaration: the names of its other signatures too.
        for &g in self.group.keys() {
            let f = index.file_of(g);
            let file = &index.files[f as usize];
            if file.language.is_js_family() {
                if let Some(text) = self.text(f) {
                    let more = overload_names(&text, index.symbol(g));
                    sites.extend(more.into_iter().map(|p| (f, p, "definition")));
                }
            }
        }
        sites.sort_by(|a, b| {
            (index.files[a.0 as usize].path.as_str(), a.1).cmp(&(index.files[b.0 as usize].path.as_str(), b.1))
        });
        sites.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        let width = self.old.chars().count() as u32;
        let member = self.group.keys().any(|&g| owner_type(index, g).is_some());
        let mut shorthands: HashMap<FileId, BTreeSet<Pos>> = HashMap::default();
        for (f, pos, kind) in sites {
            let path = index.files[f as usize].path.clone();
            let Some(text) = self.text(f) else {
                stale.insert(f);
                continue;
            };
            let written = text
                .line(pos.line)
                .map(|l| l.chars().skip(pos.col.saturating_sub(1) as usize).take(width as usize).collect::<String>());
            if written.as_deref() != Some(self.old.as_str()) {
                found.unsafe_sites.push(UnsafeSite {
                    path,
                    line: pos.line,
                    column: pos.col,
                    kind: "notWritten".into(),
                });
                continue;
            }
            // `{ name }` names a key and a value at once: the renamed one is spelled out.
            let shorthand = shorthands.entry(f).or_insert_with(|| shorthand_positions(&text)).contains(&pos);
            let new_text = match (shorthand, member) {
                (false, _) => self.new.clone(),
                (true, true) => format!("{}: {}", self.new, self.old),
                (true, false) => format!("{}: {}", self.old, self.new),
            };
            found.edits.push(RenameEdit {
                path,
                line: pos.line,
                column: pos.col,
                end_column: pos.col + width,
                old_text: self.old.clone(),
                new_text,
                kind: kind.into(),
            });
        }
        for &f in &stale {
            found.unsafe_sites.push(UnsafeSite {
                path: index.files[f as usize].path.clone(),
                line: 1,
                column: 1,
                kind: "changedSinceIndexed".into(),
            });
        }
        if !stale.is_empty() {
            found
                .reasons
                .push(format!("{} files changed since they were indexed: refresh the index first", stale.len()));
        }
        if let Some(reason) = self.bound_by_outside() {
            found.reasons.push(reason);
        }
        self.shared_uses(&uses, &mut found);
        self.conflicts(&mut found);
        if !found.conflicts.is_empty() {
            found.reasons.push(format!("{} conflicts with the new name: see conflicts", found.conflicts.len()));
        }
        let visible = self.visible_files();
        let judged = self.unresolved_same_name(&visible, &mut found);
        let edited: BTreeSet<(String, u32, u32)> =
            found.edits.iter().map(|e| (e.path.clone(), e.line, e.column)).collect();
        self.literals(&visible, req, &edited, &judged, &mut found);
        if found.unsafe_sites.iter().any(|u| u.kind == "notWritten") {
            found.reasons.push(
                "some proven sites don't spell the name (macro-generated or raw identifiers): see unsafeSites".into(),
            );
        }
        if req.include_filenames {
            found.filenames = self.filename_suggestion().into_iter().collect();
        }
        let files: Vec<FileId> = self.group.keys().map(|&g| index.file_of(g)).collect();
        let syms: Vec<SymId> = self.group.keys().copied().collect();
        let near = walks::dependents(index, &files, 2);
        found.tests = walks::candidate_tests(index, &files, &syms, &near)
            .into_iter()
            .map(|(f, reason)| CandidateTest { path: index.files[f as usize].path.clone(), reason })
            .collect();
        found.edits.sort();
        found.unsafe_sites.sort();
        found.unsafe_sites.dedup();
        found
    }

    /// Why the name is fixed by something outside the repository, if it is: a Python protocol
    /// method (`__init__`, `__eq__`: the runtime calls it by name), a Rust method of an impl of a
    /// trait the repository doesn't declare (`fmt` of `impl Display`), a Java method of `Object`
    /// (`toString`, `equals`, `hashCode`), a JavaScript `constructor`.
    fn bound_by_outside(&self) -> Option<String> {
        let index = self.index;
        for &g in self.group.keys() {
            let s = index.symbol(g);
            let language = index.files[index.file_of(g) as usize].language;
            let owner = owner_type(index, g);
            let member = owner.is_some();
            if let Some((owner, standard)) = owner.and_then(|t| Some((t, self.standard_shape(t, language)?))) {
                return Some(format!(
                    "`{}` can't be renamed alone: a value of the language's `{standard}` has every member `{}` \
                     declares, so it may stand for one and keeps the old name",
                    index.handle(g),
                    index.symbol(owner).name
                ));
            }
            let why = match language {
                Language::Python
                    if member && s.name.len() > 4 && s.name.starts_with("__") && s.name.ends_with("__") =>
                {
                    Some("a Python protocol method: the runtime calls it by this name")
                }
                Language::Rust
                    if s.impl_trait.is_some()
                        && !self.group.keys().any(|&o| {
                            owner_type(index, o).is_some_and(|t| index.symbol(t).kind == SymbolKind::Trait)
                        }) =>
                {
                    Some("it implements a method of a trait declared outside the repository")
                }
                Language::Java
                    if member
                        && matches!(s.name.as_str(), "toString" | "equals" | "hashCode" | "clone" | "finalize") =>
                {
                    Some("it overrides a method of java.lang.Object")
                }
                _ if language.is_js_family() && s.name == "constructor" => {
                    Some("a class constructor is named by the language")
                }
                _ if language.is_js_family() && self.augments_global(g) => {
                    Some("it is declared in `declare global`: it extends a declaration of the platform's")
                }
                _ => None,
            };
            if let Some(why) = why {
                return Some(format!("`{}` can't be renamed alone: {why}", &index.handle(g)));
            }
        }
        None
    }

    /// The standard type (`Language::standard_shapes`) whose members include every member the
    /// interface or class `owner` declares: its values fit where `owner` is expected.
    fn standard_shape(&self, owner: SymId, language: Language) -> Option<&'static str> {
        let index = self.index;
        if !matches!(index.symbol(owner).kind, SymbolKind::Interface | SymbolKind::Class) {
            return None;
        }
        let names: Vec<&str> = members(index, owner).into_iter().map(|m| index.symbol(m).name.as_str()).collect();
        language
            .standard_shapes()
            .iter()
            .find(|(_, members)| !names.is_empty() && names.iter().all(|n| members.contains(n)))
            .map(|(standard, _)| *standard)
    }

    /// Whether a TypeScript declaration stands inside `declare global { … }`.
    fn augments_global(&self, g: SymId) -> bool {
        let index = self.index;
        let file = &index.files[index.file_of(g) as usize];
        let Some(file_text) = self.text(index.file_of(g)) else { return false };
        let text = &file_text.text;
        let Some(tree) = parse(file.language, text) else { return false };
        let byte = file_text.byte_of(index.symbol(g).name_pos);
        let mut node = tree.root_node().descendant_for_byte_range(byte, byte);
        while let Some(n) = node {
            if text[n.byte_range()].starts_with("declare global") || n.kind_str() == "global" {
                return true;
            }
            node = n.parent();
        }
        false
    }

    /// Positions of the name in re-export statements (`export { a } from`, `pub use`) of `files`.
    fn reexport_positions(&self, files: impl Iterator<Item = FileId>) -> BTreeSet<(FileId, Pos)> {
        let files: BTreeSet<FileId> = files.collect();
        let mut out = BTreeSet::new();
        for f in files {
            for import in self.index.files[f as usize].facts.imports.iter().filter(|i| i.reexport) {
                for it in import.items.iter().filter(|it| it.name == self.old) {
                    out.insert((f, it.pos));
                }
            }
        }
        out
    }

    /// The files that can see the declarations: theirs, those of their Cargo or Go package, every
    /// file importing them (transitively); of the others, none that no build compiles.
    fn visible_files(&self) -> BTreeSet<FileId> {
        let index = self.index;
        let own: BTreeSet<FileId> = self.group.keys().map(|&g| index.file_of(g)).collect();
        // The files that see a file's names without importing them: a Cargo package's (macro
        // invocations use names without import edges) and a Go package's (its folder's).
        let home = |f: usize| {
            let file = &index.files[f];
            match file.language {
                Language::Rust => Some((Language::Rust, index.rust_package(&file.path))),
                Language::Go => Some((Language::Go, file.path.rsplit_once('/').map_or("", |(d, _)| d))),
                _ => None,
            }
        };
        let homes: BTreeSet<(Language, &str)> = own.iter().filter_map(|&f| home(f as usize)).collect();
        let mut seen = own.clone();
        if !homes.is_empty() {
            let at_home = (0..index.files.len()).filter(|&g| home(g).is_some_and(|h| homes.contains(&h)));
            seen.extend(at_home.map(|g| g as FileId));
        }
        let mut frontier: Vec<FileId> = seen.iter().copied().collect();
        while let Some(f) = frontier.pop() {
            for &r in &index.file_edges().importers[f as usize] {
                if seen.insert(r) {
                    frontier.push(r);
                }
            }
        }
        // A file no build compiles can't stop compiling (`// mod transducer;`).
        seen.retain(|f| own.contains(f) || !index.file_stats()[*f as usize].uncompiled);
        seen
    }

    /// Renamed uses that also stand for a declaration that is not renamed (`x.send()` where `x:
    /// Client | Other`, a name several platforms' declarations answer): after the rename the use
    /// no longer names that one, so the preview is not safe.
    fn shared_uses(&self, renamed: &BTreeSet<(FileId, Pos)>, found: &mut Found) {
        let index = self.index;
        let files: BTreeSet<FileId> = renamed.iter().map(|&(f, _)| f).collect();
        let before = found.unsafe_sites.len();
        let mut others: BTreeSet<SymId> = BTreeSet::new();
        for f in files {
            for r in index.sites_in_file(f) {
                if renamed.contains(&(r.file, r.pos)) && !self.group.contains_key(&r.target) && !r.alias {
                    others.insert(r.target);
                    found.unsafe_sites.push(UnsafeSite {
                        path: index.files[f as usize].path.clone(),
                        line: r.pos.line,
                        column: r.pos.col,
                        kind: "sharedUse".into(),
                    });
                }
            }
        }
        let n = found.unsafe_sites.len() - before;
        if n > 0 {
            let names: Vec<String> = others.iter().take(3).map(|&o| index.handle(o)).collect();
            found.reasons.push(format!(
                "{n} renamed uses also stand for declarations that are not renamed ({}): see unsafeSites",
                names.join(", ")
            ));
        }
    }

    /// The new name already declared beside a renamed declaration, in its type hierarchy, at the
    /// top level of a file whose sites are renamed, or as a local that would capture a renamed use.
    fn conflicts(&self, found: &mut Found) {
        let index = self.index;
        let conflict = |kind: &str, message: String, o: SymId| RenameConflict {
            kind: kind.into(),
            message,
            path: Some(index.files[index.file_of(o) as usize].path.clone()),
            line: Some(index.symbol(o).name_pos.line),
            handle: Some(index.handle(o)),
        };
        let mut members_of_hierarchy: BTreeSet<SymId> = BTreeSet::new();
        for &g in self.group.keys() {
            let file = index.file_of(g);
            let s = index.symbol(g);
            // Beside it: the same container (or the same type's impl blocks and receivers).
            let beside: Vec<SymId> = match owner_type(index, g) {
                Some(owner) => {
                    for dir in [Direction::Up, Direction::Down] {
                        for step in walk(index, owner, dir, 10) {
                            members_of_hierarchy.extend(members(index, step.id));
                        }
                    }
                    members(index, owner)
                }
                None => index.files[file as usize]
                    .facts
                    .symbols
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.container == s.container)
                    .map(|(i, _)| index.global(file, i as u32))
                    .collect(),
            };
            for o in beside {
                if index.symbol(o).name == self.new && !self.group.contains_key(&o) {
                    found.conflicts.push(conflict(
                        "alreadyDeclared",
                        format!("`{}` is already declared beside `{}`", self.new, &index.handle(g)),
                        o,
                    ));
                }
            }
        }
        for o in members_of_hierarchy {
            if index.symbol(o).name == self.new && !self.group.contains_key(&o) {
                found.conflicts.push(conflict(
                    "hierarchyMember",
                    format!(
                        "a member `{}` exists in the type hierarchy: the renamed member would override or hide it",
                        self.new
                    ),
                    o,
                ));
            }
        }
        // A top-level declaration's uses are bare names: a file that already has the new name at
        // its top level (a declaration or an import), or a local of that name around a use.
        let top_level =
            self.group.keys().all(|&g| owner_type(index, g).is_none() && index.symbol(g).container.is_none());
        if !top_level {
            return;
        }
        let mut files: BTreeMap<FileId, Vec<(Pos, Option<u32>)>> = BTreeMap::new();
        for &g in self.group.keys() {
            for r in index.sites_of(g).iter().filter(|r| !r.alias) {
                let local = r.enclosing.map(|e| index.syms[e as usize].1);
                files.entry(r.file).or_default().push((r.pos, local));
            }
        }
        for (f, uses) in files {
            let file = &index.files[f as usize];
            let declared =
                file.facts.symbols.iter().enumerate().find(|(_, s)| s.container.is_none() && s.name == self.new);
            if let Some((i, _)) = declared {
                found.conflicts.push(conflict(
                    "importCollision",
                    format!("{} already declares `{}` at its top level, where renamed uses stand", file.path, self.new),
                    index.global(f, i as u32),
                ));
            }
            // A local of the new name in a callback at the top level (which may see a renamed use).
            if declared.is_none() && file.facts.locals.iter().any(|l| l.scope.is_none() && l.name == self.new) {
                found.conflicts.push(RenameConflict {
                    kind: "shadowed".into(),
                    message: format!(
                        "{} binds a local `{}` at its top level, where renamed uses stand",
                        file.path, self.new
                    ),
                    path: Some(file.path.clone()),
                    line: None,
                    handle: None,
                });
            }
            let imported = file.facts.imports.iter().flat_map(|i| &i.items).find(|it| it.alias == self.new);
            if let Some(it) = imported {
                found.conflicts.push(RenameConflict {
                    kind: "importCollision".into(),
                    message: format!("{} already imports a `{}`", file.path, self.new),
                    path: Some(file.path.clone()),
                    line: Some(it.pos.line),
                    handle: None,
                });
            }
            for (pos, local) in uses {
                let Some(local) = local else { continue };
                // The scopes around the use: its enclosing declaration and their containers.
                let mut scope = Some(local);
                while let Some(sc) = scope {
                    if file.facts.locals.iter().any(|l| l.scope == Some(sc) && l.name == self.new) {
                        found.conflicts.push(RenameConflict {
                            kind: "shadowed".into(),
                            message: format!(
                                "a local `{}` in {} would capture the renamed use at line {}",
                                self.new, file.facts.symbols[sc as usize].name, pos.line
                            ),
                            path: Some(file.path.clone()),
                            line: Some(pos.line),
                            handle: None,
                        });
                        break;
                    }
                    scope = file.facts.symbols[sc as usize].container;
                }
            }
        }
    }

    /// Same-named uses nobody could prove either way, in the files that can see the declarations:
    /// a bare name (for a top-level declaration) or a member name (for a member) at a position no
    /// proven reference covers. Returns every position it judged, proven or not (a macro argument
    /// the extractor read as code is judged here, not as an opaque token).
    fn unresolved_same_name(&self, visible: &BTreeSet<FileId>, found: &mut Found) -> BTreeSet<(FileId, Pos)> {
        let index = self.index;
        let member = self.group.keys().any(|&g| owner_type(index, g).is_some() || index.symbol(g).container.is_some());
        let before = found.unsafe_sites.len();
        let owners = if member { self.concrete_owners() } else { None };
        // `may_carry` per type, asked once (the same types stop many chains).
        let carries: RefCell<HashMap<SymId, bool>> = RefCell::default();
        let mut judged: BTreeSet<(FileId, Pos)> = BTreeSet::new();
        // What the renamed declarations are: macros are a namespace of their own, and where a
        // language keeps fields and methods apart, a use of one is none of the other.
        let all_are = |kind: fn(SymbolKind) -> bool| self.group.keys().all(|&g| kind(index.symbol(g).kind));
        let renames_macro = all_are(|k| k == SymbolKind::Macro);
        let renames_fields = all_are(|k| k == SymbolKind::Field);
        let renames_methods = all_are(SymbolKind::is_callable);
        // A Rust field or method is reached through a value or a type, never imported by name.
        let unimportable = self.group.keys().all(|&g| {
            let s = index.symbol(g);
            index.files[index.file_of(g) as usize].language == Language::Rust
                && matches!(s.kind, SymbolKind::Field | SymbolKind::Method)
        });
        for &f in visible {
            let file = &index.files[f as usize];
            // Every visible file's facts are looked at once and not kept, and decoded only when
            // their bytes hold the name (all this looks at is where they write it).
            let Some(facts) = file.facts.passing_holding(&[&self.old]) else { continue };
            // The positions the resolver proved, read for a file only when it writes the name.
            let sites_here = std::cell::OnceCell::new();
            let resolved = || -> &BTreeSet<Pos> {
                sites_here.get_or_init(|| index.sites_in_file(f).into_iter().map(|r| r.pos).collect())
            };
            // Stops on a value of proven types none of which can carry the renamed member, judged
            // for a file only when it writes the name (judging a type reads its members).
            let stops_elsewhere = std::cell::OnceCell::new();
            let elsewhere = || -> &BTreeSet<(u32, u32)> {
                stops_elsewhere.get_or_init(|| match &owners {
                    Some(owners) if file.language.checks_members() => index.file_stats()[f as usize]
                        .known_stops
                        .iter()
                        .filter(|(_, _, types)| {
                            types
                                .iter()
                                .all(|&t| !*carries.borrow_mut().entry(t).or_insert_with(|| self.may_carry(t, owners)))
                        })
                        .map(|&(k, seg, _)| (k, seg))
                        .collect(),
                    _ => BTreeSet::new(),
                })
            };
            let stats = &index.file_stats()[f as usize];
            // Paths whose head was proven to be something else (`MatchKind::All` with `MatchKind`
            // imported from a crate outside): their value stopped a later segment.
            let head_proven: BTreeSet<u32> =
                if member { BTreeSet::new() } else { stats.known_stops.iter().map(|&(k, _, _)| k).collect() };
            for (k, chain) in facts.refs.iter().enumerate() {
                // Macros and items are namespaces of their own: `format!` is no use of a `format`.
                if (chain.namespace == Namespace::Macros) != renames_macro {
                    continue;
                }
                let segs = &chain.segments;
                // The positions of the name, each with whether it provably stops on another type.
                let at: Vec<(Pos, bool)> = if member {
                    // A name given alone to a macro, proven to be what its template names with it
                    // (a member), is judged as the member's site.
                    let given = chain.argument.is_some()
                        && segs.iter().any(|(n, _)| *n == self.old)
                        && segs.first().is_some_and(|(_, p)| resolved().contains(p));
                    let from = usize::from(chain.receiver.is_none() && !given);
                    let apart = file.language.fields_apart_from_methods();
                    segs.iter()
                        .enumerate()
                        .skip(from)
                        .filter(|(_, (n, _))| *n == self.old)
                        .map(|(i, (_, p))| {
                            let other_kind = apart
                                && match member_site(chain, i as u32) {
                                    MemberSite::Call => renames_fields,
                                    MemberSite::Read => renames_methods,
                                    MemberSite::Either => false,
                                };
                            (*p, other_kind || elsewhere().contains(&(k as u32, i as u32)))
                        })
                        .collect()
                } else if !(chain.path_head && file.language.module_path_head(&self.old))
                    && shadowed_by_local(&facts, chain.enclosing, &self.old, k as u32)
                {
                    // A local of that name around the use: it means the local, not the declaration.
                    Vec::new()
                } else {
                    segs.first()
                        .filter(|(n, _)| *n == self.old && chain.receiver.is_none())
                        .map(|(_, p)| (*p, head_proven.contains(&(k as u32))))
                        .into_iter()
                        .collect()
                };
                if !member {
                    // A later segment (`regex_test::MatchKind`) is the path's to resolve, and a
                    // local's use is the local's: judged here, as anywhere.
                    judged.extend(segs.iter().filter(|(n, _)| *n == self.old).map(|&(_, p)| (f, p)));
                }
                for (pos, other_type) in at {
                    judged.insert((f, pos));
                    if !other_type && !resolved().contains(&pos) {
                        found.unsafe_sites.push(UnsafeSite {
                            path: file.path.clone(),
                            line: pos.line,
                            column: pos.col,
                            kind: "unresolvedSameName".into(),
                        });
                    }
                }
            }
            if unimportable {
                continue;
            }
            // Import items of the name that resolve to nothing (`use crate::ast::Name;` in a body).
            for import in &facts.imports {
                // `use crate::ast::Kind::*;`: the name is a segment of the module path, proven
                // when the glob's path, read as a path, resolved there (to it: an edit; to
                // something else: not it).
                let in_path = file.language == Language::Rust && import.module.split("::").any(|seg| seg == self.old);
                let proven = || {
                    import.kind == ImportKind::Glob
                        && facts.refs.iter().any(|c| {
                            c.segments.first().is_some_and(|(_, p)| p.line == import.pos.line && *p >= import.pos)
                                && c.segments.iter().any(|(n, p)| *n == self.old && resolved().contains(p))
                        })
                };
                if in_path && !proven() {
                    found.unsafe_sites.push(UnsafeSite {
                        path: file.path.clone(),
                        line: import.pos.line,
                        column: import.pos.col,
                        kind: "importPath".into(),
                    });
                }
            }
            for (i, import) in facts.imports.iter().enumerate() {
                for (j, it) in import.items.iter().enumerate() {
                    let outside = || stats.outside_imports.contains(&(i as u32, j as u32));
                    if it.name == self.old && !resolved().contains(&it.pos) && !outside() {
                        found.unsafe_sites.push(UnsafeSite {
                            path: file.path.clone(),
                            line: it.pos.line,
                            column: it.pos.col,
                            kind: "unresolvedSameName".into(),
                        });
                    }
                }
            }
        }
        let n = found.unsafe_sites.len() - before;
        if n > 0 {
            found.reasons.push(format!(
                "{n} uses of the name `{}` in files that can see it could not be proven either way: see unsafeSites",
                self.old
            ));
        }
        judged
    }

    /// The types whose values may carry the renamed members: their owners and every type above and
    /// below them. `None` when that can't be bounded: a declaration is not a member, or is one of a
    /// trait or protocol its language lets code far away give to any type, or of a Rust trait
    /// implementation (blanket implementations give it to types nobody relates to it).
    fn concrete_owners(&self) -> Option<BTreeSet<SymId>> {
        let index = self.index;
        let mut owners = BTreeSet::new();
        for &g in self.group.keys() {
            let owner = owner_type(index, g)?;
            let abstract_owner = matches!(index.symbol(owner).kind, SymbolKind::Trait | SymbolKind::Interface)
                && index.files[index.file_of(owner) as usize].language.conforms_from_afar();
            if abstract_owner || index.symbol(g).impl_trait.is_some() {
                return None;
            }
            owners.insert(owner);
            for dir in [Direction::Up, Direction::Down] {
                owners.extend(walk(index, owner, dir, 10).into_iter().map(|step| step.id));
            }
        }
        Some(owners)
    }

    /// Whether a value of type `t` may carry a member of `owners`: it is one of them, an alias (whose
    /// lookup is not followed), or forwards members it lacks (`Deref`, `__getattr__`).
    fn may_carry(&self, t: SymId, owners: &BTreeSet<SymId>) -> bool {
        const FORWARDING: [&str; 4] = ["deref", "deref_mut", "__getattr__", "__getattribute__"];
        owners.contains(&t)
            || self.index.symbol(t).kind == SymbolKind::Type
            || members(self.index, t).into_iter().any(|m| FORWARDING.contains(&self.index.symbol(m).name.as_str()))
    }

    /// Strings that are exactly the name (dynamic access: unsafe), and, when asked, matches of the
    /// name as a word in comments and strings (candidates, never counted towards `safe`).
    fn literals(
        &self,
        visible: &BTreeSet<FileId>,
        req: &RenamePreviewRequest,
        edited: &BTreeSet<(String, u32, u32)>,
        judged: &BTreeSet<(FileId, Pos)>,
        found: &mut Found,
    ) {
        let index = self.index;
        let before = found.unsafe_sites.len();
        let member = self.group.keys().any(|&g| owner_type(index, g).is_some());
        for &f in visible {
            let file = &index.files[f as usize];
            let Some(file_text) = self.text_passing(f) else { continue };
            let text = &file_text.text;
            if !text.contains(&self.old) {
                continue;
            }
            // The tree parsed for an edit, else one parsed for this look alone (a rename of a common
            // name looks at many files, whose trees are not kept).
            let parsed;
            let tree = if let Some(tree) = file_text.tree.get() {
                tree.as_ref()
            } else {
                parsed = parse(file.language, text);
                parsed.as_ref()
            };
            let Some(tree) = tree else { continue };
            if file.language == Language::Rust {
                // Macro arguments are token trees nobody resolves: a name there is unproven, unless
                // the extractor read that argument as code (`assert!(Regex::new(p).is_ok())`) and
                // the position was judged with the other uses.
                for token in macro_tokens(&file_text, tree, &self.old) {
                    let pos = token.pos;
                    // A member is reached as `.name` or `Type::name`, and a macro may paste a
                    // whole argument into either (memchr's `unsafe_ifunc!(Two, find_raw, …)`
                    // calls `$ty::$name`) unless none of its rules takes a name; for anything
                    // else a `.name` is a member of something, never it.
                    let unproven = if member {
                        token.after_dot
                            || token.after_path
                            || token.argument_of.is_some_and(|m| !self.takes_no_names(m))
                    } else {
                        !token.after_dot
                    };
                    let read_as_code = judged.contains(&(f, pos));
                    if unproven && !read_as_code && !edited.contains(&(file.path.clone(), pos.line, pos.col)) {
                        found.unsafe_sites.push(UnsafeSite {
                            path: file.path.clone(),
                            line: pos.line,
                            column: pos.col,
                            kind: "inMacro".into(),
                        });
                    }
                }
            }
            for lit in literal_matches(&file_text, tree, &self.old) {
                if edited.contains(&(file.path.clone(), lit.pos.line, lit.pos.col)) {
                    continue;
                }
                if lit.whole_string {
                    found.unsafe_sites.push(UnsafeSite {
                        path: file.path.clone(),
                        line: lit.pos.line,
                        column: lit.pos.col,
                        kind: "dynamicAccess".into(),
                    });
                }
                if (lit.comment && req.include_comments) || (!lit.comment && req.include_strings) {
                    found.edits.push(RenameEdit {
                        path: file.path.clone(),
                        line: lit.pos.line,
                        column: lit.pos.col,
                        end_column: lit.pos.col + self.old.chars().count() as u32,
                        old_text: self.old.clone(),
                        new_text: self.new.clone(),
                        kind: if lit.comment { "comment" } else { "string" }.into(),
                    });
                }
            }
        }
        let n = found.unsafe_sites.len() - before;
        if n > 0 {
            found.reasons.push(format!(
                "{n} strings or macro arguments name `{}` where nothing is resolved (dynamic access, macro tokens): see unsafeSites",
                self.old
            ));
        }
    }

    /// Whether every `macro_rules!` of the repository named `name` takes no name fragment
    /// (`rules_take_no_names`); false when there is none (a macro from outside).
    fn takes_no_names(&self, name: &str) -> bool {
        if let Some(&known) = self.macros.borrow().get(name) {
            return known;
        }
        let known = self.rules_of_take_no_names(name);
        self.macros.borrow_mut().insert(name.to_string(), known);
        known
    }

    fn rules_of_take_no_names(&self, name: &str) -> bool {
        let index = self.index;
        let mut found = false;
        for id in index.named(name) {
            let f = index.file_of(id);
            let rust = index.files[f as usize].language == Language::Rust;
            if !rust || index.traits()[id as usize].kind() != SymbolKind::Macro {
                continue;
            }
            let s = index.symbol(id);
            found = true;
            let Some(text) = self.text(f) else { return false };
            let definition = text.text.get(text.byte_of(s.start)..text.byte_of(s.end)).unwrap_or_default();
            if !rules_take_no_names(definition) {
                return false;
            }
        }
        found
    }

    /// An exported class, interface or type whose file is named like it: the file's new name.
    fn filename_suggestion(&self) -> Option<FilenameSuggestion> {
        let index = self.index;
        let s = index.symbol(self.root);
        let eligible = s.exported
            && matches!(
                s.kind,
                SymbolKind::Class
                    | SymbolKind::Interface
                    | SymbolKind::Type
                    | SymbolKind::Struct
                    | SymbolKind::Trait
                    | SymbolKind::Enum
            );
        if !eligible {
            return None;
        }
        let path = &index.files[index.file_of(self.root) as usize].path;
        let (dir, file) = path.rsplit_once('/').map_or(("", path.as_str()), |(d, f)| (d, f));
        let (stem, ext) = file.split_once('.')?;
        let new_stem = if stem == self.old {
            self.new.clone()
        } else if stem == self.old.to_lowercase() {
            self.new.to_lowercase()
        } else {
            return None;
        };
        let new_path = if dir.is_empty() { format!("{new_stem}.{ext}") } else { format!("{dir}/{new_stem}.{ext}") };
        Some(FilenameSuggestion { path: path.clone(), new_path })
    }
}

/// Whether a local named `name` is bound in the scope `enclosing` (a local symbol) or one around it,
/// or at the file's top level in a block open at chain `at` (in a callback there).
fn shadowed_by_local(facts: &crate::facts::FileFacts, enclosing: Option<u32>, name: &str, at: u32) -> bool {
    let mut scope = enclosing;
    while let Some(sc) = scope {
        if facts.locals.iter().any(|l| l.scope == Some(sc) && l.name == name) {
            return true;
        }
        scope = facts.symbols[sc as usize].container;
    }
    facts.locals.iter().any(|l| l.scope.is_none() && l.name == name && l.seen_at(at))
}

/// The type a member belongs to (its container, or the type of its impl block or Go receiver).
fn owner_type(index: &Index, id: SymId) -> Option<SymId> {
    super::hierarchy::owner_type(index, id)
}

/// What a member segment of a chain can name, by how it is written.
enum MemberSite {
    /// It is called (`x.f()`, `T::f()`): a method or function.
    Call,
    /// It is read after a `.` or as a field of a struct literal or pattern (`x.f`, `S { f, .. }`):
    /// a field.
    Read,
    /// It is read on a path (`T::f`): a method as a value, or something else entirely.
    Either,
}

/// How segment `i` of `chain` is written (`MemberSite`). After a value (a receiver, a head
/// followed by `.`, a call) only `.` goes on; a head followed by `::` goes on by `::` until a call.
fn member_site(chain: &RefChain, i: u32) -> MemberSite {
    let last = chain.segments.len().saturating_sub(1) as u32;
    if chain.calls_at.binary_search(&i).is_ok() || (chain.call && i == last) {
        MemberSite::Call
    } else if chain.receiver.is_some()
        || (i > 0 && (!chain.path_head || chain.calls_at.first().is_some_and(|&c| c < i)))
    {
        MemberSite::Read
    } else {
        MemberSite::Either
    }
}

/// Members of `ty` named `name` linked to a member of `owner` (for a trait owner, only those in an
/// `impl owner for ty` block or declared in a sub-trait).
fn same_named_members(index: &Index, ty: SymId, name: &str, owner: SymId) -> Vec<SymId> {
    super::hierarchy::members_named(index, ty, name, owner)
}

/// Syntax of a name that is both a key and a value (`{ name }` in an object literal or a
/// destructuring pattern, Rust's `Point { x }` literal and pattern fields).
const SHORTHAND_KINDS: [&str; 3] =
    ["shorthand_property_identifier", "shorthand_property_identifier_pattern", "shorthand_field_identifier"];

/// Walks every node of a parsed text.
fn each_node(tree: &tree_sitter::Tree, mut f: impl FnMut(tree_sitter::Node)) {
    let mut cursor = tree.root_node().walk();
    loop {
        f(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

fn parse(language: Language, text: &str) -> Option<tree_sitter::Tree> {
    let mut parser = Parser::new();
    parser.set_language(&language.grammar()).ok()?;
    parser.parse(text, None)
}

/// Positions of shorthand names in a file (see `SHORTHAND_KINDS`; a Rust shorthand field
/// initialiser is an `identifier` under `shorthand_field_initializer`).
fn shorthand_positions(file: &FileText) -> BTreeSet<Pos> {
    let mut out = BTreeSet::new();
    let Some(tree) = file.tree() else { return out };
    let positions = crate::extract::positions_of(&file.text);
    each_node(tree, |n| {
        let rust_init =
            n.kind_str() == "identifier" && n.parent().is_some_and(|p| p.kind_str() == "shorthand_field_initializer");
        if SHORTHAND_KINDS.contains(&n.kind_str()) || rust_init {
            out.insert(positions.pos(n.start_byte()));
        }
    });
    out
}

/// The names of a TypeScript declaration's other overload signatures: declarations of the same
/// name beside the first one, inside the range the merged declaration spans.
fn overload_names(file: &FileText, sym: &crate::facts::Symbol) -> Vec<Pos> {
    const DECLS: [&str; 6] = [
        "function_signature",
        "function_declaration",
        "method_signature",
        "method_definition",
        "abstract_method_signature",
        "generator_function_declaration",
    ];
    let Some(tree) = file.tree() else { return Vec::new() };
    let text = file.text.as_str();
    let positions = crate::extract::positions_of(text);
    let mut out = Vec::new();
    each_node(tree, |n| {
        if !DECLS.contains(&n.kind_str()) {
            return;
        }
        let Some(name) = n.field("name") else { return };
        let at = positions.pos(name.start_byte());
        let within =
            (sym.start.line, sym.start.col) <= (at.line, at.col) && (at.line, at.col) <= (sym.end.line, sym.end.col);
        if within && at != sym.name_pos && text[name.byte_range()] == sym.name {
            out.push(at);
        }
    });
    out
}

/// Standard macros whose arguments are expressions (a format string's and its values): a bare name
/// among them is a value, never pasted where a member goes.
const EXPRESSION_MACROS: [&str; 20] = [
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "dbg",
    "eprint",
    "eprintln",
    "format",
    "format_args",
    "matches",
    "panic",
    "print",
    "println",
    "todo",
    "unimplemented",
    "unreachable",
    "write",
    "writeln",
];

/// An identifier spelled like the renamed name inside a Rust macro token tree.
struct MacroToken<'t> {
    pos: Pos,
    /// After a `.`: a member of something.
    after_dot: bool,
    /// After a `::`: a path's segment.
    after_path: bool,
    /// A whole argument of this macro (`unsafe_ifunc!(Two, find_raw, …)`, which the macro may paste
    /// into `Two::find_raw`), one of the standard expression macros' apart. A bare name inside an
    /// expression (`assert!((area - PI).abs() < e)`, `write!(f, "{:?}", DebugByte(start))`) or
    /// after `fn` is none.
    argument_of: Option<&'t str>,
}

/// The identifiers spelled `name` inside Rust macro token trees.
fn macro_tokens<'t>(file: &'t FileText, tree: &tree_sitter::Tree, name: &str) -> Vec<MacroToken<'t>> {
    let text = file.text.as_str();
    let positions = crate::extract::positions_of(text);
    let mut out = Vec::new();
    each_node(tree, |n| {
        let Some(tt) = n.parent().filter(|p| p.kind_str() == "token_tree") else { return };
        if n.kind_str() != "identifier" || &text[n.byte_range()] != name {
            return;
        }
        let prev = n.prev_sibling().map_or("", |p| p.kind_str());
        let next = n.next_sibling().map_or("", |p| p.kind_str());
        let whole = matches!(prev, "," | "(" | "[" | "{") && matches!(next, "," | ")" | "]" | "}");
        out.push(MacroToken {
            pos: positions.pos(n.start_byte()),
            after_dot: prev == ".",
            after_path: prev == "::",
            argument_of: invoked_macro(tt, text).filter(|m| whole && !EXPRESSION_MACROS.contains(m)),
        });
    });
    out
}

/// Whether a `macro_rules!` definition's rules take no name fragment (`$x:ident`, `$x:tt`): then
/// none of its arguments can become a member's name (an `expr` or `ty` fragment is pasted whole).
fn rules_take_no_names(definition: &str) -> bool {
    let mut rest = definition;
    while let Some(at) = rest.find('$') {
        rest = &rest[at + 1..];
        let name_end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let after = rest[name_end..].trim_start();
        if let Some(fragment) = after.strip_prefix(':') {
            let fragment = fragment.trim_start();
            let end = fragment.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(fragment.len());
            if matches!(&fragment[..end], "ident" | "tt") {
                return false;
            }
        }
    }
    true
}

/// The name of the macro whose arguments token tree `tt` holds: the tree of a macro invocation, or a
/// group right after `name!` among another macro's tokens. None for a group inside an argument
/// (`DebugByte(start)`, `find(start, end)` in a template).
fn invoked_macro<'t>(tt: tree_sitter::Node, text: &'t str) -> Option<&'t str> {
    let name = match tt.parent() {
        Some(call) if call.kind_str() == "macro_invocation" => call.field("macro")?,
        _ => {
            let bang = tt.prev_sibling().filter(|b| b.kind_str() == "!")?;
            bang.prev_sibling().filter(|n| n.kind_str() == "identifier")?
        }
    };
    let name = &text[name.byte_range()];
    Some(name.rsplit("::").next().unwrap_or(name))
}

/// Calls that reach a member by a string naming it (Python's getattr family, Java reflection).
const DYNAMIC_ACCESS_CALLS: [&str; 8] =
    ["getattr", "setattr", "hasattr", "delattr", "getMethod", "getDeclaredMethod", "getField", "getDeclaredField"];

/// Whether a string literal is used to reach a member by name: the index of `obj["name"]`
/// (JavaScript/TypeScript) or an argument of one of `DYNAMIC_ACCESS_CALLS`.
fn dynamic_access(node: tree_sitter::Node, text: &str) -> bool {
    let Some(parent) = node.parent() else { return false };
    if parent.kind_str() == "subscript_expression" {
        return parent.field("index") == Some(node);
    }
    if !matches!(parent.kind_str(), "arguments" | "argument_list") {
        return false;
    }
    let Some(call) = parent.parent() else { return false };
    let callee = call.field("function").or_else(|| call.field("name"));
    callee.is_some_and(|c| {
        let name = &text[c.byte_range()];
        let last = name.rsplit(['.', ':']).next().unwrap_or(name);
        DYNAMIC_ACCESS_CALLS.contains(&last)
    })
}

/// A match of a name inside a comment or a string literal.
struct Literal {
    pos: Pos,
    comment: bool,
    /// The string's whole content is the name and it reaches a member by it (`getattr(o, "name")`).
    whole_string: bool,
}

/// Word matches of `name` in the comments and string literals of a file (the syntax tree says which
/// text is which).
fn literal_matches(file: &FileText, tree: &tree_sitter::Tree, name: &str) -> Vec<Literal> {
    let text = file.text.as_str();
    let positions = crate::extract::positions_of(text);
    let mut out = Vec::new();
    let mut cursor = tree.root_node().walk();
    loop {
        let node = cursor.node();
        let kind = node.kind_str();
        let comment = kind.contains("comment");
        let string = !comment && (kind.contains("string") || kind == "template_string") && node.is_named();
        if comment || string {
            let body = &text[node.byte_range()];
            let inner =
                body.trim_matches(|c: char| c == '"' || c == '\'' || c == '`').trim_start_matches(['b', 'r', 'f', 'u']);
            let whole = string
                && (inner == name || body.trim_matches(|c| c == '"' || c == '\'') == name)
                && dynamic_access(node, text);
            let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
            for (i, _) in body.match_indices(name) {
                let before = body[..i].chars().next_back();
                let after = body[i + name.len()..].chars().next();
                if before.is_some_and(is_word) || after.is_some_and(is_word) {
                    continue;
                }
                out.push(Literal { pos: positions.pos(node.start_byte() + i), comment, whole_string: whole });
            }
        }
        if !(comment || string) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::{RenamePreviewRequest, RenamePreviewResponse};
    use crate::Session;

    fn preview(s: &mut Session, handle: &str, new_name: &str) -> RenamePreviewResponse {
        s.rename_preview(RenamePreviewRequest {
            handle: handle.into(),
            new_name: new_name.into(),
            ..Default::default()
        })
        .unwrap()
    }

    /// A crate named `pr` whose `src/lib.rs` is `lib`.
    fn crate_repo(lib: &str) -> (tempfile::TempDir, Session) {
        repo(&[("Cargo.toml", "[package]\nname = \"pr\"\n"), ("src/lib.rs", lib)])
    }

    /// The edits of a preview that must be safe.
    fn safe_edits(s: &mut Session, handle: &str, new_name: &str) -> Vec<String> {
        let r = preview(s, handle, new_name);
        assert!(r.safe, "{handle}: {:?} {:?}", r.reasons, r.unsafe_sites);
        edits(&r)
    }

    fn edits(r: &RenamePreviewResponse) -> Vec<String> {
        r.edits.iter().map(|e| format!("{}:{}:{}-{} {}", e.path, e.line, e.column, e.end_column, e.kind)).collect()
    }

    const SHAPES: &str = "export interface Shape { area(): number }\nexport class Circle implements Shape { area() { return 1; } }\nexport class Ring extends Circle { area() { return 2; } }\nexport class Square implements Shape { area() { return 4; } perimeter() { return 0; } }\n";
    const USE: &str = "import { Circle, Shape } from './shapes';\nexport function total(s: Shape, c: Circle) { return s.area() + c.area(); }\n";

    #[test]
    fn a_method_is_renamed_with_its_implementations_and_overrides() {
        let (_dir, mut s) = repo(&[("shapes.ts", SHAPES), ("use.ts", USE)]);
        let r = preview(&mut s, "shapes.ts::Circle::area", "size");
        assert!(r.safe, "{:?} {:?}", r.reasons, r.unsafe_sites);
        assert_eq!(
            edits(&r),
            [
                "shapes.ts:1:26-30 definition",
                "shapes.ts:2:40-44 definition",
                "shapes.ts:3:36-40 override",
                "shapes.ts:4:40-44 implementation",
                "use.ts:2:55-59 reference",
                "use.ts:2:66-70 reference",
            ]
        );
        assert_eq!(r.renamed.len(), 4);
        assert!(r.edits.iter().all(|e| e.old_text == "area" && e.new_text == "size"));
    }

    /// A crate whose same-named uses are all provably of something else: members of the standard
    /// library through its paths, prelude and imports, of an outside crate, and of a value of
    /// another type (whose `push` a macro writes, so nothing resolves it).
    const PRINTER: &str = "use std::thread;\nuse outside_crate::Tool;\n\npub struct Printer { n: u32 }\nimpl Printer {\n    pub fn new() -> Printer { Printer { n: 0 } }\n    pub fn push(&mut self) { self.n += 1; }\n}\n\npub struct Other;\nmacro_rules! pusher { ($t:ty) => { impl $t { pub fn push(&self) {} } } }\npusher!(Other);\n\npub fn f(o: &Other) -> Printer {\n    let _v: Vec<u32> = std::vec::Vec::new();\n    let _s = String::new();\n    let _b = thread::Builder::new();\n    let _t = Tool::new();\n    o.push();\n    let mut p = Printer::new();\n    p.push();\n    p\n}\n";

    #[test]
    fn uses_of_something_else_leave_a_rust_rename_safe() {
        let (_dir, mut s) = crate_repo(PRINTER);
        assert_eq!(
            safe_edits(&mut s, "src/lib.rs::Printer::new", "create"),
            ["src/lib.rs:6:12-15 definition", "src/lib.rs:20:26-29 reference"]
        );
        assert_eq!(
            safe_edits(&mut s, "src/lib.rs::Printer::push", "bump"),
            ["src/lib.rs:7:12-16 definition", "src/lib.rs:21:7-11 reference"]
        );
    }

    #[test]
    fn a_macro_argument_read_as_code_is_judged_like_any_use() {
        // `assert!`'s arguments are expressions: `Tool::new` there is an outside crate's, and
        // `Printer::new` there a proven use, renamed with the others.
        let asserted = PRINTER
            .replace("    p\n}\n", "    assert!(Tool::new().ok());\n    assert!(Printer::new().n == 0);\n    p\n}\n");
        let (_dir, mut s) = crate_repo(&asserted);
        let r = preview(&mut s, "src/lib.rs::Printer::new", "create");
        assert!(r.safe, "{:?} {:?}", r.reasons, r.unsafe_sites);
        assert_eq!(
            edits(&r),
            ["src/lib.rs:6:12-15 definition", "src/lib.rs:20:26-29 reference", "src/lib.rs:23:22-25 reference"]
        );
    }

    #[test]
    fn a_macro_rules_template_is_read_as_code() {
        // The code a `macro_rules!` writes is judged like any: `Printer::new` and `$crate::Printer::new`
        // are proven uses, renamed with the others; `Map::new` is a standard map's (an alias of a
        // type from outside); `$ty::new` could be anything's.
        let templates = format!(
            "{PRINTER}\ntype Map = std::collections::HashMap<u32, u32>;\n\nmacro_rules! printers {{\n    ($name:ident) => {{\n        #[test]\n        fn $name() {{\n            let mut p = Printer::new();\n            p.push();\n            let _q = $crate::Printer::new();\n            let _m = Map::new();\n        }}\n    }};\n}}\n"
        );
        let (_dir, mut s) = crate_repo(&templates);
        let r = preview(&mut s, "src/lib.rs::Printer::new", "create");
        assert!(r.safe, "{:?} {:?}", r.reasons, r.unsafe_sites);
        assert_eq!(
            edits(&r),
            [
                "src/lib.rs:6:12-15 definition",
                "src/lib.rs:20:26-29 reference",
                "src/lib.rs:31:34-37 reference",
                "src/lib.rs:33:39-42 reference"
            ]
        );
        let r = preview(&mut s, "src/lib.rs::Printer::push", "bump");
        assert!(r.safe, "{:?} {:?}", r.reasons, r.unsafe_sites);
        assert!(edits(&r).contains(&"src/lib.rs:32:15-19 reference".to_string()), "{:?}", edits(&r));
        // A template whose type is a metavariable: `$ty::new` is not proven either way.
        let open = templates.replace("let _m = Map::new();", "let _t = $ty::new();");
        let (_dir, mut s) = crate_repo(&open);
        let r = preview(&mut s, "src/lib.rs::Printer::new", "create");
        assert!(!r.safe);
        assert_eq!(r.unsafe_sites.iter().map(|u| u.line).collect::<Vec<_>>(), [34]);
    }

    #[test]
    fn a_name_given_to_a_macro_is_what_its_template_names_with_it() {
        // `checks!(super)` passes `new` on to `$m::Finder::$cons()`: that `new` is
        // `fast::Finder::new`'s, renamed with it, and no use of `Runner::new`.
        let lib = "macro_rules! checks {\n    ($m:ident) => { checks!($m, new); };\n    ($m:ident, $cons:ident) => {\n        pub fn check() -> bool { $m::Finder::$cons().is_some() }\n    };\n}\n\npub mod fast {\n    pub struct Finder;\n    impl Finder {\n        pub fn new() -> Option<Finder> { Some(Finder) }\n    }\n    pub mod checks {\n        checks!(super);\n    }\n}\n\npub struct Runner;\nimpl Runner {\n    pub fn new() -> Runner { Runner }\n}\n\npub struct Span { pub start: u32 }\npub fn show(start: u32) -> String { format!(\"{}\", start) }\n";
        let (_dir, mut s) = crate_repo(lib);
        assert_eq!(safe_edits(&mut s, "src/lib.rs::Runner::new", "create"), ["src/lib.rs:20:12-15 definition"]);
        assert_eq!(
            safe_edits(&mut s, "src/lib.rs::fast::Finder::new", "create"),
            ["src/lib.rs:2:33-36 reference", "src/lib.rs:11:16-19 definition"]
        );
        // A local given to `format!` is the local, judged as before: no member's site.
        assert_eq!(safe_edits(&mut s, "src/lib.rs::Span::start", "from"), ["src/lib.rs:23:23-28 definition"]);
    }

    #[test]
    fn a_path_through_a_crate_the_manifest_depends_on_is_outside() {
        // `regex_test` is no module in scope: a dependency of the manifest the tree doesn't hold.
        let code = PRINTER.replace("    p\n}\n", "    let _r = regex_test::RegexTests::new();\n    p\n}\n");
        let manifest = "[package]\nname = \"pr\"\n\n[dev-dependencies]\nregex-test = \"0.1\"\n";
        let (_dir, mut s) = repo(&[("Cargo.toml", manifest), ("src/lib.rs", &code)]);
        let r = preview(&mut s, "src/lib.rs::Printer::new", "create");
        assert!(r.safe, "{:?} {:?}", r.reasons, r.unsafe_sites);
        // Without the manifest's word, `regex_test` might be a module nobody resolved.
        let (_dir, mut s) = crate_repo(&code);
        let r = preview(&mut s, "src/lib.rs::Printer::new", "create");
        assert!(!r.safe);
    }

    #[test]
    fn values_of_known_types_and_names_in_expression_macros_leave_a_method_rename_safe() {
        // `push` as a value in `write!` (whole or inside a call) is a local; `a` and `b` are
        // standard vectors; `h.p.clone()` is a Printer (a derived clone of a field's value).
        let code = "use std::fmt;\n#[derive(Clone)]\npub struct Printer { n: u32 }\nimpl Printer {\n    pub fn push(&mut self) { self.n += 1; }\n}\npub struct Holder { p: Printer }\npub struct Show(u32);\nimpl fmt::Display for Show {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        let push = self.0;\n        write!(f, \"{} {:?}\", push, Some(push))\n    }\n}\npub fn f(h: &Holder) {\n    let (mut a, mut b) = (std::vec![], Vec::new());\n    a.push(1u32);\n    b.push(2u32);\n    h.p.clone().push();\n}\n";
        let (_dir, mut s) = crate_repo(code);
        assert_eq!(
            safe_edits(&mut s, "src/lib.rs::Printer::push", "bump"),
            ["src/lib.rs:5:12-16 definition", "src/lib.rs:19:17-21 reference"]
        );
    }

    #[test]
    fn imports_from_outside_and_of_a_module_named_like_a_field_are_not_uses() {
        // `Kind` in `t` is a dependency's; a field is never imported, so `use crate::start::f`
        // names a module, not `Span::start`.
        let code = "pub struct Kind;\npub struct Span { pub start: usize }\npub mod start {\n    pub fn f() {}\n}\npub mod t {\n    use regex_test::Kind;\n    use crate::start::f;\n    pub fn g(s: &crate::Span) -> usize {\n        let _k = Kind::All;\n        f();\n        s.start\n    }\n}\n";
        let manifest = "[package]\nname = \"pr\"\n\n[dev-dependencies]\nregex-test = \"0.1\"\n";
        let (_dir, mut s) = repo(&[("Cargo.toml", manifest), ("src/lib.rs", code)]);
        assert_eq!(safe_edits(&mut s, "src/lib.rs::Kind", "Sort"), ["src/lib.rs:1:12-16 definition"]);
        assert_eq!(
            safe_edits(&mut s, "src/lib.rs::Span::start", "begin"),
            ["src/lib.rs:2:23-28 definition", "src/lib.rs:12:11-16 reference"]
        );
    }

    #[test]
    fn a_rust_call_is_no_use_of_a_field_and_a_read_no_use_of_a_method() {
        // `x` and `y` are closure parameters of no known type: `x.start()` can't be the field, nor
        // `y.end` the method; `(x.start)()` and `T::end` (a method as a value) could be either.
        let code = "pub struct Span { pub start: usize }\npub struct Range;\nimpl Range {\n    pub fn end(&self) -> usize { 0 }\n}\npub fn f(s: &Span, r: &Range) -> usize {\n    let g = |x| x.start();\n    let h = |y| y.end;\n    let _ = (g, h);\n    s.start + r.end()\n}\n";
        let (_dir, mut s) = crate_repo(code);
        assert_eq!(
            safe_edits(&mut s, "src/lib.rs::Span::start", "begin"),
            ["src/lib.rs:1:23-28 definition", "src/lib.rs:10:7-12 reference"]
        );
        assert_eq!(
            safe_edits(&mut s, "src/lib.rs::Range::end", "stop"),
            ["src/lib.rs:4:12-15 definition", "src/lib.rs:10:17-20 reference"]
        );
        let either =
            code.replace("let g = |x| x.start();", "let g = |x| (x.start)();").replace("|y| y.end;", "|y| T::end;");
        let (_dir, mut s) = crate_repo(&either);
        let unsafe_lines = |s: &mut Session, handle| {
            preview(s, handle, "other").unsafe_sites.iter().map(|u| u.line).collect::<Vec<_>>()
        };
        assert_eq!(unsafe_lines(&mut s, "src/lib.rs::Span::start"), [7]);
        assert_eq!(unsafe_lines(&mut s, "src/lib.rs::Range::end"), [8]);
    }

    #[test]
    fn self_in_an_impl_for_a_type_from_outside_carries_no_field_of_the_repository() {
        let code = "use std::ops::Range;\npub struct Span { pub start: usize }\nimpl PartialEq<Span> for Range<usize> {\n    fn eq(&self, span: &Span) -> bool {\n        self.start == span.start\n    }\n}\n";
        let (_dir, mut s) = crate_repo(code);
        assert_eq!(
            safe_edits(&mut s, "src/lib.rs::Span::start", "begin"),
            ["src/lib.rs:2:23-28 definition", "src/lib.rs:5:28-33 reference"]
        );
    }

    #[test]
    fn a_file_no_build_compiles_is_not_seen() {
        // `old.rs` is named by no `mod` (its declaration is a comment); `cli/main.rs` is the root of
        // a binary cargo finds in `src/bin/cli/`, `tool.rs` one the manifest names, so what they
        // reach is compiled.
        let lib = "// mod old;\npub struct Span { pub start: usize }\n";
        let unknown = "use pr::Span;\npub fn f(x: &Other, _s: &Span) -> usize { x.start }\n";
        let manifest = "[package]\nname = \"pr\"\n\n[[bin]]\nname = \"tool\"\npath = \"tools/tool.rs\"\n";
        let (_dir, mut s) = repo(&[
            ("Cargo.toml", manifest),
            ("src/lib.rs", lib),
            ("src/old.rs", unknown),
            ("src/bin/cli/main.rs", &format!("mod helper;\nfn main() {{}}\n{unknown}")),
            ("src/bin/cli/helper.rs", unknown),
            ("tools/tool.rs", &format!("fn main() {{}}\n{unknown}")),
        ]);
        let r = preview(&mut s, "src/lib.rs::Span::start", "begin");
        let mut paths: Vec<&str> = r.unsafe_sites.iter().map(|u| u.path.as_str()).collect();
        paths.sort_unstable();
        assert_eq!(paths, ["src/bin/cli/helper.rs", "src/bin/cli/main.rs", "tools/tool.rs"]);
    }

    #[test]
    fn a_glob_imports_path_is_renamed_with_the_enum_it_names() {
        let code = "pub enum Kind {\n    A,\n    B,\n}\nimpl Kind {\n    pub fn of(n: u8) -> Kind {\n        use self::Kind::*;\n        if n == 0 { A } else { B }\n    }\n}\npub mod sub {\n    use crate::Kind::*;\n    pub fn f() -> crate::Kind {\n        A\n    }\n}\n";
        let (_dir, mut s) = repo(&[("Cargo.toml", "[package]\nname = \"gl\"\n"), ("src/lib.rs", code)]);
        let r = preview(&mut s, "src/lib.rs::Kind", "Sort");
        assert!(r.safe, "{:?} {:?}", r.reasons, r.unsafe_sites);
        let edits = edits(&r);
        for site in ["src/lib.rs:7:19-23 reference", "src/lib.rs:12:16-20 reference"] {
            assert!(edits.iter().any(|e| e == site), "{site} in {edits:?}");
        }
    }

    #[test]
    fn a_use_of_unknown_type_or_a_trait_member_still_makes_a_rust_rename_unsafe() {
        // `x` is a closure's parameter of no declared type: its `push` may be Printer's.
        let unknown = PRINTER.replace("    o.push();\n", "    let g = |x| x.push();\n    let _ = g;\n");
        let (_dir, mut s) = crate_repo(&unknown);
        let r = preview(&mut s, "src/lib.rs::Printer::push", "bump");
        assert!(!r.safe);
        assert_eq!(r.unsafe_sites.iter().map(|u| (u.line, u.column)).collect::<Vec<_>>(), [(19, 19)]);
        // A trait's method may be implemented for any type (blanket impls): a value of another
        // type proves nothing about it.
        let traits = "pub trait Push { fn push(&self); }\npub struct A;\npub struct B;\nimpl Push for A { fn push(&self) {} }\nmacro_rules! p { ($t:ty) => { impl $t { pub fn push(&self) {} } } }\np!(B);\npub fn f(b: &B) { b.push(); }\n";
        let (_dir, mut s) = crate_repo(traits);
        let r = preview(&mut s, "src/lib.rs::Push::push", "bump");
        assert!(!r.safe);
        assert!(r.unsafe_sites.iter().any(|u| (u.line, u.column) == (7, 21)), "{:?}", r.unsafe_sites);
    }

    #[test]
    fn a_trait_member_is_renamed_in_its_own_package_of_a_workspace() {
        // Two packages of one workspace folder declare a trait of one name, each implemented for
        // a type no file declares (linked to its trait by name): the other package's is another
        // trait's member.
        let lib = |n: u32, ty: &str| {
            format!("pub trait Shape {{\n    fn area(&self) -> u32;\n}}\n\nimpl Shape for {ty} {{\n    fn area(&self) -> u32 {{\n        {n}\n    }}\n}}\n")
        };
        let (_dir, mut s) = repo(&[
            ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
            ("crates/a/Cargo.toml", "[package]\nname = \"a\"\n"),
            ("crates/a/src/lib.rs", &lib(1, "u16")),
            ("crates/b/Cargo.toml", "[package]\nname = \"b\"\n"),
            ("crates/b/src/lib.rs", &lib(2, "u32")),
        ]);
        assert_eq!(
            safe_edits(&mut s, "crates/a/src/lib.rs::Shape::area", "size"),
            ["crates/a/src/lib.rs:2:8-12 definition", "crates/a/src/lib.rs:6:8-12 implementation"]
        );
    }

    #[test]
    fn a_methods_name_as_a_bare_macro_argument_makes_a_rust_rename_unsafe() {
        // memchr's `unsafe_ifunc!(Two, find_raw, …)` expands to `Two::find_raw(…)`: here `$t.$f()`
        // with `$t` a value of no known type for one of the invocations (`u`), so neither
        // `find_raw` given is proven. A local of the name inside an expression of `assert!`, or
        // given to a macro that takes no names, is not the method.
        let code = "pub struct Two;\nimpl Two {\n    pub fn find_raw(&self) {}\n}\nmacro_rules! call {\n    ($t:ident, $f:ident) => {\n        $t.$f()\n    };\n}\npub fn f(t: Two) {\n    call!(t, find_raw);\n    let g = |u| call!(u, find_raw);\n    let find_raw = 1;\n    assert!((find_raw - 1) == 0);\n    check!(find_raw);\n}\nmacro_rules! check {\n    ($e:expr) => {\n        let _ = $e;\n    };\n}\n";
        let (_dir, mut s) = repo(&[("Cargo.toml", "[package]\nname = \"mc\"\n"), ("src/lib.rs", code)]);
        let r = preview(&mut s, "src/lib.rs::Two::find_raw", "find_fast");
        assert!(!r.safe);
        let in_macro: Vec<(u32, u32)> =
            r.unsafe_sites.iter().filter(|u| u.kind == "inMacro").map(|u| (u.line, u.column)).collect();
        assert_eq!(in_macro, [(11, 14), (12, 26)]);
    }

    #[test]
    fn a_property_of_an_object_type_written_in_place_is_no_use_of_a_class_member() {
        // `record.window` is the in-place type's own property; `record.window.close()` is
        // Pane's; neither is Frame's `window`.
        let code = "export class Pane { close(): void {} }\nexport class Frame { window = 1; }\nexport function f(record: { window: Pane; n: number }, frame: Frame): number {\n  record.window.close();\n  return frame.window;\n}\n";
        let (_dir, mut s) = repo(&[("a.ts", code)]);
        assert_eq!(
            safe_edits(&mut s, "a.ts::Frame::window", "pane"),
            ["a.ts:2:22-28 definition", "a.ts:5:16-22 reference"]
        );
        assert_eq!(
            safe_edits(&mut s, "a.ts::Pane::close", "shut"),
            ["a.ts:1:21-26 definition", "a.ts:4:17-22 reference"]
        );
    }

    #[test]
    fn a_use_that_also_stands_for_a_declaration_not_renamed_makes_a_preview_unsafe() {
        // `either.send()` is Client's or Other's: renaming Client's alone would leave Other's
        // callers calling a name it doesn't have.
        let code = "export class Client { send(n: number): void {} }\nexport class Other { send(n: number): void {} }\nexport function f(either: Client | Other, c: Client): void {\n  either.send(1);\n  c.send(2);\n}\n";
        let (_dir, mut s) = repo(&[("a.ts", code)]);
        let r = preview(&mut s, "a.ts::Client::send", "deliver");
        assert!(!r.safe);
        assert!(r.reasons.iter().any(|w| w.contains("a.ts::Other::send")), "{:?}", r.reasons);
        let shared: Vec<(u32, u32)> =
            r.unsafe_sites.iter().filter(|u| u.kind == "sharedUse").map(|u| (u.line, u.column)).collect();
        assert_eq!(shared, [(4, 10)]);
    }

    #[test]
    fn a_python_name_written_twice_in_one_scope_is_renamed_whole() {
        // `protect` is defined, then rebound: both writings are one binding its users see.
        let code = "def wrap(f):\n    return f\n\ndef protect(view):\n    return view\n\nprotect = wrap(protect)\n";
        let user = "from guard import protect\n\nprotect(None)\n";
        let (_dir, mut s) = repo(&[("guard.py", code), ("views.py", user)]);
        let r = preview(&mut s, "guard.py::protect", "shield");
        assert!(r.safe, "{:?} {:?}", r.reasons, r.unsafe_sites);
        let lines: Vec<(String, u32)> = r.edits.iter().map(|e| (e.path.clone(), e.line)).collect();
        for at in [("guard.py", 4), ("guard.py", 7), ("views.py", 1), ("views.py", 3)] {
            assert!(lines.contains(&(at.0.to_string(), at.1)), "{at:?} not in {lines:?}");
        }
    }

    /// An interface whose members' same-named uses are provably of something else: a member of a
    /// type written in place (the delegate, destructured in a method of an object literal; the
    /// object literal a function returns), of a function type, and of a member of the language's
    /// `Function` read at the top level.
    const PROVIDER: &str = "export interface Provider {\n  setInterval(handler: () => void): number;\n  call(x: number): number;\n  delegate: { setInterval(handler: () => void): number } | undefined;\n}\nconst _bind = Function.prototype.bind;\nexport const provider: Provider = {\n  setInterval(handler) {\n    const { delegate } = provider;\n    if (delegate?.setInterval) {\n      return delegate.setInterval(handler);\n    }\n    return 0;\n  },\n  call(x) { return x; },\n  delegate: undefined,\n};\nexport function apply(fn: (x: number) => number, x: number) {\n  return fn.call(undefined, x) + _bind.call(fn, null)(x) + provider.call(x);\n}\nexport function make() {\n  return { setInterval: (h: () => void) => 1 };\n}\nexport const made = make().setInterval(() => {});\n";

    #[test]
    fn uses_of_types_written_in_place_or_the_languages_leave_an_interface_rename_safe() {
        let (_dir, mut s) = repo(&[("provider.ts", PROVIDER)]);
        assert_eq!(
            safe_edits(&mut s, "provider.ts::Provider::setInterval", "schedule"),
            ["provider.ts:2:3-14 definition", "provider.ts:8:3-14 reference"]
        );
        let r = preview(&mut s, "provider.ts::Provider::call", "invoke");
        assert!(r.safe, "{:?} {:?}", r.reasons, r.unsafe_sites);
        assert_eq!(
            edits(&r),
            ["provider.ts:3:3-7 definition", "provider.ts:15:3-7 reference", "provider.ts:19:69-73 reference"]
        );
        // A function has every member `Operator` declares: it may stand for one, with its `call`.
        let (_dir, mut s) = repo(&[(
            "op.ts",
            "export interface Operator { call(x: number): number }\nexport const twice: Operator = (x: number) => 2 * x;\n",
        )]);
        let r = preview(&mut s, "op.ts::Operator::call", "invoke");
        assert!(!r.safe);
        assert!(r.reasons.iter().any(|m| m.contains("`Function`")), "{:?}", r.reasons);
    }

    #[test]
    fn a_local_of_a_callback_at_the_top_level_shadows_only_inside_it() {
        let spec = "import { parse } from './util';\ndescribe('x', () => {\n  const parse = (s: string) => 0;\n  parse('a');\n});\nit('y', () => {\n  const read = 1;\n  parse('c');\n});\nparse('b');\n";
        let (_dir, mut s) =
            repo(&[("util.ts", "export function parse(s: string) { return s.length; }\n"), ("spec.ts", spec)]);
        let r = preview(&mut s, "util.ts::parse", "scan");
        assert!(r.safe, "{:?} {:?} {:?}", r.reasons, r.unsafe_sites, r.conflicts);
        assert_eq!(
            edits(&r),
            [
                "spec.ts:1:10-15 import",
                "spec.ts:8:3-8 reference",
                "spec.ts:10:1-6 reference",
                "util.ts:1:17-22 definition"
            ]
        );
        // `read` is bound in the callback where `parse('c')` stands: it would capture that use.
        let r = preview(&mut s, "util.ts::parse", "read");
        assert!(!r.safe);
        assert!(r.conflicts.iter().any(|c| c.kind == "shadowed"), "{:?}", r.conflicts);
    }

    #[test]
    fn conflicts_make_a_preview_unsafe() {
        let (_dir, mut s) = repo(&[("shapes.ts", SHAPES), ("use.ts", USE)]);
        // A sibling method of an implementing class.
        let r = preview(&mut s, "shapes.ts::Shape::area", "perimeter");
        assert!(!r.safe);
        assert!(
            r.conflicts.iter().any(|c| c.kind == "alreadyDeclared" || c.kind == "hierarchyMember"),
            "{:?}",
            r.conflicts
        );
        // A name imported where a renamed use stands.
        let (_d2, mut s2) = repo(&[
            ("a.ts", "export function one() { return 1; }\nexport function two() { return 2; }\n"),
            (
                "b.ts",
                "import { one, two } from './a';\nexport function f() { const uno = 3; return one() + two() + uno; }\n",
            ),
        ]);
        let r = preview(&mut s2, "a.ts::one", "two");
        assert!(!r.safe);
        assert!(r.conflicts.iter().any(|c| c.kind == "alreadyDeclared"), "{:?}", r.conflicts);
        assert!(r.conflicts.iter().any(|c| c.kind == "importCollision"), "{:?}", r.conflicts);
        // A local of the new name in a caller's scope would capture the use.
        let r = preview(&mut s2, "a.ts::one", "uno");
        assert!(!r.safe);
        assert!(r.conflicts.iter().any(|c| c.kind == "shadowed"), "{:?}", r.conflicts);
        // Keywords and non-identifiers are refused.
        for bad in ["class", "1x", "a-b", ""] {
            let err = s2
                .rename_preview(RenamePreviewRequest {
                    handle: "a.ts::one".into(),
                    new_name: bad.into(),
                    ..Default::default()
                })
                .unwrap_err();
            assert_eq!(err.code(), "INVALID_ARGUMENT", "{bad}");
        }
        assert!(preview(&mut s2, "a.ts::one", "uno_").safe);
    }

    #[test]
    fn unproven_and_dynamic_uses_are_unsafe_comments_and_strings_are_opt_in_candidates() {
        let (_dir, mut s) = repo(&[
            ("model.py", "class Engine:\n    def start(self):\n        return 1\n"),
            (
                "use.py",
                "from model import Engine\n\n\ndef run(e: Engine, x):\n    # start the engine\n    e.start()\n    x.start()\n    return getattr(e, \"start\")\n",
            ),
        ]);
        let r = preview(&mut s, "model.py::Engine::start", "launch");
        assert!(!r.safe);
        let kinds: Vec<(&str, u32)> = r.unsafe_sites.iter().map(|u| (u.kind.as_str(), u.line)).collect();
        assert_eq!(kinds, [("unresolvedSameName", 7), ("dynamicAccess", 8)]);
        assert!(r.edits.iter().all(|e| e.kind != "comment" && e.kind != "string"));
        let asked = s
            .rename_preview(RenamePreviewRequest {
                handle: "model.py::Engine::start".into(),
                new_name: "launch".into(),
                include_comments: true,
                include_strings: true,
                ..Default::default()
            })
            .unwrap();
        let extra: Vec<(&str, u32)> = asked
            .edits
            .iter()
            .filter(|e| e.kind == "comment" || e.kind == "string")
            .map(|e| (e.kind.as_str(), e.line))
            .collect();
        assert_eq!(extra, [("comment", 5), ("string", 8)]);
    }

    #[test]
    fn shorthand_names_are_spelled_out_and_overloads_renamed_together() {
        let (_dir, mut s) = repo(&[
            (
                "a.ts",
                "export class Box { size = 1; }\nexport function f(b: Box) { const { size } = b; return size; }\nexport const limit = 3;\nexport const o = { limit };\nexport function g(x: number): number;\nexport function g(x: string): string;\nexport function g(x: any) { return x; }\n",
            ),
        ]);
        let r = preview(&mut s, "a.ts::Box::size", "volume");
        let texts: Vec<(u32, &str)> = r.edits.iter().map(|e| (e.line, e.new_text.as_str())).collect();
        assert_eq!(texts, [(1, "volume"), (2, "volume: size")]);
        let r = preview(&mut s, "a.ts::limit", "cap");
        let texts: Vec<(u32, &str)> = r.edits.iter().map(|e| (e.line, e.new_text.as_str())).collect();
        assert_eq!(texts, [(3, "cap"), (4, "limit: cap")]);
        let r = preview(&mut s, "a.ts::g", "h");
        let lines: Vec<u32> = r.edits.iter().map(|e| e.line).collect();
        assert_eq!(lines, [5, 6, 7]);
    }

    #[test]
    fn filename_suggestions_and_the_edit_cap() {
        let (_dir, mut s) = repo(&[(
            "Circle.ts",
            "export class Circle {}\nexport const a = new Circle();\nexport const b = new Circle();\n",
        )]);
        let r = s
            .rename_preview(RenamePreviewRequest {
                handle: "Circle.ts::Circle".into(),
                new_name: "Disc".into(),
                include_filenames: true,
                max_edits: Some(2),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(r.filename_suggestions[0].new_path, "Disc.ts");
        assert_eq!(r.edits.len(), 2);
        assert_eq!(r.omitted.by_limit.get("edits"), Some(&1));
        assert!(!r.safe, "a cut preview is not the whole rename");
    }

    #[test]
    fn a_standard_method_of_a_wrapper_is_not_the_renamed_member() {
        // `self.start.iter()` of a `Vec` field is the slice's `iter`, not `Patterns::iter`; a
        // repository impl for `Vec` that declares `iter` keeps such a call undecided.
        let lib = "pub struct Patterns { v: Vec<u8> }\nimpl Patterns { pub fn iter(&self) -> u8 { self.v[0] } }\npub struct Inner { start: Vec<u32> }\nimpl Inner { pub fn f(&self) -> u32 { self.start.iter().sum() } }\npub fn g() -> u32 { let a = [1u32; 4]; a.iter().sum() }\n";
        let (_d, mut s) = crate_repo(lib);
        assert_eq!(safe_edits(&mut s, "src/lib.rs::Patterns::iter", "it"), ["src/lib.rs:2:24-28 definition"]);
        let ext =
            format!("{lib}pub trait Ext {{ fn iter(&self); }}\nimpl Ext for Vec<u32> {{ fn iter(&self) {{}} }}\n");
        let (_d, mut s) = crate_repo(&ext);
        let r = preview(&mut s, "src/lib.rs::Patterns::iter", "it");
        assert!(!r.safe && r.unsafe_sites.iter().any(|u| u.line == 4), "{:?}", r.unsafe_sites);
    }

    #[test]
    fn a_macro_is_renamed_at_its_invocations_and_a_function_of_its_name_is_not() {
        // `here!()` is the macro's, `here()` the function's: each rename edits its own.
        let lib =
            "macro_rules! here { () => { 1 } }\npub fn here() -> u32 { 2 }\npub fn f() -> u32 { here!() + here() }\n";
        let (_d, mut s) = crate_repo(lib);
        let edits = safe_edits(&mut s, "src/lib.rs::here", "there");
        assert_eq!(edits, ["src/lib.rs:1:14-18 definition", "src/lib.rs:3:21-25 reference"]);
        let edits = safe_edits(&mut s, "src/lib.rs::here#2", "there");
        assert_eq!(edits, ["src/lib.rs:2:8-12 definition", "src/lib.rs:3:31-35 reference"]);
    }
}
