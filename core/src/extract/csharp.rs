//! Extraction for C# (tree-sitter-c-sharp 0.23): namespaces (block and file-scoped, as modules),
//! `using` directives (a namespace: a glob import; `using A = B.C;`: a named import; `using static
//! T;`: a glob import of the type), classes/structs/records/interfaces/enums with their members
//! (methods, constructors, properties and fields as fields, events, enum members), delegates,
//! base lists (as `Extends`; the resolver makes a base that is an interface `Implements`),
//! extension methods (`extension_of` = the type of their `this` parameter), member chains and calls,
//! object creation, locals (declared, `var` from the initialiser, `foreach`, patterns, `out var`,
//! `catch`), lambdas. Type parameters are no types of the project.

use super::{Field, Kind};
use tree_sitter::Node;

use super::chain::ChainWalker;
use super::{named_children, texts, Builder, ChainSyntax, Member, Segment, Walk};
use crate::facts::{ImportItem, ImportKind, LocalOrigin, Receiver, ReceiverBase, SymbolKind, TypeRelKind};

pub(crate) fn extract(b: &mut Builder, root: Node) {
    let mut w = Walker { b, tparams: Vec::new(), iface: false };
    w.top_level(root);
}

struct Walker<'a, 's> {
    b: &'a mut Builder<'s>,
    tparams: Vec<String>,
    /// The members being walked are an interface's (public without a modifier).
    iface: bool,
}

/// How C# writes chains: `a.b` (`member_access_expression`), `A.B` in types (`qualified_name`),
/// calls (`invocation_expression`), `a?.b` (the binding's name is a member of the condition),
/// looked through: parentheses, `a[i]`, `x!`, `Foo<T>`.
const CHAIN: ChainSyntax = ChainSyntax {
    names: &["identifier", "this", "base"],
    members: &[
        Member {
            kind: "member_access_expression",
            object: &["expression"],
            name: &["name"],
            rooted: false,
            path: false,
        },
        Member { kind: "qualified_name", object: &["qualifier"], name: &["name"], rooted: false, path: false },
    ],
    member_calls: &[],
    silent_names: &[],
    calls: &["invocation_expression"],
    operators: &[],
    slices: &[],
    through: &[
        ("parenthesized_expression", None),
        ("element_access_expression", Some("expression")),
        ("postfix_unary_expression", None),
        ("generic_name", None),
    ],
    extras: &[("element_access_expression", "subscript")],
    typed_head: Some(head_type),
    arguments: None,
    closure: None,
};

/// `((Order)x).Total()`, `(x as Order).Total()`: the type a cast at the head of a chain declares.
fn head_type(b: &Builder, node: Node) -> Option<LocalOrigin> {
    let inner = if node.kind_str() == "parenthesized_expression" { node.named_child(0)? } else { node };
    let ty = match inner.kind_str() {
        "cast_expression" | "object_creation_expression" => inner.field("type")?,
        "as_expression" => inner.field("right")?,
        _ => return None,
    };
    type_path(b, ty).map(|p| LocalOrigin::Declared(texts(&p)))
}

/// A type's path without generic arguments, nullability and arrays: `A.B<T>?[]` → [A, B].
fn type_path(b: &Builder, ty: Node) -> Option<Vec<Segment>> {
    let mut out = Vec::new();
    let mut cur = ty;
    for _ in 0..super::MAX_TYPE_NESTING * 4 {
        match cur.kind_str() {
            "identifier" => {
                out.push(b.seg(cur));
                break;
            }
            "generic_name" => {
                let name = named_children(cur).into_iter().find(|c| c.kind_str() == "identifier")?;
                out.push(b.seg(name));
                break;
            }
            "qualified_name" => {
                let name = cur.field("name")?;
                let name = if name.kind_str() == "generic_name" {
                    named_children(name).into_iter().find(|c| c.kind_str() == "identifier")?
                } else {
                    name
                };
                out.push(b.seg(name));
                cur = cur.field("qualifier")?;
            }
            "nullable_type" | "array_type" | "ref_type" | "scoped_type" | "pointer_type" => {
                cur = cur.field("type").or_else(|| cur.named_child(0))?;
            }
            _ => return None,
        }
    }
    if out.is_empty() {
        return None;
    }
    out.reverse();
    Some(out)
}

fn modifiers(b: &Builder, node: Node) -> Vec<String> {
    named_children(node).into_iter().filter(|c| c.kind_str() == "modifier").map(|c| b.text(c).to_string()).collect()
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
            | "verbatim_string_literal"
            | "raw_string_literal"
            | "character_literal"
            | "integer_literal"
            | "real_literal"
            | "boolean_literal"
            | "null_literal"
            | "predefined_type"
            | "implicit_type"
            | "modifier"
            | "this"
            | "base"
            | "alias_qualified_name"
            | "extern_alias_directive"
            | "preprocessor_call"
            | "break_statement"
            | "continue_statement"
            | "goto_statement"
            | "interpolation_brace"
            | "interpolation_start"
            | "string_content"
            | "escape_sequence" => {}
            "using_directive" => self.using(node),
            "namespace_declaration" => {
                let names = node.field("name").map(|n| self.name_path(n)).unwrap_or_default();
                let body: Vec<Node> = node.field("body").map(named_children).unwrap_or_default();
                self.namespace_scopes(node, &names, &body);
            }
            "file_scoped_namespace_declaration" => {}
            "class_declaration" | "record_declaration" => self.type_decl(node, SymbolKind::Class),
            "struct_declaration" | "record_struct_declaration" => self.type_decl(node, SymbolKind::Struct),
            "interface_declaration" => self.type_decl(node, SymbolKind::Interface),
            "enum_declaration" => self.type_decl(node, SymbolKind::Enum),
            "delegate_declaration" => {
                if let Some(name) = node.field("name") {
                    let exported = self.exported(node);
                    let idx = self.b.add_symbol(node, name, SymbolKind::Type, exported);
                    self.within(idx, false, |w| {
                        w.walk_opt(node.field("type"));
                        w.walk_opt(node.field("parameters"));
                    });
                }
            }
            "method_declaration" | "constructor_declaration" | "local_function_statement" => self.method(node),
            "destructor_declaration" | "operator_declaration" | "conversion_operator_declaration" => {
                self.walk_opt(node.field("type"));
                self.walk_opt(node.field("parameters"));
                self.walk_opt(node.field("body"));
            }
            "property_declaration" | "event_declaration" => {
                let Some(name) = node.field("name") else { return self.b.ascend() };
                let ty = node.field("type");
                let returns = ty.and_then(|t| self.checked_type_path(t)).map(|p| texts(&p));
                self.walk_opt(ty);
                let exported = self.exported(node);
                let idx = self.b.add_symbol(node, name, SymbolKind::Field, exported);
                self.b.symbol_mut(idx).returns = returns;
                self.within(idx, false, |w| {
                    w.walk_opt(node.field("accessors"));
                    w.walk_opt(node.field("value"));
                });
            }
            "field_declaration" | "event_field_declaration" => self.field_decl(node),
            "enum_member_declaration" => {
                if let Some(name) = node.field("name") {
                    let enum_name = self.b.enclosing().map(|e| self.b.facts.symbols[e as usize].name.clone());
                    let idx = self.b.add_symbol(node, name, SymbolKind::Constant, true);
                    self.b.symbol_mut(idx).returns = enum_name.map(|n| vec![n]);
                }
                self.walk_opt(node.field("value"));
            }
            "type_parameter_list" => {
                for p in named_children(node) {
                    if let Some(n) = p.field("name") {
                        let text = self.b.text(n).to_string();
                        self.tparams.push(text);
                    }
                }
            }
            "type_parameter_constraints_clause" => {
                for c in named_children(node).into_iter().skip(1) {
                    self.walk(c);
                }
            }
            "attribute" => {
                if let Some(path) = node.field("name").and_then(|n| type_path(self.b, n)) {
                    self.b.add_ref(path, false, false);
                }
                for c in named_children(node) {
                    if c.kind_str() == "attribute_argument_list" {
                        self.walk(c);
                    }
                }
            }
            "local_declaration_statement" | "using_statement" | "fixed_statement" => self.walk_children(node),
            "variable_declaration" => self.local_vars(node),
            "parameter" => self.param(node),
            "foreach_statement" => {
                let ty = node.field("type");
                self.walk_opt(node.field("right"));
                self.walk_opt(ty);
                if let Some(left) = node.field("left").filter(|l| l.kind_str() == "identifier") {
                    let origin = match ty {
                        Some(t) if t.kind_str() != "implicit_type" => self.declared_origin(t),
                        _ => LocalOrigin::Unknown,
                    };
                    self.local(left, origin);
                }
                self.walk_opt(node.field("body"));
            }
            "catch_declaration" | "declaration_pattern" | "declaration_expression" => {
                let ty = node.field("type");
                self.walk_opt(ty);
                if let Some(name) = node.field("name").filter(|n| n.kind_str() == "identifier") {
                    let origin = match ty {
                        Some(t) if t.kind_str() != "implicit_type" => self.declared_origin(t),
                        _ => LocalOrigin::Unknown,
                    };
                    self.local(name, origin);
                }
            }
            "lambda_expression" | "anonymous_method_expression" => {
                match node.field("parameters") {
                    Some(p) if p.kind_str() == "implicit_parameter" => self.local(p, LocalOrigin::Unknown),
                    Some(p) => self.walk(p),
                    None => {}
                }
                self.walk_opt(node.field("body"));
            }
            "implicit_parameter" => self.local(node, LocalOrigin::Unknown),
            "invocation_expression" | "member_access_expression" | "conditional_access_expression" => {
                self.chain(node);
            }
            "object_creation_expression" => {
                let path = node.field("type").and_then(|t| self.checked_type_path(t));
                if let Some(ty) = node.field("type") {
                    if let Some(path) = path.clone() {
                        self.b.add_ref(path, true, false);
                    }
                    self.type_extras(ty);
                }
                self.walk_opt(node.field("arguments"));
                if let Some(init) = node.field("initializer") {
                    self.initializer(init, path.map(|p| texts(&p)));
                }
            }
            "constructor_initializer" => self.walk_children(node),
            "identifier" => {
                let text = self.b.text(node);
                if !self.tparams.iter().any(|t| t == text) {
                    let seg = self.b.seg(node);
                    self.b.add_ref(vec![seg], false, false);
                }
            }
            "qualified_name" | "generic_name" => {
                if let Some(path) = self.checked_type_path(node) {
                    self.b.add_ref(path, false, false);
                }
                self.type_extras(node);
            }
            "labeled_statement" => {
                for c in named_children(node).into_iter().skip(1) {
                    self.walk(c);
                }
            }
            _ => self.walk_children(node),
        }
        self.b.ascend();
    }
}

impl<'s> Walker<'_, 's> {
    fn within(&mut self, symbol: u32, iface: bool, f: impl FnOnce(&mut Walker<'_, 's>)) {
        let mut tparams = std::mem::take(&mut self.tparams);
        self.b.within(symbol, |b| {
            let mut w = Walker { b, tparams: std::mem::take(&mut tparams), iface };
            f(&mut w);
            tparams = w.tparams;
        });
        self.tparams = tparams;
    }

    /// The compilation unit: a file-scoped `namespace A.B;` holds every declaration after it.
    fn top_level(&mut self, root: Node) {
        let children = named_children(root);
        let at = children.iter().position(|c| c.kind_str() == "file_scoped_namespace_declaration");
        let Some(at) = at else {
            for c in children {
                self.walk(c);
            }
            return;
        };
        for c in &children[..at] {
            self.walk(*c);
        }
        let ns = children[at];
        let names = ns.field("name").map(|n| self.name_path(n)).unwrap_or_default();
        self.namespace_scopes(ns, &names, &children[at + 1..]);
    }

    /// Declares the namespaces of `names` (nested) and walks `body` inside the innermost.
    fn namespace_scopes(&mut self, decl: Node, names: &[Segment], body: &[Node]) {
        let Some((first, rest)) = names.split_first() else {
            for c in body {
                self.walk(*c);
            }
            return;
        };
        let idx = self.b.add_symbol_named(decl, first.0.clone(), first.1, SymbolKind::Module, true);
        self.within(idx, false, |w| w.namespace_scopes(decl, rest, body));
    }

    /// The segments of a name as written (`A.B.C`), for namespaces and usings.
    fn name_path(&self, node: Node) -> Vec<Segment> {
        match node.kind_str() {
            "identifier" => vec![self.b.seg(node)],
            "qualified_name" => {
                let mut out = node.field("qualifier").map(|q| self.name_path(q)).unwrap_or_default();
                if let Some(n) = node.field("name") {
                    out.extend(self.name_path(n));
                }
                out
            }
            "generic_name" => named_children(node)
                .into_iter()
                .find(|c| c.kind_str() == "identifier")
                .map(|n| vec![self.b.seg(n)])
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// A chain of members and calls; `a?.b` is rewritten as the member `b` of `a`.
    fn chain(&mut self, node: Node) {
        if node.kind_str() == "conditional_access_expression" {
            // `a?.B()`: the binding's name is a member of the condition.
            let cond = node.field("condition");
            let binding = named_children(node).into_iter().find(|c| c.kind_str() == "member_binding_expression");
            let head = cond.and_then(|c| CHAIN.names(self.b, c));
            if let (Some(mut segs), Some(name)) = (head, binding.and_then(|b| b.field("name"))) {
                segs.push(self.b.seg(name));
                let called = node.parent().is_some_and(|p| p.kind_str() == "invocation_expression");
                self.b.add_ref(segs, called, false);
            } else {
                self.walk_opt(cond);
                if let Some(name) = binding.and_then(|b| b.field("name")) {
                    let seg = self.b.seg(name);
                    self.b.add_ref(vec![seg], false, true);
                }
            }
            return;
        }
        if node.kind_str() == "invocation_expression"
            && node.field("function").is_some_and(|f| f.kind_str() == "conditional_access_expression")
        {
            self.walk_opt(node.field("function"));
            self.walk_opt(node.field("arguments"));
            return;
        }
        super::chain::drive(self, node, false, &CHAIN);
    }

    /// `new Line { Amount = 3 }`: each key is a member of the created type.
    fn initializer(&mut self, init: Node, created: Option<Vec<String>>) {
        for c in named_children(init) {
            let key = (c.kind_str() == "assignment_expression").then(|| c.field("left")).flatten();
            match (key.filter(|k| k.kind_str() == "identifier"), &created) {
                (Some(k), Some(ty)) => {
                    let receiver = Receiver {
                        base: ReceiverBase::Value(LocalOrigin::Constructed(ty.clone())),
                        members: Vec::new(),
                    };
                    let seg = self.b.seg(k);
                    self.b.add_member_ref(seg, false, receiver);
                    self.walk_opt(c.field("right"));
                }
                (Some(_), None) => self.walk_opt(c.field("right")),
                _ => self.walk(c),
            }
        }
    }

    fn exported(&self, node: Node) -> bool {
        self.iface || has_modifier(self.b, node, "public")
    }

    fn using(&mut self, node: Node) {
        let pos = self.b.pos(node);
        let alias = node.field("name");
        let Some(target) = named_children(node).into_iter().rfind(|c| Some(*c) != alias) else { return };
        let path = self.name_path(target);
        let Some((last, last_pos)) = path.last().cloned() else { return };
        let module_of = |p: &[Segment]| p.iter().map(|s| s.0.as_str()).collect::<Vec<_>>().join(".");
        match alias {
            Some(a) => {
                let item = ImportItem { name: last, alias: self.b.text(a).to_string(), pos: last_pos };
                self.b.add_import(module_of(&path[..path.len() - 1]), ImportKind::Named, vec![item], pos, false);
            }
            None => self.b.add_import(module_of(&path), ImportKind::Glob, Vec::new(), pos, false),
        }
    }

    fn type_decl(&mut self, node: Node, kind: SymbolKind) {
        let Some(name) = node.field("name") else { return self.walk_children(node) };
        for c in named_children(node) {
            if c.kind_str() == "attribute_list" {
                self.walk(c);
            }
        }
        let exported = self.exported(node);
        let idx = self.b.add_symbol(node, name, kind, exported);
        let iface = kind == SymbolKind::Interface;
        self.within(idx, false, |w| {
            let saved = w.tparams.len();
            for c in named_children(node) {
                if c.kind_str() == "type_parameter_list" {
                    w.walk(c);
                }
            }
            for c in named_children(node) {
                match c.kind_str() {
                    "base_list" => {
                        for base in named_children(c) {
                            // `record R(int X) : Base(X)`: the base with its arguments.
                            let ty = if base.kind_str() == "primary_constructor_base_type" {
                                base.named_child(0).unwrap_or(base)
                            } else {
                                base
                            };
                            if let Some(path) = w.checked_type_path(ty) {
                                let pos = path.last().map(|s| s.1).unwrap_or_default();
                                w.b.add_relation(idx, TypeRelKind::Extends, texts(&path), pos);
                            }
                            w.walk(base);
                        }
                    }
                    "type_parameter_constraints_clause" => w.walk(c),
                    // `record Pt(int X, int Y)`: each parameter is a public property.
                    "parameter_list" => {
                        for p in named_children(c) {
                            let ty = p.field("type");
                            w.walk_opt(ty);
                            if let Some(n) = p.field("name") {
                                let returns = ty.and_then(|t| w.checked_type_path(t)).map(|p| texts(&p));
                                let i = w.b.add_symbol(p, n, SymbolKind::Field, true);
                                w.b.symbol_mut(i).returns = returns;
                            }
                        }
                    }
                    _ => {}
                }
            }
            if let Some(body) = node.field("body") {
                w.iface = iface;
                w.walk_children(body);
                w.iface = false;
            }
            w.tparams.truncate(saved);
        });
    }

    fn method(&mut self, node: Node) {
        let Some(name) = node.field("name") else { return self.walk_children(node) };
        for c in named_children(node) {
            if c.kind_str() == "attribute_list" {
                self.walk(c);
            }
        }
        let local = node.kind_str() == "local_function_statement";
        let kind = if local { SymbolKind::Function } else { SymbolKind::Method };
        let exported = !local && self.exported(node);
        let idx = self.b.add_symbol(node, name, kind, exported);
        let is_static = has_modifier(self.b, node, "static");
        self.within(idx, false, |w| {
            let saved = w.tparams.len();
            for c in named_children(node) {
                if matches!(c.kind_str(), "type_parameter_list" | "type_parameter_constraints_clause") {
                    w.walk(c);
                }
            }
            if let Some(ty) = node.field("returns").or_else(|| node.field("type")) {
                let returns = w.checked_type_path(ty).map(|p| texts(&p));
                w.b.symbol_mut(idx).returns = returns;
                w.walk(ty);
            }
            if let Some(params) = node.field("parameters") {
                // `static int Twice(this Order o)`: an extension method of `Order`.
                let first = named_children(params).into_iter().find(|p| p.kind_str() == "parameter");
                if let Some(p) = first.filter(|p| is_static && has_modifier(w.b, *p, "this")) {
                    let extended = p.field("type").and_then(|t| w.checked_type_path(t)).map(|p| texts(&p));
                    w.b.symbol_mut(idx).extension_of = extended;
                }
                w.walk(params);
            }
            for c in named_children(node) {
                if c.kind_str() == "constructor_initializer" {
                    w.walk(c);
                }
            }
            w.walk_opt(node.field("body"));
            w.tparams.truncate(saved);
        });
    }

    fn field_decl(&mut self, node: Node) {
        for c in named_children(node) {
            if c.kind_str() == "attribute_list" {
                self.walk(c);
            }
        }
        let exported = self.exported(node);
        let Some(decl) = named_children(node).into_iter().find(|c| c.kind_str() == "variable_declaration") else {
            return;
        };
        let ty = decl.field("type");
        let returns = ty.and_then(|t| self.checked_type_path(t)).map(|p| texts(&p));
        self.walk_opt(ty);
        for d in named_children(decl) {
            if d.kind_str() != "variable_declarator" {
                continue;
            }
            if let Some(name) = d.field("name") {
                let idx = self.b.add_symbol(node, name, SymbolKind::Field, exported);
                self.b.symbol_mut(idx).returns.clone_from(&returns);
            }
            for v in named_children(d).into_iter().skip(1) {
                self.walk(v);
            }
        }
    }

    fn local_vars(&mut self, node: Node) {
        let ty = node.field("type");
        self.walk_opt(ty);
        let declared = match ty {
            Some(t) if t.kind_str() != "implicit_type" => Some(self.declared_origin(t)),
            _ => None,
        };
        for d in named_children(node) {
            if d.kind_str() != "variable_declarator" {
                continue;
            }
            let value = named_children(d).into_iter().nth(1);
            if let Some(name) = d.field("name") {
                let origin = match (&declared, value) {
                    (Some(o), _) => o.clone(),
                    (None, Some(v)) => self.value_origin(v),
                    (None, None) => LocalOrigin::Unknown,
                };
                self.local(name, origin);
            }
            self.walk_opt(value);
        }
    }

    fn param(&mut self, node: Node) {
        for c in named_children(node) {
            if c.kind_str() == "attribute_list" {
                self.walk(c);
            }
        }
        let ty = node.field("type");
        self.walk_opt(ty);
        if let Some(name) = node.field("name") {
            let origin = ty.map_or(LocalOrigin::Unknown, |t| self.declared_origin(t));
            self.local(name, origin);
        }
        for c in named_children(node) {
            if c.kind_str() == "equals_value_clause" {
                self.walk(c);
            }
        }
    }

    fn local(&mut self, name: Node, origin: LocalOrigin) {
        let text = self.b.text(name).to_string();
        self.b.add_local(&text, origin);
    }

    fn declared_origin(&self, ty: Node) -> LocalOrigin {
        self.checked_type_path(ty).map_or(LocalOrigin::Unknown, |p| LocalOrigin::Declared(texts(&p)))
    }

    fn value_origin(&self, value: Node) -> LocalOrigin {
        match value.kind_str() {
            "object_creation_expression" => value
                .field("type")
                .and_then(|t| self.checked_type_path(t))
                .map_or(LocalOrigin::Unknown, |p| LocalOrigin::Constructed(texts(&p))),
            "cast_expression" => value.field("type").map_or(LocalOrigin::Unknown, |t| self.declared_origin(t)),
            "as_expression" => value.field("right").map_or(LocalOrigin::Unknown, |t| self.declared_origin(t)),
            "invocation_expression" => match CHAIN.called_names(self.b, value) {
                Some((segs, calls)) if calls == [segs.len() as u32 - 1] => LocalOrigin::CallResult(texts(&segs)),
                Some((segs, calls)) if !segs.is_empty() => {
                    LocalOrigin::CallChain(texts(&segs), calls.into_iter().collect())
                }
                _ => LocalOrigin::Unknown,
            },
            _ => LocalOrigin::Unknown,
        }
    }

    fn checked_type_path(&self, ty: Node) -> Option<Vec<Segment>> {
        let path = type_path(self.b, ty)?;
        if path.len() == 1 && self.tparams.iter().any(|t| *t == path[0].0) {
            return None;
        }
        Some(path)
    }

    /// The generic arguments inside a type (`List<Order>`'s `Order`), walked as types.
    fn type_extras(&mut self, ty: Node) {
        if !self.b.descend() {
            return;
        }
        for c in named_children(ty) {
            match c.kind_str() {
                "type_argument_list" => self.walk_children(c),
                "generic_name" | "qualified_name" | "nullable_type" | "array_type" => self.type_extras(c),
                "array_rank_specifier" => self.walk_children(c),
                _ => {}
            }
        }
        self.b.ascend();
    }
}

fn has_modifier(b: &Builder, node: Node, modifier: &str) -> bool {
    modifiers(b, node).iter().any(|m| m == modifier)
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::{FileFacts, ImportKind, LocalOrigin, SymbolKind, TypeRelKind};
    use crate::lang::Language;

    fn cs(src: &str) -> FileFacts {
        extract(Language::CSharp, src)
    }

    use crate::extract::testing::refs;

    fn local<'f>(f: &'f FileFacts, name: &str) -> &'f LocalOrigin {
        &f.locals.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no local {name}")).origin
    }

    #[test]
    fn namespaces_usings_types_and_members() {
        let src = r"using System.Text;
using Geo = Shop.Geometry;
using static Shop.Util;
namespace Shop.Model;
public interface IPriced { decimal Price { get; } }
public partial class Order : Base, IPriced
{
    private int _n;
    public Order(int n) { _n = n; }
    public decimal Price => 1;
    public event System.EventHandler Changed;
    internal T Get<T>(T x) => x;
    public enum Kind { A, B }
}
public record Pt(int X, Order O);
public static class Ext { public static int Twice(this Order o) => 2; }
";
        let f = cs(src);
        use SymbolKind::*;
        let got = crate::extract::testing::symbols(&f);
        assert_eq!(
            got,
            vec![
                ("Shop", Module, None, true),
                ("Model", Module, Some(0), true),
                ("IPriced", Interface, Some(1), true),
                ("Price", Field, Some(2), true),
                ("Order", Class, Some(1), true),
                ("_n", Field, Some(4), false),
                ("Order", Method, Some(4), true),
                ("Price", Field, Some(4), true),
                ("Changed", Field, Some(4), true),
                ("Get", Method, Some(4), false),
                ("Kind", Enum, Some(4), true),
                ("A", Constant, Some(10), true),
                ("B", Constant, Some(10), true),
                ("Pt", Class, Some(1), true),
                ("X", Field, Some(13), true),
                ("O", Field, Some(13), true),
                ("Ext", Class, Some(1), true),
                ("Twice", Method, Some(16), true),
            ]
        );
        assert_eq!(f.symbols[17].extension_of.as_deref(), Some(&["Order".to_string()][..]));
        assert_eq!(f.symbols[15].returns.as_deref(), Some(&["Order".to_string()][..]));
        let imports = crate::extract::testing::imports(&f);
        assert_eq!(
            imports,
            vec![
                ("System.Text", ImportKind::Glob, vec![]),
                ("Shop", ImportKind::Named, vec![("Geometry", "Geo")]),
                ("Shop.Util", ImportKind::Glob, vec![]),
            ]
        );
        let rels: Vec<(u32, TypeRelKind, Vec<String>)> =
            f.relations.iter().map(|r| (r.symbol, r.kind, r.target.clone())).collect();
        assert_eq!(
            rels,
            vec![(4, TypeRelKind::Extends, vec!["Base".into()]), (4, TypeRelKind::Extends, vec!["IPriced".into()])]
        );
        // A type parameter is no type reference.
        assert!(!refs(&f).iter().any(|(s, _)| s == &vec!["T"]));
    }

    #[test]
    fn chains_locals_and_initialisers() {
        let src = r"class A {
  void M(Order o) {
    var a = new Order();
    var b = repo.Find();
    Line c = Make();
    var d = (Order)x;
    var e = y as Order;
    foreach (var f in items) {}
    foreach (Line g in items) {}
    if (o is Order h) h.Total();
    F(out var z);
    o?.Total();
    this.Run();
    base.Run();
    var n = new Line { Amount = 3, Note = $'{o.Id}' };
    Func<int, int> k = q => q + 1;
  }
}";
        let f = cs(&src.replace('\'', "\""));
        use LocalOrigin::*;
        assert_eq!(local(&f, "o"), &Declared(vec!["Order".into()]));
        assert_eq!(local(&f, "a"), &Constructed(vec!["Order".into()]));
        assert_eq!(local(&f, "b"), &CallResult(vec!["repo".into(), "Find".into()]));
        assert_eq!(local(&f, "c"), &Declared(vec!["Line".into()]));
        assert_eq!(local(&f, "d"), &Declared(vec!["Order".into()]));
        assert_eq!(local(&f, "e"), &Declared(vec!["Order".into()]));
        assert_eq!(local(&f, "f"), &Unknown);
        assert_eq!(local(&f, "g"), &Declared(vec!["Line".into()]));
        assert_eq!(local(&f, "h"), &Declared(vec!["Order".into()]));
        assert_eq!(local(&f, "z"), &Unknown);
        assert_eq!(local(&f, "q"), &Unknown);
        let r = refs(&f);
        assert!(r.contains(&(vec!["h", "Total"], true)));
        assert!(r.contains(&(vec!["o", "Total"], true)));
        assert!(r.contains(&(vec!["this", "Run"], true)));
        assert!(r.contains(&(vec!["base", "Run"], true)));
        assert!(r.contains(&(vec!["o", "Id"], false)));
        // Initialiser keys are members of the created type.
        let keys: Vec<&str> =
            f.refs.iter().filter(|r| r.receiver.is_some()).map(|r| r.segments[0].0.as_str()).collect();
        assert_eq!(keys, ["Amount", "Note"]);
    }

    #[test]
    fn hostile_csharp_is_bounded() {
        let parens = format!("class A {{ int x = {}1{}; }}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(cs(&parens).truncated_depth);
        let chain = format!("class A {{ void M() {{ a{}.z(); }} }}", ".b".repeat(10_000));
        assert_eq!(cs(&chain).refs.iter().map(|r| r.segments.len()).max(), Some(10_002));
        let f = cs("class A { void M() { var s = $\"{ $\"{ \"unterminated");
        assert!(f.error_nodes > 0);
    }
}
