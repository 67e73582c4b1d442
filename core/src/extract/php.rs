//! Extraction for PHP (tree-sitter-php 0.25, the grammar with the HTML around `<?php … ?>`).
//!
//! Declarations: namespaces (`namespace A\B;` holds what follows it, `namespace A\B { … }` its block;
//! as modules, merged across files by qualified name), classes, interfaces, traits, enums, functions,
//! methods, properties (named without `$`, as `$this->name` writes them), promoted constructor
//! parameters, class constants, enum cases, top-level constants. `extends`/`implements` are
//! relations, and so is `use TraitName;` in a class (an `implements` of the trait, whose members the
//! class then has). `use A\B\C [as D];`, group uses and `use function`/`use const` are named imports;
//! `require`/`include` of a literal path (`__DIR__ . '/x.php'` too) a dependency.
//! Uses: `$this->m()`, `$o->p`, `$o?->m()`, `self::`/`static::`/`parent::`/`Cls::m()`, `new Cls()`,
//! `f()`, `A\f()`, type declarations, `instanceof`, `catch`. Variables are locals named with their
//! `$` (no declaration is named so: a variable never resolves to a class or function); `$this` is
//! the enclosing class's instance.

use super::{Field, Kind};
use tree_sitter::Node;

use super::{has_token, named_children, texts, Builder, Segment, Walk};
use crate::facts::{ImportItem, ImportKind, LocalOrigin, Pos, Receiver, ReceiverBase, SymbolKind, TypeRelKind};

pub(crate) fn extract(b: &mut Builder, root: Node) {
    let mut w = Walker { b, class: false };
    w.top_level(root);
}

struct Walker<'a, 's> {
    b: &'a mut Builder<'s>,
    /// Walking a class-like body: functions are methods.
    class: bool,
}

/// Type names that are no class of the project.
const BUILTIN_TYPES: &[&str] = &[
    "array", "bool", "callable", "false", "float", "int", "iterable", "mixed", "never", "null", "object", "string",
    "true", "void",
];

/// A `name`, `qualified_name` or `namespace_name` as its segments (`\A\B\C` → [A, B, C]) and
/// whether it is fully qualified.
fn name_path(b: &Builder, node: Node) -> (Vec<Segment>, bool) {
    let rooted = b.text(node).starts_with('\\');
    let mut out = Vec::new();
    let mut stack = vec![node];
    let mut steps = 0;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 4096 {
            break;
        }
        match n.kind_str() {
            "name" => out.push(b.seg(n)),
            "qualified_name" | "namespace_name" | "namespace_name_as_prefix" => {
                let mut kids = named_children(n);
                kids.reverse();
                stack.extend(kids);
            }
            _ => {}
        }
    }
    (out, rooted)
}

impl Walk for Walker<'_, '_> {
    fn walk(&mut self, node: Node) {
        if !self.b.descend() {
            return;
        }
        match node.kind_str() {
            "comment"
            | "text"
            | "text_interpolation"
            | "php_tag"
            | "php_end_tag"
            | "string"
            | "string_content"
            | "integer"
            | "float"
            | "boolean"
            | "null"
            | "heredoc"
            | "nowdoc"
            | "primitive_type"
            | "visibility_modifier"
            | "static_modifier"
            | "final_modifier"
            | "abstract_modifier"
            | "readonly_modifier"
            | "escape_sequence"
            | "relative_scope" => {}
            "namespace_definition" => {
                let names = node.field("name").map(|n| name_path(self.b, n).0).unwrap_or_default();
                let body: Vec<Node> = node.field("body").map(named_children).unwrap_or_default();
                self.namespace(node, &names, &body);
            }
            "namespace_use_declaration" => self.use_declaration(node),
            "class_declaration" => self.class_like(node, SymbolKind::Class),
            "interface_declaration" => self.class_like(node, SymbolKind::Interface),
            "trait_declaration" => self.class_like(node, SymbolKind::Trait),
            "enum_declaration" => self.class_like(node, SymbolKind::Enum),
            "function_definition" | "method_declaration" => self.function(node),
            "property_declaration" => {
                let ty = node.field("type");
                let returns = ty.and_then(|t| self.type_path(t));
                self.walk_opt(ty);
                for e in named_children(node).into_iter().filter(|c| c.kind_str() == "property_element") {
                    if let Some(name) = e.field("name") {
                        let idx = self.property(node, name);
                        self.b.symbol_mut(idx).returns.clone_from(&returns);
                    }
                    self.walk_opt(e.field("default_value"));
                }
            }
            "const_declaration" => {
                for e in named_children(node).into_iter().filter(|c| c.kind_str() == "const_element") {
                    let kids = named_children(e);
                    if let Some(name) = kids.iter().find(|c| c.kind_str() == "name") {
                        self.b.add_symbol(e, *name, SymbolKind::Constant, true);
                    }
                    for v in kids.into_iter().skip(1) {
                        self.walk(v);
                    }
                }
            }
            "enum_case" => {
                if let Some(name) = node.field("name") {
                    let enum_name = self.b.enclosing().map(|e| self.b.facts.symbols[e as usize].name.clone());
                    let idx = self.b.add_symbol(node, name, SymbolKind::Constant, true);
                    self.b.symbol_mut(idx).returns = enum_name.map(|n| vec![n]);
                }
                self.walk_opt(node.field("value"));
            }
            "use_declaration" => {
                // `use TraitName;` in a class: the class has the trait's members.
                if let Some(class) = self.b.enclosing() {
                    for t in
                        named_children(node).into_iter().filter(|c| matches!(c.kind_str(), "name" | "qualified_name"))
                    {
                        let (path, _) = name_path(self.b, t);
                        if let Some(pos) = path.last().map(|s| s.1) {
                            self.b.add_relation(class, TypeRelKind::Implements, texts(&path), pos);
                        }
                        self.b.add_ref(path, false, false);
                    }
                }
            }
            "simple_parameter" | "variadic_parameter" | "property_promotion_parameter" => self.parameter(node),
            "assignment_expression" => {
                let left = node.field("left");
                let right = node.field("right");
                self.walk_opt(right);
                match left {
                    Some(l) if l.kind_str() == "variable_name" => {
                        let origin = right.map_or(LocalOrigin::Unknown, |r| self.value_origin(r));
                        self.local(l, origin);
                    }
                    Some(l) => self.walk(l),
                    None => {}
                }
            }
            "foreach_statement" => {
                for c in named_children(node) {
                    match c.kind_str() {
                        "variable_name" if Some(c) != named_children(node).first().copied() => {
                            self.local(c, LocalOrigin::Unknown);
                        }
                        "pair" => {
                            for v in named_children(c) {
                                if v.kind_str() == "variable_name" {
                                    self.local(v, LocalOrigin::Unknown);
                                } else {
                                    self.walk(v);
                                }
                            }
                        }
                        _ => self.walk(c),
                    }
                }
            }
            "catch_clause" => {
                let ty = node.field("type");
                for t in ty.into_iter().flat_map(named_children).chain(ty.filter(|t| t.kind_str() != "type_list")) {
                    self.type_ref(t);
                }
                if let Some(name) = node.field("name") {
                    let origin = ty
                        .and_then(|t| {
                            if t.kind_str() == "type_list" {
                                named_children(t).first().copied()
                            } else {
                                Some(t)
                            }
                        })
                        .and_then(|t| self.type_path(t))
                        .map_or(LocalOrigin::Unknown, LocalOrigin::Declared);
                    self.local(name, origin);
                }
                self.walk_opt(node.field("body"));
            }
            "variable_name" => {
                let seg = self.var_seg(node);
                self.b.add_ref(vec![seg], false, false);
            }
            "member_access_expression"
            | "nullsafe_member_access_expression"
            | "member_call_expression"
            | "nullsafe_member_call_expression"
            | "scoped_call_expression"
            | "class_constant_access_expression"
            | "scoped_property_access_expression"
            | "function_call_expression" => self.chain(node),
            "object_creation_expression" => {
                let kids = named_children(node);
                match kids.first() {
                    Some(t) if matches!(t.kind_str(), "name" | "qualified_name") => {
                        let (path, _) = name_path(self.b, *t);
                        self.b.add_ref(path, true, false);
                        for k in &kids[1..] {
                            self.walk(*k);
                        }
                    }
                    _ => self.walk_children(node),
                }
            }
            "named_type" | "optional_type" | "union_type" | "intersection_type" | "nullable_type" => {
                self.type_ref(node);
            }
            "binary_expression" if has_token(node, "instanceof") => {
                self.walk_opt(node.field("left"));
                if let Some(r) = node.field("right") {
                    self.type_ref(r);
                }
            }
            "expression_statement" => {
                let child = node.named_child(0);
                match child.filter(|c| c.kind_str().starts_with("require") || c.kind_str().starts_with("include")) {
                    Some(inc) => self.include(inc),
                    None => self.walk_children(node),
                }
            }
            "name" | "qualified_name" => {
                let (path, _) = name_path(self.b, node);
                if !path.is_empty() {
                    self.b.add_ref(path, false, false);
                }
            }
            "anonymous_function" | "arrow_function" => {
                self.walk_opt(node.field("parameters"));
                for c in named_children(node) {
                    if c.kind_str() == "anonymous_function_use_clause" {
                        self.walk(c);
                    }
                }
                self.walk_opt(node.field("return_type"));
                self.walk_opt(node.field("body"));
            }
            _ => self.walk_children(node),
        }
        self.b.ascend();
    }
}

impl Walker<'_, '_> {
    fn within(&mut self, symbol: u32, class: bool, f: impl FnOnce(&mut Walker<'_, '_>)) {
        self.b.within(symbol, |b| {
            let mut w = Walker { b, class };
            f(&mut w);
        });
    }

    /// The program: `namespace A\B;` holds every statement after it, up to the next one.
    fn top_level(&mut self, root: Node) {
        let children = named_children(root);
        let mut i = 0;
        while i < children.len() {
            let c = children[i];
            if c.kind_str() == "namespace_definition" && c.field("body").is_none() {
                let end = children[i + 1..]
                    .iter()
                    .position(|n| n.kind_str() == "namespace_definition")
                    .map_or(children.len(), |p| i + 1 + p);
                let names = c.field("name").map(|n| name_path(self.b, n).0).unwrap_or_default();
                self.namespace(c, &names, &children[i + 1..end]);
                i = end;
            } else {
                self.walk(c);
                i += 1;
            }
        }
    }

    fn namespace(&mut self, decl: Node, names: &[Segment], body: &[Node]) {
        let Some((first, rest)) = names.split_first() else {
            for c in body {
                self.walk(*c);
            }
            return;
        };
        let idx = self.b.add_symbol_named(decl, first.0.clone(), first.1, SymbolKind::Module, true);
        self.within(idx, false, |w| w.namespace(decl, rest, body));
    }

    /// `$x` as a segment: its name with the `$` (no declaration is named so); `$this` as `this`.
    fn var_seg(&self, node: Node) -> Segment {
        let text = self.b.text(node);
        let name = if text == "$this" { "this".to_string() } else { text.to_string() };
        (name, self.b.pos(node))
    }

    fn local(&mut self, var: Node, origin: LocalOrigin) {
        let (name, _) = self.var_seg(var);
        if name != "this" {
            self.b.add_local(&name, origin);
        }
    }

    fn property(&mut self, decl: Node, name: Node) -> u32 {
        let exported = has_token_deep(self.b, decl, "public") || !has_visibility(self.b, decl);
        let text = self.b.text(name).trim_start_matches('$').to_string();
        let pos = self.b.pos(name);
        let pos = Pos { line: pos.line, col: pos.col + 1 };
        self.b.add_symbol_named(decl, text, pos, SymbolKind::Field, exported)
    }

    fn include(&mut self, node: Node) {
        // `require_once __DIR__ . '/x.php'` or `require 'x.php'`: the literal part is the path.
        let mut literal = None;
        let mut from_dir = false;
        let mut stack = named_children(node);
        while let Some(n) = stack.pop() {
            match n.kind_str() {
                "string" | "encapsed_string" => {
                    literal = Some(self.b.text(n).trim_matches(|c| c == '\'' || c == '"').to_string());
                }
                "name" if self.b.text(n) == "__DIR__" => from_dir = true,
                "binary_expression" | "parenthesized_expression" => stack.extend(named_children(n)),
                _ => {}
            }
        }
        if let Some(path) = literal.filter(|p| !p.is_empty()) {
            let module = if from_dir { format!(".{path}") } else { path };
            let pos = self.b.pos(node);
            self.b.add_import(module, ImportKind::SideEffect, Vec::new(), pos, false);
        }
        self.walk_children(node);
    }

    fn use_declaration(&mut self, node: Node) {
        let pos = self.b.pos(node);
        let kids = named_children(node);
        // `use A\B\{C, D as E};`: a prefix and a group.
        let prefix = kids.iter().find(|c| c.kind_str() == "namespace_name").map(|p| name_path(self.b, *p).0);
        let clauses: Vec<Node> = match node.field("body") {
            Some(group) => named_children(group),
            None => kids.iter().copied().filter(|c| c.kind_str() == "namespace_use_clause").collect(),
        };
        for clause in clauses {
            let parts = named_children(clause);
            let alias = clause.field("alias");
            let Some(target) =
                parts.iter().find(|p| Some(**p) != alias && matches!(p.kind_str(), "name" | "qualified_name"))
            else {
                continue;
            };
            let (mut path, _) = name_path(self.b, *target);
            if let Some(p) = &prefix {
                let mut full = p.clone();
                full.extend(path);
                path = full;
            }
            let Some((name, name_pos)) = path.pop() else { continue };
            let alias = alias.map_or_else(|| name.clone(), |a| self.b.text(a).to_string());
            let module = path.iter().map(|s| s.0.as_str()).collect::<Vec<_>>().join("\\");
            let item = ImportItem { name, alias, pos: name_pos };
            self.b.add_import(module, ImportKind::Named, vec![item], pos, false);
        }
    }

    fn class_like(&mut self, node: Node, kind: SymbolKind) {
        let Some(name) = node.field("name") else { return self.walk_children(node) };
        for c in named_children(node) {
            if c.kind_str() == "attribute_list" {
                self.walk(c);
            }
        }
        let idx = self.b.add_symbol(node, name, kind, true);
        for c in named_children(node) {
            let rel = match c.kind_str() {
                "base_clause" => TypeRelKind::Extends,
                "class_interface_clause" => {
                    if kind == SymbolKind::Interface {
                        TypeRelKind::Extends
                    } else {
                        TypeRelKind::Implements
                    }
                }
                _ => continue,
            };
            for t in named_children(c) {
                let (path, _) = name_path(self.b, t);
                if let Some(pos) = path.last().map(|s| s.1) {
                    self.b.add_relation(idx, rel, texts(&path), pos);
                    self.b.add_ref(path, false, false);
                }
            }
        }
        self.within(idx, true, |w| {
            if let Some(body) = node.field("body") {
                w.walk_children(body);
            }
        });
    }

    fn function(&mut self, node: Node) {
        let Some(name) = node.field("name") else { return self.walk_children(node) };
        for c in named_children(node) {
            if c.kind_str() == "attribute_list" {
                self.walk(c);
            }
        }
        let kind = if self.class { SymbolKind::Method } else { SymbolKind::Function };
        let exported = !self.class || has_token_deep(self.b, node, "public") || !has_visibility(self.b, node);
        let idx = self.b.add_symbol(node, name, kind, exported);
        let returns = node.field("return_type").and_then(|t| self.type_path(t));
        self.b.symbol_mut(idx).returns = returns;
        // A constructor's promoted parameters are properties of the class.
        let promotes = self.class && self.b.text(name).eq_ignore_ascii_case("__construct");
        if promotes {
            if let Some(params) = node.field("parameters") {
                for p in named_children(params).into_iter().filter(|p| p.kind_str() == "property_promotion_parameter") {
                    if let Some(var) = p.field("name") {
                        let i = self.property(p, var);
                        let returns = p.field("type").and_then(|t| self.type_path(t));
                        self.b.symbol_mut(i).returns = returns;
                    }
                }
            }
        }
        self.within(idx, false, |w| {
            w.walk_opt(node.field("parameters"));
            w.walk_opt(node.field("return_type"));
            w.walk_opt(node.field("body"));
        });
    }

    fn parameter(&mut self, node: Node) {
        let ty = node.field("type");
        self.walk_opt(ty);
        if let Some(var) = node.field("name") {
            let origin = ty.and_then(|t| self.type_path(t)).map_or(LocalOrigin::Unknown, LocalOrigin::Declared);
            self.local(var, origin);
        }
        self.walk_opt(node.field("default_value"));
    }

    /// The one class a type declaration names (`?Order`, `Order|null`), when it names one.
    fn type_path(&self, ty: Node) -> Option<Vec<String>> {
        let mut classes = Vec::new();
        let mut stack = vec![ty];
        while let Some(t) = stack.pop() {
            match t.kind_str() {
                "named_type" => {
                    if let Some(n) = t.named_child(0) {
                        let (path, _) = name_path(self.b, n);
                        let path = texts(&path);
                        if !(path.len() == 1 && BUILTIN_TYPES.contains(&path[0].to_ascii_lowercase().as_str())) {
                            classes.push(path);
                        }
                    }
                }
                "name" | "qualified_name" => classes.push(texts(&name_path(self.b, t).0)),
                "optional_type" | "union_type" | "nullable_type" => stack.extend(named_children(t)),
                _ => {}
            }
        }
        match classes.as_slice() {
            [one] if !one.is_empty() => Some(one.clone()),
            _ => None,
        }
    }

    /// The class names a type declaration writes: references.
    fn type_ref(&mut self, ty: Node) {
        let mut stack = vec![ty];
        while let Some(t) = stack.pop() {
            match t.kind_str() {
                "named_type" => {
                    if let Some(n) = t.named_child(0) {
                        let (path, _) = name_path(self.b, n);
                        let builtin =
                            path.len() == 1 && BUILTIN_TYPES.contains(&path[0].0.to_ascii_lowercase().as_str());
                        if !builtin && !path.is_empty() {
                            self.b.add_ref(path, false, false);
                        }
                    }
                }
                "name" | "qualified_name" => {
                    let (path, _) = name_path(self.b, t);
                    if !path.is_empty() {
                        self.b.add_ref(path, false, false);
                    }
                }
                "type_list" | "optional_type" | "union_type" | "intersection_type" | "nullable_type" => {
                    stack.extend(named_children(t));
                }
                _ => {}
            }
        }
    }

    /// The origin of a variable from what is assigned to it.
    fn value_origin(&self, value: Node) -> LocalOrigin {
        match value.kind_str() {
            "object_creation_expression" => match value.named_child(0) {
                Some(t) if matches!(t.kind_str(), "name" | "qualified_name") => {
                    LocalOrigin::Constructed(texts(&name_path(self.b, t).0))
                }
                _ => LocalOrigin::Unknown,
            },
            "function_call_expression" | "member_call_expression" | "scoped_call_expression" => {
                self.chain_path(value).map_or(LocalOrigin::Unknown, |(segs, calls)| super::call_origin(&segs, calls))
            }
            _ => LocalOrigin::Unknown,
        }
    }

    /// A chain of members and calls from a variable, name or class: its segments (from the head)
    /// and the indices of the called ones; None when its head is an expression.
    fn chain_path(&self, node: Node) -> Option<(Vec<Segment>, Vec<u32>)> {
        match self.read_chain(node)? {
            (None, segs, calls) => Some((segs, calls)),
            (Some(_), ..) => None,
        }
    }

    /// `chain_path`, and also a chain of members of a new object (`(new Order())->total()`): then
    /// the class constructed and the `new` expression, and the segments after it.
    fn read_chain<'t>(&self, node: Node<'t>) -> Option<ReadChain<'t>> {
        let mut frames: Vec<(Segment, bool)> = Vec::new();
        let mut cur = node;
        let (constructed, mut segs) = loop {
            if frames.len() > 100_000 {
                return None;
            }
            match cur.kind_str() {
                "member_access_expression"
                | "nullsafe_member_access_expression"
                | "scoped_property_access_expression" => {
                    let name = cur.field("name")?;
                    frames.push((self.member_seg(name), false));
                    cur = cur.field("object").or_else(|| cur.field("scope"))?;
                }
                "member_call_expression" | "nullsafe_member_call_expression" | "scoped_call_expression" => {
                    let name = cur.field("name")?;
                    frames.push((self.member_seg(name), true));
                    cur = cur.field("object").or_else(|| cur.field("scope"))?;
                }
                "class_constant_access_expression" => {
                    let kids = named_children(cur);
                    let (scope, name) = (kids.first()?, kids.get(1)?);
                    frames.push((self.b.seg(*name), false));
                    cur = *scope;
                }
                "function_call_expression" => {
                    let f = cur.field("function")?;
                    if !matches!(f.kind_str(), "name" | "qualified_name") {
                        return None;
                    }
                    // The function's name is called: a frame of its own.
                    let (mut path, _) = name_path(self.b, f);
                    let last = path.pop()?;
                    frames.push((last, true));
                    break (None, path);
                }
                "variable_name" => break (None, vec![self.var_seg(cur)]),
                "relative_scope" => {
                    break (None, vec![(self.b.text(cur).to_ascii_lowercase(), self.b.pos(cur))]);
                }
                "name" | "qualified_name" => break (None, name_path(self.b, cur).0),
                "object_creation_expression" if !frames.is_empty() => {
                    let class = cur.named_child(0).filter(|t| matches!(t.kind_str(), "name" | "qualified_name"))?;
                    break (Some((texts(&name_path(self.b, class).0), cur)), Vec::new());
                }
                "parenthesized_expression" => cur = cur.named_child(0)?,
                _ => return None,
            }
        };
        let mut calls = Vec::new();
        for (seg, call) in frames.into_iter().rev() {
            segs.push(seg);
            if call {
                calls.push(segs.len() as u32 - 1);
            }
        }
        Some((constructed, segs, calls))
    }

    /// A member's name: `->name`, `::$prop` (named without `$`).
    fn member_seg(&self, name: Node) -> Segment {
        let text = self.b.text(name);
        let pos = self.b.pos(name);
        match text.strip_prefix('$') {
            Some(t) => (t.to_string(), Pos { line: pos.line, col: pos.col + 1 }),
            None => (text.to_string(), pos),
        }
    }

    /// Records a chain, and walks the arguments of its calls and any expression at its head.
    fn chain(&mut self, node: Node) {
        match self.read_chain(node) {
            Some((constructed, segs, mut calls)) => {
                let last = segs.len() as u32 - 1;
                let called = calls.last() == Some(&last);
                if called {
                    calls.pop();
                }
                match constructed {
                    None => self.b.add_call_chain(segs, calls, called, false),
                    Some((class, new)) => {
                        self.walk(new);
                        let base = ReceiverBase::Value(LocalOrigin::Constructed(class));
                        self.b.add_receiver_chain(segs, calls, called, Receiver { base, members: Vec::new() });
                    }
                }
            }
            None => {
                // An expression at the head: the names after it can't be proven; walk it.
                if let Some(obj) =
                    node.field("object").or_else(|| node.field("scope")).or_else(|| node.field("function"))
                {
                    self.walk(obj);
                }
            }
        }
        // Arguments of every call on the way, and index expressions.
        let mut cur = Some(node);
        let mut steps = 0;
        while let Some(n) = cur {
            steps += 1;
            if steps > 100_000 {
                break;
            }
            self.walk_opt(n.field("arguments"));
            cur = n
                .field("object")
                .or_else(|| n.field("scope"))
                .filter(|o| !matches!(o.kind_str(), "variable_name" | "name" | "qualified_name" | "relative_scope"));
            if n.kind_str() == "function_call_expression" {
                break;
            }
        }
    }
}

/// Whether a declaration (or its modifiers) has the keyword `kw`.
fn has_token_deep(b: &Builder, node: Node, kw: &str) -> bool {
    named_children(node).iter().any(|c| c.kind_str() == "visibility_modifier" && b.text(*c).eq_ignore_ascii_case(kw))
}

fn has_visibility(b: &Builder, node: Node) -> bool {
    let _ = b;
    named_children(node).iter().any(|c| c.kind_str() == "visibility_modifier")
}

/// A chain as `Walker::read_chain` reads it: the class and `new` expression at its head when it is
/// a member of a new object, its segments, and the indices of the called ones.
type ReadChain<'t> = (Option<(Vec<String>, Node<'t>)>, Vec<Segment>, Vec<u32>);

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::{FileFacts, ImportKind, LocalOrigin, SymbolKind, TypeRelKind};
    use crate::lang::Language;

    fn php(src: &str) -> FileFacts {
        extract(Language::Php, src)
    }

    use crate::extract::testing::refs;

    #[test]
    fn namespaces_uses_classes_and_members() {
        let src = r"<?php
namespace App\Models;
use App\Util\{Money, Tax as T};
use function App\Util\format_money;
require_once __DIR__ . '/helpers.php';
interface Shape { public function area(): float; }
trait Named { public function name(): string { return static::class; } }
class Order extends Base implements Shape {
    use Named;
    private array $lines = [];
    public const MAX = 3;
    public function __construct(private Money $total) {}
    public function area(): float { return $this->total->value + self::MAX + parent::area(); }
}
function helper(?Order $o): Order { $x = new Order(new Money(1)); $y = T::rate(); return $o; }
";
        let f = php(src);
        use SymbolKind::*;
        let got = crate::extract::testing::symbols(&f);
        assert_eq!(
            got,
            vec![
                ("App", Module, None, true),
                ("Models", Module, Some(0), true),
                ("Shape", Interface, Some(1), true),
                ("area", Method, Some(2), true),
                ("Named", Trait, Some(1), true),
                ("name", Method, Some(4), true),
                ("Order", Class, Some(1), true),
                ("lines", Field, Some(6), false),
                ("MAX", Constant, Some(6), true),
                ("__construct", Method, Some(6), true),
                ("total", Field, Some(6), false),
                ("area", Method, Some(6), true),
                ("helper", Function, Some(1), true),
            ]
        );
        assert_eq!(f.symbols[10].returns.as_deref(), Some(&["Money".to_string()][..]));
        assert_eq!(f.symbols[12].returns.as_deref(), Some(&["Order".to_string()][..]));
        let imports = crate::extract::testing::imports(&f);
        assert_eq!(
            imports,
            vec![
                ("App\\Util", ImportKind::Named, vec![("Money", "Money")]),
                ("App\\Util", ImportKind::Named, vec![("Tax", "T")]),
                ("App\\Util", ImportKind::Named, vec![("format_money", "format_money")]),
                ("./helpers.php", ImportKind::SideEffect, vec![]),
            ]
        );
        let rels: Vec<(u32, TypeRelKind, Vec<String>)> =
            f.relations.iter().map(|r| (r.symbol, r.kind, r.target.clone())).collect();
        assert_eq!(
            rels,
            vec![
                (6, TypeRelKind::Extends, vec!["Base".into()]),
                (6, TypeRelKind::Implements, vec!["Shape".into()]),
                (6, TypeRelKind::Implements, vec!["Named".into()]),
            ]
        );
        let r = refs(&f);
        assert!(r.contains(&(vec!["this", "total", "value"], false)));
        assert!(r.contains(&(vec!["self", "MAX"], false)));
        assert!(r.contains(&(vec!["parent", "area"], true)));
        assert!(r.contains(&(vec!["Order"], true)));
        assert!(r.contains(&(vec!["T", "rate"], true)));
        let local = |n: &str| f.locals.iter().find(|l| l.name == n).map(|l| l.origin.clone());
        assert_eq!(local("$o"), Some(LocalOrigin::Declared(vec!["Order".into()])));
        assert_eq!(local("$x"), Some(LocalOrigin::Constructed(vec!["Order".into()])));
        assert_eq!(local("$y"), Some(LocalOrigin::CallResult(vec!["T".into(), "rate".into()])));
        // A variable is never a name a declaration could have.
        assert!(!r.iter().any(|(s, _)| s.first().is_some_and(|h| *h == "o" || *h == "x")));
    }

    #[test]
    fn hostile_php_is_bounded() {
        let parens = format!("<?php $x = {}1{};", "(".repeat(10_000), ")".repeat(10_000));
        assert!(php(&parens).truncated_depth);
        let chain = format!("<?php $a{};", "->b".repeat(10_000));
        assert_eq!(php(&chain).refs.iter().map(|r| r.segments.len()).max(), Some(10_001));
        let f = php("<?php $s = <<<EOT\nnever closed {$a->b} \"{$c[\"{$d}\"]}\"");
        assert!(f.error_nodes > 0 || !f.refs.is_empty());
        let big = format!("<?php\n{}", "function f() { return g(1); }\n".repeat(35_000));
        assert!(big.len() > 1 << 20);
        assert_eq!(php(&big).symbols.len(), 35_000);
    }
}
