//! Extraction: one file's bytes → `FileFacts`, with tree-sitter. This module owns the parts every
//! language shares (positions in Unicode columns, the enclosing-symbol stack, the nesting guard);
//! each language module owns its grammar's node kinds. Extraction is pure and per file, so it runs in
//! parallel on native and gives byte-identical facts on wasm.

mod c;
mod chain;
mod csharp;
mod docs;
mod go;
mod java;
mod js;
mod kotlin;
mod php;
mod positions;
mod python;
mod ruby;
mod rust;
mod sql;
mod swift;
mod zig;

use tree_sitter::{Node, Parser};

pub(crate) use chain::{reference, ChainSyntax, Member};
pub(crate) use positions::line_starts;

use crate::facts::{
    FileFacts, Import, ImportItem, ImportKind, LocalBinding, LocalOrigin, Namespace, Pos, Receiver, RefChain, Symbol,
    SymbolKind, TypeRelKind, TypeRelation,
};
use crate::lang::Language;

/// Syntax trees nested deeper than this are not walked further: a 10,000-deep bracket file must not
/// exhaust the stack (1 MiB on wasm). What lies deeper is left out, and the facts say so.
pub(crate) const MAX_WALK_DEPTH: usize = 200;

/// Type expressions nested deeper than this (`((((T))))`, `Box<Box<…>>`) name no type we follow.
pub(crate) const MAX_TYPE_NESTING: usize = 32;

/// Signatures are the first line of a declaration, cut to this many characters.
const MAX_SIGNATURE_CHARS: usize = 200;

/// Looking a child up by field name, with each grammar's id for a name found once per thread:
/// tree-sitter finds a field by name by comparing it with the grammar's field names one by one,
/// and the extractors ask for fields by name at nearly every node they visit.
pub(crate) trait Field<'t> {
    /// The first child in field `name`.
    fn field(&self, name: &'static str) -> Option<Node<'t>>;
}

impl<'t> Field<'t> for Node<'t> {
    fn field(&self, name: &'static str) -> Option<Node<'t>> {
        // Keyed by where the name is (a `&'static str` there holds these bytes for good), which
        // hashes in two words; the same name at two places is looked up once for each.
        type Ids = Vec<(tree_sitter::Language, rustc_hash::FxHashMap<(usize, usize), Option<u16>>)>;
        thread_local! {
            static IDS: std::cell::RefCell<Ids> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let language = self.language();
        let id = IDS.with_borrow_mut(|grammars| {
            *kept_for(grammars, &language, rustc_hash::FxHashMap::default)
                .entry((name.as_ptr() as usize, name.len()))
                .or_insert_with(|| language.field_id_for_name(name).map(u16::from))
        });
        self.child_by_field_id(id?)
    }
}

/// What a thread keeps for `grammar` in a list of one entry a grammar, made by `make` the first time
/// (a thread reads one or two grammars: a scan beats a hash).
fn kept_for<'k, T>(
    kept: &'k mut Vec<(tree_sitter::Language, T)>,
    grammar: &tree_sitter::Language,
    make: impl FnOnce() -> T,
) -> &'k mut T {
    let at = kept.iter().position(|(l, _)| l == grammar).unwrap_or_else(|| {
        kept.push((grammar.clone(), make()));
        kept.len() - 1
    });
    &mut kept[at].1
}

/// A node's kind, read from a table of each grammar's kind names: tree-sitter's `Node::kind`
/// measures and UTF-8-checks the name's C string on every call, and the extractors ask for kinds at
/// nearly every node they visit (some 2% of a cold build).
pub(crate) trait Kind<'t> {
    /// What `Node::kind` answers.
    fn kind_str(&self) -> &'t str;
}

/// Each of our grammars' kind names by kind id, made once per process; each thread keeps those of
/// the grammars it has read (`None`: a grammar of none of our languages).
type KindNames = Vec<(tree_sitter::Language, Option<&'static [Box<str>]>)>;

fn kind_names(grammar: &tree_sitter::Language) -> Option<&'static [Box<str>]> {
    static MADE: [std::sync::OnceLock<Box<[Box<str>]>>; Language::ALL.len()] =
        [const { std::sync::OnceLock::new() }; Language::ALL.len()];
    let at = Language::ALL.iter().position(|l| l.grammar() == *grammar)?;
    let names = MADE[at].get_or_init(|| {
        (0..grammar.node_kind_count())
            .map(|id| u16::try_from(id).ok().and_then(|id| grammar.node_kind_for_id(id)).unwrap_or("").into())
            .collect()
    });
    Some(names)
}

impl<'t> Kind<'t> for Node<'t> {
    fn kind_str(&self) -> &'t str {
        thread_local! {
            static USED: std::cell::RefCell<KindNames> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let grammar = self.language();
        let names = USED.with_borrow_mut(|used| *kept_for(used, &grammar, || kind_names(&grammar)));
        // An ERROR node's kind id is past the table.
        match names.and_then(|names| names.get(usize::from(self.kind_id()))) {
            Some(name) if !name.is_empty() => name,
            _ => self.kind(),
        }
    }
}

/// Parses with tree-sitter and nothing else (the benchmark floor); returns the tree's node count.
pub fn parse_only(lang: Language, src: &[u8]) -> u64 {
    let mut parser = Parser::new();
    if parser.set_language(&lang.grammar()).is_err() {
        return 0;
    }
    parser.parse(src, None).map_or(0, |tree| tree.root_node().descendant_count() as u64)
}

/// Byte offsets of `src` as 1-based lines and character columns, as facts give them.
pub(crate) fn positions_of(src: &str) -> positions::Positions<'_> {
    positions::Positions::new(src)
}

pub fn extract(lang: Language, src: &str) -> FileFacts {
    let mut parser = Parser::new();
    if parser.set_language(&lang.grammar()).is_err() {
        return FileFacts::default();
    }
    let Some(tree) = parser.parse(src, None) else {
        return FileFacts::default();
    };
    let mut b = Builder::new(src, lang);
    let root = tree.root_node();
    match lang {
        Language::TypeScript | Language::Tsx | Language::JavaScript => js::extract(&mut b, root),
        Language::Python => python::extract(&mut b, root),
        Language::Rust => rust::extract(&mut b, root),
        Language::Go => go::extract(&mut b, root),
        Language::Java => java::extract(&mut b, root),
        Language::C | Language::Cpp => c::extract(&mut b, root),
        Language::CSharp => csharp::extract(&mut b, root),
        Language::Sql => sql::extract(&mut b, root),
        Language::Php => php::extract(&mut b, root),
        Language::Ruby => ruby::extract(&mut b, root),
        Language::Zig => zig::extract(&mut b, root),
        Language::Kotlin => kotlin::extract(&mut b, root),
        Language::Swift => swift::extract(&mut b, root),
    }
    b.facts.doc = file_doc(&b, root);
    if root.has_error() {
        b.facts.error_nodes = count_errors(root);
    }
    b.facts.truncated_depth = b.depth_exceeded;
    b.facts
}

fn count_errors(root: Node) -> u32 {
    let mut count = 0;
    let mut cursor = root.walk();
    // Iterative pre-order walk: error counting must not recurse on deeply nested input.
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return count;
            }
        }
    }
}

/// The state of one extraction: the source, a line index for column conversion, the facts so far and
/// the stack of enclosing symbols.
pub(crate) struct Builder<'a> {
    pub src: &'a str,
    pub language: Language,
    positions: positions::Positions<'a>,
    pub facts: FileFacts,
    scope: Vec<u32>,
    depth: usize,
    pub depth_exceeded: bool,
    /// Inside code the build configuration leaves out (`Import::inactive`).
    pub inactive: bool,
    /// How many function bodies the walk is in (`function_body`).
    bodies: u32,
    /// The children of the last parent a doc comment was looked for in.
    siblings: Siblings,
}

impl<'a> Builder<'a> {
    pub fn new(src: &'a str, language: Language) -> Builder<'a> {
        Builder {
            src,
            language,
            positions: positions::Positions::new(src),
            facts: FileFacts::default(),
            scope: Vec::new(),
            depth: 0,
            depth_exceeded: false,
            inactive: false,
            bodies: 0,
            siblings: Siblings::default(),
        }
    }

    /// Runs `read` on trees parsed inside the file's (a macro's body parsed on its own), which are
    /// dropped when it returns.
    pub fn in_inner_trees<R>(&mut self, read: impl FnOnce(&mut Self) -> R) -> R {
        let outer = self.siblings.enter();
        let r = read(self);
        self.siblings.leave(outer);
        r
    }

    /// The source text of a node.
    pub fn text(&self, node: Node) -> &'a str {
        self.src.get(node.start_byte()..node.end_byte()).unwrap_or("")
    }

    /// A byte offset in the file → 1-based line and Unicode column.
    pub fn pos_of_byte(&self, byte: usize) -> Pos {
        self.positions.pos(byte)
    }

    pub fn pos(&self, node: Node) -> Pos {
        self.pos_of_byte(node.start_byte())
    }

    pub fn end_pos(&self, node: Node) -> Pos {
        self.pos_of_byte(node.end_byte())
    }

    /// The innermost enclosing symbol.
    pub fn enclosing(&self) -> Option<u32> {
        self.scope.last().copied()
    }

    /// Runs `f` with `symbol` as the innermost enclosing symbol.
    pub fn within<R>(&mut self, symbol: u32, f: impl FnOnce(&mut Self) -> R) -> R {
        self.scope.push(symbol);
        let r = f(self);
        self.scope.pop();
        r
    }

    /// Enters one level of the syntax tree; false (and the facts marked) when the walk is too deep.
    pub fn descend(&mut self) -> bool {
        if self.depth >= MAX_WALK_DEPTH {
            self.depth_exceeded = true;
            return false;
        }
        self.depth += 1;
        true
    }

    pub fn ascend(&mut self) {
        self.depth -= 1;
    }

    /// Records a declaration. `decl` spans the whole declaration, `name` is its name node.
    pub fn add_symbol(&mut self, decl: Node, name: Node, kind: SymbolKind, exported: bool) -> u32 {
        let name_text = self.text(name).to_string();
        self.add_symbol_named(decl, name_text, self.pos(name), kind, exported)
    }

    /// Records a declaration whose name is not a single node (or is synthesised).
    pub fn add_symbol_named(
        &mut self,
        decl: Node,
        name: String,
        name_pos: Pos,
        kind: SymbolKind,
        exported: bool,
    ) -> u32 {
        let signature = first_line(self.text(decl));
        let comments = doc_comments(self.src, &mut self.siblings, decl);
        let doc = docs::of_comments(
            self.language,
            comments.iter().map(|c| self.src.get(c.start_byte..c.end_byte).unwrap_or("")),
        );
        self.facts.symbols.push(Symbol {
            name,
            kind,
            container: self.enclosing(),
            impl_of: None,
            impl_trait: None,
            start: self.pos(decl),
            end: self.end_pos(decl),
            name_pos,
            exported,
            signature,
            returns: None,
            forward: false,
            extension_of: None,
            singleton: false,
            default_export: false,
            doc_line: comments.first().map(|c| c.start_row as u32 + 1),
            doc,
            params: Vec::new(),
            init: None,
        });
        (self.facts.symbols.len() - 1) as u32
    }

    /// Records a member of `container` written inside one of its methods (Python's `self.x = …`):
    /// the first such writing declares it, unless the type already declares that name.
    pub fn add_member(
        &mut self,
        container: u32,
        decl: Node,
        name: Node,
        kind: SymbolKind,
        exported: bool,
    ) -> Option<u32> {
        let text = self.text(name);
        if self.facts.symbols.iter().any(|s| s.container == Some(container) && s.name == text) {
            return None;
        }
        let idx = self.add_symbol(decl, name, kind, exported);
        self.facts.symbols[idx as usize].container = Some(container);
        Some(idx)
    }

    /// One declaration written several times — TypeScript overload signatures followed by their
    /// implementation, `@overload`s in Python — is one symbol: the first writing names it (as the
    /// compiler's "go to definition" does), and its range runs to the end of the last. Returns the
    /// symbol `decl` continues: the last symbol of the current scope, when it has this name and kind.
    pub fn continue_overload(&mut self, decl: Node, name: &str, kind: SymbolKind) -> Option<u32> {
        let scope = self.enclosing();
        let (i, last) = self.facts.symbols.iter().enumerate().rev().find(|(_, s)| s.container == scope)?;
        if last.name != name || last.kind != kind || last.end > self.pos(decl) {
            return None;
        }
        let end = self.end_pos(decl);
        self.facts.symbols[i].end = end;
        Some(i as u32)
    }

    pub fn symbol_mut(&mut self, idx: u32) -> &mut Symbol {
        &mut self.facts.symbols[idx as usize]
    }

    /// Records a use of a name or a chain of names.
    pub fn add_ref(&mut self, segments: Vec<(String, Pos)>, call: bool, opaque_head: bool) {
        self.push_chain(segments, Vec::new(), call, None, opaque_head, false);
    }

    /// Records a path (`ast::Concat`, `Kind::A`): a head followed by `::`.
    pub fn add_path(&mut self, segments: Vec<(String, Pos)>, call: bool) {
        let path_head = segments.len() > 1;
        self.push_chain(segments, Vec::new(), call, None, false, path_head);
    }

    /// Records a chain with calls on the way (`a.b().c()`); `calls_at` are segment indices, ascending;
    /// `path_head`: the head is followed by `::` (`RefChain::path_head`).
    pub fn add_call_chain(&mut self, segments: Vec<(String, Pos)>, calls_at: Vec<u32>, call: bool, path_head: bool) {
        self.push_chain(segments, calls_at, call, None, false, path_head);
    }

    /// Records a chain of members (through calls) of a value without a name (see `RefChain::receiver`).
    pub fn add_receiver_chain(
        &mut self,
        segments: Vec<(String, Pos)>,
        calls_at: Vec<u32>,
        call: bool,
        receiver: Receiver,
    ) {
        self.push_chain(segments, calls_at, call, Some(receiver), false, false);
    }

    /// Records a chain in the innermost enclosing symbol (none without segments).
    fn push_chain(
        &mut self,
        segments: Vec<(String, Pos)>,
        calls_at: Vec<u32>,
        call: bool,
        receiver: Option<Receiver>,
        opaque_head: bool,
        path_head: bool,
    ) {
        if segments.is_empty() {
            return;
        }
        let enclosing = self.enclosing();
        let receiver = receiver.map(Box::new);
        let namespace = Namespace::Items;
        self.facts.refs.push(RefChain {
            segments,
            opaque_head,
            call,
            calls_at,
            enclosing,
            receiver,
            path_head,
            namespace,
            argument: None,
        });
    }

    /// Records the path of an invoked macro (`name!`, `crate::name!`).
    pub fn add_macro_path(&mut self, segments: Vec<(String, Pos)>) {
        let before = self.facts.refs.len();
        self.add_path(segments, false);
        if let Some(chain) = self.facts.refs.get_mut(before) {
            chain.namespace = Namespace::Macros;
        }
    }

    /// Records a member of a value without a name (see `RefChain::receiver`): `a` of `{ a } = x`.
    pub fn add_member_ref(&mut self, name: (String, Pos), call: bool, receiver: Receiver) {
        self.add_receiver_chain(vec![name], Vec::new(), call, receiver);
    }

    /// Records a local name of the innermost enclosing function.
    pub fn add_local(&mut self, name: &str, origin: LocalOrigin) {
        let scope = self.enclosing();
        let after_refs = self.facts.refs.len() as u32;
        self.facts.locals.push(LocalBinding { name: name.to_string(), scope, origin, after_refs, until_refs: None });
    }

    /// Runs `walk` over a block: the locals it binds are not seen after it.
    pub fn block(&mut self, walk: impl FnOnce(&mut Self)) {
        let first = self.facts.locals.len();
        walk(self);
        let end = self.facts.refs.len() as u32;
        for local in &mut self.facts.locals[first..] {
            local.until_refs.get_or_insert(end);
        }
    }

    /// Runs `walk` over a function's parameters and body: what they bind are its locals, seen only
    /// inside it — also when it declares no symbol (a callback, an object literal's method), whose
    /// locals belong to the scope around it (`LocalBinding::scope`).
    pub fn function_body(&mut self, walk: impl FnOnce(&mut Self)) {
        self.bodies += 1;
        self.block(walk);
        self.bodies -= 1;
    }

    /// Whether the walk is inside a function's body (`function_body`).
    pub fn in_function_body(&self) -> bool {
        self.bodies > 0
    }

    pub fn add_import(&mut self, module: String, kind: ImportKind, items: Vec<ImportItem>, pos: Pos, reexport: bool) {
        let scope = self.enclosing();
        self.facts.imports.push(Import { module, kind, items, pos, reexport, scope, inactive: self.inactive });
    }

    /// Runs `walk` with what it records marked as left out of the build when `left_out` is set.
    pub fn configured(&mut self, left_out: bool, walk: impl FnOnce(&mut Self)) {
        let was = self.inactive;
        self.inactive |= left_out;
        walk(self);
        self.inactive = was;
    }

    pub fn add_relation(&mut self, symbol: u32, kind: TypeRelKind, target: Vec<String>, pos: Pos) {
        if !target.is_empty() {
            self.facts.relations.push(TypeRelation { symbol, subject: None, kind, target, pos });
        }
    }

    /// A name segment: the node's text and position.
    pub fn seg(&self, node: Node) -> (String, Pos) {
        (self.text(node).to_string(), self.pos(node))
    }
}

/// One name of a chain and where it is written.
pub(crate) type Segment = (String, crate::facts::Pos);

/// The names of a path, without their positions.
pub(crate) fn texts(path: &[Segment]) -> Vec<String> {
    path.iter().map(|s| s.0.clone()).collect()
}

/// A chain read from the outside in — its head and each member after it, each with whether it is
/// called — as its segments from the head and the indices of the called ones.
pub(crate) fn assemble_chain(head: (Segment, bool), outside_in: Vec<(Segment, bool)>) -> (Vec<Segment>, Vec<u32>) {
    let mut segs = vec![head.0];
    let mut calls = Vec::new();
    if head.1 {
        calls.push(0);
    }
    for (seg, call) in outside_in.into_iter().rev() {
        segs.push(seg);
        if call {
            calls.push(segs.len() as u32 - 1);
        }
    }
    (segs, calls)
}

/// What a local initialised by a chain of calls is: the result of its one call (`Order.empty()`,
/// `Money(1)`), of a chain through calls (`a.b().c()`), or nothing proven (no call at all).
pub(crate) fn call_origin(segs: &[Segment], calls: Vec<u32>) -> LocalOrigin {
    match calls.as_slice() {
        [] => LocalOrigin::Unknown,
        [one] if *one as usize == segs.len() - 1 => LocalOrigin::CallResult(texts(segs)),
        _ => LocalOrigin::CallChain(texts(segs), calls),
    }
}

/// The comments among the comments, attributes and decorators written directly above a
/// declaration (no blank line between), climbing out of wrappers the declaration is the first named
/// part of (`export …`, a decorated definition), in source order: the declaration's doc comment.
fn doc_comments(src: &str, siblings: &mut Siblings, decl: Node) -> Vec<Sibling> {
    // Nothing written before it on its line and a blank line above: no sibling ends on its line
    // or the line above — unless one ends with the newline of the line before that, as a line
    // comment does in some grammars (Rust's), so that line must hold no line comment either. Then
    // there is nothing to look at, and finding the siblings costs tree-sitter a walk down from the
    // root.
    let line_start = |at: usize| src[..at].rfind('\n').map_or(0, |i| i + 1);
    let start = decl.start_byte();
    let this = line_start(start);
    let nothing_above = src[this..start].trim().is_empty()
        && (this == 0 || {
            let above = line_start(this - 1);
            src[above..this].trim().is_empty()
                && (above == 0 || {
                    let before = &src[line_start(above - 1)..above];
                    !before.contains("//") && !before.contains('#')
                })
        });
    if nothing_above {
        return Vec::new();
    }
    let mut node = Sibling::of(decl);
    // The node whose parent's children are looked at: `decl`, then a wrapper it is the first part of.
    let mut child = decl;
    let mut comments = Vec::new();
    let mut steps = 0;
    'climb: while let Some((children, wrapper)) = siblings.of_parent_of(child) {
        let mut at = children.partition_point(|c| c.start_byte < node.start_byte);
        // `at` is `node` itself among its parent's children (or where it would be).
        while steps < 64 {
            steps += 1;
            let Some(prev) = at.checked_sub(1).map(|i| children[i]) else {
                // The first named part of a wrapper: the wrapper's own siblings are looked at.
                if let Some(p) = wrapper.then(|| child.parent()).flatten() {
                    node = Sibling::of(p);
                    child = p;
                    continue 'climb;
                }
                break 'climb;
            };
            if prev.end_row + 1 < node.start_row {
                break 'climb;
            }
            if prev.comment {
                comments.push(prev);
            } else if !prev.attribute {
                break 'climb;
            }
            node = prev;
            at -= 1;
        }
        break;
    }
    comments.reverse();
    comments
}

/// What doc-comment lookups read of a node.
#[derive(Clone, Copy)]
pub(crate) struct Sibling {
    /// A comment of any kind (line, block, doc).
    comment: bool,
    /// An attribute, decorator or annotation, which may stand between a doc comment and its
    /// declaration.
    attribute: bool,
    start_byte: usize,
    end_byte: usize,
    start_row: usize,
    end_row: usize,
    /// The node's id (unique among the nodes of the trees alive).
    id: usize,
}

impl Sibling {
    fn of(node: Node) -> Sibling {
        let kind = node.kind_str();
        Sibling {
            id: node.id(),
            comment: kind.contains("comment"),
            attribute: matches!(kind, "attribute_item" | "decorator" | "annotation" | "marker_annotation"),
            start_byte: node.start_byte(),
            end_byte: node.end_byte(),
            start_row: node.start_position().row,
            end_row: node.end_position().row,
        }
    }
}

/// The named children of the last parents doc-comment lookups read. tree-sitter finds a node's
/// previous sibling by walking down from the root to its parent and along the parent's children, so
/// looking back over the comments above each declaration of a long block cost a walk per comment
/// and per declaration, quadratic in the block; the declarations of one block now share one reading
/// of its children. A few parents are kept, as a block's declarations have blocks of their own
/// (a struct's fields, an impl's methods) between them.
#[derive(Default)]
pub(crate) struct Siblings {
    /// The parents read, the most recently used first.
    parents: Vec<ReadParent>,
    /// The tree being read: 0 for the file's, then one number per tree parsed inside it.
    tree: u32,
    /// Trees numbered so far.
    trees: u32,
}

/// A parent whose named children were read.
struct ReadParent {
    /// Its id, start and end byte.
    key: (usize, usize, usize),
    /// The tree it is of (`Siblings::tree`).
    tree: u32,
    children: Vec<Sibling>,
    /// Whether it is a wrapper a declaration may be the first named part of.
    wrapper: bool,
}

impl Siblings {
    /// How many parents are kept: the depth of nested blocks whose declarations are documented.
    const KEPT: usize = 8;

    /// The named children of `child`'s parent, in order, and whether that parent is a wrapper a
    /// declaration may be the first named part of (`export …`, a decorated definition); `None` at
    /// the root. A parent read before is known by its children holding `child`, so only the first
    /// declaration of a block costs tree-sitter's walk down from the root to find it.
    fn of_parent_of(&mut self, child: Node) -> Option<(&[Sibling], bool)> {
        let (id, start) = (child.id(), child.start_byte());
        let holds = |p: &ReadParent| {
            let from = p.children.partition_point(|c| c.start_byte < start);
            p.children[from..].iter().take_while(|c| c.start_byte == start).any(|c| c.id == id)
        };
        let mut found = self.parents.iter().position(holds);
        if found.is_none() {
            let parent = child.parent()?;
            let key = (parent.id(), parent.start_byte(), parent.end_byte());
            found = self.parents.iter().position(|p| p.key == key);
            if found.is_none() {
                let children = named_children(parent).into_iter().map(Sibling::of).collect();
                let wrapper = matches!(parent.kind_str(), "export_statement" | "decorated_definition");
                if self.parents.len() == Self::KEPT {
                    self.parents.pop();
                }
                self.parents.insert(0, ReadParent { key, tree: self.tree, children, wrapper });
            }
        }
        if let Some(i) = found {
            self.parents[..=i].rotate_right(1);
        }
        let read = &self.parents[0];
        Some((&read.children, read.wrapper))
    }

    /// Starts reading a tree parsed inside the current one (a macro's body); returns the tree to
    /// go back to.
    fn enter(&mut self) -> u32 {
        self.trees += 1;
        std::mem::replace(&mut self.tree, self.trees)
    }

    /// Done with the tree `enter` started, which is about to be dropped: what was read of it goes
    /// (a node of a later tree may be made at the same address).
    fn leave(&mut self, outer: u32) {
        let tree = self.tree;
        self.parents.retain(|p| p.tree != tree);
        self.tree = outer;
    }
}

/// A file's leading comment block (after a shebang or an encoding line), or its module docstring.
fn file_doc(b: &Builder, root: Node) -> Option<String> {
    // Read lazily: only the first few of what may be thousands of declarations are looked at.
    let mut cursor = root.walk();
    let mut rest = root.named_children(&mut cursor).skip_while(|n| {
        let t = b.text(*n).trim_start();
        n.kind_str().contains("comment") && (t.starts_with("#!") || t.starts_with("# -*-"))
    });
    let first = rest.next()?;
    if b.language == Language::Python && first.kind_str() == "expression_statement" {
        if let Some(string) = first.named_child(0).filter(|s| s.kind_str() == "string") {
            return docs::of_docstring(b.text(string));
        }
    }
    if !first.kind_str().contains("comment") {
        return None;
    }
    let mut block = vec![first];
    for next in rest {
        let last = block.last().expect("one comment");
        if !next.kind_str().contains("comment") || next.start_position().row > last.end_position().row + 1 {
            break;
        }
        block.push(next);
    }
    docs::of_comments(b.language, block.iter().map(|c| b.text(*c)))
}

/// The doc a Python docstring opening `body` holds.
pub(crate) fn docstring(b: &Builder, body: Node) -> Option<String> {
    docs::docstring_node(body).and_then(|s| docs::of_docstring(b.text(s)))
}

/// The first line of a declaration, trimmed and bounded.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > MAX_SIGNATURE_CHARS {
        let cut: String = line.chars().take(MAX_SIGNATURE_CHARS).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

/// A grammar's walk of the syntax tree, and the two ways every walker goes on from a node.
pub(crate) trait Walk {
    /// Records what `node` declares and uses, and walks on into it.
    fn walk(&mut self, node: Node);

    fn walk_children(&mut self, node: Node) {
        for c in named_children(node) {
            self.walk(c);
        }
    }

    fn walk_opt(&mut self, node: Option<Node>) {
        if let Some(n) = node {
            self.walk(n);
        }
    }
}

/// Named children of a node, collected (tree-sitter cursors borrow; a Vec keeps walkers simple).
pub(crate) fn named_children(node: Node) -> Vec<Node> {
    let n = node.named_child_count();
    if n <= FEW_CHILDREN {
        return (0..n).filter_map(|i| node.named_child(i as u32)).collect();
    }
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// All children (named and anonymous).
pub(crate) fn children(node: Node) -> Vec<Node> {
    let n = node.child_count() as usize;
    if n <= FEW_CHILDREN {
        return (0..n).filter_map(|i| node.child(i as u32)).collect();
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// Up to this many children, a node's children are read by index: tree-sitter steps through the
/// children before each one asked (quadratic, but in a loop on the stack), where a cursor costs an
/// allocation and keeps a stack of where it is at each step. Most nodes have a few children; a
/// block or a file of many is read with a cursor.
const FEW_CHILDREN: usize = 6;

/// Whether `node` has an anonymous child token with text `kind` (e.g. `export`, `static`).
pub(crate) fn has_token(node: Node, kind: &str) -> bool {
    children(node).iter().any(|c| !c.is_named() && c.kind_str() == kind)
}

/// What extractor tests compare.
#[cfg(test)]
pub(crate) mod testing {
    use crate::facts::{FileFacts, ImportKind};

    use crate::facts::SymbolKind;

    /// Every reference chain as (its names, whether the whole is called).
    pub fn refs(f: &FileFacts) -> Vec<(Vec<&str>, bool)> {
        f.refs.iter().map(|r| (r.segments.iter().map(|s| s.0.as_str()).collect(), r.call)).collect()
    }

    /// Every symbol as (name, kind, container, exported).
    pub fn symbols(f: &FileFacts) -> Vec<(&str, SymbolKind, Option<u32>, bool)> {
        f.symbols.iter().map(|s| (s.name.as_str(), s.kind, s.container, s.exported)).collect()
    }

    /// An import as (module, kind, its items as (name, alias)).
    pub type ImportRow<'a> = (&'a str, ImportKind, Vec<(&'a str, &'a str)>);

    pub fn imports(f: &FileFacts) -> Vec<ImportRow<'_>> {
        f.imports
            .iter()
            .map(|i| (i.module.as_str(), i.kind, i.items.iter().map(|x| (x.name.as_str(), x.alias.as_str())).collect()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_unicode_characters() {
        let b = Builder::new("let é = 1;\nlet x = 2;", Language::JavaScript);
        assert_eq!(b.pos_of_byte(0), Pos { line: 1, col: 1 });
        // "é" is two bytes; the `=` after it is the 7th character.
        assert_eq!(b.pos_of_byte(7), Pos { line: 1, col: 7 });
        assert_eq!(b.pos_of_byte(12), Pos { line: 2, col: 1 });
    }

    #[test]
    fn doc_comments_of_every_declaration_of_a_block() {
        // Documented declarations of one block with blocks of their own between them, a macro's
        // body parsed on its own in the middle, attributes between a doc and its item.
        let src = "/// The point.\npub struct P {\n    /// Across.\n    pub x: f64,\n    /// Down.\n    pub y: f64,\n}\n\nimpl P {\n    /// Makes one.\n    #[inline]\n    pub fn new() -> P { P { x: 0.0, y: 0.0 } }\n    // Not a doc: a blank line follows.\n\n    pub fn plain(&self) {}\n    /// Sums.\n    pub fn sum(&self) -> f64 { self.x + self.y }\n}\n\ncfg_rt! {\n    /// Inside a macro.\n    pub fn spawn() {}\n}\n\n/// After the macro.\npub fn last() {}\n";
        let facts = extract(Language::Rust, src);
        let doc = |name: &str| {
            let s = facts.symbols.iter().find(|s| s.name == name).expect(name);
            (s.doc.as_deref(), s.doc_line)
        };
        assert_eq!(doc("P"), (Some("The point."), Some(1)));
        assert_eq!(doc("x"), (Some("Across."), Some(3)));
        assert_eq!(doc("y"), (Some("Down."), Some(5)));
        assert_eq!(doc("new"), (Some("Makes one."), Some(10)));
        assert_eq!(doc("plain"), (None, None));
        assert_eq!(doc("sum"), (Some("Sums."), Some(16)));
        assert_eq!(doc("spawn"), (Some("Inside a macro."), Some(21)));
        assert_eq!(doc("last"), (Some("After the macro."), Some(25)));
        // Out of a wrapper the declaration is the first part of: `export`, a decorated definition.
        let ts = extract(Language::TypeScript, "/** Adds. */\nexport function add() {}\n");
        assert_eq!(ts.symbols[0].doc.as_deref(), Some("Adds."));
        let py = extract(Language::Python, "# Cached.\n@cache\ndef f():\n    pass\n");
        assert_eq!(py.symbols[0].doc.as_deref(), Some("Cached."));
    }

    #[test]
    fn deep_nesting_is_bounded_not_fatal() {
        let src = format!("x = {}1{}", "[".repeat(10_000), "]".repeat(10_000));
        let facts = extract(Language::Python, &src);
        assert!(facts.truncated_depth);
        let js = format!("const x = {}1{};", "[".repeat(10_000), "]".repeat(10_000));
        assert!(extract(Language::JavaScript, &js).truncated_depth);
    }
}
