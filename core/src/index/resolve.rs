//! Resolution: the facts of all files → proven edges. A name is resolved through the scope of the
//! file that writes it: locals (which shadow), `this`/`self`, enclosing declarations, imports (followed
//! through re-exports and globs), the package, then the module tree. A chain `a.b.c` is resolved one
//! segment at a time through module members and type members (inheritance included). Whatever cannot
//! be proven this way is counted as unresolved; nothing is matched by name alone.

use std::cell::RefCell;
use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::modules::{
    file_beside, file_in, nearest_module, CModules, GoModules, JavaPackages, JsModules, PyModules, RustModules,
    RustOwner,
};
use super::{ConfigTexts, DepVia, FileId, Graph, ImportBinding, Index, RefSite, SymId};
use crate::facts::{
    is_pointer, projection_body, record_property, tuple_elements, Import, ImportKind, LocalBinding, LocalOrigin,
    MacroArgument, MacroRule, Namespace, Receiver, ReceiverBase, SymbolKind, TypeRelKind, CELL, CONVERTIBLE, IN_PLACE,
    MAP, MAYBE, MUT_POINTER, PARAM, POINTER, PROJECTION, SEQUENCE, TUPLE, UNION,
};
use crate::lang::Language;

/// Associated functions that give a value of their own type (`Self`) whatever else is declared:
/// a constructor of an opaque type (`Language::opaque_types`) gives an opaque value.
const OPAQUE_CONSTRUCTORS: [&str; 5] = ["new", "with_capacity", "from", "default", "try_from"];

/// The scope of the locals bound at a file's top level (in a callback or an object literal's method
/// there): they are seen by every use in the file inside their block (`LocalBinding::until_refs`).
const FILE_LEVEL: u32 = u32::MAX;

/// How deep chains of re-exports, globs, aliases and inheritance are followed.
const MAX_HOPS: u32 = 12;
/// A name never resolves to more than this many declarations (overloads); more is ambiguity.
const MAX_TARGETS: usize = 8;

/// The numbers of `POINTER` and `MUT_POINTER` among the outside types' names (`OutsideImpls::names`).
const POINTER_IDS: [u32; 2] = [1, 2];

/// Standard methods of raw pointers that give the same pointer, moved (`start.add(n)`).
const POINTER_METHODS: [&str; 9] =
    ["add", "sub", "offset", "wrapping_add", "wrapping_sub", "wrapping_offset", "byte_add", "byte_sub", "byte_offset"];

/// What a name denotes while a chain is resolved.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Value {
    /// A declaration named directly.
    Sym(SymId),
    /// A value whose type is the given type declaration.
    Instance(SymId),
    /// A file module.
    File(FileId),
    /// A Go package (directory).
    GoPackage(String),
    /// A Java package.
    JavaPackage(String),
    /// A standard wrapper (Rust's `Option`/`Result`, `Vec`, slices) of these values (none: of
    /// values of no known type).
    Wrapped(Wrap, Box<[Value]>),
    /// A value of a type the language or another crate provides, which carries no member of the
    /// repository's types and forwards to none (`Language::opaque_types`: `u32`, `String`,
    /// `string`; a type imported from the standard library, `AtomicUsize`; a type written in place,
    /// `IN_PLACE`): its members are provably not the repository's, but for those of the
    /// repository's impls for that type (`impl U16 for u16`), found by its name's number in
    /// `OutsideImpls::names` (0: a name no impl of the repository is for).
    Outside(u32),
    /// A value of an object type written in place whose properties' types are known (`{ window:
    /// Subject<T> }`, `facts::record_path`): where it is written (its properties' types are
    /// resolved there) and its path. Otherwise like `Outside`.
    Record(Box<(FileId, Option<u32>, Box<[String]>)>),
    /// What calling a member gives when the member itself can't be told among several that all
    /// give it (`Formatter::from(e)` of two `From` impls: a `Formatter` either way), or is a raw
    /// pointer's own (`start.add(n)`: the same pointer). Names nothing.
    Called(Box<[Value]>),
}

/// What a standard wrapper holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Wrap {
    /// An option or result: the value inside, after `?`, `unwrap()`, `Some(x)`.
    Maybe,
    /// A sequence: its elements, through `for`, indexing, `first()`.
    Sequence,
    /// Element `i` of a tuple (a tuple's values are one of these per element).
    Element(u8),
    /// A map: its values are (key, value) tuples (`Element(0)` keys, `Element(1)` values).
    Map,
    /// A cell (`RefCell`, `Cell`): its value, through `borrow()`, `borrow_mut()`, `get()`.
    Cell,
    /// A value bounded by a conversion trait (`I: Into<Input>`): the target, through `into()`.
    Convertible,
}

impl Wrap {
    /// The marker its type paths start with (a tuple's element has none: `(,)` is the tuple's).
    fn marker(self) -> &'static str {
        match self {
            Wrap::Maybe => MAYBE,
            Wrap::Cell => CELL,
            Wrap::Convertible => CONVERTIBLE,
            Wrap::Sequence => SEQUENCE,
            Wrap::Map => MAP,
            Wrap::Element(_) => "",
        }
    }

    /// The wrapper a type path's marker stands for (`marker`'s inverse).
    fn of_marker(marker: &str) -> Option<Wrap> {
        match marker {
            MAYBE => Some(Wrap::Maybe),
            CELL => Some(Wrap::Cell),
            CONVERTIBLE => Some(Wrap::Convertible),
            SEQUENCE => Some(Wrap::Sequence),
            MAP => Some(Wrap::Map),
            _ => None,
        }
    }
}

/// What a call of a standard method on a wrapper gives: the value inside, the wrapper again, or an
/// option of an element.
#[derive(Clone, Copy)]
enum Step {
    Inner,
    Same,
    MaybeElement,
    /// A sequence of (index, element) tuples (`enumerate`): the element is the tuple's second.
    Indexed,
    /// The same wrapper of (value, other) tuples (`zip`): the value is the tuple's first.
    Zipped,
    /// Element `i` of a map's (key, value) pairs: the value itself (`map[k]`), …
    Part(u8),
    /// … an option of it (`get`, `remove`), …
    MaybePart(u8),
    /// … or a sequence of them (`values`, `keys`).
    Parts(u8),
    /// A sequence of slices of the sequence (`chunks`, `windows`).
    Slices,
}

const RUST: &[Language] = &[Language::Rust];
const JS_TS: &[Language] = &[Language::TypeScript, Language::Tsx, Language::JavaScript];
const PYTHON: &[Language] = &[Language::Python];

/// Standard traits a wrapper's values implement: a blanket implementation bounded by one
/// (`impl<I: Iterator> IteratorIndexExt for I {}`) gives the wrapper its trait's methods
/// (`states.iter().with_state_ids()`).
const WRAPPER_TRAITS: &[(&str, Wrap)] =
    &[("Iterator", Wrap::Sequence), ("ExactSizeIterator", Wrap::Sequence), ("DoubleEndedIterator", Wrap::Sequence)];

/// The standard methods of wrappers the index can't see, by language and by what they return (`?`
/// and `[]` are the operators). TypeScript's and Python's element getters give the element itself
/// (`T | undefined` is used as `T` after `!` or `?.`, which are looked through).
const WRAPPER_METHODS: &[(&[Language], Wrap, Step, &[&str])] = &[
    (
        RUST,
        Wrap::Maybe,
        Step::Inner,
        &["?", "unwrap", "expect", "unwrap_or", "unwrap_or_default", "unwrap_or_else", "unwrap_unchecked"],
    ),
    (
        RUST,
        Wrap::Maybe,
        Step::Same,
        &["as_ref", "as_mut", "as_deref", "as_deref_mut", "take", "clone", "cloned", "copied", "ok", "or", "or_else"],
    ),
    (RUST, Wrap::Cell, Step::Inner, &["borrow", "borrow_mut", "get", "get_mut", "take", "replace", "into_inner"]),
    (RUST, Wrap::Cell, Step::MaybeElement, &["try_borrow", "try_borrow_mut"]),
    (RUST, Wrap::Convertible, Step::Inner, &["into", "as_ref", "as_mut", "borrow", "borrow_mut"]),
    (RUST, Wrap::Sequence, Step::Inner, &["[]", "get_unchecked", "get_unchecked_mut", "swap_remove"]),
    (RUST, Wrap::Sequence, Step::Slices, &["chunks", "chunks_exact", "chunks_mut", "rchunks", "windows", "split"]),
    (
        RUST,
        Wrap::Sequence,
        Step::Same,
        &[
            "iter",
            "iter_mut",
            "into_iter",
            "drain",
            "clone",
            "as_slice",
            "as_mut_slice",
            "rev",
            "to_vec",
            "filter",
            "skip",
            "take",
            "skip_while",
            "take_while",
            "peekable",
            "chain",
            "cycle",
            "step_by",
            "fuse",
            "inspect",
            "cloned",
            "copied",
        ],
    ),
    (RUST, Wrap::Sequence, Step::Indexed, &["enumerate"]),
    (RUST, Wrap::Sequence, Step::Zipped, &["zip"]),
    (RUST, Wrap::Maybe, Step::Zipped, &["zip"]),
    (RUST, Wrap::Map, Step::Same, &["iter", "iter_mut", "into_iter", "drain", "clone"]),
    (RUST, Wrap::Map, Step::Part(1), &["[]"]),
    (RUST, Wrap::Map, Step::MaybePart(1), &["get", "get_mut", "remove"]),
    (RUST, Wrap::Map, Step::Parts(1), &["values", "values_mut", "into_values"]),
    (RUST, Wrap::Map, Step::Parts(0), &["keys", "into_keys"]),
    (
        RUST,
        Wrap::Sequence,
        Step::MaybeElement,
        &[
            "first",
            "last",
            "get",
            "get_mut",
            "first_mut",
            "last_mut",
            "pop",
            "pop_front",
            "pop_back",
            "front",
            "back",
            "next",
            "next_back",
            "find",
            "max_by_key",
            "min_by_key",
            "max_by",
            "min_by",
            "nth",
        ],
    ),
    (JS_TS, Wrap::Sequence, Step::Inner, &["[]", "at", "shift", "pop", "find", "findLast"]),
    (
        JS_TS,
        Wrap::Sequence,
        Step::Same,
        &["slice", "filter", "concat", "reverse", "sort", "splice", "toSorted", "toReversed", "toSpliced", "values"],
    ),
    (PYTHON, Wrap::Sequence, Step::Inner, &["[]", "pop"]),
    (PYTHON, Wrap::Sequence, Step::Same, &["copy"]),
    (PYTHON, Wrap::Map, Step::Same, &["items", "copy"]),
    // Python's optional values are used as the value (`Optional[X]` is read as `X`).
    (PYTHON, Wrap::Map, Step::Part(1), &["[]", "setdefault", "get", "pop"]),
    (PYTHON, Wrap::Map, Step::Parts(1), &["values"]),
    (PYTHON, Wrap::Map, Step::Parts(0), &["keys"]),
];

/// Standard methods that call a closure or callback with the elements of their receiver (a
/// sequence; for an option or result, the value inside), by language: the method, which argument
/// is the callback, and which of its parameters are elements. `items.iter().filter(|a| …)`,
/// `observers.forEach((o) => …)`: `a` and `o` are elements.
const ELEMENT_CALLBACKS: &[(&[Language], &str, u32, &[u32])] = &[
    (RUST, "map", 0, &[0]),
    (RUST, "filter", 0, &[0]),
    (RUST, "for_each", 0, &[0]),
    (RUST, "try_for_each", 0, &[0]),
    (RUST, "any", 0, &[0]),
    (RUST, "all", 0, &[0]),
    (RUST, "find", 0, &[0]),
    (RUST, "find_map", 0, &[0]),
    (RUST, "position", 0, &[0]),
    (RUST, "rposition", 0, &[0]),
    (RUST, "filter_map", 0, &[0]),
    (RUST, "flat_map", 0, &[0]),
    (RUST, "take_while", 0, &[0]),
    (RUST, "skip_while", 0, &[0]),
    (RUST, "map_while", 0, &[0]),
    (RUST, "inspect", 0, &[0]),
    (RUST, "partition", 0, &[0]),
    (RUST, "max_by_key", 0, &[0]),
    (RUST, "min_by_key", 0, &[0]),
    (RUST, "max_by", 0, &[0, 1]),
    (RUST, "min_by", 0, &[0, 1]),
    (RUST, "reduce", 0, &[0, 1]),
    (RUST, "fold", 1, &[1]),
    (RUST, "try_fold", 1, &[1]),
    (RUST, "retain", 0, &[0]),
    (RUST, "retain_mut", 0, &[0]),
    (RUST, "sort_by", 0, &[0, 1]),
    (RUST, "sort_unstable_by", 0, &[0, 1]),
    (RUST, "sort_by_key", 0, &[0]),
    (RUST, "sort_unstable_by_key", 0, &[0]),
    (RUST, "sort_by_cached_key", 0, &[0]),
    (RUST, "dedup_by_key", 0, &[0]),
    (RUST, "binary_search_by", 0, &[0]),
    (RUST, "binary_search_by_key", 1, &[0]),
    (RUST, "and_then", 0, &[0]),
    (RUST, "is_some_and", 0, &[0]),
    (RUST, "is_ok_and", 0, &[0]),
    (RUST, "is_none_or", 0, &[0]),
    (RUST, "map_or", 1, &[0]),
    (JS_TS, "forEach", 0, &[0]),
    (JS_TS, "map", 0, &[0]),
    (JS_TS, "filter", 0, &[0]),
    (JS_TS, "find", 0, &[0]),
    (JS_TS, "findIndex", 0, &[0]),
    (JS_TS, "findLast", 0, &[0]),
    (JS_TS, "findLastIndex", 0, &[0]),
    (JS_TS, "some", 0, &[0]),
    (JS_TS, "every", 0, &[0]),
    (JS_TS, "flatMap", 0, &[0]),
    (JS_TS, "reduce", 0, &[1]),
    (JS_TS, "reduceRight", 0, &[1]),
    (JS_TS, "sort", 0, &[0, 1]),
    (JS_TS, "toSorted", 0, &[0, 1]),
];

/// Standard methods that map the elements of a sequence or the value of an option through their
/// closure (a projection segment, `facts::PROJECTION`, follows them), by language; `true` where
/// the closure gives wrappers whose elements are the result's (`filter_map`, `flat_map`,
/// `and_then`).
const PROJECTIONS: &[(&[Language], &str, bool)] = &[
    (RUST, "map", false),
    (RUST, "filter_map", true),
    (RUST, "flat_map", true),
    (RUST, "and_then", true),
    (JS_TS, "map", false),
    (JS_TS, "flatMap", true),
];

/// Standard methods whose arguments become elements of their receiver, a sequence, by language:
/// an object literal passed to one has the element type's members (`messages.push({ frame })`).
const ELEMENT_ARGUMENTS: &[(&[Language], &[&str])] = &[(JS_TS, &["push", "unshift"])];

/// Owner of a symbol table: a file's top level or a symbol's body (class, impl type, inline module).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Owner {
    File(FileId),
    Sym(SymId),
}

/// A Rust module as a value: a file module, or an inline `mod`'s symbol.
fn module_value(owner: RustOwner) -> Value {
    match owner {
        RustOwner::File(f) => Value::File(f),
        RustOwner::Inline(s) => Value::Sym(s),
    }
}

/// The table a Rust module's items are named in.
fn names_of(owner: RustOwner) -> Owner {
    match owner {
        RustOwner::File(f) => Owner::File(f),
        RustOwner::Inline(s) => Owner::Sym(s),
    }
}

/// What resolution reads: the index and the lookup tables built from it. Shared (read-only) by every
/// worker once built.
struct Tables<'a> {
    index: &'a Index,
    children: HashMap<(Owner, &'a str), Vec<SymId>>,
    /// Locals by (file, enclosing function, name): every binding, in source order, with the number
    /// of the file's references written before it.
    locals: HashMap<(FileId, u32, &'a str), Vec<&'a LocalBinding>>,
    js: JsModules,
    py: PyModules,
    rust: RustModules,
    go: GoModules,
    java: JavaPackages,
    c: CModules,
    supertypes: HashMap<SymId, Vec<(TypeRelKind, SymId)>>,
    outside: OutsideImpls<'a>,
    /// Rust's `macro_rules!` by (crate root, name), in file order: macros are a namespace of their
    /// own, scoped by text and by crate rather than by module.
    macros: HashMap<(FileId, &'a str), Vec<SymId>>,
    /// Rust's macro invocations by the macro's name, across the repository, as (file, index among
    /// the file's `invocations`): what a template's metavariables are bound to.
    invocations: HashMap<&'a str, Vec<(FileId, u32)>>,
    /// The sites of Rust templates' metavariables by (macro, metavariable), as (file, chain,
    /// segment): what a name given for one names (`Resolver::argument_targets`).
    template_sites: TemplateSites<'a>,
    /// The names of the macros with sites of metavariables (`template_sites`).
    template_macros: HashSet<&'a str>,
    /// The items of every file's imports by (file, scope, the name they bind), as (import, item).
    imported: HashMap<NameIn<'a>, Vec<(u32, u32)>>,
    /// The glob imports of each scope, by (file, scope), in the order they are written.
    glob_imports: HashMap<(FileId, Option<u32>), Vec<u32>>,
    /// The Rust crates (by root) with a glob import the build configuration leaves out (most have
    /// none: there one pass over globs answers).
    left_out_globs: HashSet<FileId>,
}

/// The repository's impls for types the language or another crate provides (`impl U16 for u16`,
/// `impl BufMut for Vec<u8>`).
#[derive(Default)]
struct OutsideImpls<'a> {
    /// Their members, by (the type's number, member name).
    members: HashMap<(u32, &'a str), Vec<SymId>>,
    /// The numbers of those types' names (a standard wrapper by its marker, `[]`), from 1.
    names: HashMap<&'a str, u32>,
    /// The member names of `members`: most members asked for have no such impl.
    member_names: HashSet<&'a str>,
}

/// The glob imports of a scope, those the build configuration leaves out or not: (file, scope, any).
type GlobScope = (FileId, Option<u32>, bool);
/// Values by name.
type NamedValues = HashMap<String, Vec<Value>>;
/// A name written in a scope of a file: (file, scope, name).
type ScopedName = (FileId, Option<u32>, String);
/// `ScopedName`, borrowed from the facts.
type NameIn<'a> = (FileId, Option<u32>, &'a str);

/// A local binding: (file, scope, ordinal among the bindings of its name, name).
type LocalKey<'a> = (FileId, u32, u32, &'a str);

/// One file's view: the shared tables plus the memos of that file's answers (an in-progress memo
/// entry breaks cycles, so what a memo holds depends on what was asked before: `per_file` makes a
/// resolver per file).
struct Resolver<'t, 'a> {
    tables: &'t Tables<'a>,
    /// Memo of import items: (file, import index, item index) → values; an entry in progress is
    /// empty, which breaks import cycles.
    import_memo: RefCell<HashMap<(FileId, u32, u32), Vec<Value>>>,
    module_memo: RefCell<HashMap<(FileId, u32), Vec<Value>>>,
    /// Memo of what a module's glob imports give a name: (file, scope, any) → name → values (by
    /// name last, so that a lookup borrows it); an entry in progress is empty, which breaks glob
    /// cycles (`use super::*` in a child module).
    glob_memo: RefCell<HashMap<GlobScope, NamedValues>>,
    /// While globs are followed: whether those the build configuration leaves out are too
    /// (`None`: no glob is being followed).
    any_glob: std::cell::Cell<Option<bool>>,
    /// Locals whose type is being worked out, as (file, scope, name, ordinal of the binding) (cycle guard).
    typing_locals: RefCell<HashSet<(FileId, u32, &'a str, u32)>>,
    /// The values of local bindings worked out with no other local in progress (so no cycle guard
    /// shaped them): (file, scope, ordinal of the binding, name) → values, while one file is resolved. A local
    /// used twenty times is typed once.
    local_memo: RefCell<HashMap<LocalKey<'a>, Vec<Value>>>,
    /// Where in its file the name being resolved is written (the index of its reference among the
    /// file's): the bindings of locals visible there. `None`: the last binding.
    at: std::cell::Cell<Option<u32>>,
    /// The file and scope of the reference being resolved: where a type parameter of a field's type
    /// is bounded (`PARAM`).
    reader: std::cell::Cell<Option<(FileId, Option<u32>)>>,
    /// `outside_head` answers while one file is resolved: (file, scope, name) → outside.
    outside_memo: RefCell<HashMap<ScopedName, bool>>,
    /// `bound_paths` by (macro, metavariable).
    bound_memo: RefCell<HashMap<(SymId, String), BoundPaths<'a>>>,
}

impl<'a> std::ops::Deref for Resolver<'_, 'a> {
    type Target = Tables<'a>;
    fn deref(&self) -> &Tables<'a> {
        self.tables
    }
}

impl<'t, 'a> Resolver<'t, 'a> {
    fn new(tables: &'t Tables<'a>) -> Resolver<'t, 'a> {
        Resolver {
            tables,
            import_memo: RefCell::new(HashMap::default()),
            module_memo: RefCell::new(HashMap::default()),
            glob_memo: RefCell::new(HashMap::default()),
            any_glob: std::cell::Cell::new(None),
            typing_locals: RefCell::new(HashSet::default()),
            local_memo: RefCell::new(HashMap::default()),
            at: std::cell::Cell::new(None),
            reader: std::cell::Cell::new(None),
            outside_memo: RefCell::new(HashMap::default()),
            bound_memo: RefCell::new(HashMap::default()),
        }
    }
}

fn tables<'a>(index: &'a Index, configs: &ConfigTexts) -> Tables<'a> {
    // The tables that are each a pass over every file's facts are built two at a time.
    let ((children, locals), ((imported, glob_imports), (invocations, template_sites))) = crate::join_maybe_parallel(
        || crate::join_maybe_parallel(|| children_of(index), || locals_of(index)),
        || {
            crate::join_maybe_parallel(
                || imported_of(index),
                || crate::join_maybe_parallel(|| invocations_of(index), || template_sites_of(index)),
            )
        },
    );
    let mut tables = Tables {
        index,
        children,
        locals,
        js: JsModules::new(configs),
        py: PyModules::new(&index.files, &index.by_path),
        rust: RustModules::new(index, configs),
        go: GoModules::new(&index.files, configs),
        java: JavaPackages::new(&index.files),
        c: CModules::new(index, configs),
        supertypes: HashMap::default(),
        outside: OutsideImpls::default(),
        macros: HashMap::default(),
        invocations,
        template_sites,
        template_macros: HashSet::default(),
        left_out_globs: HashSet::default(),
        imported,
        glob_imports,
    };
    tables.macros = macros_of(index, &tables.rust);
    tables.template_macros = tables.template_sites.keys().map(|&(m, _)| index.symbol(m).name.as_str()).collect();
    let left_out = |f: &super::IndexedFile| f.facts.imports.iter().any(|i| i.inactive && i.kind == ImportKind::Glob);
    let files = index.files.iter().enumerate().filter(|(_, f)| left_out(f));
    tables.left_out_globs =
        files.filter_map(|(fid, _)| tables.rust.files.get(&(fid as FileId))).map(|r| r.crate_root).collect();
    tables.outside = Resolver::new(&tables).outside_impls();
    tables
}

/// Every import item by (file, scope, the name it binds), as (import, item); and the glob imports
/// of each scope (`Tables::glob_imports`).
type ImportTables<'a> = (HashMap<NameIn<'a>, Vec<(u32, u32)>>, HashMap<(FileId, Option<u32>), Vec<u32>>);
fn imported_of(index: &Index) -> ImportTables<'_> {
    let (mut items, mut globs): ImportTables = Default::default();
    for (fid, f) in index.files.iter().enumerate() {
        for (i, imp) in f.facts.imports.iter().enumerate() {
            if imp.kind == ImportKind::Glob {
                globs.entry((fid as FileId, imp.scope)).or_default().push(i as u32);
            }
            for (j, item) in imp.items.iter().enumerate() {
                items.entry((fid as FileId, imp.scope, item.alias.as_str())).or_default().push((i as u32, j as u32));
            }
        }
    }
    (items, globs)
}

/// Every Rust macro by (its crate's root, name).
fn macros_of<'a>(index: &'a Index, rust: &RustModules) -> HashMap<(FileId, &'a str), Vec<SymId>> {
    let mut macros: HashMap<(FileId, &str), Vec<SymId>> = HashMap::default();
    for (fid, f) in index.files.iter().enumerate() {
        let Some(root) = rust.files.get(&(fid as FileId)).map(|r| r.crate_root) else { continue };
        for (local, sym) in f.facts.symbols.iter().enumerate() {
            if sym.kind == SymbolKind::Macro {
                macros.entry((root, sym.name.as_str())).or_default().push(f.sym_base + local as u32);
            }
        }
    }
    macros
}

/// Every Rust macro invocation by the macro's name (`Tables::invocations`).
fn invocations_of(index: &Index) -> HashMap<&str, Vec<(FileId, u32)>> {
    let mut out: HashMap<&str, Vec<(FileId, u32)>> = HashMap::default();
    for (fid, f) in index.files.iter().enumerate() {
        for (i, call) in f.facts.invocations.iter().enumerate() {
            out.entry(call.name.as_str()).or_default().push((fid as FileId, i as u32));
        }
    }
    out
}

/// A path a metavariable is bound to, with where it is written: (file, scope, path).
type BoundPath<'a> = (FileId, Option<u32>, &'a [String]);
/// Every path a metavariable is bound to; `None` when they can't all be read.
type BoundPaths<'a> = Option<Vec<BoundPath<'a>>>;

/// How many paths a metavariable may be bound to, and through how many templates passing it on,
/// and still be read (`Resolver::bound_paths`).
const MAX_BOUND_PATHS: usize = 64;

/// The sites of templates' metavariables by (macro, metavariable), as (file, chain, segment).
type TemplateSites<'a> = HashMap<(SymId, &'a str), Vec<(FileId, u32, u32)>>;

/// Every site of a Rust template's metavariable (`Tables::template_sites`).
fn template_sites_of(index: &Index) -> TemplateSites<'_> {
    let mut out = TemplateSites::default();
    for (fid, f) in index.files.iter().enumerate().filter(|(_, f)| f.language == Language::Rust) {
        for (k, chain) in f.facts.refs.iter().enumerate() {
            let Some(m) = f.facts.macro_around(chain.enclosing) else { continue };
            for (i, (name, _)) in chain.segments.iter().enumerate().filter(|(_, (n, _))| is_metavariable(n)) {
                out.entry((f.sym_base + m, name.as_str())).or_default().push((fid as FileId, k as u32, i as u32));
            }
        }
    }
    out
}

/// Whether a Rust name is a metavariable of a `macro_rules!` template (`$m`; `$crate` is a path).
fn is_metavariable(name: &str) -> bool {
    name.len() > 1 && name.starts_with('$') && name != "$crate"
}

/// Each declared name by owner (a file, a type or a module) and name: what a path's next segment
/// looks up. Impl members are added once their types are resolved (`attach_impl_members`).
fn children_of(index: &Index) -> HashMap<(Owner, &str), Vec<SymId>> {
    let mut children: HashMap<(Owner, &str), Vec<SymId>> = HashMap::default();
    children.reserve(index.syms.len());
    for (fid, f) in index.files.iter().enumerate() {
        for (local, sym) in f.facts.symbols.iter().enumerate() {
            if sym.impl_of.is_some() {
                continue;
            }
            // Java, C++ and C# constructors are not members reachable by name: `Order` names the class.
            let is_constructor = matches!(f.language, Language::Java | Language::Cpp | Language::CSharp)
                && sym.kind == SymbolKind::Method
                && sym.container.is_some_and(|c| f.facts.symbols[c as usize].name == sym.name);
            if is_constructor {
                continue;
            }
            let owner = match sym.container {
                Some(c) => Owner::Sym(f.sym_base + c),
                None => Owner::File(fid as FileId),
            };
            children.entry((owner, sym.name.as_str())).or_default().push(f.sym_base + local as u32);
        }
    }
    children
}

/// Every local binding by (file, enclosing function, name), in source order.
fn locals_of(index: &Index) -> HashMap<(FileId, u32, &str), Vec<&LocalBinding>> {
    let mut locals: HashMap<(FileId, u32, &str), Vec<&LocalBinding>> = HashMap::default();
    locals.reserve(index.files.iter().map(|f| f.facts.locals.len()).sum());
    for (fid, f) in index.files.iter().enumerate() {
        for local in &f.facts.locals {
            let scope = local.scope.unwrap_or(FILE_LEVEL);
            locals.entry((fid as FileId, scope, local.name.as_str())).or_default().push(local);
        }
    }
    locals
}

pub(super) fn resolve(index: &Index, configs: &ConfigTexts) -> Graph {
    let mut tables = tables(index, configs);
    // Impl members and supertypes are resolved with the tables as they are, then added to them.
    let attach = per_file(&tables, Resolver::impl_members_to_attach).into_iter().flatten().collect();
    let impl_members = tables.attach_impl_members(attach);
    let relations = resolve_relations(&tables);
    for &(s, k, t) in &relations {
        tables.supertypes.entry(s).or_default().push((k, t));
    }
    let mut graph = Graph { supertypes: relations, impl_members, ..Graph::default() };
    let per_file = per_file(&tables, |r, fid| (r.file_refs(fid), r.file_deps(fid)));
    let mut deps = Vec::with_capacity(per_file.len());
    let mut refs = Vec::with_capacity(per_file.iter().map(|(f, _)| f.refs.len()).sum());
    graph.import_bindings.reserve(per_file.iter().map(|(f, _)| f.bindings.len()).sum());
    for (mut file_refs, file_deps) in per_file {
        graph.import_bindings.append(&mut file_refs.bindings);
        refs.append(&mut file_refs.refs);
        graph.file_stats.push(file_refs);
        deps.push(file_deps);
    }
    // The tables (millions of entries on a large repository) are freed while the graph is finished.
    crate::join_maybe_parallel(
        || drop(tables),
        || {
            finish_refs(&mut graph, refs, index.files.len());
            finish_deps(index, &mut graph, deps);
            graph.total_stats();
        },
    );
    graph
}

/// Re-resolves the references and dependencies written in `changed` files whose interface (what
/// other files can see of them: declarations, imports, re-exports, relations, module declarations,
/// locals) is unchanged, so that everything resolved in other files still holds. The tables are
/// rebuilt from the index; impl members and supertypes are taken from the graph as they were.
pub(super) fn re_resolve(index: &Index, configs: &ConfigTexts, graph: &mut Graph, changed: &[FileId]) {
    let mut tables = tables(index, configs);
    let attach = graph
        .impl_members
        .iter()
        .flat_map(|(&t, members)| members.iter().map(move |&m| (t, index.symbol(m).name.as_str(), m)))
        .collect();
    tables.attach_impl_members(attach);
    for &(s, k, t) in &graph.supertypes {
        tables.supertypes.entry(s).or_default().push((k, t));
    }
    let changed_set: HashSet<FileId> = changed.iter().copied().collect();
    let mut new_refs = Vec::new();
    let mut deps: Vec<BTreeMap<FileId, DepVia>> =
        std::mem::take(&mut graph.dep_via).into_iter().map(|d| d.into_iter().collect()).collect();
    for &fid in changed {
        // A resolver per file, as a full resolution has (`per_file`).
        let r = Resolver::new(&tables);
        let mut file_refs = r.file_refs(fid);
        new_refs.append(&mut file_refs.refs);
        // Bindings stay grouped by file in file order, as a full resolution leaves them.
        let bindings = std::mem::take(&mut file_refs.bindings);
        graph.import_bindings.retain(|b| b.file != fid);
        let at = graph.import_bindings.partition_point(|b| b.file < fid);
        graph.import_bindings.splice(at..at, bindings);
        graph.file_stats[fid as usize] = file_refs;
        deps[fid as usize] = r.file_deps(fid);
    }
    merge_refs(graph, &changed_set, new_refs);
    finish_deps(index, graph, deps);
    graph.total_stats();
}

/// Replaces the reference sites of the changed files with `new` in linear time, keeping every order a
/// full resolution gives: `refs` by (target, file, position) and the per-file index lists (the
/// per-enclosing ones are made again from `refs` when next used). Sites of other files keep their
/// relative order, so their lists are only renumbered.
fn merge_refs(graph: &mut Graph, changed: &HashSet<FileId>, mut new: Vec<RefSite>) {
    new.sort();
    new.dedup();
    let old = std::mem::take(&mut graph.refs);
    let mut merged = Vec::with_capacity(old.len() + new.len());
    // Old index → merged index for the sites kept (u32::MAX for the dropped ones); merged indices of
    // the new sites, ascending.
    let mut renumber = vec![u32::MAX; old.len()];
    let mut inserted = Vec::with_capacity(new.len());
    let mut new_iter = new.into_iter().peekable();
    for (i, site) in old.into_iter().enumerate() {
        if changed.contains(&site.file) {
            continue;
        }
        while new_iter.peek().is_some_and(|n| *n < site) {
            inserted.push(merged.len() as u32);
            merged.push(new_iter.next().expect("peeked"));
        }
        renumber[i] = merged.len() as u32;
        merged.push(site);
    }
    for n in new_iter {
        inserted.push(merged.len() as u32);
        merged.push(n);
    }
    for (fid, list) in graph.refs_by_file.iter_mut().enumerate() {
        if changed.contains(&(fid as FileId)) {
            list.clear();
        } else {
            for i in list.iter_mut() {
                *i = renumber[*i as usize];
            }
        }
    }
    for &i in &inserted {
        graph.refs_by_file[merged[i as usize].file as usize].push(i);
    }
    for &fid in changed {
        graph.refs_by_file[fid as usize].sort_by_key(|&i| (merged[i as usize].pos, merged[i as usize].target));
    }
    graph.set_refs(merged);
}

/// Runs `f` for every file with a resolver of its own, in parallel when the core is built with
/// `parallel`; results in file order. A resolver's memos break a cycle of imports or globs with
/// the answer in progress, which reads as nothing, so what they hold depends on what was asked
/// before: a resolver shared by files answered each by what the others had asked (the native
/// engine, one per split of the work, and the wasm engine, one for all, resolved 1,304 sites of
/// the Rust corpus differently). A file's answers are its own.
#[cfg(feature = "parallel")]
fn per_file<'t, 'a, T: Send>(
    tables: &'t Tables<'a>,
    f: impl Fn(&Resolver<'t, 'a>, FileId) -> T + Sync + Send,
) -> Vec<T> {
    use rayon::prelude::*;
    (0..tables.index.files.len() as FileId).into_par_iter().map(|fid| f(&Resolver::new(tables), fid)).collect()
}

#[cfg(not(feature = "parallel"))]
fn per_file<'t, 'a, T>(tables: &'t Tables<'a>, f: impl Fn(&Resolver<'t, 'a>, FileId) -> T) -> Vec<T> {
    (0..tables.index.files.len() as FileId).map(|fid| f(&Resolver::new(tables), fid)).collect()
}

/// What `Resolver::file_relations` finds in one file.
#[derive(Default)]
struct FileRelations {
    relations: Vec<(SymId, TypeRelKind, SymId)>,
    blankets: Vec<(SymId, SymId)>,
}

/// Every file's type relations, with the relations blanket implementations give: a type that
/// implements a blanket implementation's bound implements its trait.
fn resolve_relations(tables: &Tables) -> Vec<(SymId, TypeRelKind, SymId)> {
    let (mut out, mut blankets) = (Vec::new(), Vec::new());
    for mut file in per_file(tables, Resolver::file_relations) {
        out.append(&mut file.relations);
        blankets.append(&mut file.blankets);
    }
    // A type that implements a blanket implementation's bound implements its trait (which may
    // be the bound of another: a few rounds).
    for _ in 0..4 {
        let mut implementors: HashMap<SymId, Vec<SymId>> = HashMap::default();
        for &(s, k, t) in &out {
            if k == TypeRelKind::Implements {
                implementors.entry(t).or_default().push(s);
            }
        }
        let before = out.len();
        for &(bound, tr) in &blankets {
            for &s in implementors.get(&bound).into_iter().flatten() {
                if s != tr && !implementors.get(&tr).is_some_and(|i| i.contains(&s)) {
                    out.push((s, TypeRelKind::Implements, tr));
                }
            }
        }
        if out.len() == before {
            break;
        }
        out.sort();
        out.dedup();
    }
    out.sort();
    out.dedup();
    out
}

/// Sorts and indexes the reference sites of all files.
fn finish_refs(graph: &mut Graph, mut refs: Vec<RefSite>, files: usize) {
    // Every field takes part in the order, so equal sites are identical: unstable is exact.
    crate::sort_maybe_parallel(&mut refs);
    refs.dedup();
    graph.refs_by_file = refs_by_file(&refs, files);
    graph.set_refs(refs);
}

/// Per file, the indices of its sites in `refs`, by position, then target, then in `refs` order.
pub(crate) fn refs_by_file(refs: &[RefSite], files: usize) -> Vec<Vec<u32>> {
    let mut by_file = vec![Vec::new(); files];
    for (i, r) in refs.iter().enumerate() {
        by_file[r.file as usize].push(i as u32);
    }
    crate::for_each_maybe_parallel(&mut by_file, |list| {
        list.sort_unstable_by_key(|&i| (refs[i as usize].pos, refs[i as usize].target, i));
    });
    by_file
}

/// Completes the per-file dependencies (Java types used without an import), with what made each,
/// and derives deps and rdeps.
fn finish_deps(index: &Index, graph: &mut Graph, mut deps: Vec<BTreeMap<FileId, DepVia>>) {
    // Java, C# and PHP: classes used from the same package (namespace) or through a wildcard import
    // (`using`) are dependencies; SQL has no imports, only the objects it uses.
    for r in &graph.refs {
        let target_file = index.file_of(r.target);
        let language = index.files[r.file as usize].language;
        let used = match language {
            Language::Java | Language::CSharp | Language::Php | Language::Kotlin | Language::Swift => {
                index.symbol(r.target).kind.is_type()
            }
            Language::Ruby => matches!(index.symbol(r.target).kind, SymbolKind::Class | SymbolKind::Module),
            // SQL: the files that define the objects a file uses.
            Language::Sql => true,
            _ => false,
        };
        if used {
            deps[r.file as usize].entry(target_file).or_insert(DepVia::Use);
        }
    }
    for (fid, d) in deps.iter_mut().enumerate() {
        d.remove(&(fid as FileId));
    }
    graph.set_deps(deps.into_iter().map(|d| d.into_iter().collect()).collect());
}

/// What resolving one file's references produced.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct FileRefs {
    pub refs: Vec<RefSite>,
    pub bindings: Vec<ImportBinding>,
    pub resolved: u64,
    /// The chains that could not be proven, as (chain, segment where resolution stopped): that
    /// segment's name and position are in the file's facts.
    pub unresolved: Vec<(u32, u32)>,
    /// The segments proven to name no member of other types, as (chain, segment, the declared
    /// types the value before it has): where an unproven chain stopped with that value proven,
    /// the member is none of those types' (nor of anything their lookup reaches); a standard
    /// method of a wrapper (`v.iter()`) in a chain that goes on is none of the repository's. Such
    /// a site is provably not a member of another type (`unsafeSites` of a rename leave it out). A
    /// module, a standard wrapper or a value of a type outside the repository contributes no type.
    pub known_stops: Vec<(u32, u32, Box<[SymId]>)>,
    /// Import items that bind no declaration (a namespace, a glob, or nothing found), as (import, item).
    pub unbound_imports: Vec<(u32, u32)>,
    /// Those of them imported from outside the repository (the standard library, a crate it
    /// doesn't hold): provably none of its declarations.
    pub outside_imports: Vec<(u32, u32)>,
    /// Callee names of the call sites that could not be proven (one entry per site).
    pub unresolved_calls: Vec<String>,
    /// A Rust file no build compiles (`RustModules::uncompiled`).
    #[serde(default)]
    pub uncompiled: bool,
}

impl<'a> Tables<'a> {
    /// The declarations named `name` directly in `owner` (a file's top level or a symbol's body).
    fn named<'s>(&'s self, owner: Owner, name: &'s str) -> std::iter::Copied<std::slice::Iter<'s, SymId>> {
        self.children.get(&(owner, name)).map_or(&[][..], Vec::as_slice).iter().copied()
    }

    /// Adds impl members to their types' children; returns the members by type.
    fn attach_impl_members(&mut self, attach: Vec<(SymId, &'a str, SymId)>) -> HashMap<SymId, Vec<SymId>> {
        let mut by_type: HashMap<SymId, Vec<SymId>> = HashMap::default();
        for (t, name, member) in attach {
            self.children.entry((Owner::Sym(t), name)).or_default().push(member);
            by_type.entry(t).or_default().push(member);
        }
        by_type
    }
}

impl<'a> Resolver<'_, 'a> {
    fn lang(&self, file: FileId) -> Language {
        self.index.files[file as usize].language
    }

    /// The members of impls whose type the repository doesn't declare — one the language provides
    /// (`impl U16 for u16 { fn high_u8(self) … }`), a standard wrapper (`impl BufMut for Vec<u8>`:
    /// `[]`), one imported from the standard library or another crate (`impl Ext for AtomicUsize`)
    /// — and the numbers given to those types' names.
    fn outside_impls(&self) -> OutsideImpls<'a> {
        let mut out = OutsideImpls::default();
        // Raw pointers have standard methods of their own (`POINTER_METHODS`) whether the
        // repository has impls for them or not.
        out.names.insert(POINTER, POINTER_IDS[0]);
        out.names.insert(MUT_POINTER, POINTER_IDS[1]);
        for (fid, f) in self.index.files.iter().enumerate() {
            if f.language.opaque_types().is_empty() {
                continue;
            }
            self.outside_memo.borrow_mut().clear();
            for (local, sym) in f.facts.symbols.iter().enumerate() {
                let Some(path) = sym.impl_of.as_deref() else { continue };
                let Some(name) = self.outside_type_name(fid as FileId, sym.container, path) else { continue };
                let next = out.names.len() as u32 + 1;
                let id = *out.names.entry(name).or_insert(next);
                out.members.entry((id, sym.name.as_str())).or_default().push(f.sym_base + local as u32);
                out.member_names.insert(sym.name.as_str());
            }
            // Blanket implementations bounded by a standard trait a wrapper implements.
            for rel in &f.facts.relations {
                let Some(bound) = rel.blanket_bound() else { continue };
                let wrap = WRAPPER_TRAITS.iter().find(|(t, _)| bound.last().is_some_and(|b| b == t));
                let Some(&(_, wrap)) = wrap else { continue };
                if !self.resolve_path(fid as FileId, None, bound).is_empty() {
                    continue;
                }
                let next = out.names.len() as u32 + 1;
                let id = *out.names.entry(wrap.marker()).or_insert(next);
                for t in self.types_of(self.resolve_path(fid as FileId, None, &rel.target)) {
                    let (tf, tl) = (self.index.file_of(t), self.index.syms[t as usize].1);
                    let trait_file = &self.index.files[tf as usize];
                    for (local, m) in trait_file.facts.symbols.iter().enumerate() {
                        if m.container == Some(tl) && m.kind.is_callable() {
                            out.members
                                .entry((id, m.name.as_str()))
                                .or_default()
                                .push(trait_file.sym_base + local as u32);
                            out.member_names.insert(m.name.as_str());
                        }
                    }
                }
            }
        }
        out
    }

    /// The name a type path is known by when it denotes a type the repository doesn't declare: a
    /// standard wrapper's marker, a type written in place, or the last segment of a path that
    /// resolves to nothing and starts at a name provably outside the repository.
    fn outside_type_name<'p>(&self, file: FileId, scope: Option<u32>, path: &'p [String]) -> Option<&'p str> {
        let first = path.first()?;
        if Wrap::of_marker(first).is_some() || first == IN_PLACE || is_pointer(first) {
            return Some(first);
        }
        if first.is_empty() || !self.resolve_path(file, scope, path).is_empty() {
            return None;
        }
        self.outside_head(file, scope, first).then(|| path.last().expect("not empty").as_str())
    }

    /// The value of a type path that resolves to nothing in the repository, when it is provably a
    /// type from outside it.
    fn outside_value(&self, file: FileId, scope: Option<u32>, path: &[String]) -> Option<Value> {
        let name = self.outside_type_name(file, scope, path)?;
        Some(Value::Outside(self.outside.names.get(name).copied().unwrap_or(0)))
    }

    /// Rust impl members and Go methods belong to the type their impl/receiver names: the members of
    /// the impls (and extensions) written in `fid`, as (type, member name, member).
    fn impl_members_to_attach(&self, fid: FileId) -> Vec<(SymId, &'a str, SymId)> {
        let index = self.index;
        let f = &index.files[fid as usize];
        let mut attach = Vec::new();
        for (local, sym) in f.facts.symbols.iter().enumerate() {
            let Some(path) = sym.impl_of.as_ref().or(sym.extension_of.as_ref()) else { continue };
            for v in self.resolve_path(fid, sym.container, path) {
                if let Value::Sym(t) = v {
                    // `A::A() { … }` defines the constructor: `A` names the class, not it.
                    let constructor = f.language == Language::Cpp && index.symbol(t).name == sym.name;
                    if index.symbol(t).kind.is_type() && !constructor {
                        attach.push((t, sym.name.as_str(), f.sym_base + local as u32));
                    }
                }
            }
        }
        attach
    }

    /// The type relations written in `fid` (subtype, kind, supertype), and its blanket
    /// implementations as (bound, trait).
    fn file_relations(&self, fid: FileId) -> FileRelations {
        let index = self.index;
        let f = &index.files[fid as usize];
        let mut out = FileRelations::default();
        for rel in &f.facts.relations {
            if let Some(bound) = rel.blanket_bound() {
                for b in self.types_of(self.resolve_path(fid, None, bound)) {
                    out.blankets
                        .extend(self.types_of(self.resolve_path(fid, None, &rel.target)).into_iter().map(|t| (b, t)));
                }
                continue;
            }
            let subjects: Vec<SymId> = match &rel.subject {
                Some(path) => self.types_of(self.resolve_path(fid, None, path)),
                None => vec![f.sym_base + rel.symbol],
            };
            let scope = match &rel.subject {
                Some(_) => None,
                None => f.facts.symbols.get(rel.symbol as usize).and_then(|s| s.container),
            };
            let targets = self.types_of(self.resolve_path(fid, scope, &rel.target));
            for &s in &subjects {
                for &t in &targets {
                    // C#, Kotlin and Swift write base classes and interfaces in one list.
                    let kind = if matches!(f.language, Language::CSharp | Language::Kotlin | Language::Swift)
                        && index.symbol(t).kind == SymbolKind::Interface
                        && index.symbol(s).kind != SymbolKind::Interface
                    {
                        TypeRelKind::Implements
                    } else {
                        rel.kind
                    };
                    if s != t {
                        out.relations.push((s, kind, t));
                    }
                }
            }
        }
        out
    }

    fn types_of(&self, values: Vec<Value>) -> Vec<SymId> {
        values
            .into_iter()
            .filter_map(|v| match v {
                Value::Sym(s) if self.index.symbol(s).kind.is_type() => Some(s),
                // A Ruby module is included, extended and prepended as a type.
                Value::Sym(s)
                    if self.index.symbol(s).kind == SymbolKind::Module
                        && self.lang(self.index.file_of(s)) == Language::Ruby =>
                {
                    Some(s)
                }
                _ => None,
            })
            .collect()
    }

    /// Resolves a path written in `file` at the scope of local symbol `scope`.
    fn resolve_path(&self, file: FileId, scope: Option<u32>, path: &[String]) -> Vec<Value> {
        if path.first().is_some_and(|h| h == TUPLE || is_pointer(h) || Wrap::of_marker(h).is_some()) {
            return self.resolve_path_hops(file, scope, path, 0);
        }
        let Some((head, rest)) = path.split_first() else { return Vec::new() };
        let mut values = self.head_of(file, scope, head, 0, !rest.is_empty()).unwrap_or_default();
        for seg in rest {
            values = self.each_name(file, scope, seg, |n| self.members_all(&values, n, 0));
            if values.is_empty() {
                break;
            }
        }
        values
    }

    fn members_all(&self, values: &[Value], name: &str, hops: u32) -> Vec<Value> {
        let mut out = Vec::new();
        for v in values {
            for m in self.member(v, name, hops) {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
        out.truncate(MAX_TARGETS);
        out
    }

    /// The chain of enclosing local symbols, innermost first.
    fn scope_chain(&self, file: FileId, scope: Option<u32>) -> Vec<u32> {
        let symbols = &self.index.files[file as usize].facts.symbols;
        let mut out = Vec::new();
        let mut cur = scope;
        while let Some(c) = cur {
            out.push(c);
            cur = symbols[c as usize].container;
        }
        out
    }

    /// The scopes whose locals a use in `scope` sees, innermost first: the scope chain, then the
    /// file's top level (`FILE_LEVEL`).
    fn local_scopes(&self, file: FileId, scope: Option<u32>) -> Vec<u32> {
        let mut out = self.scope_chain(file, scope);
        out.push(FILE_LEVEL);
        out
    }

    /// Whether a local `name` is seen by a use in `scope` (`local_scopes`).
    fn local_seen(&self, file: FileId, scope: Option<u32>, name: &str) -> bool {
        self.local_scopes(file, scope).into_iter().any(|s| self.visible_local(file, s, name).is_some())
    }

    /// The binding of local `name` of function `scope` a use sees: the latest one before it (the
    /// last one when where the use stands is not known), as (its ordinal among the bindings of the
    /// name, the binding).
    fn visible_local(&self, file: FileId, scope: u32, name: &str) -> Option<(u32, &'a LocalBinding)> {
        let bindings = self.locals.get(&(file, scope, name))?;
        let found = match self.at.get() {
            Some(at) => bindings.iter().rposition(|l| l.seen_at(at)),
            None => bindings.len().checked_sub(1),
        }?;
        Some((found as u32, bindings[found]))
    }

    /// The binding of local `name` of function `scope` that the `nth` one's initialiser sees: the
    /// latest one bound before it whose block is still open there.
    fn local_before(&self, file: FileId, scope: u32, name: &str, nth: u32) -> Option<(u32, &'a LocalBinding)> {
        let bindings = self.locals.get(&(file, scope, name))?;
        let bound = bindings.get(nth as usize)?.after_refs;
        let found = bindings[..nth as usize].iter().rposition(|l| l.after_refs < bound && l.seen_at(bound))?;
        Some((found as u32, bindings[found]))
    }

    /// Resolves the first name of a chain. `None` means the name is a local of unknown type: it
    /// shadows everything and resolves to nothing (not counted as a failure of resolution).
    fn head(&self, file: FileId, scope: Option<u32>, name: &str, hops: u32) -> Option<Vec<Value>> {
        self.head_of(file, scope, name, hops, false)
    }

    /// `head`, for a name followed by `::` when `path`: a crate's or module's name there is never
    /// a local's (`Language::module_path_head`).
    fn head_of(&self, file: FileId, scope: Option<u32>, name: &str, hops: u32, path: bool) -> Option<Vec<Value>> {
        if hops > MAX_HOPS {
            return Some(Vec::new());
        }
        let f = &self.index.files[file as usize];
        let lang = f.language;
        let chain = self.scope_chain(file, scope);

        // Locals shadow everything else: the latest binding before the use.
        let locals = !(path && lang.module_path_head(name));
        let scopes = if locals { self.local_scopes(file, scope) } else { Vec::new() };
        for s in scopes {
            let Some(mut binding) = self.visible_local(file, s, name) else { continue };
            // The name as the binding holds it keys the memos (no copy per lookup).
            let name = binding.1.name.as_str();
            if lang.initialiser_sees_earlier_binding() {
                // `let input = input.into();`: the initialiser's `input` is the binding before.
                while self.typing_locals.borrow().contains(&(file, s, name, binding.0)) {
                    let Some(earlier) = self.local_before(file, s, name, binding.0) else { break };
                    binding = earlier;
                }
            }
            let (nth, local) = binding;
            let outermost = hops == 0 && self.typing_locals.borrow().is_empty();
            if outermost {
                if let Some(values) = self.local_memo.borrow().get(&(file, s, nth, name)) {
                    return if values.is_empty() { None } else { Some(values.clone()) };
                }
            }
            // `x = x.next()` types a local by itself: a local being typed resolves to nothing.
            if !self.typing_locals.borrow_mut().insert((file, s, name, nth)) {
                // `let rt = rt();`: while a local's own initialiser is resolved, the name means
                // what it meant before the local was bound.
                continue;
            }
            // Its origin is written before it was bound: the names there are resolved as there.
            let outer = self.at.replace(Some(local.after_refs));
            let values = self.local_value(file, (s != FILE_LEVEL).then_some(s), &local.origin, hops + 1);
            self.at.set(outer);
            self.typing_locals.borrow_mut().remove(&(file, s, name, nth));
            if outermost {
                self.local_memo.borrow_mut().insert((file, s, nth, name), values.clone());
            }
            return if values.is_empty() { None } else { Some(values) };
        }

        // Receivers and keywords.
        match (lang, name) {
            (Language::Rust, "self") => {
                let types = self.impl_type(file, &chain, hops);
                if types.is_empty() {
                    // `impl PartialEq<Span> for Range<usize>`: a value of a type from outside.
                    let symbols = &self.index.files[file as usize].facts.symbols;
                    let mut impls = chain.iter().map(|&s| &symbols[s as usize]);
                    if let Some((path, container)) = impls.find_map(|sym| Some((sym.impl_of.as_ref()?, sym.container)))
                    {
                        return Some(self.outside_value(file, container, path).into_iter().collect());
                    }
                }
                return Some(types.into_iter().map(Value::Instance).collect());
            }
            (Language::Rust, "Self") => {
                return Some(self.impl_type(file, &chain, hops).into_iter().map(Value::Sym).collect())
            }
            // `$crate` in a macro's code: the crate that defines the macro.
            (Language::Rust, "crate" | "$crate") => {
                return Some(self.rust.files.get(&file).map(|r| Value::File(r.crate_root)).into_iter().collect())
            }
            (Language::Rust, "super") => {
                return Some(self.rust_parent(file, &chain).map(module_value).into_iter().collect())
            }
            // A metavariable a template's `use …::$ty;` imports is that import's.
            (Language::Rust, name)
                if is_metavariable(name)
                    && !chain.iter().any(|&s| self.imported.contains_key(&(file, Some(s), name))) =>
            {
                return self.metavariable_values(file, scope, name, hops)
            }
            (l, "this")
                if l.is_js_family()
                    || matches!(l, Language::Java | Language::CSharp | Language::Php | Language::Kotlin) =>
            {
                return Some(self.enclosing_class(file, &chain).into_iter().map(Value::Instance).collect())
            }
            // In C++ also in a method defined out of its class (`void A::f() { this->x; }`), in Swift
            // in an extension's method.
            (Language::Cpp, "this") | (Language::Swift, "self") => {
                let class =
                    self.enclosing_class(file, &chain).map_or_else(|| self.impl_type(file, &chain, hops), |c| vec![c]);
                return Some(class.into_iter().map(Value::Instance).collect());
            }
            (Language::Python, "self" | "cls") => {
                return Some(self.enclosing_class(file, &chain).into_iter().map(Value::Instance).collect())
            }
            // `super()`: what the call gives is the base classes' instance (see `is_super_call`).
            (Language::Python, "super") if self.enclosing_class(file, &chain).is_some() => {
                let class = self.enclosing_class(file, &chain).expect("checked");
                let bases = self.supertypes.get(&class).into_iter().flatten();
                let bases: Vec<Value> =
                    bases.filter(|(k, _)| *k == TypeRelKind::Extends).map(|(_, t)| Value::Instance(*t)).collect();
                return Some(if bases.is_empty() { self.mixed_into(class) } else { bases });
            }
            (l, "super") if l.is_js_family() || matches!(l, Language::Java | Language::Kotlin) => {
                return Some(self.base_instances(file, &chain));
            }
            (Language::CSharp, "base") => return Some(self.base_instances(file, &chain)),
            // `self::`, `static::`: the enclosing class; `parent::` its base class. As `this`, they
            // stand for the class without naming it (no reference a rename would have to rewrite).
            (Language::Php, "self" | "static") => {
                return Some(self.enclosing_class(file, &chain).into_iter().map(Value::Instance).collect())
            }
            (Language::Php, "parent") => return Some(self.base_instances(file, &chain)),
            // `self`: an instance of the enclosing class, or in a singleton method the class itself.
            (Language::Ruby, "self") => {
                let f = &self.index.files[file as usize];
                let method = chain.iter().find(|&&s| f.facts.symbols[s as usize].kind.is_callable());
                let singleton = method.is_some_and(|&m| f.facts.symbols[m as usize].singleton);
                let owner = chain
                    .iter()
                    .find(|&&s| matches!(f.facts.symbols[s as usize].kind, SymbolKind::Class | SymbolKind::Module));
                let of = |s: SymId| if singleton { Value::Sym(s) } else { Value::Instance(s) };
                return Some(owner.map(|&s| of(f.sym_base + s)).into_iter().collect());
            }
            _ => {}
        }

        // Enclosing declarations, innermost first.
        for &s in &chain {
            let sym_id = f.sym_base + s;
            let sym = &f.facts.symbols[s as usize];
            match lang {
                // A Kotlin extension function's body sees its receiver type's members (`this`).
                Language::Kotlin if sym.extension_of.is_some() => {
                    let receiver = sym.extension_of.as_deref().unwrap_or_default();
                    let types = self.types_of(self.resolve_path_hops(file, sym.container, receiver, hops + 1));
                    let found = self.members_of(types, name, hops);
                    if !found.is_empty() {
                        return Some(found);
                    }
                }
                Language::Java | Language::Kotlin if sym.kind.is_type() => {
                    let found = self.type_member(sym_id, name, hops + 1, &mut HashSet::default());
                    if !found.is_empty() {
                        return Some(found);
                    }
                }
                Language::Rust if sym.kind == SymbolKind::Module => {
                    // A Rust module sees its own items only, never the enclosing module's.
                    let found = self.rust_module_member(RustOwner::Inline(sym_id), name, hops + 1);
                    if !found.is_empty() {
                        return Some(found);
                    }
                    return Some(self.rust_extern(name));
                }
                Language::Python if sym.kind == SymbolKind::Class => {}
                // A Ruby class or module: its methods (`self`'s, called without a receiver), its
                // constants, those of its writings elsewhere and of what it includes or extends.
                Language::Ruby if matches!(sym.kind, SymbolKind::Class | SymbolKind::Module) => {
                    let found = self.type_member(sym_id, name, hops + 1, &mut HashSet::default());
                    if !found.is_empty() {
                        return Some(found);
                    }
                }
                // A PHP class's members are reached through `$this`, `self::`, never bare.
                Language::Php if sym.kind.is_type() => {}
                Language::Php if sym.kind == SymbolKind::Module => {
                    let mut found = self.namespace_member(sym_id, name);
                    if found.is_empty() {
                        found = self.scoped_imports(file, Some(s), name, hops);
                    }
                    if !found.is_empty() {
                        return Some(found);
                    }
                }
                // A C++/C# class sees its inherited members; a C++ method defined out of its class,
                // its class's members; a namespace, every file's writing of it.
                Language::Cpp | Language::CSharp | Language::Swift
                    if sym.kind.is_type() || sym.impl_of.is_some() || sym.kind == SymbolKind::Module =>
                {
                    let mut found: Vec<Value> = if sym.kind.is_type() {
                        self.type_member(sym_id, name, hops + 1, &mut HashSet::default())
                    } else if sym.kind == SymbolKind::Module {
                        self.namespace_member(sym_id, name)
                    } else {
                        self.members_of(self.impl_type(file, &[s], hops + 1), name, hops)
                    };
                    if found.is_empty() {
                        found = self.scoped_imports(file, Some(s), name, hops);
                    }
                    if found.is_empty() {
                        found = match lang {
                            Language::CSharp => self.csharp_usings(file, Some(s), name, hops),
                            _ => self.globs(file, Some(s), name, hops),
                        };
                    }
                    if !found.is_empty() {
                        return Some(found);
                    }
                }
                // A Rust struct's fields, a TypeScript class's members: reached through a receiver
                // or the type's path, never bare.
                _ if sym.kind.is_type() && !lang.sees_own_members(sym.kind) => {}
                _ => {
                    let mut found: Vec<Value> = self.named(Owner::Sym(sym_id), name).map(Value::Sym).collect();
                    found.extend(self.scoped_imports(file, Some(s), name, hops));
                    if found.is_empty() {
                        // `use self::Kind::*;` in a Rust function's body.
                        found = self.globs(file, Some(s), name, hops);
                    }
                    if !found.is_empty() {
                        return Some(found);
                    }
                }
            }
        }

        // The file and its package.
        let found = match lang {
            Language::Rust => {
                let mut found = self.rust_module_member(RustOwner::File(file), name, hops + 1);
                if found.is_empty() {
                    found = self.rust_extern(name);
                }
                found
            }
            Language::Go => self.go_scope(file, name, hops),
            Language::Java | Language::Kotlin => self.java_scope(file, name, hops),
            Language::C | Language::Cpp => self.c_scope(file, name, hops),
            Language::CSharp => self.csharp_scope(file, name, hops),
            // One database: every SQL file's objects.
            Language::Sql => self.c.global(Language::Sql, name).iter().map(|&s| Value::Sym(s)).collect(),
            Language::Php => self.php_scope(file, name, hops),
            Language::Swift => self.swift_scope(file, name),
            // Ruby's top-level constants and methods are global: every file's.
            Language::Ruby => {
                let mut found: Vec<Value> = self.named(Owner::File(file), name).map(Value::Sym).collect();
                if found.is_empty() {
                    found.extend(self.c.global(Language::Ruby, name).iter().map(|&s| Value::Sym(s)));
                }
                found
            }
            _ => {
                let mut found: Vec<Value> = self.named(Owner::File(file), name).map(Value::Sym).collect();
                if found.is_empty() {
                    found = self.scoped_imports(file, None, name, hops);
                }
                if found.is_empty() {
                    found = self.globs(file, None, name, hops);
                }
                found
            }
        };
        Some(found)
    }

    fn local_value(&self, file: FileId, scope: Option<u32>, origin: &LocalOrigin, hops: u32) -> Vec<Value> {
        if hops > MAX_HOPS {
            return Vec::new();
        }
        match origin {
            LocalOrigin::Unknown => Vec::new(),
            LocalOrigin::Declared(path) => self.type_values(file, scope, path, hops),
            LocalOrigin::Constructed(path) => {
                // `Kind::Named { name, .. }`: a value of a Rust struct variant, whose fields are
                // its own members (its enum's members too, see `type_member`).
                let resolved = self.resolve_path_hops(file, scope, path, hops);
                let variants: Vec<Value> = resolved
                    .iter()
                    .filter_map(|v| match *v {
                        Value::Sym(s) if self.rust_struct_variant(s) => Some(Value::Instance(s)),
                        _ => None,
                    })
                    .collect();
                if variants.is_empty() {
                    self.instances_or_outside(file, scope, path, resolved)
                } else {
                    variants
                }
            }
            LocalOrigin::CallResult(path) => {
                // `String::new()`, `u64::from(x)`, `AtomicUsize::new(0)`: a constructor of a type
                // from outside the repository gives one.
                if let [ty @ .., ctor] = path.as_slice() {
                    if let Some(v) =
                        self.outside_value(file, scope, ty).filter(|_| OPAQUE_CONSTRUCTORS.contains(&ctor.as_str()))
                    {
                        return vec![v];
                    }
                }
                let mut out = Vec::new();
                for v in self.resolve_path_hops(file, scope, path, hops) {
                    let s = match v {
                        Value::Sym(s) => s,
                        Value::Called(result) => {
                            out.extend(result);
                            continue;
                        }
                        _ => continue,
                    };
                    let sym = self.index.symbol(s);
                    if sym.kind.is_type() {
                        // Calling a class constructs it in some languages (`Language::calls_construct`).
                        if self.lang(self.index.file_of(s)).calls_construct() {
                            out.push(Value::Instance(s));
                        }
                    } else if sym.kind.is_callable() {
                        out.extend(self.returned(s, hops + 1));
                    }
                }
                out
            }
            LocalOrigin::CallChain(names, calls_at) => {
                self.held(self.chain_values(file, scope, names, calls_at, hops), hops)
            }
            LocalOrigin::Member(of, name) => {
                let of = self.local_value(file, scope, of, hops + 1);
                self.member_values(&of, name, hops)
            }
            LocalOrigin::Element(of) => self.elements(self.local_value(file, scope, of, hops + 1), hops),
            LocalOrigin::Unwrapped(of) => Self::unwrapped(self.local_value(file, scope, of, hops + 1), &[Wrap::Maybe]),
            LocalOrigin::Expanded(name) => {
                // The macro an invocation written here names (`macro_named`).
                let path = [(name.clone(), crate::facts::Pos::default())];
                let macros = self.macro_named(file, scope, &path);
                let Some((m, init)) = macros.first().and_then(|&m| Some((m, self.index.symbol(m).init.as_ref()?)))
                else {
                    return Vec::new();
                };
                // Written in the macro, where no local of the use is seen.
                let outer = self.at.replace(None);
                let values = self.local_value(self.index.file_of(m), init.scope, &init.origin, hops + 1);
                self.at.set(outer);
                self.instances(values)
            }
            LocalOrigin::Wrapped(marker, inner) => match Wrap::of_marker(marker) {
                Some(wrap) => vec![Value::Wrapped(wrap, self.local_value(file, scope, inner, hops + 1).into())],
                None => Vec::new(),
            },
            LocalOrigin::Either(values) => values
                .iter()
                .map(|o| self.local_value(file, scope, o, hops + 1))
                .find(|v| !v.is_empty())
                .unwrap_or_default(),
            LocalOrigin::TupleElement(of, i) => match u8::try_from(*i) {
                Ok(i) => Self::unwrapped(self.local_value(file, scope, of, hops + 1), &[Wrap::Element(i)]),
                Err(_) => Vec::new(),
            },
            LocalOrigin::VariantField(path, index) => {
                let mut out = Vec::new();
                for v in self.resolve_path_hops(file, scope, path, hops + 1) {
                    let Value::Sym(variant) = v else { continue };
                    let Some(Some(ty)) = self.index.symbol(variant).params.get(*index as usize).map(|p| &p.ty) else {
                        continue;
                    };
                    let local = self.index.syms[variant as usize].1;
                    let container = self.index.symbol(variant).container;
                    let vfile = self.index.file_of(variant);
                    out.extend(self.instances(self.resolve_path_hops(vfile, container.or(Some(local)), ty, hops + 1)));
                }
                out
            }
            LocalOrigin::Callback { callee, calls_at, construct, arg, param } => {
                if let Some(elements) = self.element_callback(file, scope, callee, calls_at, *arg, *param, hops) {
                    return elements;
                }
                let mut out = Vec::new();
                for v in self.chain_values(file, scope, callee, calls_at, hops) {
                    let Value::Sym(s) = v else { continue };
                    let functions = if *construct { self.constructors(s, hops) } else { vec![s] };
                    for f in functions.into_iter().filter(|f| self.index.symbol(*f).kind.is_callable()) {
                        let declared = self.index.symbol(f).params.get(*arg as usize);
                        let Some(Some(ty)) = declared.and_then(|p| p.callback.get(*param as usize)) else { continue };
                        let local = self.index.syms[f as usize].1;
                        out.extend(self.instances(self.resolve_path_hops(
                            self.index.file_of(f),
                            Some(local),
                            ty,
                            hops + 1,
                        )));
                    }
                }
                out
            }
        }
    }

    /// The elements a standard method gives parameter `param` of its callback argument `arg`
    /// (`ELEMENT_CALLBACKS`), when the receiver before the method is a sequence or an option; `None`
    /// when the call is not one of those.
    #[allow(clippy::too_many_arguments)]
    fn element_callback(
        &self,
        file: FileId,
        scope: Option<u32>,
        callee: &[String],
        calls_at: &[u32],
        arg: u32,
        param: u32,
        hops: u32,
    ) -> Option<Vec<Value>> {
        let (method, receiver) = callee.split_last()?;
        if receiver.is_empty() {
            return None;
        }
        let lang = self.lang(file);
        ELEMENT_CALLBACKS.iter().find(|(langs, m, at, params)| {
            langs.contains(&lang) && m == method && *at == arg && params.contains(&param)
        })?;
        let wrappers = self.receiver_wrappers(file, scope, callee, calls_at, hops)?;
        Some(Self::unwrapped(wrappers, &[Wrap::Sequence, Wrap::Maybe, Wrap::Map]))
    }

    /// The wrappers the receiver of the method call `callee` is (the chain before its last
    /// segment, through the calls of `calls_at` on it); `None` unless every value is one.
    fn receiver_wrappers(
        &self,
        file: FileId,
        scope: Option<u32>,
        callee: &[String],
        calls_at: &[u32],
        hops: u32,
    ) -> Option<Vec<Value>> {
        let (method, receiver) = callee.split_last()?;
        let before: Vec<u32> = calls_at.iter().copied().filter(|&c| (c as usize) < receiver.len()).collect();
        let values = self.chain_values(file, scope, receiver, &before, hops + 1);
        Some(self.wrappers(&values, method, hops)?.into_owned())
    }

    /// The wrappers `values` are — a field or variable holding one stands for it (the hops go on:
    /// a field initialised from itself, `self.x = self.x.copy()`, must not recurse for ever) —
    /// or `None` unless every value is a wrapper.
    ///
    /// A value of a Rust type that iterates (`iterator_items`) and declares no member
    /// `method` is the sequence of its items to the adapters the standard trait gives it
    /// (`self.find_iter(h).enumerate()`, `.map(|m| m.start())`).
    fn wrappers<'v>(&self, values: &'v [Value], method: &str, hops: u32) -> Option<std::borrow::Cow<'v, [Value]>> {
        let values = if values.iter().any(|v| matches!(v, Value::Sym(_))) {
            std::borrow::Cow::Owned(self.held(values.to_vec(), hops + 1))
        } else {
            std::borrow::Cow::Borrowed(values)
        };
        if values.is_empty() {
            return None;
        }
        if values.iter().all(|v| matches!(v, Value::Wrapped(..))) {
            return Some(values);
        }
        let mut out = Vec::with_capacity(values.len());
        for v in values.iter() {
            match v {
                Value::Wrapped(..) => out.push(v.clone()),
                Value::Instance(t) if self.lang(self.index.file_of(*t)) == Language::Rust => {
                    let items = self.iterator_items(*t, hops);
                    if items.is_empty() || !self.member(v, method, hops + 1).is_empty() {
                        return None;
                    }
                    out.push(Value::Wrapped(Wrap::Sequence, items.into()));
                }
                _ => return None,
            }
        }
        Some(std::borrow::Cow::Owned(out))
    }

    /// The instances values stand for: a type's, an instance itself, a field's or variable's value.
    fn held(&self, values: Vec<Value>, hops: u32) -> Vec<Value> {
        values
            .into_iter()
            .flat_map(|v| match v {
                Value::Sym(s)
                    if matches!(
                        self.index.symbol(s).kind,
                        SymbolKind::Field | SymbolKind::Variable | SymbolKind::Constant
                    ) =>
                {
                    self.value_of(s, hops + 1)
                }
                v => self.instances(vec![v]),
            })
            .collect()
    }

    /// The instances member `name` of `values` holds: a field's or variable's value.
    fn member_values(&self, values: &[Value], name: &str, hops: u32) -> Vec<Value> {
        self.members_all(values, name, hops)
            .into_iter()
            .flat_map(|v| match v {
                Value::Sym(s) if !self.index.symbol(s).kind.is_callable() && !self.index.symbol(s).kind.is_type() => {
                    self.value_of(s, hops + 1)
                }
                // Already a value (a property of an object type written in place, a tuple field).
                v @ (Value::Instance(_) | Value::Wrapped(..) | Value::Record(_)) => vec![v],
                _ => Vec::new(),
            })
            .collect()
    }

    /// The value a receiver denotes (instances), its `members` followed.
    fn receiver_values(&self, file: FileId, scope: Option<u32>, receiver: &Receiver) -> Vec<Value> {
        let mut values = match &receiver.base {
            ReceiverBase::Value(origin) => self.local_value(file, scope, origin, 1),
            ReceiverBase::Argument { callee, calls_at, construct, arg } => {
                if let Some(elements) = self.element_argument(file, scope, callee, calls_at) {
                    return elements;
                }
                let mut out = Vec::new();
                for v in self.chain_values(file, scope, callee, calls_at, 1) {
                    let Value::Sym(s) = v else { continue };
                    let functions = if *construct { self.constructors(s, 1) } else { vec![s] };
                    for f in functions.into_iter().filter(|f| self.index.symbol(*f).kind.is_callable()) {
                        let Some(Some(ty)) = self.index.symbol(f).params.get(*arg as usize).map(|p| &p.ty) else {
                            continue;
                        };
                        let local = self.index.syms[f as usize].1;
                        out.extend(self.instances(self.resolve_path_hops(self.index.file_of(f), Some(local), ty, 2)));
                    }
                }
                out
            }
        };
        for name in &receiver.members {
            values = self.member_values(&values, name, 1);
        }
        values
    }

    /// What an argument of a standard method that adds it to its receiver becomes: an element of
    /// that sequence (`ELEMENT_ARGUMENTS`: `messages.push({ frame, notification })`); `None` when
    /// the call is not one of those on a sequence.
    fn element_argument(
        &self,
        file: FileId,
        scope: Option<u32>,
        callee: &[String],
        calls_at: &[u32],
    ) -> Option<Vec<Value>> {
        let method = callee.last()?;
        let lang = self.lang(file);
        ELEMENT_ARGUMENTS
            .iter()
            .find(|(langs, methods)| langs.contains(&lang) && methods.contains(&method.as_str()))?;
        let wrappers = self.receiver_wrappers(file, scope, callee, calls_at, 1)?;
        let elements = Self::unwrapped(wrappers, &[Wrap::Sequence]);
        (!elements.is_empty()).then_some(elements)
    }

    /// What a chain of names denotes, through the calls at `calls_at` (each goes on from what the
    /// call returns); the last segment is not called.
    fn chain_values(
        &self,
        file: FileId,
        scope: Option<u32>,
        names: &[String],
        calls_at: &[u32],
        hops: u32,
    ) -> Vec<Value> {
        let Some((head, _)) = names.split_first() else { return Vec::new() };
        let mut values = self.head(file, scope, head, hops).unwrap_or_default();
        if values.is_empty() && names.len() > 1 && calls_at.is_empty() && self.outside_head(file, scope, head) {
            // `Function.prototype.bind`: a member of what the language provides, read and not
            // called (a call may give back what it is passed).
            return vec![Value::Outside(0)];
        }
        if calls_at.first() == Some(&0) && !self.is_clone(file, head, &values) && !self.is_super_call(file, 0, head) {
            values = self.called(&values);
        }
        self.follow(file, scope, values, names, calls_at, 1, hops)
    }

    /// The values a chain's segments from `from` on give, starting from `values` (what the
    /// segment before gave): members, the steps of standard wrappers, what calls return.
    #[allow(clippy::too_many_arguments)]
    fn follow(
        &self,
        file: FileId,
        scope: Option<u32>,
        mut values: Vec<Value>,
        names: &[String],
        calls_at: &[u32],
        from: usize,
        hops: u32,
    ) -> Vec<Value> {
        for (i, name) in names.iter().enumerate().skip(from) {
            if values.is_empty() {
                break;
            }
            if name.starts_with(PROJECTION) {
                continue;
            }
            let called = calls_at.binary_search(&(i as u32)).is_ok();
            if called || name == MAYBE || name == SEQUENCE {
                if let Some(stepped) = self.wrapper_step(file, &values, name, names.get(i + 1), hops) {
                    values = stepped;
                    continue;
                }
            }
            values = self.each_name(file, scope, name, |n| self.member_or_clone(file, &values, n, called, hops));
            if called {
                values = self.by_use(values, true);
                if !self.is_clone(file, name, &values) && !self.is_super_call(file, i, name) {
                    values = self.called(&values);
                }
            }
        }
        values
    }

    /// A standard method that maps the elements of a wrapper through a closure
    /// (`PROJECTIONS`), followed by the closure's chain of its parameter (`next`, a projection
    /// segment): `items.iter().map(|h| h.item())` is a sequence of what `item` returns. `None`
    /// when the call is not one, or no element's mapping is known (`wrapper_step` then reads it
    /// as any other standard method).
    fn projection_step(
        &self,
        file: FileId,
        values: &[Value],
        method: &str,
        next: Option<&String>,
        hops: u32,
    ) -> Option<Vec<Value>> {
        let (names, calls_at) = projection_body(next?)?;
        let lang = self.lang(file);
        let &(_, _, flatten) = PROJECTIONS.iter().find(|(langs, m, _)| langs.contains(&lang) && *m == method)?;
        let wrappers = self.wrappers(values, method, hops)?;
        let mut out = Vec::new();
        for v in wrappers.iter() {
            let Value::Wrapped(wrap @ (Wrap::Sequence | Wrap::Maybe), inner) = v else { continue };
            let mapped = self.follow(file, None, inner.to_vec(), &names, &calls_at, 0, hops + 1);
            let mapped = if flatten { self.elements(mapped, hops + 1) } else { mapped };
            if !mapped.is_empty() {
                out.push(Value::Wrapped(*wrap, mapped.into()));
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// The constructors of a class: its member `constructor` (TypeScript, JavaScript) or
    /// `__init__` (Python), inherited ones included.
    fn constructors(&self, class: SymId, hops: u32) -> Vec<SymId> {
        if !self.index.symbol(class).kind.is_type() {
            return Vec::new();
        }
        let name = if self.lang(self.index.file_of(class)) == Language::Python { "__init__" } else { "constructor" };
        self.type_member(class, name, hops + 1, &mut HashSet::default())
            .into_iter()
            .filter_map(|v| if let Value::Sym(s) = v { Some(s) } else { None })
            .collect()
    }

    /// What a metavariable of the template it is written in stands for (`$m` in
    /// `$m::Finder::new(b)`): the values of the paths the macro's invocations bind it to, each read
    /// where its invocation is written (`finder_checks!(super)` in a module of `finders.rs`).
    /// `None` when one of them can't be read, so that a site reading it is proven nothing.
    fn metavariable_values(&self, file: FileId, scope: Option<u32>, name: &str, hops: u32) -> Option<Vec<Value>> {
        let mut out = Vec::new();
        for (f, s, path) in self.bound_paths(file, scope, name)? {
            let values = self.resolve_path_hops(f, s, path, hops + 1);
            if values.is_empty() {
                return None;
            }
            for v in values {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        Some(out)
    }

    /// The names a metavariable standing for a name is bound to (`$cons` in `$m::Finder::$cons(b)`:
    /// `new`, `try_new`); `None` when an invocation gives it anything else.
    fn bound_names(&self, file: FileId, scope: Option<u32>, name: &str) -> Option<Vec<&'a str>> {
        let paths = self.bound_paths(file, scope, name)?;
        let mut out: Vec<&str> = Vec::new();
        for (_, _, path) in paths {
            let [one] = path else { return None };
            if !out.contains(&one.as_str()) {
                out.push(one);
            }
        }
        Some(out)
    }

    /// The paths every invocation in the repository of the macro whose template `name` is written
    /// in binds it to, with where each is written. An invocation in a template passing on that
    /// template's own metavariable (`finder_checks!($m, new)`) passes on what that is bound to.
    ///
    /// `None` unless every invocation is read: the metavariable is bound by position wherever a
    /// rule names it (`MacroRule::positional`), and each invocation of the macro's name that a rule
    /// naming it takes gives a path there (`Invocation::arguments`; one imported under another name
    /// gives none). An invocation may be of another macro of that name: it only adds paths.
    ///
    /// At most `MAX_BOUND_PATHS`, through as many templates (more: `None`), so that a site costs a
    /// bounded number of resolutions; memoized by (macro, metavariable).
    fn bound_paths(&self, file: FileId, scope: Option<u32>, name: &str) -> BoundPaths<'a> {
        let key = (self.enclosing_macro(file, scope)?, name.to_string());
        if let Some(known) = self.bound_memo.borrow().get(&key) {
            return known.clone();
        }
        let found = self.read_bound_paths(key.0, name);
        self.bound_memo.borrow_mut().insert(key, found.clone());
        found
    }

    /// `bound_paths` of metavariable `name` of macro `macro_sym`, read from the invocations.
    fn read_bound_paths(&self, macro_sym: SymId, name: &str) -> BoundPaths<'a> {
        let mut out = Vec::new();
        let mut todo = vec![(macro_sym, name.to_string())];
        let mut seen = HashSet::default();
        while let Some((macro_sym, name)) = todo.pop() {
            if !seen.insert((macro_sym, name.clone())) {
                continue;
            }
            if seen.len() > MAX_BOUND_PATHS {
                return None;
            }
            let rules = self.macro_rules_of(macro_sym)?;
            // Where the metavariable is among each rule's arguments.
            let mut at = Vec::new();
            for rule in rules {
                let Some(i) = rule.metavariables.iter().position(|m| *m == name) else { continue };
                if i >= rule.positional as usize {
                    return None;
                }
                at.push((rule, i));
            }
            let macro_name = self.index.symbol(macro_sym).name.as_str();
            for &(f, i) in self.invocations.get(macro_name)? {
                let call = &self.index.files[f as usize].facts.invocations[i as usize];
                let arguments = call.arguments.as_ref()?;
                for &(_, i) in at.iter().filter(|(r, _)| r.takes(arguments.len())) {
                    match arguments[i].as_slice() {
                        [] => return None,
                        [outer] if is_metavariable(outer) => {
                            todo.push((self.enclosing_macro(f, call.scope)?, outer.clone()));
                        }
                        path => out.push((f, call.scope, path)),
                    }
                }
                if out.len() > MAX_BOUND_PATHS {
                    return None;
                }
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// The rules of a `macro_rules!`.
    fn macro_rules_of(&self, macro_sym: SymId) -> Option<&'a [MacroRule]> {
        let file = &self.index.files[self.index.file_of(macro_sym) as usize];
        let local = self.index.syms[macro_sym as usize].1;
        // In symbol order, as the extractor writes them.
        let rules = &file.facts.macro_rules;
        Some(&rules[rules.binary_search_by_key(&local, |r| r.symbol).ok()?].rules)
    }

    /// What a name given alone to a macro names (`new` in `define_checks!($m, new)`): where the
    /// metavariable it is bound to (`$cons`) is a name in the template (`$m::Finder::$cons(b)`),
    /// the members of that name of what comes before it at each of its sites. `None` unless that
    /// is known at every site of every rule that may take the argument: a metavariable written
    /// where the template was not read as code (`MacroRule::unread`), or at a chain's head (a
    /// value where the macro is invoked), or any site whose value before it is unknown, leaves it
    /// unknown.
    fn argument_targets(
        &self,
        file: FileId,
        scope: Option<u32>,
        given: &MacroArgument,
        name: &str,
    ) -> Option<Vec<SymId>> {
        // Most names are given to macros whose templates name nothing with them (`println!`).
        if !self.template_macros.contains(given.name.as_str()) {
            return None;
        }
        let definitions = self.macro_named(file, scope, &[(given.name.clone(), crate::facts::Pos::default())]);
        let (index, count) = (given.index as usize, given.given as usize);
        let mut out = Vec::new();
        for m in definitions {
            for rule in self.macro_rules_of(m)? {
                let positional = rule.positional as usize;
                if !rule.takes(count) {
                    continue;
                }
                if index >= positional {
                    // Taken by a repetition or another matcher: it names nothing where the
                    // template writes none of those metavariables.
                    if rule.metavariables[positional..].iter().any(|v| rule.unread.contains(v)) {
                        return None;
                    }
                    continue;
                }
                let var = rule.metavariables[index].as_str();
                if rule.unread.iter().any(|v| v == var) {
                    return None;
                }
                for &(f, k, s) in self.template_sites.get(&(m, var)).into_iter().flatten() {
                    let chain = &self.index.files[f as usize].facts.refs[k as usize];
                    if s == 0 || chain.receiver.is_some() {
                        return None;
                    }
                    let names: Vec<String> = chain.segments[..s as usize].iter().map(|n| n.0.clone()).collect();
                    let calls_at: Vec<u32> = chain.calls_at.iter().copied().filter(|&c| c < s).collect();
                    let values = self.chain_values(f, chain.enclosing, &names, &calls_at, 0);
                    let called = chain.calls_at.contains(&s) || (chain.call && s as usize == chain.segments.len() - 1);
                    let found = self.member_or_clone(f, &values, name, called, 0);
                    let named = found.iter().filter_map(|v| if let Value::Sym(t) = v { Some(*t) } else { None });
                    let before = out.len();
                    out.extend(named.filter(|t| self.index.symbol(*t).name == name));
                    if out.len() == before {
                        return None;
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        (!out.is_empty()).then_some(out)
    }

    /// The `macro_rules!` whose template a Rust scope is in (its symbol is the template's scope).
    fn enclosing_macro(&self, file: FileId, scope: Option<u32>) -> Option<SymId> {
        let f = &self.index.files[file as usize];
        Some(f.sym_base + f.facts.macro_around(scope)?)
    }

    /// `find(name)`, or for a template's metavariable standing for a name (`$cons`) what it gives
    /// for each name the metavariable is bound to (nothing when those are not known).
    fn each_name(
        &self,
        file: FileId,
        scope: Option<u32>,
        name: &str,
        mut find: impl FnMut(&str) -> Vec<Value>,
    ) -> Vec<Value> {
        if !(self.lang(file) == Language::Rust && is_metavariable(name)) {
            return find(name);
        }
        let mut out = Vec::new();
        for n in self.bound_names(file, scope, name).unwrap_or_default() {
            for v in find(n) {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        out
    }

    /// The members `name` of `values`; for a Rust `.clone()` call that no indexed declaration
    /// answers, the receiver itself (`Clone::clone` returns `Self`).
    fn member_or_clone(&self, file: FileId, values: &[Value], name: &str, called: bool, hops: u32) -> Vec<Value> {
        let mut members = self.members_all(values, name, hops);
        // A member of a type the language provides: the impls for it of the asking file's crate
        // (another crate's `impl U16 for u16` is not in scope there).
        if self.outside.member_names.contains(name) {
            // A field or variable: the values it holds (`self.state: AtomicUsize`).
            let held = values.iter().flat_map(|v| match v {
                Value::Sym(s) if matches!(self.index.symbol(*s).kind, SymbolKind::Field | SymbolKind::Variable) => {
                    self.value_of(*s, hops + 1)
                }
                v => vec![v.clone()],
            });
            for v in held {
                members.extend(self.outside_members(file, &v, name).into_iter().map(Value::Sym));
            }
        }
        if members.is_empty() && called && POINTER_METHODS.contains(&name) && self.lang(file) == Language::Rust {
            // `start.add(n)`: the same pointer, moved.
            let held = self.held(values.to_vec(), hops);
            if held.iter().any(|v| matches!(v, Value::Outside(id) if POINTER_IDS.contains(id))) {
                return vec![Value::Called(held.into())];
            }
        }
        if members.is_empty() && called && name == "clone" && self.lang(file) == Language::Rust {
            // Of a field or variable, of the value it holds (`self.config.clone()`).
            let held = self.held(
                values
                    .iter()
                    .filter(|v| !matches!(v, Value::Sym(t) if self.index.symbol(*t).kind.is_type()))
                    .cloned()
                    .collect(),
                hops,
            );
            return held.into_iter().filter(|v| matches!(v, Value::Instance(_))).collect();
        }
        members
    }

    /// The trait's declaration of associated type `t` of an impl of that trait (what a path through
    /// the impl's type names: `Self::Duration` is `<Self as RawRwLockTimed>::Duration`); `t` itself
    /// for anything else, or when the trait is not the repository's.
    fn projected(&self, t: SymId) -> SymId {
        let sym = self.index.symbol(t);
        let (SymbolKind::Type, Some(path), Some(_)) = (sym.kind, sym.impl_trait.as_deref(), sym.impl_of.as_ref())
        else {
            return t;
        };
        let traits = self.types_of(self.resolve_path(self.index.file_of(t), sym.container, path));
        let declared: Vec<SymId> = traits
            .into_iter()
            .filter(|&tr| self.index.symbol(tr).kind == SymbolKind::Trait)
            .flat_map(|tr| self.named(Owner::Sym(tr), &sym.name).collect::<Vec<_>>())
            .filter(|&d| self.index.symbol(d).kind == SymbolKind::Type && self.index.symbol(d).impl_of.is_none())
            .collect();
        match declared.as_slice() {
            [one] => *one,
            _ => t,
        }
    }

    /// Whether `t` is a Rust tuple struct (`struct Locations(Captures);`: its fields' types are its
    /// `params`).
    fn is_tuple_struct(&self, t: SymId) -> bool {
        let sym = self.index.symbol(t);
        sym.kind == SymbolKind::Struct && !sym.params.is_empty() && self.lang(self.index.file_of(t)) == Language::Rust
    }

    /// Whether the trait that impl member `m` implements is imported by `file` (`use bytes::BufMut;`
    /// brings another crate's `impl BufMut for Vec<u8>` into scope there).
    fn trait_imported(&self, file: FileId, m: SymId) -> bool {
        let sym = self.index.symbol(m);
        let Some(path) = sym.impl_trait.as_deref() else { return false };
        let Some(name) = path.last() else { return false };
        let traits = self.types_of(self.resolve_path(self.index.file_of(m), sym.container, path));
        let imports = &self.index.files[file as usize].facts.imports;
        imports.iter().enumerate().any(|(i, imp)| {
            imp.items.iter().enumerate().any(|(j, item)| {
                item.name == *name
                    && self
                        .import_item(file, i as u32, j as u32, 1)
                        .iter()
                        .any(|v| matches!(v, Value::Sym(t) if traits.contains(t)))
            })
        })
    }

    /// Members found for one use: a call means the callables among them (`x.name()` is the method
    /// `name`, not a field `name` of the same type), any other use the rest (`x.name` is the field).
    /// When only one sort is there it stands (a field holding a function can be called).
    fn by_use(&self, values: Vec<Value>, call: bool) -> Vec<Value> {
        let callable = |v: &Value| matches!(v, Value::Sym(s) if self.index.symbol(*s).kind.is_callable());
        let fitting = values.iter().filter(|v| callable(v) == call).count();
        if fitting == 0 || fitting == values.len() {
            return values;
        }
        values.into_iter().filter(|v| callable(v) == call).collect()
    }

    /// Whether segment `i` of a Python chain is the `super()` call (its head resolves to the bases'
    /// instance already).
    fn is_super_call(&self, file: FileId, i: usize, name: &str) -> bool {
        i == 0 && name == "super" && self.lang(file) == Language::Python
    }

    /// What `super()` is in a Python class of no base (a mixin): the class after it in the method
    /// order of each class it is mixed into. Read as the other bases of every class that derives
    /// from it (what the method order puts after it is among those and their bases).
    fn mixed_into(&self, mixin: SymId) -> Vec<Value> {
        fn extends(rels: &[(TypeRelKind, SymId)]) -> impl Iterator<Item = SymId> + '_ {
            rels.iter().filter(|(k, _)| *k == TypeRelKind::Extends).map(|&(_, t)| t)
        }
        let mut derived: HashSet<SymId> = HashSet::default();
        derived.insert(mixin);
        // To a fixed point: a class deriving from one that derives from the mixin derives from it.
        loop {
            let before = derived.len();
            for (&class, rels) in &self.supertypes {
                if !derived.contains(&class) && extends(rels).any(|b| derived.contains(&b)) {
                    derived.insert(class);
                }
            }
            if derived.len() == before {
                break;
            }
        }
        // (The mixin itself has no base.)
        let derived_rels = self.supertypes.iter().filter(|(c, _)| derived.contains(c));
        let mut bases: Vec<SymId> =
            derived_rels.flat_map(|(_, rels)| extends(rels)).filter(|b| !derived.contains(b)).collect();
        bases.sort_unstable();
        bases.dedup();
        bases.into_iter().map(Value::Instance).collect()
    }

    /// Whether `values` are the receiver kept by `member_or_clone` (instances, not a method to call).
    fn is_clone(&self, file: FileId, name: &str, values: &[Value]) -> bool {
        name == "clone" && self.lang(file) == Language::Rust && values.iter().all(|v| matches!(v, Value::Instance(_)))
    }

    /// What calling a declaration gives: an instance of a class called as a constructor (Python), or
    /// of a function's declared return type.
    fn call_result(&self, s: SymId) -> Vec<Value> {
        let sym = self.index.symbol(s);
        if sym.kind.is_type() {
            return if self.lang(self.index.file_of(s)).calls_construct() {
                vec![Value::Instance(s)]
            } else {
                Vec::new()
            };
        }
        if sym.kind.is_callable() {
            return self.returned(s, 1);
        }
        Vec::new()
    }

    /// The instance a function's declared return type denotes.
    fn returned(&self, func: SymId, hops: u32) -> Vec<Value> {
        let sym = self.index.symbol(func);
        let Some(ret) = &sym.returns else { return Vec::new() };
        let file = self.index.file_of(func);
        let local = self.index.syms[func as usize].1;
        self.type_values(file, Some(local), ret, hops)
    }

    fn resolve_path_hops(&self, file: FileId, scope: Option<u32>, path: &[String], hops: u32) -> Vec<Value> {
        let Some((head, rest)) = path.split_first() else { return Vec::new() };
        // A marker alone (`Vec<T>` of a parameter `T`, `Vec::new()`): a wrapper of values of no
        // known type, whose own methods are still known. A map holds the tuples of its key and
        // value types.
        if let Some(wrap) = Wrap::of_marker(head) {
            let inner = match wrap {
                Wrap::Map => self.resolve_path_hops(file, scope, rest, hops + 1),
                _ => self.type_values(file, scope, rest, hops + 1),
            };
            return if inner.is_empty() && !rest.is_empty() {
                Vec::new()
            } else {
                vec![Value::Wrapped(wrap, inner.into())]
            };
        }
        if head == PARAM {
            return self.type_parameter(file, scope, rest, hops);
        }
        if head == IN_PLACE && !rest.is_empty() {
            return vec![Value::Record(Box::new((file, scope, path.into())))];
        }
        if is_pointer(head) {
            // A value of the pointee once dereferenced, and of the pointer for the repository's
            // impls for pointers.
            let mut values = self.type_values(file, scope, rest, hops + 1);
            values.push(Value::Outside(self.outside.names.get(head.as_str()).copied().unwrap_or(0)));
            return values;
        }
        if head == UNION {
            // Every type must be known: a member of a union is one of each's.
            let mut out = Vec::new();
            for t in tuple_elements(rest).unwrap_or_default() {
                let values = self.type_values(file, scope, t, hops + 1);
                if values.is_empty() {
                    return Vec::new();
                }
                out.extend(values);
            }
            return out;
        }
        if head == TUPLE {
            let mut out = Vec::new();
            for (i, element) in
                tuple_elements(rest).unwrap_or_default().into_iter().enumerate().take(usize::from(u8::MAX))
            {
                let inner = self.type_values(file, scope, element, hops + 1);
                if !inner.is_empty() {
                    out.push(Value::Wrapped(Wrap::Element(i as u8), inner.into()));
                }
            }
            return out;
        }
        let mut values = self.head_of(file, scope, head, hops, !rest.is_empty()).unwrap_or_default();
        for seg in rest {
            values = self.each_name(file, scope, seg, |n| self.members_all(&values, n, hops));
        }
        values
    }

    /// The macros a macro invocation's path names. `name!`: those of the file (the nearest
    /// definition above the use's scope first), else of the modules around it, else of its crate
    /// (`#[macro_use]` modules), else the exported macro an import names (`use syn::parse_quote;`).
    /// `krate::name!`, `crate::name!`, `$crate::name!`: the `#[macro_export]` macros of that crate,
    /// which live at its root whatever their module.
    fn macro_named(&self, file: FileId, scope: Option<u32>, path: &[(String, crate::facts::Pos)]) -> Vec<SymId> {
        let Some(here) = self.rust.files.get(&file).map(|r| r.crate_root) else { return Vec::new() };
        let exported = |root: FileId, name: &str| -> Vec<SymId> {
            let all = self.macros.get(&(root, name)).into_iter().flatten();
            all.copied().filter(|&m| self.index.symbol(m).exported).collect()
        };
        // The crate a path's head names: this one, or another by its name.
        let crate_of = |head: &str| match head {
            "crate" | "$crate" | "self" | "super" => Some(here),
            krate => self.rust.crates.get(krate).copied(),
        };
        let name = path[path.len() - 1].0.as_str();
        if let [(head, _), _] = path {
            return crate_of(head).map_or_else(Vec::new, |r| exported(r, name));
        }
        if path.len() > 2 {
            return Vec::new();
        }
        let in_crate: Vec<SymId> = self.macros.get(&(here, name)).cloned().unwrap_or_default();
        // The file's own, innermost scope first (a macro defined in a function is seen there).
        let chain = self.scope_chain(file, scope);
        let own: Vec<SymId> = in_crate.iter().copied().filter(|&m| self.index.file_of(m) == file).collect();
        if !own.is_empty() {
            let depth = |m: SymId| {
                let container = self.index.symbol(m).container;
                container.map_or(chain.len(), |c| chain.iter().position(|&s| s == c).unwrap_or(usize::MAX))
            };
            let nearest = own.iter().map(|&m| depth(m)).min().unwrap_or(usize::MAX);
            if nearest != usize::MAX {
                return own.into_iter().filter(|&m| depth(m) == nearest).collect();
            }
        }
        // The modules around the file (textual scope flows into child modules).
        let mut parent = self.rust.files.get(&file).and_then(|r| r.parent);
        while let Some(owner) = parent {
            let pfile = match owner {
                RustOwner::File(f) => f,
                RustOwner::Inline(s) => self.index.file_of(s),
            };
            let found: Vec<SymId> = in_crate.iter().copied().filter(|&m| self.index.file_of(m) == pfile).collect();
            if !found.is_empty() {
                return found;
            }
            parent = self.rust.files.get(&pfile).and_then(|r| r.parent);
        }
        if !in_crate.is_empty() {
            return in_crate;
        }
        // `use syn::parse_quote;`: an exported macro of the crate the import names.
        let imports = &self.index.files[file as usize].facts.imports;
        let scopes = std::iter::once(None).chain(chain.iter().map(|&s| Some(s)));
        let items = scopes.flat_map(|s| self.imported.get(&(file, s, name)).into_iter().flatten());
        for &(i, j) in items {
            let imp = &imports[i as usize];
            let item = imp.items[j as usize].name.as_str();
            let head = imp.module.split("::").next().unwrap_or_default();
            let found = crate_of(head).map_or_else(Vec::new, |r| exported(r, item));
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// The values of type parameter `param` of the type declared at `(file, scope)` (or of the type
    /// around it: an enum's variant) in the reference being resolved, when that is written in a
    /// function of an impl of that type: as the impl bounds it (`impl<P: PrefilterI> Pre<P>`, the
    /// bound being a local of its functions). Nothing elsewhere: the parameter stands for any type.
    fn type_parameter(&self, file: FileId, scope: Option<u32>, param: &[String], hops: u32) -> Vec<Value> {
        let ([name], Some(declared), Some((rfile, rscope))) = (param, scope, self.reader.get()) else {
            return Vec::new();
        };
        let base = self.index.files[file as usize].sym_base;
        let owners: Vec<SymId> = self.scope_chain(file, Some(declared)).into_iter().map(|l| base + l).collect();
        let reading = &self.index.files[rfile as usize].facts.symbols;
        let mut s = rscope;
        let in_impl = loop {
            let Some(local) = s else { break false };
            let sym = &reading[local as usize];
            if let Some(path) = &sym.impl_of {
                let types = self.resolve_path_hops(rfile, sym.container, path, hops + 1);
                break types.iter().any(|t| matches!(t, Value::Sym(t) if owners.contains(t)));
            }
            s = sym.container;
        };
        if !in_impl {
            return Vec::new();
        }
        for s in self.local_scopes(rfile, rscope) {
            if let Some((_, local)) = self.visible_local(rfile, s, name) {
                return match &local.origin {
                    LocalOrigin::Declared(bound) => self.type_values(rfile, Some(s), bound, hops + 1),
                    _ => Vec::new(),
                };
            }
        }
        Vec::new()
    }

    /// The instances a type path denotes; a type the language provides and the repository doesn't
    /// declare is `Value::Outside`.
    ///
    /// An alias of a standard wrapper (`type TestCollection = &'static [&'static [SearchTest]];`)
    /// denotes that wrapper.
    fn type_values(&self, file: FileId, scope: Option<u32>, path: &[String], hops: u32) -> Vec<Value> {
        let mut resolved = self.resolve_path_hops(file, scope, path, hops);
        for v in &mut resolved {
            let Value::Sym(s) = *v else { continue };
            let sym = self.index.symbol(s);
            let aliased = sym.returns.as_ref().filter(|_| sym.kind == SymbolKind::Type && sym.impl_of.is_none());
            if let Some(target) = aliased.filter(|t| t.first().is_some_and(|m| Wrap::of_marker(m).is_some())) {
                let found = self.resolve_path_hops(self.index.file_of(s), sym.container, target, hops + 1);
                if let [wrapper @ Value::Wrapped(..)] = found.as_slice() {
                    *v = wrapper.clone();
                }
            }
        }
        self.instances_or_outside(file, scope, path, resolved)
    }

    /// Instances of the types `path` resolved to, else a value of the outside type it names.
    fn instances_or_outside(
        &self,
        file: FileId,
        scope: Option<u32>,
        path: &[String],
        resolved: Vec<Value>,
    ) -> Vec<Value> {
        let values = self.instances(resolved);
        if values.is_empty() {
            self.outside_value(file, scope, path).into_iter().collect()
        } else {
            values
        }
    }

    fn instances(&self, values: Vec<Value>) -> Vec<Value> {
        values
            .into_iter()
            .filter_map(|v| match v {
                Value::Sym(s) if self.index.symbol(s).kind.is_type() => Some(Value::Instance(s)),
                v @ (Value::Instance(_) | Value::Wrapped(..) | Value::Outside(_) | Value::Record(_)) => Some(v),
                _ => None,
            })
            .collect()
    }

    /// Member `name` of any of `types` (inherited ones too).
    fn members_of(&self, types: Vec<SymId>, name: &str, hops: u32) -> Vec<Value> {
        types.into_iter().flat_map(|t| self.type_member(t, name, hops + 1, &mut HashSet::default())).collect()
    }

    /// `super` / `base`: the enclosing class's base classes, as instances.
    fn base_instances(&self, file: FileId, chain: &[u32]) -> Vec<Value> {
        let class = self.enclosing_class(file, chain);
        class
            .into_iter()
            .flat_map(|c| self.supertypes.get(&c).cloned().unwrap_or_default())
            .filter(|(k, _)| *k == TypeRelKind::Extends)
            .map(|(_, t)| Value::Instance(t))
            .collect()
    }

    /// The nearest enclosing class-like declaration.
    fn enclosing_class(&self, file: FileId, chain: &[u32]) -> Option<SymId> {
        let f = &self.index.files[file as usize];
        chain.iter().find(|&&s| f.facts.symbols[s as usize].kind.is_type()).map(|&s| f.sym_base + s)
    }

    /// The type of the Rust impl block (or trait) around a scope.
    fn impl_type(&self, file: FileId, chain: &[u32], hops: u32) -> Vec<SymId> {
        let f = &self.index.files[file as usize];
        for &s in chain {
            let sym = &f.facts.symbols[s as usize];
            if let Some(path) = &sym.impl_of {
                let found = self.types_of(self.resolve_path_hops(file, sym.container, path, hops + 1));
                if let ([param], true) = (path.as_slice(), found.is_empty()) {
                    // `impl<A: Automaton> Automaton for &A`: a value of the type parameter's bound,
                    // which the member sees as a local.
                    if self.visible_local(file, s, param).is_none() {
                        return found;
                    }
                    let bound = self.head(file, Some(s), param, hops + 1).unwrap_or_default();
                    return bound
                        .into_iter()
                        .filter_map(|v| if let Value::Instance(t) = v { Some(t) } else { None })
                        .collect();
                }
                return found;
            }
            if sym.kind == SymbolKind::Trait {
                return vec![f.sym_base + s];
            }
        }
        Vec::new()
    }

    /// Imports written in a given scope (`None`: file level) that bind `name`.
    fn scoped_imports(&self, file: FileId, scope: Option<u32>, name: &str, hops: u32) -> Vec<Value> {
        self.scoped_imports_left_out(file, scope, name, hops, None)
    }

    /// `scoped_imports`, of only the imports the build configuration keeps (`Some(false)`) or
    /// leaves out (`Some(true)`).
    fn scoped_imports_left_out(
        &self,
        file: FileId,
        scope: Option<u32>,
        name: &str,
        hops: u32,
        left_out: Option<bool>,
    ) -> Vec<Value> {
        let imports = &self.index.files[file as usize].facts.imports;
        let mut out = Vec::new();
        for &(i, j) in self.imported.get(&(file, scope, name)).into_iter().flatten() {
            if left_out.is_none_or(|l| l == imports[i as usize].inactive) {
                out.extend(self.import_item(file, i, j, hops + 1));
            }
        }
        out
    }

    /// Names brought in by glob imports of a scope.
    fn globs(&self, file: FileId, scope: Option<u32>, name: &str, hops: u32) -> Vec<Value> {
        if hops > MAX_HOPS {
            return Vec::new();
        }
        if let Some(any) = self.any_glob.get() {
            return self.globs_memo(file, scope, name, hops, any);
        }
        // The globs the build configuration keeps (`cfg_if!` re-exports one platform's module
        // among many), through every level of globs, first; then any (when some glob of the
        // repository is left out).
        let mut out = Vec::new();
        let root = self.rust.files.get(&file).map(|r| r.crate_root);
        let passes: &[bool] =
            if root.is_some_and(|r| self.left_out_globs.contains(&r)) { &[false, true] } else { &[true] };
        for &any in passes {
            self.any_glob.set(Some(any));
            out = self.globs_memo(file, scope, name, hops, any);
            if !out.is_empty() {
                break;
            }
        }
        self.any_glob.set(None);
        out
    }

    fn globs_memo(&self, file: FileId, scope: Option<u32>, name: &str, hops: u32, any: bool) -> Vec<Value> {
        let key = (file, scope, any);
        if let Some(v) = self.glob_memo.borrow().get(&key).and_then(|names| names.get(name)) {
            return v.clone();
        }
        self.glob_memo.borrow_mut().entry(key).or_default().insert(name.to_string(), Vec::new());
        let out = self.compute_globs(file, scope, name, hops, any);
        if let Some(slot) = self.glob_memo.borrow_mut().get_mut(&key).and_then(|names| names.get_mut(name)) {
            slot.clone_from(&out);
        }
        out
    }

    /// What the glob imports of a scope give `name`: those the build configuration keeps first,
    /// then, when `any`, the others.
    fn compute_globs(&self, file: FileId, scope: Option<u32>, name: &str, hops: u32, any: bool) -> Vec<Value> {
        let f = &self.index.files[file as usize];
        let mut out = Vec::new();
        for inactive in [false, true] {
            if inactive && !any {
                break;
            }
            for &i in self.glob_imports.get(&(file, scope)).into_iter().flatten() {
                if f.facts.imports[i as usize].inactive != inactive {
                    continue;
                }
                // A chain of globs is bounded by the memo, not by depth (libc's crate root
                // re-exports its platform's items through six levels of them).
                for module in self.import_module(file, i, hops + 1) {
                    out.extend(self.member(&module, name, hops));
                }
                if !out.is_empty() {
                    return out;
                }
            }
        }
        out
    }

    /// The module(s) an import statement names.
    fn import_module(&self, file: FileId, import: u32, hops: u32) -> Vec<Value> {
        if let Some(v) = self.module_memo.borrow().get(&(file, import)) {
            return v.clone();
        }
        self.module_memo.borrow_mut().insert((file, import), Vec::new());
        let imp = &self.index.files[file as usize].facts.imports[import as usize];
        let values = self.resolve_module(file, import, imp, hops);
        self.module_memo.borrow_mut().insert((file, import), values.clone());
        values
    }

    fn resolve_module(&self, file: FileId, import: u32, imp: &Import, hops: u32) -> Vec<Value> {
        let index = self.index;
        let f = &index.files[file as usize];
        match f.language {
            l if l.is_js_family() => {
                self.js.resolve(&index.by_path, &f.path, &imp.module).map(Value::File).into_iter().collect()
            }
            Language::Python => {
                let Some(abs) = self.py.absolute(&index.files, file, &imp.module) else { return Vec::new() };
                self.py.by_name.get(&abs).map(|&m| Value::File(m)).into_iter().collect()
            }
            Language::Rust => {
                if imp.module.is_empty() {
                    return Vec::new();
                }
                let path: Vec<String> = imp.module.split("::").map(str::to_string).collect();
                // A path of modules (`self::unix`, `crate::new::common`) is read off the module
                // tree, at no depth: libc's crate root reaches its platform's items through six
                // levels of glob re-exports.
                if let Some(owner) = self.rust_module_path(file, imp.scope, &path) {
                    return vec![module_value(owner)];
                }
                if path[0] == "self" {
                    // `use self::x`: the module the `use` is written in.
                    let mut values = vec![module_value(self.rust_current(file, imp.scope))];
                    for seg in &path[1..] {
                        values = self.members_all(&values, seg, hops);
                    }
                    return values;
                }
                self.resolve_path_hops(file, imp.scope, &path, hops)
            }
            Language::Go => self.go.resolve(&imp.module).map(Value::GoPackage).into_iter().collect(),
            // `#include` (re-exported: an includer sees what the header includes).
            Language::C | Language::Cpp if imp.reexport => {
                self.c.include_of(file, import).map(Value::File).into_iter().collect()
            }
            // `using namespace a::b;`, `using a::b::x;`: the namespace.
            Language::Cpp => {
                let path: Vec<String> = imp.module.split("::").map(str::to_string).collect();
                self.resolve_path_hops(file, imp.scope, &path, hops + 1)
                    .into_iter()
                    .filter(|v| matches!(v, Value::Sym(s) if self.index.symbol(*s).kind == SymbolKind::Module))
                    .collect()
            }
            // `require __DIR__ . '/x.php'`: a file, relative to the one that requires it.
            Language::Php if imp.kind == ImportKind::SideEffect => file_beside(&index.by_path, &f.path, &imp.module)
                .or_else(|| file_in(&index.by_path, "", &imp.module))
                .map(Value::File)
                .into_iter()
                .collect(),
            // `@import("m.zig")`: a file relative to the importing one (`@import("std")`: a package).
            Language::Zig => file_beside(&index.by_path, &f.path, &imp.module).map(Value::File).into_iter().collect(),
            // `require_relative "x"` (relative to the file), `require "x"` (a load path: the root,
            // a `lib/` folder, else the one file of that path).
            Language::Ruby => {
                let (relative, spec) = match imp.module.strip_prefix("./") {
                    Some(rest) => (true, rest),
                    None => (false, imp.module.as_str()),
                };
                let file_name = if spec.ends_with(".rb") { spec.to_string() } else { format!("{spec}.rb") };
                let found = if relative {
                    file_beside(&index.by_path, &f.path, &file_name)
                } else {
                    file_in(&index.by_path, "", &file_name).or_else(|| file_in(&index.by_path, "lib", &file_name))
                };
                let found = found.or_else(|| {
                    if relative {
                        return None;
                    }
                    let suffix = format!("/lib/{file_name}");
                    let mut hits = index.by_path.iter().filter(|(p, _)| p.ends_with(&suffix)).map(|(_, &id)| id);
                    match (hits.next(), hits.next()) {
                        (Some(one), None) => Some(one),
                        _ => None,
                    }
                });
                found.map(Value::File).into_iter().collect()
            }
            // `use A\B\C;`: the namespace `A\B` (its member `C` is the item); `use C;`: the global one.
            Language::Php => match self.c.namespaces.get(&imp.module.replace('\\', "::")) {
                Some(ns) => ns.iter().map(|&n| Value::Sym(n)).collect(),
                None => Vec::new(),
            },
            // `using A.B;` (a namespace), `using static A.B.T;` (a type), `using X = A.B;`.
            Language::CSharp => {
                if imp.module.is_empty() {
                    return Vec::new();
                }
                if let Some(ns) = self.c.namespaces.get(&imp.module.replace('.', "::")) {
                    return ns.iter().map(|&n| Value::Sym(n)).collect();
                }
                let path: Vec<String> = imp.module.split('.').map(str::to_string).collect();
                self.resolve_path_hops(file, None, &path, hops + 1)
            }
            Language::Java | Language::Kotlin => {
                if self.java.exists(&imp.module) {
                    vec![Value::JavaPackage(imp.module.clone())]
                } else {
                    // `import static a.b.C.m;`: the module is a class.
                    self.java_fqn(&imp.module, hops).into_iter().map(Value::Sym).collect()
                }
            }
            _ => Vec::new(),
        }
    }

    /// What one imported name denotes.
    fn import_item(&self, file: FileId, import: u32, item: u32, hops: u32) -> Vec<Value> {
        if hops > MAX_HOPS {
            return Vec::new();
        }
        if let Some(v) = self.import_memo.borrow().get(&(file, import, item)) {
            return v.clone();
        }
        self.import_memo.borrow_mut().insert((file, import, item), Vec::new());
        let values = self.compute_import_item(file, import, item, hops);
        self.import_memo.borrow_mut().insert((file, import, item), values.clone());
        values
    }

    fn compute_import_item(&self, file: FileId, import: u32, item: u32, hops: u32) -> Vec<Value> {
        let f = &self.index.files[file as usize];
        let imp = &f.facts.imports[import as usize];
        let it = &imp.items[item as usize];
        match imp.kind {
            ImportKind::Namespace => {
                if f.language == Language::Python && !it.name.is_empty() {
                    // `import a.b.c` binds the top package `a`.
                    return self.py.by_name.get(&it.name).map(|&m| Value::File(m)).into_iter().collect();
                }
                self.import_module(file, import, hops)
            }
            ImportKind::Default => self
                .import_module(file, import, hops)
                .iter()
                .flat_map(|m| self.member(m, "default", hops + 1))
                .collect(),
            ImportKind::Named => {
                let modules = self.import_module(file, import, hops);
                let mut out = Vec::new();
                for m in &modules {
                    // `use crate::x::$ty;` in a template: each name `$ty` is bound to.
                    out.extend(self.each_name(file, imp.scope, &it.name, |n| self.member(m, n, hops + 1)));
                }
                if out.is_empty() && f.language == Language::Php && imp.module.is_empty() {
                    // `use Foo;`: a declaration of the global namespace.
                    out.extend(self.php_global(&it.name));
                }
                if out.is_empty() && f.language == Language::Python {
                    // `from pkg import sub` where `sub` is a module not re-exported by pkg's __init__.
                    if let Some(abs) = self.py.absolute(&self.index.files, file, &imp.module) {
                        if let Some(&m) = self.py.by_name.get(&format!("{abs}.{}", it.name)) {
                            out.push(Value::File(m));
                        }
                    }
                }
                out.truncate(MAX_TARGETS);
                out
            }
            ImportKind::Glob | ImportKind::SideEffect => Vec::new(),
        }
    }

    /// A member of a module, package or type.
    fn member(&self, v: &Value, name: &str, hops: u32) -> Vec<Value> {
        if hops > MAX_HOPS {
            return Vec::new();
        }
        match v {
            Value::File(f) => self.file_member(*f, name, hops),
            Value::GoPackage(dir) => {
                let mut out = Vec::new();
                for &f in self.go.dirs.get(dir).into_iter().flatten() {
                    out.extend(self.named(Owner::File(f), name).map(Value::Sym));
                }
                out
            }
            Value::JavaPackage(p) => {
                let mut out: Vec<Value> = Vec::new();
                for &f in self.java.files.get(p).into_iter().flatten() {
                    out.extend(self.named(Owner::File(f), name).map(Value::Sym));
                }
                if out.is_empty() {
                    let sub = format!("{p}.{name}");
                    if self.java.exists(&sub) {
                        out.push(Value::JavaPackage(sub));
                    }
                }
                out
            }
            Value::Sym(s) => {
                let sym = self.index.symbol(*s);
                if sym.kind.is_type() {
                    self.ruby_side(self.type_member(*s, name, hops + 1, &mut HashSet::default()), true)
                } else if sym.kind == SymbolKind::Module {
                    match self.lang(self.index.file_of(*s)) {
                        Language::Rust => self.rust_module_member(RustOwner::Inline(*s), name, hops + 1),
                        Language::Cpp | Language::CSharp | Language::Php => self.namespace_member(*s, name),
                        Language::Ruby => {
                            self.ruby_side(self.type_member(*s, name, hops + 1, &mut HashSet::default()), true)
                        }
                        _ => self.named(Owner::Sym(*s), name).map(Value::Sym).collect(),
                    }
                } else if matches!(sym.kind, SymbolKind::Field | SymbolKind::Variable | SymbolKind::Constant) {
                    // A field or variable of a known type continues as an instance of it.
                    self.value_of(*s, hops + 1).iter().flat_map(|i| self.member(i, name, hops + 1)).collect()
                } else {
                    Vec::new()
                }
            }
            // `self.0` of a Rust tuple struct: a value of that field's type (no declaration to name).
            Value::Instance(t) if name.bytes().all(|c| c.is_ascii_digit()) && self.is_tuple_struct(*t) => {
                let ty = name.parse::<usize>().ok().and_then(|i| self.index.symbol(*t).params.get(i)?.ty.as_ref());
                let scope = Some(self.index.syms[*t as usize].1);
                ty.map_or_else(Vec::new, |ty| self.type_values(self.index.file_of(*t), scope, ty, hops + 1))
            }
            Value::Instance(t) => self.ruby_side(self.type_member(*t, name, hops + 1, &mut HashSet::default()), false),
            // Wrappers have only the standard methods (`wrapper_step`).
            Value::Wrapped(..) => Vec::new(),
            // The repository's impls for the type: `member_or_clone`, which knows the crate asking.
            Value::Outside(_) => Vec::new(),
            // A property of an object type written in place: a value of its type.
            Value::Record(record) => {
                let (file, scope, path) = &**record;
                let property = record_property(&path[1..], name);
                property.map_or_else(Vec::new, |ty| self.type_values(*file, *scope, ty, hops + 1))
            }
            // A method not yet called has no members.
            Value::Called(_) => Vec::new(),
        }
    }

    /// Members `name` of the repository's impls for the type of `value`, one the language provides
    /// or a standard wrapper (`impl U16 for u16`, `impl Ext for Vec<u32>`), that a use in `file`
    /// sees: its own crate's (another crate's impl is not in scope there), or of a trait it imports.
    fn outside_members(&self, file: FileId, value: &Value, name: &str) -> Vec<SymId> {
        let crate_root = |f: FileId| self.rust.files.get(&f).map(|r| r.crate_root);
        let ty = match value {
            Value::Outside(ty) => *ty,
            Value::Record(_) => self.outside.names.get(IN_PLACE).copied().unwrap_or(0),
            Value::Wrapped(wrap, _) => self.outside.names.get(wrap.marker()).copied().unwrap_or(0),
            _ => 0,
        };
        let here = crate_root(file);
        let impls = here.and_then(|_| self.outside.members.get(&(ty, name))).into_iter().flatten();
        impls.copied().filter(|&m| crate_root(self.index.file_of(m)) == here || self.trait_imported(file, m)).collect()
    }

    /// Whether an impl of the repository for the standard wrapper `values` are declares a member
    /// `name` that a use in `file` sees (`outside_members`).
    fn outside_wrapper_member(&self, file: FileId, values: &[Value], name: &str) -> bool {
        if !self.outside.member_names.contains(name) {
            return false;
        }
        let wrappers = self.wrappers(values, name, 0).unwrap_or_default();
        wrappers.iter().any(|v| !self.outside_members(file, v, name).is_empty())
    }

    /// A call of a standard method of wrappers (`x?`, `opt.unwrap()`, `items.first()`, a mapping
    /// closure's `map` followed by its projection segment `next`, `projection_step`): what it
    /// gives, when every value is a wrapper that has it.
    fn wrapper_step(
        &self,
        file: FileId,
        values: &[Value],
        name: &str,
        next: Option<&String>,
        hops: u32,
    ) -> Option<Vec<Value>> {
        if let Some(projected) = self.projection_step(file, values, name, next, hops) {
            return Some(projected);
        }
        let lang = self.lang(file);
        let values = self.wrappers(values, name, hops)?;
        let mut out = Vec::new();
        for v in values.iter() {
            let Value::Wrapped(wrap, inner) = v else { unreachable!("checked above") };
            let (_, _, step, _) = WRAPPER_METHODS
                .iter()
                .find(|(langs, w, _, names)| langs.contains(&lang) && w == wrap && names.contains(&name))?;
            match step {
                Step::Inner => out.extend(inner.iter().cloned()),
                Step::Same => out.push(v.clone()),
                Step::Slices => out.push(Value::Wrapped(Wrap::Sequence, vec![v.clone()].into())),
                Step::MaybeElement => out.push(Value::Wrapped(Wrap::Maybe, inner.clone())),
                Step::Indexed => {
                    let pair = Value::Wrapped(Wrap::Element(1), inner.clone());
                    out.push(Value::Wrapped(Wrap::Sequence, vec![pair].into()));
                }
                Step::Zipped => {
                    let pair = Value::Wrapped(Wrap::Element(0), inner.clone());
                    out.push(Value::Wrapped(*wrap, vec![pair].into()));
                }
                Step::Part(i) => out.extend(Self::unwrapped(inner.to_vec(), &[Wrap::Element(*i)])),
                Step::MaybePart(i) => {
                    let part = Self::unwrapped(inner.to_vec(), &[Wrap::Element(*i)]);
                    if !part.is_empty() {
                        out.push(Value::Wrapped(Wrap::Maybe, part.into()));
                    }
                }
                Step::Parts(i) => {
                    let part = Self::unwrapped(inner.to_vec(), &[Wrap::Element(*i)]);
                    if !part.is_empty() {
                        out.push(Value::Wrapped(Wrap::Sequence, part.into()));
                    }
                }
            }
        }
        Some(out)
    }

    /// The values inside wrappers: an option's value, a sequence's elements.
    fn unwrapped(values: Vec<Value>, wraps: &[Wrap]) -> Vec<Value> {
        values
            .into_iter()
            .flat_map(|v| match v {
                Value::Wrapped(w, inner) if wraps.contains(&w) => inner.into_vec(),
                _ => Vec::new(),
            })
            .collect()
    }

    /// The elements a `for` loop takes from `values`: those of standard sequences, options and maps,
    /// and the `Item` of a Rust type that implements `Iterator` or `IntoIterator`
    /// (`impl<'a> Iterator for ClassBytesIter<'a> { type Item = &'a ClassBytesRange; … }`).
    fn elements(&self, values: Vec<Value>, hops: u32) -> Vec<Value> {
        let mut out = Vec::new();
        for v in values {
            match v {
                Value::Wrapped(Wrap::Sequence | Wrap::Maybe | Wrap::Map, inner) => out.extend(inner.into_vec()),
                Value::Instance(t) if self.lang(self.index.file_of(t)) == Language::Rust => {
                    out.extend(self.iterator_items(t, hops));
                }
                _ => {}
            }
        }
        out
    }

    /// The values a Rust type `t` iterates over: the `Item` of its `Iterator` or `IntoIterator`
    /// impls (`impl<'a> Iterator for ClassBytesIter<'a> { type Item = &'a ClassBytesRange; … }`);
    /// none when it has no such impl.
    fn iterator_items(&self, t: SymId, hops: u32) -> Vec<Value> {
        let mut out = Vec::new();
        for item in self.named(Owner::Sym(t), "Item") {
            let decl = self.index.symbol(item);
            let iterates =
                decl.impl_trait.as_ref().and_then(|p| p.last()).is_some_and(|t| t == "Iterator" || t == "IntoIterator");
            let (Some(ty), true) = (&decl.returns, iterates) else { continue };
            let file = self.index.file_of(item);
            let scope = Some(self.index.syms[item as usize].1);
            out.extend(self.type_values(file, scope, ty, hops + 1));
        }
        out
    }

    /// The instances a field or variable holds: of its declared type, else of what it is
    /// initialised with.
    fn value_of(&self, s: SymId, hops: u32) -> Vec<Value> {
        if hops > MAX_HOPS {
            return Vec::new();
        }
        let sym = self.index.symbol(s);
        let file = self.index.file_of(s);
        let local = self.index.syms[s as usize].1;
        if let Some(ty) = &sym.returns {
            let scope = sym.container.or(Some(local));
            let found = self.type_values(file, scope, ty, hops);
            // Go: a type position never names a field, but `Engine *Engine` finds the field itself
            // in its struct's scope; the type is looked up from the scope around the struct.
            if found.is_empty() && sym.kind == SymbolKind::Field && self.lang(file) == Language::Go {
                if let Some(c) = sym.container {
                    let outer = self.index.files[file as usize].facts.symbols[c as usize].container;
                    return self.instances(self.resolve_path_hops(file, outer, ty, hops));
                }
            }
            return found;
        }
        match &sym.init {
            Some(init) => self.instances(self.local_value(file, init.scope, &init.origin, hops)),
            None => Vec::new(),
        }
    }

    /// Rust's choice among members of one name: an inherent method before trait methods; several
    /// trait impls (`impl From<A> for T`, `impl From<B> for T`) are told apart only by argument
    /// types, so they stay ambiguous (nothing is proven).
    fn rust_method_choice(&self, members: Vec<SymId>) -> Vec<SymId> {
        if members.len() < 2 || self.lang(self.index.file_of(members[0])) != Language::Rust {
            return members;
        }
        let (methods, mut out): (Vec<SymId>, Vec<SymId>) =
            members.into_iter().partition(|m| self.index.symbol(*m).kind.is_callable());
        let inherent: Vec<SymId> =
            methods.iter().copied().filter(|m| self.index.symbol(*m).impl_trait.is_none()).collect();
        if !inherent.is_empty() {
            out.extend(inherent);
        } else if methods.len() == 1 {
            out.extend(methods);
        }
        out
    }

    /// What calling the declarations among `values` gives.
    fn called(&self, values: &[Value]) -> Vec<Value> {
        let mut out = Vec::new();
        for v in values {
            match v {
                Value::Sym(s) => out.extend(self.call_result(*s)),
                Value::Called(result) => out.extend(result.iter().cloned()),
                _ => {}
            }
        }
        out
    }

    /// What calling any of `methods` gives, when they all give the same (`Value::Called`).
    fn common_result(&self, methods: &[SymId]) -> Option<Value> {
        let (&first, rest) = methods.split_first()?;
        let result = self.call_result(first);
        let same = rest.iter().all(|&m| self.call_result(m) == result);
        (same && !result.is_empty()).then(|| Value::Called(result.into()))
    }

    /// Whether `s` is a Rust enum variant with named fields (`CaptureName { name: .. }`).
    fn rust_struct_variant(&self, s: SymId) -> bool {
        let f = &self.index.files[self.index.file_of(s) as usize];
        let local = self.index.syms[s as usize].1;
        // Symbols are in source order: a variant's first field follows it.
        let has_fields = f.facts.symbols.get(local as usize + 1).is_some_and(|n| n.container == Some(local));
        f.language == Language::Rust && has_fields && self.variant_enum(s).is_some()
    }

    /// The enum a variant (an enum's constant member) belongs to.
    fn variant_enum(&self, s: SymId) -> Option<SymId> {
        let sym = self.index.symbol(s);
        let container = sym.container?;
        let owner = self.index.files[self.index.file_of(s) as usize].sym_base + container;
        (sym.kind == SymbolKind::Constant && self.index.symbol(owner).kind == SymbolKind::Enum).then_some(owner)
    }

    /// Members of a type, then of its supertypes (nearest first).
    fn type_member(&self, t: SymId, name: &str, hops: u32, seen: &mut HashSet<SymId>) -> Vec<Value> {
        if hops > MAX_HOPS || !seen.insert(t) {
            return Vec::new();
        }
        let mut own: Vec<SymId> = self.named(Owner::Sym(t), name).collect();
        for &p in self.c.partials.get(&t).into_iter().flatten() {
            if p != t {
                own.extend(self.named(Owner::Sym(p), name));
            }
        }
        if !own.is_empty() {
            let chosen = self.rust_method_choice(own.clone());
            if chosen.is_empty() {
                return self.common_result(&own).into_iter().collect();
            }
            return chosen.into_iter().map(Value::Sym).collect();
        }
        let mut out = Vec::new();
        for &(_, sup) in self.supertypes.get(&t).into_iter().flatten() {
            out.extend(self.type_member(sup, name, hops + 1, seen));
        }
        // A value of a struct variant is a value of its enum.
        if let Some(owner) = self.variant_enum(t) {
            out.extend(self.type_member(owner, name, hops + 1, seen));
        }
        // A type alias (a C/C++ typedef or `using`, Rust's `type OwnedDFA = DFA<Vec<u32>>`, an
        // associated `type Target = Inner;`) has the members of the type it names.
        let sym = self.index.symbol(t);
        if out.is_empty() && sym.kind == SymbolKind::Type {
            if let Some(target) = &sym.returns {
                let file = self.index.file_of(t);
                let aliased = self.resolve_path_hops(file, sym.container, target, hops + 1);
                // `type Props = { window: Pane }`: the property's type.
                for record in aliased.iter().filter(|v| matches!(v, Value::Record(_))) {
                    out.extend(self.member(record, name, hops + 1));
                }
                for aliased in self.types_of(aliased) {
                    out.extend(self.type_member(aliased, name, hops + 1, seen));
                }
            }
        }
        // A Rust type that implements `Deref` has the members of its `Target` (auto-deref).
        if out.is_empty() && self.lang(self.index.file_of(t)) == Language::Rust && name != "Target" {
            for target in self.named(Owner::Sym(t), "Target").collect::<Vec<_>>() {
                let decl = self.index.symbol(target);
                let derefs = decl.impl_trait.as_ref().and_then(|p| p.last()).is_some_and(|t| t == "Deref");
                let (Some(ty), true) = (&decl.returns, derefs) else { continue };
                let file = self.index.file_of(target);
                let scope = Some(self.index.syms[target as usize].1);
                for inner in self.types_of(self.resolve_path_hops(file, scope, ty, hops + 1)) {
                    out.extend(self.type_member(inner, name, hops + 1, seen));
                }
            }
        }
        out
    }

    fn file_member(&self, file: FileId, name: &str, hops: u32) -> Vec<Value> {
        let f = &self.index.files[file as usize];
        match f.language {
            Language::Rust => self.rust_module_member(RustOwner::File(file), name, hops),
            Language::Python => {
                let mut out: Vec<Value> = self.named(Owner::File(file), name).map(Value::Sym).collect();
                if out.is_empty() {
                    out = self.scoped_imports(file, None, name, hops);
                }
                if out.is_empty() {
                    if let Some(m) =
                        self.py.name_of.get(&file).and_then(|n| self.py.by_name.get(&format!("{n}.{name}")))
                    {
                        out.push(Value::File(*m));
                    }
                }
                if out.is_empty() {
                    out = self.globs(file, None, name, hops);
                }
                out
            }
            l if l.is_js_family() => {
                if name == "default" {
                    if let Some((local, sym)) = f.facts.symbols.iter().enumerate().find(|(_, s)| s.default_export) {
                        let _ = sym;
                        return vec![Value::Sym(f.sym_base + local as u32)];
                    }
                }
                // `export { a as b }` lists.
                let mut out = Vec::new();
                for (local_name, exported) in &f.facts.export_names {
                    if exported == name {
                        out.extend(self.head(file, None, local_name, hops + 1).unwrap_or_default());
                    }
                }
                if out.is_empty() && name != "default" {
                    out.extend(
                        self.named(Owner::File(file), name).filter(|&s| self.index.symbol(s).exported).map(Value::Sym),
                    );
                }
                if out.is_empty() {
                    // Re-exports: `export { x } from`, `export * as ns from`, then `export * from`.
                    for (i, imp) in f.facts.imports.iter().enumerate() {
                        if !imp.reexport {
                            continue;
                        }
                        for (j, item) in imp.items.iter().enumerate() {
                            if item.alias == name {
                                out.extend(self.import_item(file, i as u32, j as u32, hops + 1));
                            }
                        }
                    }
                }
                if out.is_empty() && name != "default" {
                    for (i, imp) in f.facts.imports.iter().enumerate() {
                        if imp.reexport && imp.kind == ImportKind::Glob {
                            for m in self.import_module(file, i as u32, hops + 1) {
                                out.extend(self.member(&m, name, hops + 1));
                            }
                        }
                    }
                }
                out
            }
            _ => self.named(Owner::File(file), name).map(Value::Sym).collect(),
        }
    }

    /// A name in a Rust module: its items, its `mod` children, its `use`s, then its globs.
    fn rust_module_member(&self, owner: RustOwner, name: &str, hops: u32) -> Vec<Value> {
        if hops > MAX_HOPS {
            return Vec::new();
        }
        let (file, scope) = match owner {
            RustOwner::File(f) => (f, None),
            RustOwner::Inline(s) => (self.index.file_of(s), Some(self.index.syms[s as usize].1)),
        };
        let table_owner = names_of(owner);
        let mut out: Vec<Value> = self
            .named(table_owner, name)
            .filter(|&s| self.index.symbol(s).kind != SymbolKind::Macro)
            .map(Value::Sym)
            .collect();
        let items = out.len();
        if let Some(child) = self.rust.child(owner, name) {
            out.push(Value::File(child));
        }
        if items == 0 {
            // A module and a function of one name live in different namespaces: `mod spawn;
            // pub use spawn::spawn;` makes `task::spawn` both (a call picks the function).
            out.extend(self.scoped_imports_left_out(file, scope, name, hops, Some(false)));
        }
        if out.is_empty() {
            out = self.globs(file, scope, name, hops);
        }
        if out.is_empty() {
            // A `use` the build configuration leaves out (`cfg_if!`'s other platforms') comes
            // after the globs it keeps.
            out = self.scoped_imports_left_out(file, scope, name, hops, Some(true));
        }
        if out.is_empty() && scope.is_none() {
            // The items of the templates the module invokes (`crate_root!();`) are its own.
            for &t in self.rust.spliced.get(&file).into_iter().flatten() {
                out.extend(self.rust_module_member(RustOwner::File(t), name, hops + 1));
            }
        }
        out
    }

    /// The module a Rust path names through the module tree alone — `self`, `crate`, `super`, a
    /// child module (`mod unix;`, an inline `mod`), a crate of the tree — following no import;
    /// `None` when a segment is not such a module.
    fn rust_module_path(&self, file: FileId, scope: Option<u32>, path: &[String]) -> Option<RustOwner> {
        let current = self.rust_current(file, scope);
        let child = |owner: RustOwner, name: &str| -> Option<RustOwner> {
            if let Some(child) = self.rust.child(owner, name) {
                return Some(RustOwner::File(child));
            }
            let mut inline =
                self.named(names_of(owner), name).filter(|&s| self.index.symbol(s).kind == SymbolKind::Module);
            if let Some(found) = inline.next() {
                return inline.next().is_none().then_some(RustOwner::Inline(found));
            }
            // An inline module a template the module invokes declares (`crate_root!()`'s `mod lib`).
            let RustOwner::File(file) = owner else { return None };
            let spliced = self.rust.spliced.get(&file).into_iter().flatten();
            spliced
                .flat_map(|&t| self.named(names_of(RustOwner::File(t)), name))
                .find_map(|s| (self.index.symbol(s).kind == SymbolKind::Module).then_some(RustOwner::Inline(s)))
        };
        let (first, rest) = path.split_first()?;
        let mut owner = match first.as_str() {
            "self" => current,
            "crate" | "$crate" => RustOwner::File(self.rust.files.get(&file)?.crate_root),
            "super" => self.rust_parent(file, &self.scope_chain(file, scope))?,
            name => child(current, name).or_else(|| self.rust.crates.get(name).map(|&c| RustOwner::File(c)))?,
        };
        for seg in rest {
            owner = match seg.as_str() {
                "super" => match owner {
                    RustOwner::File(f) => self.rust.files.get(&f)?.parent?,
                    RustOwner::Inline(_) => return None,
                },
                name => child(owner, name)?,
            };
        }
        Some(owner)
    }

    fn rust_extern(&self, name: &str) -> Vec<Value> {
        self.rust.crates.get(name).map(|&f| Value::File(f)).into_iter().collect()
    }

    /// `super` from a scope: the parent of the current module.
    fn rust_parent(&self, file: FileId, chain: &[u32]) -> Option<RustOwner> {
        let f = &self.index.files[file as usize];
        match chain.first().and_then(|&s| nearest_module(f, s)) {
            Some(m) => match f.facts.symbols[m as usize].container.and_then(|c| nearest_module(f, c)) {
                Some(pm) => Some(RustOwner::Inline(f.sym_base + pm)),
                None => Some(RustOwner::File(file)),
            },
            None => self.rust.files.get(&file).and_then(|r| r.parent),
        }
    }

    /// The module a scope of a file is in: its nearest inline `mod`, else the file.
    fn rust_current(&self, file: FileId, scope: Option<u32>) -> RustOwner {
        let f = &self.index.files[file as usize];
        match scope.and_then(|s| nearest_module(f, s)) {
            Some(m) => RustOwner::Inline(f.sym_base + m),
            None => RustOwner::File(file),
        }
    }

    fn go_package_name(&self, dir: &str) -> Option<String> {
        let files = self.go.dirs.get(dir)?;
        files
            .iter()
            .map(|&f| &self.index.files[f as usize])
            .filter(|f| !f.path.ends_with("_test.go"))
            .find_map(|f| f.facts.package.clone())
            .or_else(|| dir.rsplit('/').next().map(str::to_string))
    }

    fn go_scope(&self, file: FileId, name: &str, hops: u32) -> Vec<Value> {
        let f = &self.index.files[file as usize];
        for (i, imp) in f.facts.imports.iter().enumerate() {
            if imp.kind != ImportKind::Namespace {
                continue;
            }
            let alias = imp.items.first().map_or("", |it| it.alias.as_str());
            let bound = if alias.is_empty() {
                self.go
                    .resolve(&imp.module)
                    .and_then(|d| self.go_package_name(&d))
                    .unwrap_or_else(|| imp.module.rsplit('/').next().unwrap_or("").to_string())
            } else {
                alias.to_string()
            };
            if bound == name {
                return self.import_module(file, i as u32, hops + 1);
            }
        }
        let dir = GoModules::dir_of_file(&f.path);
        let package = f.facts.package.clone();
        let mut out = Vec::new();
        for &other in self.go.dirs.get(&dir).into_iter().flatten() {
            if self.index.files[other as usize].facts.package != package {
                continue;
            }
            out.extend(self.named(Owner::File(other), name).map(Value::Sym));
        }
        if out.is_empty() {
            out = self.globs(file, None, name, hops);
        }
        out
    }

    /// A C/C++ name at file level: the file's own declarations, then (C++) its `using`s, then what
    /// its includes declare; a function, variable or namespace declared only elsewhere (or not at
    /// all, in a C file) links to the file-level declarations with external linkage of that name:
    /// a call through a header's prototype reaches the definition in its source file.
    fn c_scope(&self, file: FileId, name: &str, hops: u32) -> Vec<Value> {
        let mut out: Vec<Value> = self.named(Owner::File(file), name).map(Value::Sym).collect();
        let external = |s: SymId| {
            let sym = self.index.symbol(s);
            sym.exported && matches!(sym.kind, SymbolKind::Function | SymbolKind::Variable)
        };
        if out.iter().any(|v| matches!(v, Value::Sym(s) if !self.index.symbol(*s).forward)) {
            // Defined here: also the prototypes its includes declare (the one entity's writings).
            if out.iter().any(|v| matches!(v, Value::Sym(s) if external(*s))) {
                for &inc in self.c.visible(file) {
                    out.extend(
                        self.named(Owner::File(inc), name)
                            .filter(|&s| self.index.symbol(s).forward && external(s))
                            .map(Value::Sym),
                    );
                }
            }
            return out;
        }
        if out.is_empty() {
            out = self.scoped_imports(file, None, name, hops);
        }
        if out.iter().all(|v| matches!(v, Value::Sym(s) if self.index.symbol(*s).forward)) {
            for &inc in self.c.visible(file) {
                out.extend(self.named(Owner::File(inc), name).map(Value::Sym));
            }
        }
        if out.is_empty() {
            // `using namespace n;` at file level.
            out = self.globs(file, None, name, hops);
        }
        // Forward declarations (or nothing, in C: an implicit declaration) link to the definitions.
        let links = out.iter().all(|v| matches!(v, Value::Sym(s) if self.index.symbol(*s).forward))
            && (!out.is_empty() || self.lang(file) == Language::C);
        if links {
            for &s in self.c.linkage.get(name).into_iter().flatten() {
                if !out.contains(&Value::Sym(s))
                    && self.index.files[self.index.file_of(s) as usize].language.is_c_family()
                {
                    out.push(Value::Sym(s));
                }
            }
        }
        out
    }

    /// A C# name outside every type and namespace: the file's own, its `using`s, then the global
    /// namespace (top-level namespaces, and types declared outside any namespace in any file).
    fn csharp_scope(&self, file: FileId, name: &str, hops: u32) -> Vec<Value> {
        let mut out: Vec<Value> = self.named(Owner::File(file), name).map(Value::Sym).collect();
        if out.is_empty() {
            out = self.scoped_imports(file, None, name, hops);
        }
        if out.is_empty() {
            out = self.csharp_usings(file, None, name, hops);
        }
        if out.is_empty() {
            out.extend(self.c.namespaces.get(name).into_iter().flatten().map(|&n| Value::Sym(n)));
        }
        if out.is_empty() {
            out.extend(self.c.global(Language::CSharp, name).iter().map(|&s| Value::Sym(s)));
        }
        out
    }

    /// Members of a Ruby class or module as seen from the class object (`Order.empty`: its
    /// singleton methods) or from an instance (`order.add`: its instance methods); other members
    /// and other languages' are kept.
    fn ruby_side(&self, members: Vec<Value>, class_object: bool) -> Vec<Value> {
        members
            .into_iter()
            .filter(|v| match v {
                Value::Sym(m) => {
                    let sym = self.index.symbol(*m);
                    sym.kind != SymbolKind::Method
                        || self.lang(self.index.file_of(*m)) != Language::Ruby
                        || sym.singleton == class_object
                }
                _ => true,
            })
            .collect()
    }

    /// A Swift name outside every type: the file's, its module's (every file of its `SwiftPM` target),
    /// then the modules it imports.
    fn swift_scope(&self, file: FileId, name: &str) -> Vec<Value> {
        let mut out: Vec<Value> = self.named(Owner::File(file), name).map(Value::Sym).collect();
        let module_files = |m: &str| self.c.swift_modules.get(m).map_or(&[][..], Vec::as_slice);
        if out.is_empty() {
            let own = self.c.swift_module_of.get(&file).map_or("", String::as_str);
            for &f in module_files(own) {
                out.extend(self.named(Owner::File(f), name).map(Value::Sym));
            }
        }
        if out.is_empty() {
            let f = &self.index.files[file as usize];
            for imp in f.facts.imports.iter().filter(|i| i.kind == ImportKind::Glob) {
                for &other in module_files(&imp.module) {
                    out.extend(
                        self.named(Owner::File(other), name).filter(|&s| self.index.symbol(s).exported).map(Value::Sym),
                    );
                }
            }
        }
        out
    }

    /// A PHP name outside every namespace: the file's own, its `use`s, then the global namespace
    /// (declarations outside any namespace, top-level namespaces).
    fn php_scope(&self, file: FileId, name: &str, hops: u32) -> Vec<Value> {
        let mut out: Vec<Value> = self.named(Owner::File(file), name).map(Value::Sym).collect();
        if out.is_empty() {
            out = self.scoped_imports(file, None, name, hops);
        }
        if out.is_empty() {
            out.extend(self.php_global(name));
        }
        if out.is_empty() {
            out.extend(self.c.namespaces.get(name).into_iter().flatten().map(|&n| Value::Sym(n)));
        }
        out
    }

    /// The declarations of `name` in PHP's global namespace (the autoloaded one, when PSR-4 says).
    fn php_global(&self, name: &str) -> Vec<Value> {
        let decls = self.c.global(Language::Php, name).to_vec();
        self.c.php_autoload(self.index, name, decls).into_iter().map(Value::Sym).collect()
    }

    /// What `using` directives written in `scope` bring in under `name`: the types of the namespaces
    /// they name (a `using` imports no nested namespace).
    fn csharp_usings(&self, file: FileId, scope: Option<u32>, name: &str, hops: u32) -> Vec<Value> {
        let mut out = Vec::new();
        for &i in self.glob_imports.get(&(file, scope)).into_iter().flatten() {
            for module in self.import_module(file, i, hops + 1) {
                let members = self.member(&module, name, hops + 1);
                out.extend(
                    members
                        .into_iter()
                        .filter(|v| !matches!(v, Value::Sym(s) if self.index.symbol(*s).kind == SymbolKind::Module)),
                );
            }
        }
        out
    }

    /// Member `name` of a C++ or C# namespace: declared in any file's writing of it.
    fn namespace_member(&self, ns: SymId, name: &str) -> Vec<Value> {
        let Some(qualified) = self.c.namespace_of.get(&ns) else {
            return self.named(Owner::Sym(ns), name).map(Value::Sym).collect();
        };
        let members: Vec<SymId> =
            self.c.namespaces[qualified].iter().flat_map(|&n| self.named(Owner::Sym(n), name)).collect();
        let members = match self.index.files[self.index.file_of(ns) as usize].language {
            Language::Php => self.c.php_autoload(self.index, &format!("{qualified}::{name}"), members),
            _ => members,
        };
        members.into_iter().map(Value::Sym).collect()
    }

    fn java_scope(&self, file: FileId, name: &str, hops: u32) -> Vec<Value> {
        let f = &self.index.files[file as usize];
        let mut out: Vec<Value> = self.named(Owner::File(file), name).map(Value::Sym).collect();
        if out.is_empty() {
            out = self.scoped_imports(file, None, name, hops);
        }
        if out.is_empty() {
            let package = f.facts.package.clone().unwrap_or_default();
            out = self
                .member(&Value::JavaPackage(package), name, hops + 1)
                .into_iter()
                .filter(|v| matches!(v, Value::Sym(_)))
                .collect();
        }
        if out.is_empty() {
            out = self.globs(file, None, name, hops);
        }
        if out.is_empty() && self.java.exists(name) {
            // A fully qualified name: `com.example.X`.
            out.push(Value::JavaPackage(name.to_string()));
        }
        out
    }

    fn java_fqn(&self, fqn: &str, hops: u32) -> Vec<SymId> {
        if hops > MAX_HOPS {
            return Vec::new();
        }
        let Some((package, class)) = fqn.rsplit_once('.') else { return Vec::new() };
        if self.java.exists(package) {
            return self.types_of(self.member(&Value::JavaPackage(package.to_string()), class, hops + 1));
        }
        // A nested class: `a.b.Outer.Inner`.
        self.java_fqn(package, hops + 1)
            .into_iter()
            .flat_map(|outer| self.types_of(self.type_member(outer, class, hops + 1, &mut HashSet::default())))
            .collect()
    }

    /// Resolves every reference chain and import item written in one file.
    fn file_refs(&self, fid: FileId) -> FileRefs {
        self.local_memo.borrow_mut().clear();
        self.outside_memo.borrow_mut().clear();
        let f = &self.index.files[fid as usize];
        let mut out = FileRefs { uncompiled: self.rust.uncompiled.contains(&fid), ..FileRefs::default() };
        let refs = &mut out.refs;
        {
            for (k, chain) in f.facts.refs.iter().enumerate() {
                self.at.set(Some(k as u32));
                self.reader.set(Some((fid, chain.enclosing)));
                // A template's sites are in its macro's scope (for its metavariables), but what
                // encloses them is what encloses the macro: the template runs where it is invoked.
                let mut enclosing = chain.enclosing;
                while let Some(e) = enclosing.filter(|&e| f.facts.symbols[e as usize].kind == SymbolKind::Macro) {
                    enclosing = f.facts.symbols[e as usize].container;
                }
                let enclosing = enclosing.map(|e| f.sym_base + e);
                let last = chain.segments.len() - 1;
                let callee_name = &chain.segments[last].0;
                if chain.opaque_head {
                    out.unresolved.push((k as u32, 0));
                    if chain.call {
                        out.unresolved_calls.push(callee_name.clone());
                    }
                    continue;
                }
                if chain.namespace == Namespace::Macros {
                    let (name, pos) = &chain.segments[last];
                    let len = name.chars().count() as u32;
                    let macros = self.macro_named(fid, chain.enclosing, &chain.segments);
                    for &target in &macros {
                        let (call, import, alias) = (false, false, false);
                        refs.push(RefSite { target, file: fid, pos: *pos, len, enclosing, call, import, alias });
                    }
                    if macros.is_empty() {
                        out.unresolved.push((k as u32, last as u32));
                    } else {
                        out.resolved += 1;
                    }
                    continue;
                }
                // A name given to a macro for its template to name something with.
                if let Some(given) = chain.argument.as_deref().filter(|_| f.language == Language::Rust) {
                    let (name, pos) = &chain.segments[0];
                    if let Some(targets) = self.argument_targets(fid, chain.enclosing, given, name) {
                        let len = name.chars().count() as u32;
                        for target in targets {
                            let (call, import, alias) = (false, false, false);
                            refs.push(RefSite { target, file: fid, pos: *pos, len, enclosing, call, import, alias });
                        }
                        out.resolved += 1;
                        continue;
                    }
                }
                // A chain of members of an unnamed value: the value stands before segment 0.
                let receiver = chain.receiver.as_ref().map(|r| self.receiver_values(fid, chain.enclosing, r));
                let head = match &receiver {
                    Some(values) => {
                        let call = (chain.call && last == 0) || chain.calls_at.first() == Some(&0);
                        let name = &chain.segments[0].0;
                        let members = self.by_use(self.member_or_clone(fid, values, name, call, 0), call);
                        if members.is_empty() && !values.is_empty() {
                            if let Some(types) = self.value_types(values) {
                                out.known_stops.push((k as u32, 0, types));
                            }
                        }
                        Some(members)
                    }
                    None => self.head_of(fid, chain.enclosing, &chain.segments[0].0, 0, chain.path_head),
                };
                let Some(mut values) = head else {
                    // A local of unknown type: nothing to prove, and a member of it (or a call of
                    // it) is unresolved.
                    if chain.segments.len() > 1 || chain.call {
                        out.unresolved.push((k as u32, u32::from(chain.segments.len() > 1)));
                        if chain.call {
                            out.unresolved_calls.push(callee_name.clone());
                        }
                    }
                    continue;
                };
                let aliased = receiver.is_none() && self.is_import_alias(fid, chain.enclosing, &chain.segments[0].0);
                let mut stopped_at = None;
                let mut known_stop = None;
                for (i, (seg_name, pos)) in chain.segments.iter().enumerate() {
                    if seg_name.starts_with(PROJECTION) {
                        continue;
                    }
                    let len = seg_name.chars().count() as u32;
                    let called_here = chain.calls_at.binary_search(&(i as u32)).is_ok();
                    let call = (chain.call && i == last) || called_here;
                    if i > 0 && (call || seg_name == MAYBE || seg_name == SEQUENCE) {
                        // A standard method of a wrapper: the chain goes on from what it gives.
                        let next = chain.segments.get(i + 1).map(|s| &s.0);
                        if let Some(stepped) = self.wrapper_step(fid, &values, seg_name, next, 0) {
                            // A standard method (`v.iter()` of a `Vec`) is no member of the
                            // repository's types, unless one of its impls for an outside type
                            // declares that name.
                            if call && !self.outside_wrapper_member(fid, &values, seg_name) {
                                out.known_stops.push((k as u32, i as u32, Box::default()));
                            }
                            values = stepped;
                            continue;
                        }
                    }
                    if i > 0 {
                        let members = self.each_name(fid, chain.enclosing, seg_name, |n| {
                            self.member_or_clone(fid, &values, n, called_here, 0)
                        });
                        let members = self.by_use(members, call);
                        if members.is_empty() && !values.is_empty() {
                            known_stop = self.value_types(&values);
                        } else if values.iter().all(|v| matches!(v, Value::Record(_))) {
                            // A property of an object type written in place: no declaration's.
                            out.known_stops.push((k as u32, i as u32, Box::default()));
                        }
                        values = members;
                    }
                    if values.is_empty() {
                        stopped_at = Some(i as u32);
                        let outside = i == 0 && last > 0 && receiver.is_none();
                        if outside && self.outside_head(fid, chain.enclosing, seg_name) {
                            // `std::mem::take`, `Box::new`, `Math.max`: the path's segments up to
                            // its first call are members of something outside the repository.
                            let end = chain.calls_at.first().map_or(last as u32, |&c| c.max(1));
                            out.known_stops.extend((1..=end).map(|j| (k as u32, j, Box::default())));
                        }
                        break;
                    }
                    if called_here && (self.is_clone(fid, seg_name, &values) || self.is_super_call(fid, i, seg_name)) {
                        // `x.clone()` of a type without an indexed `clone`, and Python's `super()`: the
                        // chain goes on from the instance.
                        continue;
                    }
                    let mut targets: Vec<SymId> =
                        values.iter().filter_map(|v| if let Value::Sym(s) = v { Some(*s) } else { None }).collect();
                    targets.sort_unstable();
                    targets.dedup();
                    // The sites this segment names: none for `Self` (the type, unspelled); through
                    // an impl of a trait, `Self::Duration` is `<Self as Trait>::Duration`, the
                    // trait's associated type (the chain goes on through the impl's).
                    // Nor for a template's metavariable (`$cons`): the name is written where the
                    // macro is invoked.
                    let named: Vec<SymId> = if f.language.is_self_type_keyword(seg_name)
                        || (f.language == Language::Rust && is_metavariable(seg_name))
                    {
                        Vec::new()
                    } else if i > 0 && f.language == Language::Rust {
                        let mut named: Vec<SymId> = targets.iter().map(|&t| self.projected(t)).collect();
                        named.sort_unstable();
                        named.dedup();
                        named
                    } else {
                        targets.clone()
                    };
                    for &t in &named {
                        // A C prototype's or out-of-line definition's name links it to the other
                        // writings of the declaration, not to itself.
                        if f.language.is_c_family()
                            && self.index.file_of(t) == fid
                            && self.index.symbol(t).name_pos == *pos
                        {
                            continue;
                        }
                        refs.push(RefSite {
                            target: t,
                            file: fid,
                            pos: *pos,
                            len,
                            enclosing,
                            call,
                            import: false,
                            alias: i == 0 && aliased,
                        });
                    }
                    if called_here {
                        // The chain goes on from what the call returns.
                        let unnamed =
                            values.iter().filter(|v| matches!(v, Value::Called(_))).cloned().collect::<Vec<_>>();
                        values =
                            targets.iter().flat_map(|&t| self.call_result(t)).chain(self.called(&unnamed)).collect();
                    }
                }
                if let Some(i) = stopped_at {
                    if let Some(types) = known_stop {
                        out.known_stops.push((k as u32, i, types));
                    }
                    out.unresolved.push((k as u32, i));
                    if chain.call {
                        out.unresolved_calls.push(callee_name.clone());
                    }
                } else {
                    out.resolved += 1;
                }
            }
            for (i, imp) in f.facts.imports.iter().enumerate() {
                for (j, item) in imp.items.iter().enumerate() {
                    let values = self.import_item(fid, i as u32, j as u32, 0);
                    let mut bound = false;
                    for v in &values {
                        if let Value::Sym(s) = v {
                            refs.push(RefSite {
                                target: *s,
                                file: fid,
                                pos: item.pos,
                                len: item.name.chars().count() as u32,
                                enclosing: None,
                                call: false,
                                import: true,
                                alias: false,
                            });
                            if imp.kind == ImportKind::Named || imp.kind == ImportKind::Default {
                                out.bindings.push(ImportBinding {
                                    file: fid,
                                    alias: item.alias.clone(),
                                    pos: item.pos,
                                    target: *s,
                                });
                                bound = true;
                            }
                        }
                    }
                    if !bound && !item.alias.is_empty() {
                        out.unbound_imports.push((i as u32, j as u32));
                        if values.is_empty() && self.outside_import(fid, imp) {
                            out.outside_imports.push((i as u32, j as u32));
                        }
                    }
                }
            }
        }
        out
    }

    /// Whether a head that resolves to nothing names what the language provides: an unbound builtin
    /// name (`Language::builtin_names`), or a name imported from the standard library
    /// (`Language::is_std_module`) that the repository doesn't declare.
    fn outside_head(&self, file: FileId, scope: Option<u32>, name: &str) -> bool {
        let key = (file, scope, name.to_string());
        if let Some(&known) = self.outside_memo.borrow().get(&key) {
            return known;
        }
        let outside = self.compute_outside_head(file, scope, name);
        self.outside_memo.borrow_mut().insert(key, outside);
        outside
    }

    fn compute_outside_head(&self, file: FileId, scope: Option<u32>, name: &str) -> bool {
        let f = &self.index.files[file as usize];
        let chain = self.scope_chain(file, scope);
        let visible = |imp: &&Import| imp.scope.is_none_or(|s| chain.contains(&s));
        let mut binding =
            f.facts.imports.iter().filter(visible).filter(|imp| imp.items.iter().any(|it| it.alias == name));
        if let Some(imp) = binding.next() {
            return self.outside_import(file, imp) && binding.all(|imp| self.outside_import(file, imp));
        }
        // A builtin, or a crate the manifests depend on that the repository doesn't hold
        // (`regex_test::RegexTests::new()` in a test of `regex`).
        let extern_crate = f.language == Language::Rust
            && self.rust.dependencies.contains(name)
            && !self.rust.crates.contains_key(name);
        (f.language.builtin_names().contains(&name) || f.language.opaque_types().contains(&name) || extern_crate)
            && !self.local_seen(file, scope, name)
    }

    /// Whether an import of `file` reads a module from outside the repository: the standard
    /// library's, or a Rust crate the repository doesn't hold.
    fn outside_import(&self, file: FileId, imp: &Import) -> bool {
        let language = self.index.files[file as usize].language;
        language.is_std_module(&imp.module)
            || (language == Language::Rust && self.rust_extern_module(file, imp.scope, &imp.module))
    }

    /// Whether a Rust `use` path that resolved to nothing starts at a crate the repository doesn't
    /// hold and no module in scope is named like (`use regex_test::TestRunner;` where no crate of
    /// the tree is `regex_test`).
    fn rust_extern_module(&self, file: FileId, scope: Option<u32>, module: &str) -> bool {
        let module = module.strip_prefix("::").unwrap_or(module);
        let root = module.split("::").next().unwrap_or_default();
        !root.is_empty()
            && !matches!(root, "crate" | "$crate" | "self" | "super" | "Self")
            && !self.rust.crates.contains_key(root)
            && self.head(file, scope, root, 1).is_none_or(|found| found.is_empty())
    }

    /// The declared types of proven values (`FileRefs::known_stops`); `None` when some value's type
    /// is not known (a function, a variable of no proven type).
    fn value_types(&self, values: &[Value]) -> Option<Box<[SymId]>> {
        let mut types = Vec::new();
        for v in values {
            match v {
                // An alias of a type from outside the repository is that type.
                Value::Instance(t) | Value::Sym(t) if self.aliases_outside(*t) => {}
                Value::Instance(t) => {
                    types.push(*t);
                    types.extend(self.variant_enum(*t));
                }
                Value::Sym(s) => {
                    let kind = self.index.symbol(*s).kind;
                    if kind.is_type() {
                        types.push(*s);
                    } else if matches!(kind, SymbolKind::Field | SymbolKind::Variable | SymbolKind::Constant) {
                        let held = self.held(vec![v.clone()], 1);
                        if held.is_empty() {
                            return None;
                        }
                        types.extend(self.value_types(&held)?.iter().copied());
                    } else if kind != SymbolKind::Module {
                        return None;
                    }
                }
                Value::File(_)
                | Value::GoPackage(_)
                | Value::JavaPackage(_)
                | Value::Wrapped(..)
                | Value::Outside(_)
                | Value::Record(_) => {}
                // A method, like a function's `Sym`.
                Value::Called(_) => return None,
            }
        }
        types.sort_unstable();
        types.dedup();
        Some(types.into())
    }

    /// Whether `t` is a type alias of a type from outside the repository (`type StateMap =
    /// std::collections::HashMap<State, LazyStateID>;`).
    fn aliases_outside(&self, t: SymId) -> bool {
        let sym = self.index.symbol(t);
        sym.kind == SymbolKind::Type
            && sym.impl_of.is_none()
            && sym
                .returns
                .as_deref()
                .is_some_and(|path| self.outside_type_name(self.index.file_of(t), sym.container, path).is_some())
    }

    /// Whether `name` is bound in scope by an import under another name (`import a as name`, `use
    /// x::A as name`) and not by a local first.
    fn is_import_alias(&self, file: FileId, scope: Option<u32>, name: &str) -> bool {
        if self.local_seen(file, scope, name) {
            return false;
        }
        let chain = self.scope_chain(file, scope);
        let f = &self.index.files[file as usize];
        f.facts.imports.iter().any(|imp| {
            imp.scope.is_none_or(|s| chain.contains(&s))
                && matches!(imp.kind, ImportKind::Named | ImportKind::Default)
                && imp
                    .items
                    .iter()
                    .any(|it| it.alias == name && !it.name.is_empty() && it.name != name && it.name != "default")
        })
    }

    /// The files one file depends on through its imports and `mod` declarations.
    fn file_deps(&self, fid: FileId) -> BTreeMap<FileId, DepVia> {
        let index = self.index;
        let f = &index.files[fid as usize];
        let mut deps = BTreeMap::new();
        {
            for (i, imp) in f.facts.imports.iter().enumerate() {
                let via = DepVia::Import(i as u32);
                let modules = self.import_module(fid, i as u32, 0);
                // The most specific module named: an imported item that is itself a module wins over
                // the module it was imported from.
                let mut item_modules = Vec::new();
                for j in 0..imp.items.len() {
                    for v in self.import_item(fid, i as u32, j as u32, 0) {
                        match v {
                            Value::File(m) => item_modules.push(m),
                            Value::Sym(s)
                                if matches!(f.language, Language::Java | Language::Php | Language::Kotlin) =>
                            {
                                item_modules.push(index.file_of(s));
                            }
                            _ => {}
                        }
                    }
                }
                let all_items_are_modules = !imp.items.is_empty()
                    && imp.items.len() == item_modules.len()
                    && matches!(f.language, Language::Python | Language::Rust);
                if !all_items_are_modules {
                    for m in &modules {
                        match m {
                            Value::File(m) => {
                                deps.entry(*m).or_insert(via);
                            }
                            Value::GoPackage(dir) => {
                                for &g in self.go.dirs.get(dir).into_iter().flatten() {
                                    if !index.files[g as usize].path.ends_with("_test.go") {
                                        deps.entry(g).or_insert(via);
                                    }
                                }
                            }
                            Value::Sym(s) if f.language == Language::Rust => {
                                // `use Enum::Variant` names the module that holds the enum.
                                deps.entry(index.file_of(*s)).or_insert(via);
                            }
                            _ => {}
                        }
                    }
                }
                for m in item_modules {
                    deps.entry(m).or_insert(via);
                }
            }
            for (i, decl_child) in f.facts.mods.iter().enumerate().filter_map(|(i, d)| {
                let owner = self.rust_current(fid, d.scope);
                Some((i, self.rust.child(owner, &d.name)?))
            }) {
                deps.entry(decl_child).or_insert(DepVia::Mod(i as u32));
            }
        }
        deps
    }
}
