//! The language-neutral facts extracted from one file: symbols, imports, reference chains, local
//! bindings and type relations. Extractors (one per language in `extract/`) produce a `FileFacts`;
//! the resolver (`resolve.rs`) turns the facts of all files into proven edges. Facts depend only on the
//! file's bytes, so they are keyed by its blake3 hash and never recomputed for unchanged content.

use serde::{Deserialize, Serialize};

/// Type paths may start with a wrapper marker (never a name): `?` an option or result of the rest
/// (`Option<T>`, `io::Result<T>`), `[]` a sequence of it (`Vec<T>`, `&[T]`, `[T; N]`).
pub const MAYBE: &str = "?";
pub const SEQUENCE: &str = "[]";
/// A cell of the rest (Rust's `RefCell<T>`, `Cell<T>`): the value inside is reached through
/// `borrow()`, `borrow_mut()`, `get()`.
pub const CELL: &str = "&";
/// A value convertible into the rest (Rust's `T: Into<X>`, `impl AsRef<X>`, `Borrow<X>`): the
/// value is reached through `into()`, `as_ref()`, `borrow()`.
pub const CONVERTIBLE: &str = "=>";
/// A map type: `{}` followed by the tuple path of its key and value types (`HashMap<K, V>`): its
/// elements are (key, value) pairs.
pub const MAP: &str = "{}";
/// A raw pointer to the rest (Rust's `*const T`; `*mut T` is `MUT_POINTER`'s): a value of the rest
/// once dereferenced (`(*p).x`), and of the pointer for the repository's impls for pointers
/// (`impl<T> Pointer for *const T`).
pub const POINTER: &str = "*";
pub const MUT_POINTER: &str = "*mut";
/// Whether a type path's first segment is a raw pointer's marker.
pub fn is_pointer(marker: &str) -> bool {
    marker == POINTER || marker == MUT_POINTER
}
/// A tuple type: `(,)` followed, for each element, by the length of its path and the path
/// (`(Sender<T>, usize)` is `["(,)", "1", "Sender", "0"]`; an element of no known type is empty).
pub const TUPLE: &str = "(,)";

/// A value of one of several types (TypeScript's `A | B`) or of all of them (`A & B`): `|` followed,
/// for each, by the length of its path and the path, as a tuple's elements are written. Its members
/// are those of each type.
pub const UNION: &str = "|";

/// A value of a type written in place (TypeScript's object type `{ delegate: D }` and function type
/// `(x: T) => U`): its members are its own (or, for a function, the language's `call`, `bind`), never
/// a member of a declared type.
pub const IN_PLACE: &str = "{..}";

/// The subject of a blanket implementation: every type that implements the trait after it (Rust's
/// `impl<S: AsyncSeek + ?Sized> AsyncSeekExt for S {}` is `["impl", "AsyncSeek"]`,
/// `TypeRelation::blanket_bound`).
pub const IMPLEMENTORS: &str = "impl";

/// A type parameter of the type a field is declared in (Rust's `struct Pre<P> { pre: P }` gives
/// `pre` the path `["<T>", "P"]`): a function of an impl of that type reads it as that impl bounds
/// it (`impl<P: PrefilterI> Pre<P>`: `self.pre` is a `PrefilterI`).
pub const PARAM: &str = "<T>";

/// A chain segment written after a call whose one argument is a closure giving a chain of its
/// parameter (`items.iter().map(|h| h.item())`): `|>` followed by that chain after the parameter,
/// its names joined by `.`, a called one followed by `()` (`|>item()`). The resolver maps the
/// elements of a standard method's receiver through it (`map`, `filter_map`); elsewhere it is no
/// name of anything and stands for no step.
pub const PROJECTION: &str = "|>";

/// The projection segment (`PROJECTION`) of a closure's chain after its parameter.
pub fn projection_segment(names: &[String], calls_at: &[u32]) -> String {
    let mut out = PROJECTION.to_string();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(name);
        if calls_at.contains(&(i as u32)) {
            out.push_str("()");
        }
    }
    out
}

/// The chain a projection segment holds (names, called indices); `None` for any other segment.
pub fn projection_body(segment: &str) -> Option<(Vec<String>, Vec<u32>)> {
    let body = segment.strip_prefix(PROJECTION)?;
    let mut names = Vec::new();
    let mut calls_at = Vec::new();
    for (i, part) in body.split('.').enumerate() {
        match part.strip_suffix("()") {
            Some(name) => {
                calls_at.push(i as u32);
                names.push(name.to_string());
            }
            None => names.push(part.to_string()),
        }
    }
    Some((names, calls_at))
}

/// `inner` behind a wrapper marker (`MAYBE`, `SEQUENCE`): `[]` + `Circle` is a sequence of circles.
pub fn marked(marker: &str, inner: Vec<String>) -> Vec<String> {
    std::iter::once(marker.to_string()).chain(inner).collect()
}

/// The path of a tuple type of these element paths (an element of no known type is empty); `None`
/// when no element's type is known (nothing could be proven of it).
pub fn tuple_path(elements: Vec<Vec<String>>) -> Option<Vec<String>> {
    if elements.iter().all(Vec::is_empty) {
        return None;
    }
    let mut out = vec![TUPLE.to_string()];
    for e in elements {
        out.push(e.len().to_string());
        out.extend(e);
    }
    Some(out)
}

/// The path of a union of these type paths (each known): the one path when there is one.
pub fn union_path(mut types: Vec<Vec<String>>) -> Option<Vec<String>> {
    if types.len() < 2 {
        return types.pop();
    }
    let mut out = vec![UNION.to_string()];
    for t in types {
        out.push(t.len().to_string());
        out.extend(t);
    }
    Some(out)
}

/// The path of a map type from its type arguments' paths (key and value; `None` without both).
pub fn map_path(mut arguments: Vec<Vec<String>>) -> Option<Vec<String>> {
    arguments.truncate(2);
    if arguments.len() < 2 {
        return None;
    }
    Some(marked(MAP, tuple_path(arguments)?))
}

/// The element paths of a tuple type's path (what follows `TUPLE`); `None` when malformed.
pub fn tuple_elements(rest: &[String]) -> Option<Vec<&[String]>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let n: usize = rest[i].parse().ok()?;
        let element = rest.get(i + 1..i + 1 + n)?;
        out.push(element);
        i += 1 + n;
    }
    Some(out)
}

/// The path of an object type written in place whose properties' types are known (TypeScript's
/// `{ window: Subject<T>; subs: Subscription }`): `IN_PLACE` followed, for each property, by its
/// name, the length of its type's path and the path (`IN_PLACE` alone when none is known).
pub fn record_path(properties: Vec<(String, Vec<String>)>) -> Vec<String> {
    let mut out = vec![IN_PLACE.to_string()];
    for (name, path) in properties.into_iter().filter(|(_, p)| !p.is_empty()) {
        out.push(name);
        out.push(path.len().to_string());
        out.extend(path);
    }
    out
}

/// The type path of property `name` of a record path (`record_path`'s elements after the marker).
pub fn record_property<'p>(rest: &'p [String], name: &str) -> Option<&'p [String]> {
    let mut i = 0;
    while i + 1 < rest.len() {
        let n: usize = rest[i + 1].parse().ok()?;
        let path = rest.get(i + 2..i + 2 + n)?;
        if rest[i] == name {
            return Some(path);
        }
        i += 2 + n;
    }
    None
}

/// A 1-based line and a 1-based column counted in Unicode characters, as an editor shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// What a declaration is. The names are the ones every front shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum SymbolKind {
    Class,
    Interface,
    Function,
    Method,
    Struct,
    Trait,
    Enum,
    Type,
    Module,
    Variable,
    Constant,
    Field,
    Macro,
    /// SQL objects: a table, a view, an index, a trigger, a stored procedure.
    Table,
    View,
    Index,
    Trigger,
    Procedure,
}

impl SymbolKind {
    /// Every kind, in declaration order (`kind as u8` is its place here).
    pub const ALL: [SymbolKind; 18] = [
        SymbolKind::Class,
        SymbolKind::Interface,
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Struct,
        SymbolKind::Trait,
        SymbolKind::Enum,
        SymbolKind::Type,
        SymbolKind::Module,
        SymbolKind::Variable,
        SymbolKind::Constant,
        SymbolKind::Field,
        SymbolKind::Macro,
        SymbolKind::Table,
        SymbolKind::View,
        SymbolKind::Index,
        SymbolKind::Trigger,
        SymbolKind::Procedure,
    ];

    /// Kinds whose members are looked up through `Type.member` / `Type::member`.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            SymbolKind::Class
                | SymbolKind::Interface
                | SymbolKind::Struct
                | SymbolKind::Trait
                | SymbolKind::Enum
                | SymbolKind::Type
                | SymbolKind::Table
                | SymbolKind::View
        )
    }

    /// Kinds that can be called and own call sites.
    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method | SymbolKind::Macro | SymbolKind::Procedure)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Class => "class",
            SymbolKind::Interface => "interface",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Struct => "struct",
            SymbolKind::Trait => "trait",
            SymbolKind::Enum => "enum",
            SymbolKind::Type => "type",
            SymbolKind::Module => "module",
            SymbolKind::Variable => "variable",
            SymbolKind::Constant => "constant",
            SymbolKind::Field => "field",
            SymbolKind::Macro => "macro",
            SymbolKind::Table => "table",
            SymbolKind::View => "view",
            SymbolKind::Index => "index",
            SymbolKind::Trigger => "trigger",
            SymbolKind::Procedure => "procedure",
        }
    }

    /// The kind a name of `as_str` names.
    pub fn parse(s: &str) -> Option<SymbolKind> {
        SymbolKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// One declaration in a file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[expect(clippy::struct_excessive_bools, reason = "independent facts of a declaration, not states of one")]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// Index (in `FileFacts::symbols`) of the enclosing class, impl type, trait, inline module or
    /// function. Rust `impl X` blocks have no symbol of their own: their items carry `impl_of`.
    pub container: Option<u32>,
    /// For members of a Rust `impl Type` / Go method receiver: the path of the type they belong to,
    /// resolved later in the file's scope (the type may live in another file).
    pub impl_of: Option<Vec<String>>,
    /// For a Rust `impl Trait for Type` member: the trait path.
    pub impl_trait: Option<Vec<String>>,
    pub start: Pos,
    pub end: Pos,
    /// Position of the declaration's name.
    pub name_pos: Pos,
    pub exported: bool,
    /// The first line of the declaration, trimmed.
    pub signature: String,
    /// The declared return type of a function, as a path (`Self`, `Circle`, `cart.Cart`), used to type
    /// locals initialised by a call.
    pub returns: Option<Vec<String>>,
    /// Declared here, defined elsewhere: a C/C++ function prototype, an `extern` variable (the
    /// resolver links it to the definitions with external linkage).
    pub forward: bool,
    /// A C# extension method: the type its `this` parameter names (it is a member of that type too).
    pub extension_of: Option<Vec<String>>,
    /// A Ruby singleton method (`def self.x`, in `class << self`): a method of the class object, not
    /// of its instances.
    pub singleton: bool,
    /// Set on the `export default` declaration of a JS/TS module.
    pub default_export: bool,
    /// First line of the comment block (and attributes/decorators) written right above the
    /// declaration — its doc comment — when there is one.
    pub doc_line: Option<u32>,
    /// The doc comment (or Python docstring), cleaned of comment markers, at most six lines.
    pub doc: Option<String>,
    /// A function's parameters as declared, for arguments typed by them (a callback's parameters,
    /// an object literal's keys).
    #[serde(default)]
    pub params: Vec<Param>,
    /// For a field or variable without a declared type: how its value's type is known from what is
    /// assigned to it (`self.client = Client()` in a constructor), and the scope whose names that is
    /// written in.
    #[serde(default)]
    pub init: Option<Box<Init>>,
}

/// One declared parameter of a function.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// Its declared type, as a path (`Options`, `geo.Circle`).
    pub ty: Option<Vec<String>>,
    /// When its type is a function type (`(source: Observable<T>, sink: Subscriber<R>) => void`):
    /// the declared types of that function's parameters, so a callback passed here has them.
    pub callback: Vec<Option<Vec<String>>>,
}

/// What a field or variable is initialised with, as a local's origin, in the scope of local symbol
/// `scope` (the method that assigns it; `None`: file level).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Init {
    pub origin: LocalOrigin,
    pub scope: Option<u32>,
}

/// How an import binds names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ImportKind {
    /// `import { a as b } from "m"`, `from m import a as b`, `use m::a as b`, `import a.b.C;` (Java).
    Named,
    /// `import d from "m"` (binds the module's default export).
    Default,
    /// `import * as ns from "m"`, `import m as ns` (Python), Go imports: binds the module itself.
    Namespace,
    /// `export * from "m"`, `from m import *`, `use m::*`, `import a.b.*;`: every name of the module.
    Glob,
    /// `import "m"` / `mod m;`: a dependency that binds nothing by itself.
    SideEffect,
}

/// One name bound by an import.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportItem {
    /// The name in the source module (`default` for a default import; empty for Namespace/Glob/SideEffect).
    pub name: String,
    /// The local name it is bound to (empty for Glob/SideEffect).
    pub alias: String,
    /// Where the imported name is written (the reference site an import counts as).
    pub pos: Pos,
}

/// One import or re-export statement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Import {
    /// The module as written, in the language's own syntax: `./geo`, `@app/x`, `..util.text`,
    /// `crate::shapes::circle`, `example.com/shop/money`, `com.example.shop.model`.
    pub module: String,
    pub kind: ImportKind,
    pub items: Vec<ImportItem>,
    /// Position of the statement (its first character).
    pub pos: Pos,
    /// `export ... from` (TS/JS) or `pub use` (Rust): the names are visible to importers of this file.
    pub reexport: bool,
    /// Index of the inline module (Rust) or function the import is written in; `None` at file level.
    pub scope: Option<u32>,
    /// Written where the build configuration the index reads by leaves it out (a Rust
    /// `#[cfg(windows)]` item, a `cfg_if!` branch for another platform): still an import, tried
    /// after the others.
    #[serde(default)]
    pub inactive: bool,
}

/// A name used somewhere: a single identifier or a chain `a.b.c` / `a::b::c`, with the position of
/// each segment. The resolver walks the chain from its head; every segment that resolves becomes a
/// reference site, and the last one is a call site when `call` is set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RefChain {
    pub segments: Vec<(String, Pos)>,
    /// The head is an expression that is not a name (`f().x`, `a[0].x`): only the tail is recorded,
    /// and it can't be resolved without types.
    pub opaque_head: bool,
    pub call: bool,
    /// Segments that are called on the way (`a.b().c()`: segment 1), ascending: the chain goes on
    /// from what the call returns (a declared return type, or the instance a class call makes).
    #[serde(default)]
    pub calls_at: Vec<u32>,
    /// Index of the innermost enclosing symbol (function, method, class, inline module).
    pub enclosing: Option<u32>,
    /// When set, the segments are members of a value the source doesn't name: the object
    /// destructured (`const { a, b } = this`) or an object literal where a type is declared
    /// (`f({ a: 1 })`, `const x: T = { a: 1 }`).
    #[serde(default)]
    pub receiver: Option<Box<Receiver>>,
    /// The head is followed by `::` (Rust's `ast::Concat`): it names a crate, module or type, never
    /// a local value of the same name.
    #[serde(default)]
    pub path_head: bool,
    /// Where its names are looked up: among items, or among macros (Rust's `name!(…)`).
    #[serde(default)]
    pub namespace: Namespace,
    /// Rust: the chain is one name given alone as an argument of a macro invocation
    /// (`define_checks!($m, new)`): where no value of that name is in scope, it names what the
    /// template's metavariable bound to it names (`$m::Finder::$cons(b)`).
    #[serde(default)]
    pub argument: Option<Box<MacroArgument>>,
}

/// Where a name is given to a macro: argument `index` of `given`, of an invocation of `name`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MacroArgument {
    pub name: String,
    pub index: u32,
    pub given: u32,
}

/// The names a chain can name: declarations, or macros (Rust's `macro_rules!`, whose names are a
/// namespace of their own: `format!` is no use of a function `format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Namespace {
    #[default]
    Items,
    Macros,
}

/// The value whose members a chain with a receiver names, then `members` of it in turn (a nested
/// object literal or pattern: `{ a: { b } }` names `b` of member `a`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Receiver {
    pub base: ReceiverBase,
    pub members: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReceiverBase {
    /// A value typed as a local would be (`this`, a typed name, a call, a declared type).
    Value(LocalOrigin),
    /// Argument `arg` of a call of the chain `callee` (`construct`: `new`), typed as the callee
    /// declares that parameter.
    Argument { callee: Vec<String>, calls_at: Vec<u32>, construct: bool, arg: u32 },
}

/// A local name in a function: a parameter or a variable. Locals shadow file-level names; a local
/// with a known type lets `x.method()` resolve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalBinding {
    pub name: String,
    /// The enclosing function/method symbol index; `None`: the file's top level (a callback or an
    /// object literal's method there, a `macro_rules!` template).
    pub scope: Option<u32>,
    /// How its type is known, if it is.
    pub origin: LocalOrigin,
    /// How many references of the file were recorded before it was bound (they come in source
    /// order): a use sees the latest binding of its name before it, as the language does.
    #[serde(default)]
    pub after_refs: u32,
    /// How many references had been recorded when the block holding it closed (a block, closure,
    /// match arm or function body, `Builder::block`): the uses from there on don't see it. `None`:
    /// its whole function.
    #[serde(default)]
    pub until_refs: Option<u32>,
}

impl LocalBinding {
    /// Whether the use that is reference `at` of the file sees it: bound before, in a block still
    /// open there.
    pub fn seen_at(&self, at: u32) -> bool {
        self.after_refs <= at && self.until_refs.is_none_or(|u| at < u)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LocalOrigin {
    /// No type we can prove (an untyped parameter, a literal, an expression).
    Unknown,
    /// A declared type: `x: Circle`, `Circle c`, `c *Cart`, `var c cart.Cart`.
    Declared(Vec<String>),
    /// Initialised by constructing a type: `new Circle()`, `Circle{}`, `&cart.Cart{}`.
    Constructed(Vec<String>),
    /// Initialised by calling something: `Circle::new()`, `cart.New()`, `Order(...)` in Python
    /// (a class call constructs; a function call gives its declared return type).
    CallResult(Vec<String>),
    /// Initialised by a chain through calls: `rt.handle().clone()` is the names `rt`, `handle`,
    /// `clone` with calls after the second and the third (indices into the names).
    CallChain(Vec<String>, Vec<u32>),
    /// A parameter of a callback passed to a function (`operate((source, sink) => …)`) or a
    /// constructor (`new Observable((sink) => …)`, `construct`): typed as parameter `param` of the
    /// function type declared for argument `arg` of the callee, the chain `callee` (with calls at
    /// `calls_at`, as in `CallChain`).
    Callback { callee: Vec<String>, calls_at: Vec<u32>, construct: bool, arg: u32, param: u32 },
    /// Member `name` of a value (`const { scheduler } = config`: member `scheduler` of `config`).
    Member(Box<LocalOrigin>, String),
    /// An element of a sequence (`for x in &self.items`, `items[0]`).
    Element(Box<LocalOrigin>),
    /// The value inside an option or result (`x?`, `if let Some(x) = …`, `Ok(x) =>`).
    Unwrapped(Box<LocalOrigin>),
    /// Field `index` of a tuple enum variant (`Fragment::Expr(expr) =>`), the variant a path.
    VariantField(Vec<String>, u32),
    /// Element `index` of a tuple (`let (tx, rx) = channel()`).
    TupleElement(Box<LocalOrigin>, u32),
    /// A standard wrapper (its marker: `MAYBE`) of a value (Rust's `Some(x)`, `Ok(x)`).
    Wrapped(String, Box<LocalOrigin>),
    /// What an invocation of the `macro_rules!` of this name gives, when its one rule writes one
    /// expression (`regex!(p)` of `($p:expr) => { Regex::new($p).unwrap() }`: the macro symbol's
    /// `init`).
    Expanded(String),
    /// One of several values of one type (the arms of a Rust `match`, the branches of an `if`):
    /// typed by the first whose type is known.
    Either(Vec<LocalOrigin>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum TypeRelKind {
    Extends,
    Implements,
}

/// `class A extends B`, `impl Shape for Circle`, `class Special(Order)`, `interface I extends J`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TypeRelation {
    /// The subtype's symbol index (ignored when `subject` is set).
    pub symbol: u32,
    /// The subtype as a path when it is not declared here (Rust `impl Trait for Type`).
    pub subject: Option<Vec<String>>,
    pub kind: TypeRelKind,
    /// The supertype as written, one element per segment.
    pub target: Vec<String>,
    /// Position of the supertype's last segment.
    pub pos: Pos,
}

impl TypeRelation {
    /// The bound of a blanket implementation's subject (`IMPLEMENTORS`): the trait whose every
    /// implementor the relation is for.
    pub fn blanket_bound(&self) -> Option<&[String]> {
        match self.subject.as_deref()? {
            [marker, bound @ ..] if marker == IMPLEMENTORS => Some(bound),
            _ => None,
        }
    }
}

/// Rust: an invocation of a macro by name (`finder_checks!(super, try_new)`), wherever the file's
/// text holds one (inside other macros' arguments and templates too), so that what a template's
/// metavariables stand for can be read from every invocation in the repository.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Invocation {
    /// The macro's name (the last of its path).
    pub name: String,
    /// The innermost symbol it is written in whose names its arguments are read among: a module,
    /// a function, or the `macro_rules!` whose template holds it (its arguments may be that
    /// template's metavariables, `$m`).
    pub scope: Option<u32>,
    /// Its arguments, separated by commas: each a path (`super`, `a::B`, `$m`), or empty when it
    /// is anything else (`&[u8]`, `1 + 2`). `None` when they can't be told apart (a `<` never
    /// closed).
    pub arguments: Option<Vec<Vec<String>>>,
}

/// Rust: the rules of a `macro_rules!` (the symbol), each as the metavariables its matcher binds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MacroRules {
    pub symbol: u32,
    pub rules: Vec<MacroRule>,
}

/// One rule of a `macro_rules!`: the metavariables of its matcher, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MacroRule {
    pub metavariables: Vec<String>,
    /// How many of them, from the first, an invocation binds to its arguments one each: all of a
    /// matcher that is a list of names, types or paths separated by commas (`($m:ident,
    /// $c:ident)`), those before a repetition ending it (`$ty:ident, $($n:ident),+`), none of
    /// another (what an expression or tokens are bound to is not read).
    pub positional: u32,
    /// An invocation gives exactly `positional` arguments (the matcher ends in no repetition).
    pub exact: bool,
    /// Metavariables the template uses where its code was not read (in tokens no parse gave
    /// structure to, or as the name of a declaration, `fn $name`): what their arguments name is
    /// not known from the template's sites.
    pub unread: Vec<String>,
}

impl MacroRule {
    /// Whether the rule may take an invocation of `given` arguments.
    pub fn takes(&self, given: usize) -> bool {
        let positional = self.positional as usize;
        given == positional || (!self.exact && given > positional)
    }
}

/// A Rust `mod name;` declaration (the module lives in another file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModDecl {
    pub name: String,
    pub pos: Pos,
    /// The inline module it is declared in, if any.
    pub scope: Option<u32>,
    /// A `#[path = "..."]` attribute, when present.
    pub path_attr: Option<String>,
    /// The argument-less macro whose transcriber declares it (`macro_rules! crate_root { () => {
    /// pub mod de; … } }`): a module of the file that invokes the macro, not of this one.
    pub template: Option<String>,
}

/// Everything extracted from one file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileFacts {
    pub symbols: Vec<Symbol>,
    pub imports: Vec<Import>,
    pub refs: Vec<RefChain>,
    pub locals: Vec<LocalBinding>,
    pub relations: Vec<TypeRelation>,
    pub mods: Vec<ModDecl>,
    /// Rust: the argument-less `macro_rules!` whose transcriber this file reads as its own items
    /// (their declarations are this file's symbols and `mods`, marked with the macro's name).
    pub templates: Vec<String>,
    /// Rust: the argument-less macros this file invokes where items go (`crate_root!();`): the
    /// items of their transcribers are this module's.
    pub splices: Vec<String>,
    /// Rust: the macro invocations of the file whose arguments a template's metavariables may be
    /// bound to (one entry per distinct invocation).
    #[serde(default)]
    pub invocations: Vec<Invocation>,
    /// Rust: the rules of each `macro_rules!` of the file.
    #[serde(default)]
    pub macro_rules: Vec<MacroRules>,
    /// Java `package a.b;` / Go `package x`.
    pub package: Option<String>,
    /// JS/TS `export { a as b }` lists: (local name, exported name).
    pub export_names: Vec<(String, String)>,
    /// Syntax errors tree-sitter recovered from (count), for diagnostics.
    pub error_nodes: u32,
    /// The syntax tree was nested deeper than the walker goes; what lies deeper is not extracted.
    pub truncated_depth: bool,
    /// The file's leading comment (or module docstring), cleaned like a doc comment.
    pub doc: Option<String>,
}

impl FileFacts {
    /// The Rust `macro_rules!` whose template the code at `scope` is in (its sites are in the
    /// macro's scope, or one within it).
    pub fn macro_around(&self, mut scope: Option<u32>) -> Option<u32> {
        while let Some(s) = scope.filter(|&s| self.symbols[s as usize].kind != SymbolKind::Macro) {
            scope = self.symbols[s as usize].container;
        }
        scope
    }
}
