//! Extraction for C and C++ (tree-sitter-c 0.24, tree-sitter-cpp 0.23: C++'s node kinds are a
//! superset of C's, so one walk reads both).
//!
//! Declarations: functions (a prototype and a definition are both symbols; the resolver links them
//! through linkage and includes), macros, structs/unions/enums, typedefs and `using` aliases,
//! globals; in C++ namespaces (as modules), classes with fields and methods, out-of-line `A::f`
//! definitions (methods with `impl_of` = the qualifying path), templates (the template is the symbol;
//! its parameters are no types). `static` (and C++'s anonymous namespaces) make a declaration
//! file-local: `exported` is its linkage. `#include` is a glob import of the included file, re-exported
//! (what a header includes, its includers see); `using namespace n` a glob import of the namespace,
//! `using n::x` a named one.
//! Locals: parameters, declarations in bodies, range-`for` bindings, typed by their declared type
//! (pointers, references, arrays and qualifiers stripped: `p->x` is a member of `p`'s type).

use super::{Field, Kind};
use tree_sitter::Node;

use super::chain::ChainWalker;
use super::{has_token, named_children, texts, Builder, ChainSyntax, Member, Segment, Walk};
use crate::facts::{ImportItem, ImportKind, LocalOrigin, SymbolKind, TypeRelKind};

pub(crate) fn extract(b: &mut Builder, root: Node) {
    let mut w = Walker { b, tparams: Vec::new(), local_linkage: false, class_access: None, in_function: false };
    w.walk_children(root);
}

/// The walk's state besides the builder.
struct Walker<'a, 's> {
    b: &'a mut Builder<'s>,
    /// Template parameters in scope: no type of the project.
    tparams: Vec<String>,
    /// Inside an anonymous namespace: every declaration is file-local.
    local_linkage: bool,
    /// Inside a class body: whether the members written now are public.
    class_access: Option<bool>,
    /// Inside a function body: declarations are locals.
    in_function: bool,
}

/// How C and C++ write chains: `a.b`, `p->b` (`field_expression`), calls, and wrappers looked
/// through (`(*p).x`, `(a).b`, `items[i].x`, `f<T>()`). Qualified names (`a::b::c`, right-nested in
/// this grammar) are read by `qualified_path`.
const CHAIN: ChainSyntax = ChainSyntax {
    names: &["identifier", "this", "field_identifier"],
    members: &[Member {
        kind: "field_expression",
        object: &["argument"],
        name: &["field"],
        rooted: false,
        path: false,
    }],
    member_calls: &[],
    silent_names: &[],
    calls: &["call_expression"],
    operators: &[],
    slices: &[],
    through: &[
        ("parenthesized_expression", None),
        ("pointer_expression", Some("argument")),
        ("subscript_expression", Some("argument")),
        ("template_function", Some("name")),
        ("template_method", Some("name")),
    ],
    extras: &[
        ("subscript_expression", "index"),
        ("subscript_expression", "indices"),
        ("template_function", "arguments"),
        ("template_method", "arguments"),
    ],
    typed_head: Some(head_type),
    arguments: None,
    closure: None,
};

/// `((T *)p)->x`: the type a C cast at the head of a chain declares.
fn head_type(b: &Builder, node: Node) -> Option<LocalOrigin> {
    let inner = if node.kind_str() == "parenthesized_expression" { node.named_child(0)? } else { node };
    let ty = match inner.kind_str() {
        "cast_expression" => inner.field("type")?.field("type")?,
        // `(new T(…))->m()`: a pointer to a `T`, which `->` goes through as it does a `T*` local's.
        "new_expression" => inner.field("type")?,
        _ => return None,
    };
    type_path_of(b, ty).map(|p| LocalOrigin::Declared(texts(&p)))
}

/// The path of a type as written, without template arguments: `ns::Vec<T>` → [ns, Vec];
/// `struct point` → [point]. Primitives, `auto` and `decltype` have none.
fn type_path_of(b: &Builder, ty: Node) -> Option<Vec<Segment>> {
    match ty.kind_str() {
        "type_identifier" | "namespace_identifier" | "identifier" => Some(vec![b.seg(ty)]),
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
            ty.field("name").and_then(|n| type_path_of(b, n))
        }
        "template_type" => ty.field("name").and_then(|n| type_path_of(b, n)),
        "qualified_identifier" => qualified_path(b, ty),
        _ => None,
    }
}

/// `a::b::c` (scope/name nested to the right) as its segments; `::x` (the global scope) as [x].
/// Template arguments are dropped (`a::B<T>::c` → [a, B, c]).
fn qualified_path(b: &Builder, node: Node) -> Option<Vec<Segment>> {
    let mut segs = Vec::new();
    let mut cur = node;
    for _ in 0..super::MAX_TYPE_NESTING * 8 {
        match cur.kind_str() {
            "qualified_identifier" => {
                if let Some(scope) = cur.field("scope") {
                    match scope.kind_str() {
                        "namespace_identifier" | "type_identifier" | "identifier" => segs.push(b.seg(scope)),
                        "template_type" => segs.push(b.seg(scope.field("name")?)),
                        _ => return None,
                    }
                }
                cur = cur.field("name")?;
            }
            "template_function" | "template_type" | "template_method" => {
                segs.push(b.seg(cur.field("name")?));
                return Some(segs);
            }
            "identifier" | "type_identifier" | "field_identifier" | "namespace_identifier" => {
                segs.push(b.seg(cur));
                return Some(segs);
            }
            // `A::~A`, `A::operator==`: not a name we follow.
            _ => return None,
        }
    }
    None
}

/// The name node a declarator declares and whether it declares a function:
/// `*(*f)(int)` → `f`; `a::b::f(int) const` → the qualified identifier.
fn declared_name(declarator: Node) -> Option<(Node, bool)> {
    let mut cur = declarator;
    let mut function = false;
    for _ in 0..super::MAX_TYPE_NESTING {
        match cur.kind_str() {
            "identifier"
            | "field_identifier"
            | "type_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "template_function" => return Some((cur, function)),
            "function_declarator" => {
                // `(*f)(int)` is a pointer to a function: a variable, not a function.
                let inner = cur.field("declarator")?;
                function = inner.kind_str() != "parenthesized_declarator";
                cur = inner;
            }
            "pointer_declarator"
            | "reference_declarator"
            | "array_declarator"
            | "init_declarator"
            | "parenthesized_declarator"
            | "attributed_declarator" => {
                cur = cur.field("declarator").or_else(|| cur.named_children(&mut cur.walk()).find(is_declarator))?;
            }
            _ => return None,
        }
    }
    None
}

fn is_declarator(n: &Node) -> bool {
    n.kind_str().ends_with("declarator")
        || matches!(n.kind_str(), "identifier" | "field_identifier" | "qualified_identifier")
}

/// The function declarator inside a declarator, if any (for its parameters).
fn function_declarator(declarator: Node) -> Option<Node> {
    let mut cur = declarator;
    for _ in 0..super::MAX_TYPE_NESTING {
        if cur.kind_str() == "function_declarator" {
            return Some(cur);
        }
        cur = cur.field("declarator")?;
    }
    None
}

/// Whether a declaration has `static` (or, for `extern`, says so) among its storage classes.
fn storage(b: &Builder, node: Node, class: &str) -> bool {
    named_children(node).iter().any(|c| c.kind_str() == "storage_class_specifier" && b.text(*c) == class)
}

impl<'s> ChainWalker<'s> for Walker<'_, 's> {
    fn builder(&mut self) -> &mut Builder<'s> {
        self.b
    }
}

impl Walk for Walker<'_, '_> {
    fn walk(&mut self, node: Node) {
        if !self.b.descend() {
            return;
        }
        match node.kind_str() {
            "comment"
            | "string_literal"
            | "raw_string_literal"
            | "char_literal"
            | "concatenated_string"
            | "number_literal"
            | "system_lib_string"
            | "true"
            | "false"
            | "null"
            | "nullptr"
            | "this"
            | "primitive_type"
            | "sized_type_specifier"
            | "auto"
            | "placeholder_type_specifier"
            | "storage_class_specifier"
            | "type_qualifier"
            | "access_specifier"
            | "virtual_specifier"
            | "preproc_arg"
            | "statement_identifier"
            | "escape_sequence"
            | "field_designator"
            | "destructor_name"
            | "operator_name"
            | "goto_statement"
            | "break_statement"
            | "continue_statement"
            | "attribute_declaration"
            | "ms_declspec_modifier" => {}
            "preproc_include" => self.include(node),
            "preproc_def" | "preproc_function_def" => {
                if let Some(name) = node.field("name") {
                    self.b.add_symbol(node, name, SymbolKind::Macro, true);
                }
            }
            "preproc_ifdef" => {
                // `#ifdef NAME`: a use of the macro; the branches hold declarations.
                for c in named_children(node) {
                    if Some(c) == node.field("name") {
                        let seg = self.b.seg(c);
                        self.b.add_ref(vec![seg], false, false);
                    } else {
                        self.walk(c);
                    }
                }
            }
            "preproc_defined" => {
                for c in named_children(node) {
                    if c.kind_str() == "identifier" {
                        let seg = self.b.seg(c);
                        self.b.add_ref(vec![seg], false, false);
                    }
                }
            }
            "function_definition" => self.function(node),
            "declaration" | "field_declaration" => self.declaration(node),
            "type_definition" => self.typedef(node),
            "struct_specifier" | "union_specifier" | "class_specifier" => self.record(node),
            "enum_specifier" => self.enumeration(node),
            "namespace_definition" => self.namespace(node),
            "namespace_alias_definition" => {
                // `namespace fs = std::filesystem;`: a named import of the namespace.
                let name = node.field("name");
                let target = named_children(node).into_iter().find(|c| Some(*c) != name);
                if let (Some(name), Some(target)) = (name, target) {
                    let path = self.namespace_path(target);
                    if let Some((last, _)) = path.last().cloned() {
                        let module = path[..path.len() - 1].iter().map(|s| s.0.as_str()).collect::<Vec<_>>().join("::");
                        let alias = self.b.text(name).to_string();
                        let item = ImportItem { name: last, alias, pos: self.b.pos(name) };
                        let pos = self.b.pos(node);
                        self.b.add_import(module, ImportKind::Named, vec![item], pos, false);
                    }
                }
            }
            "using_declaration" => self.using(node),
            "alias_declaration" => {
                // `using Name = Type;`
                if let Some(name) = node.field("name") {
                    let ty = node.field("type").and_then(|t| t.field("type"));
                    let returns = ty.and_then(|t| self.type_names(t));
                    let exported = self.exported(node);
                    let idx = self.b.add_symbol(node, name, SymbolKind::Type, exported);
                    self.b.symbol_mut(idx).returns = returns;
                }
                self.walk_opt(node.field("type"));
            }
            "template_declaration" => {
                let saved = self.tparams.len();
                if let Some(params) = node.field("parameters") {
                    for p in named_children(params) {
                        let name = p
                            .field("name")
                            .or_else(|| named_children(p).into_iter().find(|c| c.kind_str() == "type_identifier"));
                        if let Some(n) = name {
                            let text = self.b.text(n).to_string();
                            self.tparams.push(text);
                        }
                        if let Some(d) = p.field("default_type").or_else(|| p.field("default_value")) {
                            self.walk(d);
                        }
                    }
                }
                for c in named_children(node) {
                    if Some(c) != node.field("parameters") {
                        self.walk(c);
                    }
                }
                self.tparams.truncate(saved);
            }
            "linkage_specification" => self.walk_opt(node.field("body")),
            "parameter_declaration" | "optional_parameter_declaration" | "variadic_parameter_declaration" => {
                self.param(node);
            }
            "for_range_loop" => {
                let ty = node.field("type");
                self.walk_opt(ty);
                self.walk_opt(node.field("right"));
                if let Some((name, _)) = node.field("declarator").and_then(declared_name) {
                    let origin = ty.map_or(LocalOrigin::Unknown, |t| self.declared_origin(t));
                    self.local(name, origin);
                }
                self.walk_opt(node.field("body"));
            }
            "lambda_expression" => {
                if let Some(d) = node.field("declarator") {
                    self.walk_opt(d.field("parameters"));
                }
                self.walk_opt(node.field("body"));
            }
            "call_expression" => {
                let function = node.field("function");
                match function {
                    Some(f) if f.kind_str() == "qualified_identifier" => {
                        if let Some(path) = qualified_path(self.b, f) {
                            self.b.add_ref(path, true, false);
                        }
                        self.qualified_extras(f);
                        self.walk_opt(node.field("arguments"));
                    }
                    Some(f) if f.kind_str() == "primitive_type" => self.walk_opt(node.field("arguments")),
                    _ => super::chain::drive(self, node, false, &CHAIN),
                }
            }
            "field_expression" => super::chain::drive(self, node, false, &CHAIN),
            "new_expression" => {
                if let Some(ty) = node.field("type") {
                    if let Some(path) = self.checked_type_path(ty) {
                        self.b.add_ref(path, true, false);
                    }
                    self.type_extras(ty);
                }
                self.walk_opt(node.field("placement"));
                self.walk_opt(node.field("declarator"));
                self.walk_opt(node.field("arguments"));
            }
            "qualified_identifier" => {
                if let Some(path) = qualified_path(self.b, node) {
                    let tparam = path.len() == 1 && self.tparams.contains(&path[0].0);
                    if !tparam {
                        self.b.add_ref(path, false, false);
                    }
                }
                self.qualified_extras(node);
            }
            "template_type" => {
                if let Some(path) = self.checked_type_path(node) {
                    self.b.add_ref(path, false, false);
                }
                self.type_extras(node);
            }
            "identifier" | "type_identifier" | "namespace_identifier" => {
                let text = self.b.text(node);
                if !self.tparams.iter().any(|t| t == text) {
                    let seg = self.b.seg(node);
                    self.b.add_ref(vec![seg], false, false);
                }
            }
            // `.x = 1` in a designated initializer names a field of a type we don't follow here.
            "initializer_pair" => self.walk_opt(node.field("value")),
            "field_initializer" => {
                // `: r_(r)` in a constructor: the member of the class, then its arguments.
                for c in named_children(node) {
                    if c.kind_str() == "field_identifier" {
                        let seg = self.b.seg(c);
                        self.b.add_ref(vec![seg], false, false);
                    } else {
                        self.walk(c);
                    }
                }
            }
            "labeled_statement" => {
                for c in named_children(node) {
                    if c.kind_str() != "statement_identifier" {
                        self.walk(c);
                    }
                }
            }
            _ => self.walk_children(node),
        }
        self.b.ascend();
    }
}

impl<'s> Walker<'_, 's> {
    /// Runs `f` with `symbol` as the innermost enclosing symbol, in a fresh declaration context.
    fn within(&mut self, symbol: u32, access: Option<bool>, in_function: bool, f: impl FnOnce(&mut Walker<'_, 's>)) {
        let mut tparams = std::mem::take(&mut self.tparams);
        let local_linkage = self.local_linkage;
        self.b.within(symbol, |b| {
            let mut w =
                Walker { b, tparams: std::mem::take(&mut tparams), local_linkage, class_access: access, in_function };
            f(&mut w);
            tparams = w.tparams;
        });
        self.tparams = tparams;
    }

    /// Whether a declaration written now is visible outside its file (or, in a class, public).
    fn exported(&self, node: Node) -> bool {
        match self.class_access {
            Some(public) => public,
            None => !self.local_linkage && !storage(self.b, node, "static"),
        }
    }

    /// The template arguments inside a qualified name (`a::B<T>::c`): walked as types.
    fn qualified_extras(&mut self, node: Node) {
        let mut cur = Some(node);
        for _ in 0..super::MAX_TYPE_NESTING * 8 {
            let Some(n) = cur else { break };
            match n.kind_str() {
                "qualified_identifier" => {
                    if let Some(s) = n.field("scope").filter(|s| s.kind_str() == "template_type") {
                        self.walk_opt(s.field("arguments"));
                    }
                    cur = n.field("name");
                }
                "template_function" | "template_type" | "template_method" => {
                    self.walk_opt(n.field("arguments"));
                    break;
                }
                _ => break,
            }
        }
    }

    // ----- declarations -----

    fn include(&mut self, node: Node) {
        let Some(path) = node.field("path") else { return };
        let text = self.b.text(path);
        let module = match path.kind_str() {
            "string_literal" => text.trim_matches('"').to_string(),
            // `<x.h>`: kept in brackets, so the resolver looks only in the include directories.
            "system_lib_string" => text.to_string(),
            _ => return,
        };
        let pos = self.b.pos(node);
        self.b.add_import(module, ImportKind::Glob, Vec::new(), pos, true);
    }

    /// `using namespace a::b;` (a glob import of the namespace) or `using a::b::x;` (a named import).
    fn using(&mut self, node: Node) {
        let Some(target) = named_children(node).into_iter().find(|c| !c.kind_str().ends_with("comment")) else {
            return;
        };
        let path = self.namespace_path(target);
        if path.is_empty() {
            return;
        }
        let pos = self.b.pos(node);
        let texts: Vec<&str> = path.iter().map(|s| s.0.as_str()).collect();
        if has_token(node, "namespace") {
            self.b.add_import(texts.join("::"), ImportKind::Glob, Vec::new(), pos, false);
        } else if let Some((name, name_pos)) = path.last().cloned() {
            let module = texts[..texts.len() - 1].join("::");
            let item = ImportItem { alias: name.clone(), name, pos: name_pos };
            self.b.add_import(module, ImportKind::Named, vec![item], pos, false);
        }
    }

    /// The path a namespace name or `nested_namespace_specifier` writes.
    fn namespace_path(&self, node: Node) -> Vec<Segment> {
        match node.kind_str() {
            "nested_namespace_specifier" => named_children(node).into_iter().map(|c| self.b.seg(c)).collect(),
            "qualified_identifier" => qualified_path(self.b, node).unwrap_or_default(),
            "identifier" | "namespace_identifier" | "type_identifier" => vec![self.b.seg(node)],
            _ => Vec::new(),
        }
    }

    fn namespace(&mut self, node: Node) {
        let Some(name) = node.field("name") else {
            // `namespace { … }`: file-local.
            let saved = std::mem::replace(&mut self.local_linkage, true);
            self.walk_opt(node.field("body"));
            self.local_linkage = saved;
            return;
        };
        // `namespace a::b { … }` is `namespace a { namespace b { … } }`.
        let names: Vec<Node> = match name.kind_str() {
            "nested_namespace_specifier" => named_children(name),
            _ => vec![name],
        };
        self.nested_namespace(node, &names);
    }

    fn nested_namespace(&mut self, node: Node, names: &[Node]) {
        let Some((first, rest)) = names.split_first() else {
            self.walk_opt(node.field("body"));
            return;
        };
        let exported = !self.local_linkage;
        let idx = self.b.add_symbol(node, *first, SymbolKind::Module, exported);
        self.within(idx, None, false, |w| w.nested_namespace(node, rest));
    }

    /// A struct, union or class: with a body, a declaration; without, a use of the type.
    fn record(&mut self, node: Node) {
        let name = node.field("name");
        let Some(body) = node.field("body") else {
            if let Some(n) = name {
                self.walk(n);
            }
            return;
        };
        let kind = match node.kind_str() {
            "class_specifier" => SymbolKind::Class,
            _ => SymbolKind::Struct,
        };
        let public_default = node.kind_str() != "class_specifier";
        let idx = match name {
            Some(n) if n.kind_str() == "type_identifier" => {
                let exported = self.exported(node);
                self.b.add_symbol(node, n, kind, exported)
            }
            Some(n) if n.kind_str() == "qualified_identifier" => {
                // `struct a::B { … }`: defined out of its namespace; named by its last segment.
                let Some(path) = qualified_path(self.b, n) else { return };
                let (last, pos) = path.last().cloned().expect("a path has a segment");
                let exported = self.exported(node);
                self.b.add_symbol_named(node, last, pos, kind, exported)
            }
            _ => {
                // An anonymous struct: its fields are members of whatever declares it.
                self.walk(body);
                return;
            }
        };
        self.record_body(idx, node, body, public_default);
    }

    fn record_body(&mut self, idx: u32, node: Node, body: Node, public_default: bool) {
        for c in named_children(node) {
            if c.kind_str() == "base_class_clause" {
                for base in named_children(c) {
                    if let Some(path) = self.checked_type_path(base) {
                        let pos = path.last().map(|s| s.1).unwrap_or_default();
                        let target = path.iter().map(|s| s.0.clone()).collect();
                        self.b.add_relation(idx, TypeRelKind::Extends, target, pos);
                    }
                    self.walk(base);
                }
            }
        }
        self.within(idx, Some(public_default), false, |w| {
            for member in named_children(body) {
                if member.kind_str() == "access_specifier" {
                    w.class_access = Some(w.b.text(member).trim_end_matches(':').trim() == "public");
                } else {
                    w.walk(member);
                }
            }
        });
    }

    fn enumeration(&mut self, node: Node) {
        let name = node.field("name");
        let Some(body) = node.field("body") else {
            self.walk_opt(name);
            return;
        };
        // `enum class E` scopes its enumerators; a plain enum's are names of the enclosing scope.
        let scoped = has_token(node, "class") || has_token(node, "struct");
        let exported = self.exported(node);
        let idx = match name {
            Some(n) if n.kind_str() == "type_identifier" => {
                Some(self.b.add_symbol(node, n, SymbolKind::Enum, exported))
            }
            _ => None,
        };
        let enum_name = name.map(|n| self.b.text(n).to_string());
        let add = |w: &mut Walker<'_, 's>| {
            for e in named_children(body) {
                if e.kind_str() != "enumerator" {
                    w.walk(e);
                    continue;
                }
                if let Some(n) = e.field("name") {
                    let i = w.b.add_symbol(e, n, SymbolKind::Constant, exported);
                    w.b.symbol_mut(i).returns = enum_name.clone().map(|n| vec![n]);
                }
                w.walk_opt(e.field("value"));
            }
        };
        match idx {
            Some(i) if scoped => self.within(i, self.class_access, false, |w| add(w)),
            _ => add(self),
        }
    }

    fn typedef(&mut self, node: Node) {
        let ty = node.field("type");
        let mut cursor = node.walk();
        let declarators: Vec<Node> = node.children_by_field_name("declarator", &mut cursor).collect();
        // `typedef struct { … } name;`: the anonymous struct is named by the typedef.
        if let Some(t) = ty.filter(|t| {
            matches!(t.kind_str(), "struct_specifier" | "union_specifier" | "enum_specifier")
                && t.field("name").is_none()
                && t.field("body").is_some()
        }) {
            if let Some(&d) = declarators.first().filter(|d| d.kind_str() == "type_identifier") {
                let exported = self.exported(node);
                if t.kind_str() == "enum_specifier" {
                    let idx = self.b.add_symbol(node, d, SymbolKind::Enum, exported);
                    let _ = idx;
                    let body = t.field("body").expect("checked");
                    let name = self.b.text(d).to_string();
                    for e in named_children(body) {
                        if let Some(n) = e.field("name").filter(|_| e.kind_str() == "enumerator") {
                            let i = self.b.add_symbol(e, n, SymbolKind::Constant, exported);
                            self.b.symbol_mut(i).returns = Some(vec![name.clone()]);
                            self.walk_opt(e.field("value"));
                        }
                    }
                } else {
                    let idx = self.b.add_symbol(node, d, SymbolKind::Struct, exported);
                    self.record_body(idx, t, t.field("body").expect("checked"), true);
                }
                for other in &declarators[1..] {
                    self.typedef_name(node, *other, None);
                }
                return;
            }
        }
        let target = ty.and_then(|t| self.type_names(t));
        self.walk_opt(ty);
        for d in declarators {
            self.typedef_name(node, d, target.clone());
        }
    }

    /// One name a typedef declares: a type whose `returns` is what it names (followed for members).
    fn typedef_name(&mut self, node: Node, declarator: Node, target: Option<Vec<String>>) {
        let Some((name, function)) = declared_name(declarator) else { return };
        if name.kind_str() != "type_identifier" {
            return;
        }
        let exported = self.exported(node);
        let idx = self.b.add_symbol(node, name, SymbolKind::Type, exported);
        // A pointer to a function names no type with members.
        let pointer_to_function = function || function_declarator(declarator).is_some();
        if !pointer_to_function {
            self.b.symbol_mut(idx).returns = target;
        }
        if let Some(f) = function_declarator(declarator) {
            self.walk_opt(f.field("parameters"));
        }
    }

    /// A function definition.
    fn function(&mut self, node: Node) {
        let Some(declarator) = node.field("declarator") else {
            self.walk_children(node);
            return;
        };
        let ty = node.field("type");
        self.walk_opt(ty);
        let Some((name, _)) = declared_name(declarator) else {
            self.walk_opt(node.field("body"));
            return;
        };
        let returns = ty.and_then(|t| self.type_names(t));
        let in_class = self.class_access.is_some();
        let (idx, qualified) = match name.kind_str() {
            "qualified_identifier" => {
                // `double geo::Circle::area() const { … }`: a member of the type its scope names.
                let Some(path) = qualified_path(self.b, name) else {
                    self.walk_opt(node.field("body"));
                    return;
                };
                let (last, pos) = path.last().cloned().expect("a path has a segment");
                let scope: Vec<String> = path[..path.len() - 1].iter().map(|s| s.0.clone()).collect();
                let exported = !self.local_linkage && !storage(self.b, node, "static");
                let idx = self.b.add_symbol_named(node, last, pos, SymbolKind::Method, exported);
                self.b.symbol_mut(idx).impl_of = Some(scope);
                // The name is also a use of the declaration in the class (`refs` of it find both).
                self.b.add_ref(path, false, false);
                (idx, true)
            }
            "identifier" | "field_identifier" | "type_identifier" => {
                let kind = if in_class { SymbolKind::Method } else { SymbolKind::Function };
                let exported = self.exported(node);
                let idx = self.b.add_symbol(node, name, kind, exported);
                self.links_to_declarations(name);
                (idx, false)
            }
            _ => {
                // Destructors, operators, conversion functions: their bodies still call things.
                self.walk_opt(function_declarator(declarator).and_then(|f| f.field("parameters")));
                self.walk_opt(node.field("body"));
                return;
            }
        };
        let _ = qualified;
        self.b.symbol_mut(idx).returns = returns;
        self.within(idx, None, true, |w| {
            if let Some(f) = function_declarator(declarator) {
                w.walk_opt(f.field("parameters"));
            }
            for c in named_children(node) {
                if c.kind_str() == "field_initializer_list" {
                    w.walk(c);
                }
            }
            w.walk_opt(node.field("body"));
        });
    }

    /// `int x = 1, *y;`, `int f(int);`, a field, a local.
    fn declaration(&mut self, node: Node) {
        let ty = node.field("type");
        let mut cursor = node.walk();
        let declarators: Vec<Node> = node.children_by_field_name("declarator", &mut cursor).collect();
        if declarators.iter().any(|d| declared_name(*d).is_some_and(|(_, f)| f)) && !self.in_function {
            // `int f(int);` or a method declared in its class.
            for d in &declarators {
                if declared_name(*d).is_some_and(|(_, f)| f) {
                    self.prototype(node, *d);
                }
            }
            return;
        }
        let path = ty.and_then(|t| self.checked_type_path(t));
        // `Circle c(2.0);`, `Circle c{2.0};`: a local constructed by a call of the class.
        // (`Point p = { 1, 2 };` initialises an aggregate: no call.)
        let constructs = self.in_function
            && self.b.language == crate::lang::Language::Cpp
            && declarators.iter().any(|d| {
                d.kind_str() == "init_declarator"
                    && !has_token(*d, "=")
                    && d.field("value").is_some_and(|v| matches!(v.kind_str(), "argument_list" | "initializer_list"))
            });
        match (&path, ty) {
            (Some(p), Some(t)) if constructs => {
                self.b.add_ref(p.clone(), true, false);
                self.type_extras(t);
            }
            _ => self.walk_opt(ty),
        }
        for d in declarators {
            let value = if d.kind_str() == "init_declarator" { d.field("value") } else { None };
            let Some((name, _)) = declared_name(d) else {
                self.walk(d);
                continue;
            };
            self.declarator_extras(d);
            if self.in_function {
                if let Some(f) = function_declarator(d) {
                    self.vexing_arguments(f);
                }
                let origin = match (value, &path) {
                    (Some(v), None) => self.value_origin(v),
                    (_, Some(p)) => LocalOrigin::Declared(p.iter().map(|s| s.0.clone()).collect()),
                    _ => LocalOrigin::Unknown,
                };
                self.local(name, origin);
            } else if matches!(name.kind_str(), "identifier" | "field_identifier") {
                let kind = if self.class_access.is_some() { SymbolKind::Field } else { SymbolKind::Variable };
                let exported = self.exported(node);
                let idx = self.b.add_symbol(node, name, kind, exported);
                self.b.symbol_mut(idx).returns = path.as_ref().map(|p| p.iter().map(|s| s.0.clone()).collect());
                if storage(self.b, node, "extern") && value.is_none() {
                    // `extern int x;` declares what another file defines.
                    self.b.symbol_mut(idx).forward = true;
                }
                if self.class_access.is_none() {
                    self.links_to_declarations(name);
                }
            }
            self.walk_opt(value);
        }
        // Bit widths and default member initialisers.
        self.walk_opt(node.field("default_value"));
    }

    /// A declaration's name is also a use of the other writings of what it declares: a prototype of
    /// the definition (wherever the linker finds it), a definition of the prototypes it sees, a
    /// method declared in its class of the definition outside it. The resolver links them (a name
    /// never refers to its own declaration), so `refs` of any writing finds the others.
    fn links_to_declarations(&mut self, name: Node) {
        // A constructor's name is its class's: it names no other writing to link.
        let class = self.b.enclosing().map(|c| &self.b.facts.symbols[c as usize]);
        if class.is_some_and(|c| c.kind.is_type() && c.name == self.b.text(name)) {
            return;
        }
        let seg = self.b.seg(name);
        self.b.add_ref(vec![seg], false, false);
    }

    /// A function declared without a body, in a declaration.
    fn prototype(&mut self, node: Node, declarator: Node) {
        let ty = node.field("type");
        let Some((name, _)) = declared_name(declarator) else { return };
        if !matches!(name.kind_str(), "identifier" | "field_identifier") {
            self.walk_opt(ty);
            return;
        }
        self.walk_opt(ty);
        let in_class = self.class_access.is_some();
        let kind = if in_class { SymbolKind::Method } else { SymbolKind::Function };
        let exported = self.exported(node);
        let idx = self.b.add_symbol(node, name, kind, exported);
        let returns = ty.and_then(|t| self.type_names(t));
        self.b.symbol_mut(idx).returns = returns;
        self.b.symbol_mut(idx).forward = true;
        self.links_to_declarations(name);
        self.within(idx, None, true, |w| {
            if let Some(f) = function_declarator(declarator) {
                w.walk_opt(f.field("parameters"));
            }
        });
    }

    /// `Comparator cmp(BytewiseComparator());` in a body reads as a function declaration, but names a
    /// local constructed from a call: a "parameter" written `T()` is a call of `T` (a function, or a
    /// class whose temporary is constructed), any other one's type a use.
    fn vexing_arguments(&mut self, declarator: Node) {
        let Some(params) = declarator.field("parameters") else { return };
        for p in named_children(params) {
            let Some(ty) = p.field("type") else { continue };
            let called = p.field("declarator").is_some_and(|d| d.kind_str() == "abstract_function_declarator");
            match self.checked_type_path(ty) {
                Some(path) => {
                    self.b.add_ref(path, called, false);
                    self.type_extras(ty);
                }
                None => self.walk(ty),
            }
        }
    }

    /// Array sizes inside a declarator (`int a[N]`): uses.
    fn declarator_extras(&mut self, declarator: Node) {
        let mut cur = Some(declarator);
        for _ in 0..super::MAX_TYPE_NESTING {
            let Some(d) = cur else { break };
            if d.kind_str() == "array_declarator" {
                self.walk_opt(d.field("size"));
            }
            cur = d.field("declarator");
        }
    }

    fn param(&mut self, node: Node) {
        let ty = node.field("type");
        self.walk_opt(ty);
        let origin = ty.map_or(LocalOrigin::Unknown, |t| self.declared_origin(t));
        if let Some(d) = node.field("declarator") {
            self.declarator_extras(d);
            if let Some((name, _)) = declared_name(d) {
                if self.in_function {
                    self.local(name, origin);
                }
            }
        }
        self.walk_opt(node.field("default_value"));
    }

    // ----- locals -----

    fn local(&mut self, name: Node, origin: LocalOrigin) {
        if name.kind_str() == "identifier" {
            let text = self.b.text(name).to_string();
            self.b.add_local(&text, origin);
        }
    }

    fn declared_origin(&self, ty: Node) -> LocalOrigin {
        match self.checked_type_path(ty) {
            Some(p) => LocalOrigin::Declared(p.into_iter().map(|s| s.0).collect()),
            None => LocalOrigin::Unknown,
        }
    }

    /// The origin of an `auto` local from its initialiser.
    fn value_origin(&self, value: Node) -> LocalOrigin {
        match value.kind_str() {
            "new_expression" => value
                .field("type")
                .and_then(|t| self.checked_type_path(t))
                .map_or(LocalOrigin::Unknown, |p| LocalOrigin::Constructed(p.into_iter().map(|s| s.0).collect())),
            "call_expression" => {
                let Some(f) = value.field("function") else { return LocalOrigin::Unknown };
                let path = match f.kind_str() {
                    "qualified_identifier" => qualified_path(self.b, f),
                    _ => CHAIN.names(self.b, f),
                };
                path.map_or(LocalOrigin::Unknown, |p| LocalOrigin::CallResult(p.into_iter().map(|s| s.0).collect()))
            }
            _ => LocalOrigin::Unknown,
        }
    }

    // ----- types -----

    /// A type's path, unless it is a template parameter in scope (or names none).
    fn checked_type_path(&self, ty: Node) -> Option<Vec<Segment>> {
        let path = type_path_of(self.b, ty)?;
        if path.len() == 1 && self.tparams.iter().any(|t| *t == path[0].0) {
            return None;
        }
        Some(path)
    }

    /// `checked_type_path` as names only.
    fn type_names(&self, ty: Node) -> Option<Vec<String>> {
        self.checked_type_path(ty).map(|p| p.into_iter().map(|s| s.0).collect())
    }

    /// The template arguments of a type (`std::vector<Order>`'s `Order`).
    fn type_extras(&mut self, ty: Node) {
        match ty.kind_str() {
            "template_type" => self.walk_opt(ty.field("arguments")),
            "qualified_identifier" => self.qualified_extras(ty),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::{FileFacts, ImportKind, LocalOrigin, SymbolKind, TypeRelKind};
    use crate::lang::Language;

    fn names(f: &FileFacts) -> Vec<(&str, SymbolKind, Option<u32>, bool, bool)> {
        f.symbols.iter().map(|s| (s.name.as_str(), s.kind, s.container, s.exported, s.forward)).collect()
    }

    use crate::extract::testing::refs;

    fn local<'f>(f: &'f FileFacts, name: &str) -> &'f LocalOrigin {
        &f.locals.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no local {name}")).origin
    }

    #[test]
    fn c_declarations_linkage_and_prototypes() {
        let src = r#"#include "geo.h"
#include <stdio.h>
#define MAX 10
#define SQ(x) ((x) * (x))
typedef struct { int x; } anon_t;
typedef struct point { int x; } point_t;
enum color { RED, GREEN = 2 };
static int counter = 0;
extern int shared;
int area(const struct point *p);
static int helper(int a) { return a + 1; }
int area(const struct point *p) { return helper(p->x) + SQ(MAX) + shared; }
typedef int (*callback)(int);
"#;
        let f = extract(Language::C, src);
        use SymbolKind::*;
        assert_eq!(
            names(&f),
            vec![
                ("MAX", Macro, None, true, false),
                ("SQ", Macro, None, true, false),
                ("anon_t", Struct, None, true, false),
                ("x", Field, Some(2), true, false),
                ("point", Struct, None, true, false),
                ("x", Field, Some(4), true, false),
                ("point_t", Type, None, true, false),
                ("color", Enum, None, true, false),
                // A C enumerator is a name of the enclosing scope.
                ("RED", Constant, None, true, false),
                ("GREEN", Constant, None, true, false),
                ("counter", Variable, None, false, false),
                ("shared", Variable, None, true, true),
                ("area", Function, None, true, true),
                ("helper", Function, None, false, false),
                ("area", Function, None, true, false),
                ("callback", Type, None, true, false),
            ]
        );
        assert_eq!(f.symbols[6].returns.as_deref(), Some(&["point".to_string()][..]));
        // A pointer-to-function typedef names no type with members.
        assert_eq!(f.symbols[15].returns, None);
        let imports: Vec<(&str, ImportKind, bool)> =
            f.imports.iter().map(|i| (i.module.as_str(), i.kind, i.reexport)).collect();
        assert_eq!(imports, vec![("geo.h", ImportKind::Glob, true), ("<stdio.h>", ImportKind::Glob, true)]);
        let r = refs(&f);
        assert!(r.contains(&(vec!["helper"], true)));
        assert!(r.contains(&(vec!["p", "x"], false)));
        assert!(r.contains(&(vec!["SQ"], true)));
        assert!(r.contains(&(vec!["MAX"], false)));
        assert!(r.contains(&(vec!["point"], false)));
        assert_eq!(local(&f, "p"), &LocalOrigin::Declared(vec!["point".into()]));
        // Each writing of `area` (and of `shared`, `counter`) names the others.
        assert_eq!(r.iter().filter(|(s, c)| s == &vec!["area"] && !c).count(), 2);
        assert!(r.contains(&(vec!["shared"], false)));
    }

    #[test]
    fn cpp_namespaces_classes_and_out_of_line_members() {
        let src = r"namespace a::b { class Base {}; }
namespace geo {
using namespace std;
using a::b::Base;
namespace { int hidden() { return 1; } }
template <typename T> T twice(T x) { return x + x; }
class Circle : public a::b::Base {
    int r_;
public:
    Circle(int r);
    int area() const;
    static Circle* make() { return new Circle(1); }
};
}
int geo::Circle::area() const { return r_ * this->r_; }
void run(geo::Circle& c) {
    geo::Circle local(2);
    auto p = new geo::Circle(3);
    c.area();
    geo::twice<int>(2);
}
";
        let f = extract(Language::Cpp, src);
        use SymbolKind::*;
        let got: Vec<(&str, SymbolKind, Option<u32>, bool)> =
            f.symbols.iter().map(|s| (s.name.as_str(), s.kind, s.container, s.exported)).collect();
        assert_eq!(
            got,
            vec![
                ("a", Module, None, true),
                ("b", Module, Some(0), true),
                ("Base", Class, Some(1), true),
                ("geo", Module, None, true),
                ("hidden", Function, Some(3), false),
                ("twice", Function, Some(3), true),
                ("Circle", Class, Some(3), true),
                ("r_", Field, Some(6), false),
                ("Circle", Method, Some(6), true),
                ("area", Method, Some(6), true),
                ("make", Method, Some(6), true),
                ("area", Method, None, true),
                ("run", Function, None, true),
            ]
        );
        assert_eq!(f.symbols[11].impl_of.as_deref(), Some(&["geo".to_string(), "Circle".to_string()][..]));
        assert!(f.symbols[9].forward && !f.symbols[11].forward);
        let rel = &f.relations[0];
        assert_eq!(
            (rel.symbol, rel.kind, rel.target.clone()),
            (6, TypeRelKind::Extends, vec!["a".into(), "b".into(), "Base".into()])
        );
        let imports: Vec<(&str, ImportKind, Vec<&str>)> = f
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.kind, i.items.iter().map(|x| x.name.as_str()).collect()))
            .collect();
        assert_eq!(imports, vec![("std", ImportKind::Glob, vec![]), ("a::b", ImportKind::Named, vec!["Base"])]);
        let r = refs(&f);
        // The template's parameter is no type; a qualified call is one path.
        assert!(!r.iter().any(|(s, _)| s == &vec!["T"]));
        assert!(r.contains(&(vec!["geo", "twice"], true)));
        assert!(r.contains(&(vec!["c", "area"], true)));
        assert!(r.contains(&(vec!["this", "r_"], false)));
        // `geo::Circle local(2)` and `new geo::Circle(3)` call the class; the out-of-line name links.
        assert_eq!(r.iter().filter(|(s, c)| s == &vec!["geo", "Circle"] && *c).count(), 2);
        assert!(r.contains(&(vec!["geo", "Circle", "area"], false)));
        assert_eq!(local(&f, "c"), &LocalOrigin::Declared(vec!["geo".into(), "Circle".into()]));
        assert_eq!(local(&f, "p"), &LocalOrigin::Constructed(vec!["geo".into(), "Circle".into()]));
        assert!(f.error_nodes == 0);
        // The most vexing parse: a local constructed from a call, not a function declaration.
        let f = extract(Language::Cpp, "void f() { Comparator cmp(BytewiseComparator()); }\n");
        assert!(refs(&f).contains(&(vec!["BytewiseComparator"], true)), "{:?}", refs(&f));
        assert_eq!(f.locals.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(), ["cmp"]);
    }

    #[test]
    fn hostile_c_is_bounded() {
        let parens = format!("int x = {}1{};", "(".repeat(10_000), ")".repeat(10_000));
        assert!(extract(Language::C, &parens).truncated_depth);
        let chain = format!("void f() {{ a{}; }}", "->b".repeat(10_000));
        let f = extract(Language::Cpp, &chain);
        assert_eq!(f.refs.iter().map(|r| r.segments.len()).max(), Some(10_001));
        let namespaces = format!("{}{}", "namespace a { ".repeat(5_000), "}".repeat(5_000));
        assert!(extract(Language::Cpp, &namespaces).truncated_depth);
        // An unterminated comment and a stray preprocessor line: facts, no panic.
        let f = extract(Language::C, "#if\nint f( { /* never closed");
        assert!(f.error_nodes > 0);
    }
}
