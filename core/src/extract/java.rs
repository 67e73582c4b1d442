//! Extraction for Java (tree-sitter-java 0.23): types and their members, imports, the package, member
//! chains and calls, constructor calls, type uses, parameters and local variables, and the
//! extends/implements relations.
//!
//! Type parameters (`<T>` of a class or method) are tracked while their declaration is walked: a use
//! of `T` is not a reference to a type and gives no declared type to a local or a return.

use super::{Field, Kind};
use tree_sitter::Node;

use super::chain::ChainWalker;
use super::{children, has_token, named_children, texts, Builder, ChainSyntax, Member, Walk};
use crate::facts::{ImportItem, ImportKind, LocalOrigin, Pos, SymbolKind, TypeRelKind};

type Seg = (String, Pos);

/// Signatures are cut to this many characters (as `Builder` does for the declaration's first line).
const MAX_SIGNATURE_CHARS: usize = 200;

pub(crate) fn extract(b: &mut Builder, root: Node) {
    let mut w = Walker { b, tparams: Vec::new(), iface: false };
    w.walk(root);
}

/// The walk's state besides the builder: the type parameters in scope, and whether the declarations
/// being walked are members of an interface (implicitly public).
struct Walker<'a, 's> {
    b: &'a mut Builder<'s>,
    tparams: Vec<String>,
    iface: bool,
}

/// Kinds that denote a type written in a declaration (not a primitive).
fn is_type_node(kind: &str) -> bool {
    matches!(kind, "type_identifier" | "scoped_type_identifier" | "generic_type" | "array_type" | "annotated_type")
}

fn is_annotation(kind: &str) -> bool {
    matches!(kind, "annotation" | "marker_annotation")
}

/// `var x = ...`: the grammar writes the inferred type as a `type_identifier` "var".
fn is_var(b: &Builder, ty: Node) -> bool {
    ty.kind_str() == "type_identifier" && b.text(ty) == "var"
}

/// Whether the declaration has a `public` modifier.
fn is_public(node: Node) -> bool {
    named_children(node).into_iter().any(|c| c.kind_str() == "modifiers" && has_token(c, "public"))
}

/// Where a declaration's signature starts: after its annotations, so `@Override` on the line above
/// does not become the signature.
fn signature_start(node: Node) -> usize {
    for c in children(node) {
        match c.kind_str() {
            "line_comment" | "block_comment" => {}
            "annotation" | "marker_annotation" => {}
            "modifiers" => {
                if let Some(m) =
                    children(c).into_iter().find(|m| !is_annotation(m.kind_str()) && !m.kind_str().ends_with("comment"))
                {
                    return m.start_byte();
                }
            }
            _ => return c.start_byte(),
        }
    }
    node.start_byte()
}

/// How Java writes chains of names: `a.b.c` (`field_access`), `a.m()` (`method_invocation`, a
/// member access and a call at once), `Outer.this.x` (the keyword qualifies, it is no segment).
const CHAIN: ChainSyntax = ChainSyntax {
    names: &["identifier", "this", "super"],
    members: &[Member { kind: "field_access", object: &["object"], name: &["field"], rooted: false, path: false }],
    member_calls: &[Member {
        kind: "method_invocation",
        object: &["object"],
        name: &["name"],
        rooted: false,
        path: false,
    }],
    silent_names: &["this", "super"],
    calls: &[],
    operators: &[],
    slices: &[],
    through: &[],
    extras: &[],
    typed_head: Some(head_type),
    arguments: None,
    closure: None,
};

/// The type of the value a construction makes (`new Order(…).total()`).
fn head_type(b: &Builder, node: Node) -> Option<LocalOrigin> {
    let inner = if node.kind_str() == "parenthesized_expression" { node.named_child(0)? } else { node };
    // An anonymous class's own members may override the type's: not this rule.
    if inner.kind_str() != "object_creation_expression"
        || named_children(inner).iter().any(|c| c.kind_str() == "class_body")
    {
        return None;
    }
    type_path(b, Walker::field(inner, "type")?).map(|p| LocalOrigin::Declared(texts(&p)))
}

/// A type's path without generic arguments, arrays and annotations: `a.b.Base<T>[]` → [a, b, Base].
/// Primitives and `void` have none. Also reads `scoped_identifier`s (annotation names, imports).
fn type_path(b: &Builder, ty: Node) -> Option<Vec<Seg>> {
    let mut segs = Vec::new();
    let mut cur = ty;
    loop {
        match cur.kind_str() {
            "type_identifier" | "identifier" => {
                segs.push(b.seg(cur));
                break;
            }
            "scoped_type_identifier" => {
                let parts: Vec<Node> =
                    named_children(cur).into_iter().filter(|c| !is_annotation(c.kind_str())).collect();
                let Some(last) = parts.last() else { break };
                segs.push(b.seg(*last));
                if parts.len() < 2 {
                    break;
                }
                cur = parts[0];
            }
            "scoped_identifier" => {
                let Some(name) = Walker::field(cur, "name") else {
                    break;
                };
                segs.push(b.seg(name));
                let Some(scope) = Walker::field(cur, "scope") else {
                    break;
                };
                cur = scope;
            }
            "generic_type" => {
                let Some(base) = named_children(cur).into_iter().find(|c| c.kind_str() != "type_arguments") else {
                    break;
                };
                cur = base;
            }
            "array_type" => {
                let Some(element) = Walker::field(cur, "element") else {
                    break;
                };
                cur = element;
            }
            "annotated_type" => {
                let Some(inner) = named_children(cur).into_iter().rfind(|c| !is_annotation(c.kind_str())) else {
                    break;
                };
                cur = inner;
            }
            _ => break,
        }
    }
    if segs.is_empty() {
        return None;
    }
    segs.reverse();
    Some(segs)
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
            "line_comment" | "block_comment" | "string_literal" | "character_literal" | "module_declaration"
            | "this" | "super" | "break_statement" | "continue_statement" | "underscore_pattern" => {}
            "package_declaration" => self.package(node),
            "import_declaration" => self.import(node),
            "class_declaration" | "record_declaration" => self.type_decl(node, SymbolKind::Class),
            "interface_declaration" | "annotation_type_declaration" => self.type_decl(node, SymbolKind::Interface),
            "enum_declaration" => self.type_decl(node, SymbolKind::Enum),
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration"
            | "annotation_type_element_declaration" => self.method(node),
            "field_declaration" | "constant_declaration" => self.field_decl(node),
            "enum_constant" => self.enum_constant(node),
            "type_parameters" => self.type_params(node),
            "local_variable_declaration" => self.local_var(node),
            "formal_parameter" | "spread_parameter" | "catch_formal_parameter" => self.param(node),
            "receiver_parameter" => {
                // `void m(Outer this)`: only the type is a use.
                for c in named_children(node) {
                    if c.kind_str() != "identifier" && c.kind_str() != "this" {
                        self.walk(c);
                    }
                }
            }
            "lambda_expression" => self.lambda(node),
            "enhanced_for_statement" => self.enhanced_for(node),
            "resource" => self.resource(node),
            "instanceof_expression" => {
                self.walk_opt(Self::field(node, "left"));
                if let Some(ty) = Self::field(node, "right") {
                    self.type_ref(ty);
                    if let Some(name) = Self::field(node, "name") {
                        let origin = self.declared_origin(ty);
                        self.local(name, origin);
                    }
                }
                self.walk_opt(Self::field(node, "pattern"));
            }
            "type_pattern" | "record_pattern_component" => self.pattern_binding(node),
            "record_pattern" => {
                for c in named_children(node) {
                    match c.kind_str() {
                        "identifier" => {
                            let seg = self.b.seg(c);
                            self.b.add_ref(vec![seg], false, false);
                        }
                        _ => self.walk(c),
                    }
                }
            }
            "labeled_statement" => {
                for c in named_children(node) {
                    if c.kind_str() != "identifier" {
                        self.walk(c);
                    }
                }
            }
            "method_invocation" | "field_access" => super::chain::drive(self, node, false, &CHAIN),
            "object_creation_expression" => self.object_creation(node),
            "explicit_constructor_invocation" => {
                // `super(...)` / `this(...)`: a call of the superclass's / this class's constructor.
                self.walk_opt(Self::field(node, "object"));
                if let Some(ctor) = Self::field(node, "constructor") {
                    let seg = self.b.seg(ctor);
                    self.b.add_ref(vec![seg], true, false);
                }
                self.walk_opt(Self::field(node, "type_arguments"));
                self.walk_opt(Self::field(node, "arguments"));
            }
            "method_reference" => self.method_reference(node),
            "annotation" | "marker_annotation" => {
                if let Some(name) = Self::field(node, "name") {
                    if let Some(path) = type_path(self.b, name) {
                        self.b.add_ref(path, false, false);
                    }
                }
                self.walk_opt(Self::field(node, "arguments"));
            }
            // `@Ann(key = value)`: the key names an element of the annotation type, not a name in scope.
            "element_value_pair" => self.walk_opt(Self::field(node, "value")),
            "identifier" => {
                let seg = self.b.seg(node);
                self.b.add_ref(vec![seg], false, false);
            }
            kind if is_type_node(kind) => self.type_ref(node),
            _ => self.walk_children(node),
        }
        self.b.ascend();
    }
}

impl<'s> Walker<'_, 's> {
    /// Runs `f` with `symbol` as the innermost enclosing symbol.
    fn within(&mut self, symbol: u32, f: impl FnOnce(&mut Walker<'_, 's>)) {
        let mut tparams = std::mem::take(&mut self.tparams);
        let iface = self.iface;
        self.b.within(symbol, |b| {
            let mut w = Walker { b, tparams: std::mem::take(&mut tparams), iface };
            f(&mut w);
            tparams = w.tparams;
        });
        self.tparams = tparams;
    }

    fn field<'t>(node: Node<'t>, name: &'static str) -> Option<Node<'t>> {
        node.field(name)
    }

    /// Walks the modifiers and annotations written directly on a declaration.
    fn walk_modifiers(&mut self, node: Node) {
        for c in named_children(node) {
            if c.kind_str() == "modifiers" || is_annotation(c.kind_str()) {
                self.walk(c);
            }
        }
    }

    // ----- declarations -----

    fn package(&mut self, node: Node) {
        for c in named_children(node) {
            match c.kind_str() {
                "identifier" | "scoped_identifier" => {
                    if let Some(path) = type_path(self.b, c) {
                        self.b.facts.package = Some(texts(&path).join("."));
                    }
                }
                _ => self.walk(c),
            }
        }
    }

    fn import(&mut self, node: Node) {
        let kids = named_children(node);
        let Some(path_node) = kids.iter().find(|c| matches!(c.kind_str(), "identifier" | "scoped_identifier")) else {
            return;
        };
        let Some(mut path) = type_path(self.b, *path_node) else {
            return;
        };
        let pos = self.b.pos(node);
        if kids.iter().any(|c| c.kind_str() == "asterisk") {
            self.b.add_import(texts(&path).join("."), ImportKind::Glob, Vec::new(), pos, false);
        } else if let Some((name, name_pos)) = path.pop() {
            let item = ImportItem { alias: name.clone(), name, pos: name_pos };
            self.b.add_import(texts(&path).join("."), ImportKind::Named, vec![item], pos, false);
        }
    }

    /// Replaces the symbol's signature by the declaration's first line without its annotations.
    fn set_signature(&mut self, idx: u32, decl: Node) {
        let start = signature_start(decl).max(decl.start_byte());
        let text = self.b.src.get(start..decl.end_byte()).unwrap_or("");
        let line = text.lines().next().unwrap_or("").trim();
        let signature = if line.chars().count() > MAX_SIGNATURE_CHARS {
            let cut: String = line.chars().take(MAX_SIGNATURE_CHARS).collect();
            format!("{cut}…")
        } else {
            line.to_string()
        };
        self.b.symbol_mut(idx).signature = signature;
    }

    fn add_symbol(&mut self, decl: Node, name: Node, kind: SymbolKind, exported: bool) -> u32 {
        let idx = self.b.add_symbol(decl, name, kind, exported);
        self.set_signature(idx, decl);
        idx
    }

    fn type_decl(&mut self, node: Node, kind: SymbolKind) {
        let Some(name) = Self::field(node, "name") else {
            self.walk_children(node);
            return;
        };
        let exported = self.iface || is_public(node);
        self.walk_modifiers(node);
        let idx = self.add_symbol(node, name, kind, exported);
        let is_iface = kind == SymbolKind::Interface;
        self.within(idx, |w| {
            w.iface = false;
            let saved = w.tparams.len();
            w.walk_opt(Self::field(node, "type_parameters"));
            for c in named_children(node) {
                match c.kind_str() {
                    "superclass" => {
                        for ty in named_children(c) {
                            w.relate(idx, TypeRelKind::Extends, ty);
                        }
                    }
                    "super_interfaces" | "extends_interfaces" => {
                        let rel = if c.kind_str() == "extends_interfaces" {
                            TypeRelKind::Extends
                        } else {
                            TypeRelKind::Implements
                        };
                        for list in named_children(c) {
                            if list.kind_str() == "type_list" {
                                for ty in named_children(list) {
                                    w.relate(idx, rel, ty);
                                }
                            }
                        }
                    }
                    "permits" => w.walk(c),
                    _ => {}
                }
            }
            if node.kind_str() == "record_declaration" {
                if let Some(params) = Self::field(node, "parameters") {
                    w.record_components(params);
                }
            }
            if let Some(body) = Self::field(node, "body") {
                w.iface = is_iface;
                w.walk(body);
                w.iface = false;
            }
            w.tparams.truncate(saved);
        });
    }

    /// One supertype of `idx`: a relation and a type reference.
    fn relate(&mut self, idx: u32, kind: TypeRelKind, ty: Node) {
        if let Some(path) = self.checked_type_path(ty) {
            let pos = path.last().map(|s| s.1).unwrap_or_default();
            self.b.add_relation(idx, kind, texts(&path), pos);
        }
        self.type_ref(ty);
    }

    /// `record R(int a, Order o)`: each component is a (private) field with a public accessor.
    fn record_components(&mut self, params: Node) {
        for p in named_children(params) {
            let (ty, name) = param_parts(p);
            self.walk_modifiers(p);
            let returns = ty.and_then(|t| self.checked_type_path(t));
            if let Some(t) = ty {
                self.type_ref(t);
            }
            if let Some(name) = name.filter(|n| n.kind_str() == "identifier") {
                let idx = self.add_symbol(p, name, SymbolKind::Field, true);
                self.b.symbol_mut(idx).returns = returns.map(|r| texts(&r));
            }
        }
    }

    fn method(&mut self, node: Node) {
        let Some(name) = Self::field(node, "name") else {
            self.walk_children(node);
            return;
        };
        let exported = self.iface || is_public(node);
        self.walk_modifiers(node);
        let idx = self.add_symbol(node, name, SymbolKind::Method, exported);
        self.within(idx, |w| {
            w.iface = false;
            let saved = w.tparams.len();
            w.walk_opt(Self::field(node, "type_parameters"));
            if let Some(ty) = Self::field(node, "type") {
                let returns = w.checked_type_path(ty).map(|p| texts(&p));
                w.b.symbol_mut(idx).returns = returns;
                w.type_ref(ty);
            }
            w.walk_opt(Self::field(node, "parameters"));
            w.walk_opt(Self::field(node, "dimensions"));
            for c in named_children(node) {
                if c.kind_str() == "throws" {
                    w.walk(c);
                }
            }
            w.walk_opt(Self::field(node, "value"));
            w.walk_opt(Self::field(node, "body"));
            w.tparams.truncate(saved);
        });
    }

    fn field_decl(&mut self, node: Node) {
        let exported = self.iface || is_public(node);
        self.walk_modifiers(node);
        let ty = Self::field(node, "type");
        let returns = ty.and_then(|t| self.checked_type_path(t)).map(|p| texts(&p));
        if let Some(t) = ty {
            self.type_ref(t);
        }
        let iface = std::mem::replace(&mut self.iface, false);
        let mut cursor = node.walk();
        let declarators: Vec<Node> = node.children_by_field_name("declarator", &mut cursor).collect();
        for d in declarators {
            if let Some(name) = Self::field(d, "name").filter(|n| n.kind_str() == "identifier") {
                let idx = self.add_symbol(node, name, SymbolKind::Field, exported);
                self.b.symbol_mut(idx).returns.clone_from(&returns);
            }
            self.walk_opt(Self::field(d, "dimensions"));
            self.walk_opt(Self::field(d, "value"));
        }
        self.iface = iface;
    }

    fn enum_constant(&mut self, node: Node) {
        let Some(name) = Self::field(node, "name") else {
            self.walk_children(node);
            return;
        };
        self.walk_modifiers(node);
        // Enum constants are implicitly public, and typed by their enum.
        let enum_name = self.b.enclosing().map(|e| self.b.facts.symbols[e as usize].name.clone());
        let idx = self.add_symbol(node, name, SymbolKind::Constant, true);
        self.b.symbol_mut(idx).returns = enum_name.map(|n| vec![n]);
        let iface = std::mem::replace(&mut self.iface, false);
        self.walk_opt(Self::field(node, "arguments"));
        if let Some(body) = Self::field(node, "body") {
            self.within(idx, |w| w.walk(body));
        }
        self.iface = iface;
    }

    /// `<T extends Base<T>, U>`: the names come into scope (for the bounds too), the bounds are uses.
    fn type_params(&mut self, node: Node) {
        let params = named_children(node);
        for p in &params {
            if let Some(name) = named_children(*p).into_iter().find(|c| c.kind_str() == "type_identifier") {
                let name = self.b.text(name).to_string();
                self.tparams.push(name);
            }
        }
        for p in params {
            for c in named_children(p) {
                if c.kind_str() != "type_identifier" {
                    self.walk(c);
                }
            }
        }
    }

    // ----- locals -----

    fn local(&mut self, name: Node, origin: LocalOrigin) {
        if name.kind_str() == "identifier" {
            let text = self.b.text(name).to_string();
            self.b.add_local(&text, origin);
        }
    }

    /// The origin of a local declared with type `ty` (`var` and primitives prove nothing).
    fn declared_origin(&self, ty: Node) -> LocalOrigin {
        if is_var(self.b, ty) {
            return LocalOrigin::Unknown;
        }
        match self.checked_type_path(ty) {
            Some(path) => LocalOrigin::Declared(texts(&path)),
            None => LocalOrigin::Unknown,
        }
    }

    /// The origin of a `var` initialised by `value`.
    fn value_origin(&self, value: Node) -> LocalOrigin {
        match value.kind_str() {
            "object_creation_expression" => Self::field(value, "type")
                .and_then(|t| self.checked_type_path(t))
                .map_or(LocalOrigin::Unknown, |p| LocalOrigin::Constructed(texts(&p))),
            // `Factory.make()`: the result of one call of a chain of names.
            "method_invocation" => match CHAIN.called_names(self.b, value) {
                Some((segs, calls)) if calls == [segs.len() as u32 - 1] => LocalOrigin::CallResult(texts(&segs)),
                _ => LocalOrigin::Unknown,
            },
            "cast_expression" => {
                let mut cursor = value.walk();
                let types: Vec<Node> = value.children_by_field_name("type", &mut cursor).collect();
                match types.as_slice() {
                    [ty] => self.declared_origin(*ty),
                    _ => LocalOrigin::Unknown,
                }
            }
            _ => LocalOrigin::Unknown,
        }
    }

    fn local_var(&mut self, node: Node) {
        self.walk_modifiers(node);
        let Some(ty) = Self::field(node, "type") else {
            self.walk_children(node);
            return;
        };
        let inferred = is_var(self.b, ty);
        self.type_ref(ty);
        let declared = self.declared_origin(ty);
        let mut cursor = node.walk();
        let declarators: Vec<Node> = node.children_by_field_name("declarator", &mut cursor).collect();
        for d in declarators {
            let value = Self::field(d, "value");
            if let Some(name) = Self::field(d, "name") {
                let origin = match value {
                    Some(v) if inferred => self.value_origin(v),
                    _ => declared.clone(),
                };
                self.local(name, origin);
            }
            self.walk_opt(Self::field(d, "dimensions"));
            self.walk_opt(value);
        }
    }

    fn param(&mut self, node: Node) {
        self.walk_modifiers(node);
        let (ty, name) = param_parts(node);
        let origin = match ty {
            Some(t) if node.kind_str() == "catch_formal_parameter" => {
                // `catch (A | B e)`: a single caught type is the parameter's type.
                let types: Vec<Node> = named_children(t).into_iter().filter(|c| is_type_node(c.kind_str())).collect();
                for c in &types {
                    self.type_ref(*c);
                }
                match types.as_slice() {
                    [one] => self.declared_origin(*one),
                    _ => LocalOrigin::Unknown,
                }
            }
            Some(t) => {
                self.type_ref(t);
                self.declared_origin(t)
            }
            None => LocalOrigin::Unknown,
        };
        if let Some(name) = name {
            self.local(name, origin);
        }
        self.walk_opt(Self::field(node, "dimensions"));
    }

    fn lambda(&mut self, node: Node) {
        if let Some(params) = Self::field(node, "parameters") {
            match params.kind_str() {
                "identifier" => self.local(params, LocalOrigin::Unknown),
                "inferred_parameters" => {
                    for p in named_children(params) {
                        self.local(p, LocalOrigin::Unknown);
                    }
                }
                _ => self.walk(params),
            }
        }
        self.walk_opt(Self::field(node, "body"));
    }

    fn enhanced_for(&mut self, node: Node) {
        self.walk_modifiers(node);
        if let Some(ty) = Self::field(node, "type") {
            self.type_ref(ty);
            if let Some(name) = Self::field(node, "name") {
                let origin = self.declared_origin(ty);
                self.local(name, origin);
            }
        }
        self.walk_opt(Self::field(node, "dimensions"));
        self.walk_opt(Self::field(node, "value"));
        self.walk_opt(Self::field(node, "body"));
    }

    /// `try (Res r = open(); var s = new S(); existing)`.
    fn resource(&mut self, node: Node) {
        let Some(name) = Self::field(node, "name") else {
            self.walk_children(node);
            return;
        };
        self.walk_modifiers(node);
        let value = Self::field(node, "value");
        if let Some(ty) = Self::field(node, "type") {
            self.type_ref(ty);
            let origin = match value {
                Some(v) if is_var(self.b, ty) => self.value_origin(v),
                _ => self.declared_origin(ty),
            };
            self.local(name, origin);
        }
        self.walk_opt(Self::field(node, "dimensions"));
        self.walk_opt(value);
    }

    /// `case Order o ->`, `o instanceof Point(int x, Order y)`: a typed binding.
    fn pattern_binding(&mut self, node: Node) {
        let kids = named_children(node);
        match kids.as_slice() {
            [ty, name] if name.kind_str() == "identifier" => {
                self.type_ref(*ty);
                let origin = self.declared_origin(*ty);
                self.local(*name, origin);
            }
            _ => {
                for c in kids {
                    self.walk(c);
                }
            }
        }
    }

    // ----- expressions -----

    fn object_creation(&mut self, node: Node) {
        let ty = Self::field(node, "type");
        for c in named_children(node) {
            if Some(c) == ty {
                if let Some(path) = self.checked_type_path(c) {
                    self.b.add_ref(path, true, false);
                }
                self.type_extras(c);
            } else if c.kind_str() == "class_body" {
                // An anonymous class: its members belong to no interface.
                let iface = std::mem::replace(&mut self.iface, false);
                self.walk(c);
                self.iface = iface;
            } else {
                self.walk(c);
            }
        }
    }

    /// `Order::total`, `this::m`, `Order::new`, `f()::g`: a reference to the method (not a call).
    fn method_reference(&mut self, node: Node) {
        let kids = named_children(node);
        let Some(&recv) = kids.first() else {
            return;
        };
        let method = kids.last().filter(|m| kids.len() > 1 && m.kind_str() == "identifier").copied();
        let (head, mut segs, opaque) = if is_type_node(recv.kind_str()) || recv.kind_str().ends_with("_type") {
            let path = self.checked_type_path(recv);
            self.type_extras(recv);
            let opaque = path.is_none();
            (None, path.unwrap_or_default(), opaque)
        } else {
            match CHAIN.names(self.b, recv) {
                Some(segs) => (None, segs, false),
                None => (Some(recv), Vec::new(), true),
            }
        };
        self.walk_opt(head);
        for c in &kids {
            if c.kind_str() == "type_arguments" {
                self.walk(*c);
            }
        }
        if let Some(m) = method {
            segs.push(self.b.seg(m));
        }
        self.b.add_ref(segs, false, opaque);
    }

    // ----- types -----

    /// A type written in a declaration or expression: one reference (generic arguments and array
    /// dimensions stripped), then the generic arguments and annotations inside it.
    fn type_ref(&mut self, ty: Node) {
        if is_var(self.b, ty) {
            return;
        }
        if let Some(path) = self.checked_type_path(ty) {
            self.b.add_ref(path, false, false);
        }
        self.type_extras(ty);
    }

    /// The parts of a type that are walked on their own: generic arguments, annotations, dimensions.
    fn type_extras(&mut self, ty: Node) {
        if !self.b.descend() {
            return;
        }
        for c in named_children(ty) {
            match c.kind_str() {
                "type_arguments" | "annotation" | "marker_annotation" | "dimensions" => self.walk(c),
                "generic_type" | "scoped_type_identifier" | "array_type" | "annotated_type" => self.type_extras(c),
                _ => {}
            }
        }
        self.b.ascend();
    }

    /// `type_path`, except for a type parameter in scope (or `var`), which names no declared type.
    fn checked_type_path(&self, ty: Node) -> Option<Vec<Seg>> {
        if is_var(self.b, ty) {
            return None;
        }
        let path = type_path(self.b, ty)?;
        if path.len() == 1 && self.tparams.iter().any(|t| *t == path[0].0) {
            return None;
        }
        Some(path)
    }
}

/// The type and name nodes of a formal, spread or catch parameter.
fn param_parts(node: Node) -> (Option<Node>, Option<Node>) {
    match node.kind_str() {
        "spread_parameter" => {
            let kids = named_children(node);
            let ty = kids.iter().find(|c| is_type_node(c.kind_str()) || c.kind_str().ends_with("_type")).copied();
            let name = kids.iter().find(|c| c.kind_str() == "variable_declarator").and_then(|d| d.field("name"));
            (ty, name)
        }
        "catch_formal_parameter" => {
            let ty = named_children(node).into_iter().find(|c| c.kind_str() == "catch_type");
            (ty, node.field("name"))
        }
        _ => (node.field("type"), node.field("name")),
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::{FileFacts, ImportKind, LocalOrigin, Pos, SymbolKind, TypeRelKind};
    use crate::lang::Language;

    fn java(src: &str) -> FileFacts {
        extract(Language::Java, src)
    }

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(std::string::ToString::to_string).collect()
    }

    fn pos(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }

    /// Refs as (segment texts, call, `opaque_head`).
    fn refs(f: &FileFacts) -> Vec<(Vec<String>, bool, bool)> {
        f.refs.iter().map(|r| (r.segments.iter().map(|s| s.0.clone()).collect(), r.call, r.opaque_head)).collect()
    }

    fn has_ref(f: &FileFacts, p: &[&str], call: bool, opaque: bool) -> bool {
        refs(f).contains(&(path(p), call, opaque))
    }

    fn local<'f>(f: &'f FileFacts, name: &str) -> &'f LocalOrigin {
        &f.locals.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no local {name}")).origin
    }

    #[test]
    fn package_and_imports() {
        let f = java(
            "package com.shop.model;\nimport java.util.List;\nimport a.b.*;\nimport static a.b.C.m;\nimport static a.b.C.*;\nclass X {}\n",
        );
        assert_eq!(f.package.as_deref(), Some("com.shop.model"));
        assert_eq!(f.imports.len(), 4);
        let i = &f.imports[0];
        assert_eq!(
            (i.module.as_str(), i.kind, i.pos, i.reexport, i.scope),
            ("java.util", ImportKind::Named, pos(2, 1), false, None)
        );
        assert_eq!(i.items.len(), 1);
        assert_eq!((i.items[0].name.as_str(), i.items[0].alias.as_str(), i.items[0].pos), ("List", "List", pos(2, 18)));
        assert_eq!((f.imports[1].module.as_str(), f.imports[1].kind), ("a.b", ImportKind::Glob));
        assert!(f.imports[1].items.is_empty());
        let s = &f.imports[2];
        assert_eq!((s.module.as_str(), s.kind), ("a.b.C", ImportKind::Named));
        assert_eq!((s.items[0].name.as_str(), s.items[0].alias.as_str(), s.items[0].pos), ("m", "m", pos(4, 21)));
        assert_eq!((f.imports[3].module.as_str(), f.imports[3].kind), ("a.b.C", ImportKind::Glob));
        // Package and import names are not references.
        assert!(f.refs.is_empty(), "{:?}", refs(&f));
    }

    #[test]
    fn types_members_containers_and_exports() {
        let src = r#"public class Cart {
    private final List<Order> items;
    public static final int MAX = 3, MIN = 1;
    public Cart(int n) {}
    @Override
    public Order find(String id) { return null; }
    void clear() {}
    public static class Line {}
    interface Repo { Order get(); int LIMIT = 2; class Impl {} }
    enum Color { RED, GREEN }
    record Pt(int x, Order o) {}
    @interface Ann { String value() default ""; }
}
class Hidden {}
"#;
        let f = java(src);
        let got: Vec<(&str, SymbolKind, Option<u32>, bool)> =
            f.symbols.iter().map(|s| (s.name.as_str(), s.kind, s.container, s.exported)).collect();
        use SymbolKind::*;
        assert_eq!(
            got,
            vec![
                ("Cart", Class, None, true),
                ("items", Field, Some(0), false),
                ("MAX", Field, Some(0), true),
                ("MIN", Field, Some(0), true),
                ("Cart", Method, Some(0), true),
                ("find", Method, Some(0), true),
                ("clear", Method, Some(0), false),
                ("Line", Class, Some(0), true),
                ("Repo", Interface, Some(0), false),
                ("get", Method, Some(8), true),
                ("LIMIT", Field, Some(8), true),
                ("Impl", Class, Some(8), true),
                ("Color", Enum, Some(0), false),
                ("RED", Constant, Some(12), true),
                ("GREEN", Constant, Some(12), true),
                ("Pt", Class, Some(0), false),
                ("x", Field, Some(15), true),
                ("o", Field, Some(15), true),
                ("Ann", Interface, Some(0), false),
                ("value", Method, Some(18), true),
                ("Hidden", Class, None, false),
            ]
        );
        let find = &f.symbols[5];
        assert_eq!(find.returns, Some(path(&["Order"])));
        assert_eq!(find.signature, "public Order find(String id) { return null; }");
        assert_eq!(find.name_pos, pos(6, 18));
        assert_eq!((find.start, find.end), (pos(5, 5), pos(6, 50)));
        assert_eq!(f.symbols[1].returns, Some(path(&["List"])));
        assert_eq!(f.symbols[2].returns, None);
        assert_eq!(f.symbols[4].returns, None);
        assert_eq!(f.symbols[6].returns, None);
        assert_eq!(f.symbols[13].returns, Some(path(&["Color"])));
        assert_eq!(f.symbols[17].returns, Some(path(&["Order"])));
        assert_eq!(f.symbols[19].returns, Some(path(&["String"])));
    }

    #[test]
    fn returns_strip_generics_arrays_and_keep_qualifiers() {
        let f = java(
            "class A { List<Order> a() {} Order[] b() {} a.b.C<D> c() {} void d() {} int e() {} <T> T f() {} Map.Entry<K, V> g() {} }",
        );
        let r: Vec<Option<Vec<String>>> = f.symbols[1..].iter().map(|s| s.returns.clone()).collect();
        assert_eq!(
            r,
            vec![
                Some(path(&["List"])),
                Some(path(&["Order"])),
                Some(path(&["a", "b", "C"])),
                None,
                None,
                None,
                Some(path(&["Map", "Entry"])),
            ]
        );
    }

    #[test]
    fn relations_extends_and_implements() {
        let f = java(
            "class A extends a.b.Base<T> implements I, J<K> {}\ninterface I extends X, y.Z<Q> {}\nenum E implements I {}\nrecord R() implements I {}\n",
        );
        let rels: Vec<(u32, TypeRelKind, Vec<String>, Pos)> =
            f.relations.iter().map(|r| (r.symbol, r.kind, r.target.clone(), r.pos)).collect();
        assert_eq!(
            rels,
            vec![
                (0, TypeRelKind::Extends, path(&["a", "b", "Base"]), pos(1, 21)),
                (0, TypeRelKind::Implements, path(&["I"]), pos(1, 40)),
                (0, TypeRelKind::Implements, path(&["J"]), pos(1, 43)),
                (1, TypeRelKind::Extends, path(&["X"]), pos(2, 21)),
                (1, TypeRelKind::Extends, path(&["y", "Z"]), pos(2, 26)),
                (2, TypeRelKind::Implements, path(&["I"]), pos(3, 19)),
                (3, TypeRelKind::Implements, path(&["I"]), pos(4, 23)),
            ]
        );
        // Supertypes are also type references, with their generic arguments.
        assert!(has_ref(&f, &["a", "b", "Base"], false, false));
        assert!(has_ref(&f, &["T"], false, false));
        assert!(has_ref(&f, &["K"], false, false));
    }

    #[test]
    fn call_chains_and_member_access() {
        let src = r"class A {
  void m(Order o) {
    o.items.add(x);
    run();
    this.total();
    super.m();
    Util.x();
    this.items = y;
    a.b.c;
    f().g.h();
    arr[0].size();
    Outer.this.z();
  }
}";
        let f = java(src);
        let chain = f.refs.iter().find(|r| r.segments.len() == 3 && r.segments[2].0 == "add").unwrap();
        assert_eq!(
            chain.segments,
            vec![("o".to_string(), pos(3, 5)), ("items".to_string(), pos(3, 7)), ("add".to_string(), pos(3, 13))]
        );
        assert!(chain.call && !chain.opaque_head);
        assert_eq!(chain.enclosing, Some(1));
        assert!(has_ref(&f, &["x"], false, false));
        assert!(has_ref(&f, &["run"], true, false));
        assert!(has_ref(&f, &["this", "total"], true, false));
        assert!(has_ref(&f, &["super", "m"], true, false));
        assert!(has_ref(&f, &["Util", "x"], true, false));
        assert!(has_ref(&f, &["this", "items"], false, false));
        assert!(has_ref(&f, &["y"], false, false));
        assert!(has_ref(&f, &["a", "b", "c"], false, false));
        // Through a call: one chain, the resolver goes on from what `f()` returns.
        let through = f.refs.iter().find(|r| r.segments.first().is_some_and(|s| s.0 == "f")).unwrap();
        assert_eq!(through.segments.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(), ["f", "g", "h"]);
        assert_eq!((through.call, through.opaque_head, through.calls_at.clone()), (true, false, vec![0]));
        assert!(has_ref(&f, &["arr"], false, false));
        assert!(has_ref(&f, &["size"], true, true));
        assert!(has_ref(&f, &["Outer", "z"], true, false));
        // No identifier of a chain is recorded twice.
        let all = refs(&f);
        assert_eq!(all.iter().filter(|r| r.0.contains(&"o".to_string())).count(), 1);
        assert_eq!(all.iter().filter(|r| r.0.contains(&"items".to_string())).count(), 2);
        // The parameter's name is not a reference; its type is.
        assert!(has_ref(&f, &["Order"], false, false));
        assert!(!has_ref(&f, &["o"], false, false));
    }

    #[test]
    fn constructors_types_annotations_and_references() {
        let src = r#"class A {
  @Inject @a.b.Named("x") Repo repo;
  void m() throws IOException {
    new Order(1, q);
    new a.b.Order<T>() {};
    Object x = (Order) y;
    String s = Foo.class.getName();
    list.map(Order::total);
    list.map(Order::new);
    Order[] arr = new Order[3];
    if (o instanceof Order ord) {}
    label: for (;;) { break label; }
  }
  A() { super(1); }
}"#;
        let f = java(src);
        let new = f.refs.iter().find(|r| r.call && r.segments[0].0 == "Order").unwrap();
        assert_eq!(new.segments, vec![("Order".to_string(), pos(4, 9))]);
        assert!(has_ref(&f, &["q"], false, false));
        assert!(has_ref(&f, &["a", "b", "Order"], true, false));
        assert!(has_ref(&f, &["T"], false, false));
        assert!(has_ref(&f, &["Inject"], false, false));
        assert!(has_ref(&f, &["a", "b", "Named"], false, false));
        assert!(has_ref(&f, &["Repo"], false, false));
        assert!(has_ref(&f, &["IOException"], false, false));
        assert!(has_ref(&f, &["Object"], false, false));
        assert!(has_ref(&f, &["y"], false, false));
        assert!(has_ref(&f, &["Foo"], false, false));
        assert!(has_ref(&f, &["getName"], true, true));
        assert!(has_ref(&f, &["Order", "total"], false, false));
        assert!(has_ref(&f, &["Order"], false, false));
        assert!(has_ref(&f, &["o"], false, false));
        assert!(has_ref(&f, &["super"], true, false));
        // Labels, strings and declaration names are not references.
        let all = refs(&f);
        for name in ["label", "x", "s", "arr", "ord", "repo", "m", "A"] {
            assert!(!all.iter().any(|r| r.0.contains(&name.to_string())), "{name}: {all:?}");
        }
    }

    #[test]
    fn locals_and_their_origins() {
        let src = r"class A<T> {
  void m(Order o, int n, T t, Item... items) {
    Order a = x;
    var b = new Order();
    var c = repo.find();
    var d = find();
    var e = this.repo.load(1);
    var g = 1;
    var h = f().g();
    var i = (Order) obj;
    List<Order> j = new ArrayList<>();
    for (Order k : all) {}
    for (var l : all) {}
    run((Order p) -> p, q -> q, (r, s) -> r);
    try (var u = open(); Res v = get()) {} catch (IOException | RuntimeException w) {} catch (Oops z) {}
    if (obj instanceof Order y) {}
  }
}";
        let f = java(src);
        let scope = f.symbols.iter().position(|s| s.name == "m").unwrap() as u32;
        assert!(f.locals.iter().all(|l| l.scope == Some(scope)));
        use LocalOrigin::*;
        assert_eq!(local(&f, "o"), &Declared(path(&["Order"])));
        assert_eq!(local(&f, "n"), &Unknown);
        assert_eq!(local(&f, "t"), &Unknown);
        assert_eq!(local(&f, "items"), &Declared(path(&["Item"])));
        assert_eq!(local(&f, "a"), &Declared(path(&["Order"])));
        assert_eq!(local(&f, "b"), &Constructed(path(&["Order"])));
        assert_eq!(local(&f, "c"), &CallResult(path(&["repo", "find"])));
        assert_eq!(local(&f, "d"), &CallResult(path(&["find"])));
        assert_eq!(local(&f, "e"), &CallResult(path(&["this", "repo", "load"])));
        assert_eq!(local(&f, "g"), &Unknown);
        assert_eq!(local(&f, "h"), &Unknown);
        assert_eq!(local(&f, "i"), &Declared(path(&["Order"])));
        assert_eq!(local(&f, "j"), &Declared(path(&["List"])));
        assert_eq!(local(&f, "k"), &Declared(path(&["Order"])));
        assert_eq!(local(&f, "l"), &Unknown);
        assert_eq!(local(&f, "p"), &Declared(path(&["Order"])));
        assert_eq!(local(&f, "q"), &Unknown);
        assert_eq!(local(&f, "r"), &Unknown);
        assert_eq!(local(&f, "s"), &Unknown);
        assert_eq!(local(&f, "u"), &CallResult(path(&["open"])));
        assert_eq!(local(&f, "v"), &Declared(path(&["Res"])));
        assert_eq!(local(&f, "w"), &Unknown);
        assert_eq!(local(&f, "z"), &Declared(path(&["Oops"])));
        assert_eq!(local(&f, "y"), &Declared(path(&["Order"])));
        assert_eq!(f.locals.len(), 24);
        // Locals are not symbols; `var` and type parameters are not references.
        assert_eq!(f.symbols.len(), 2);
        assert!(!has_ref(&f, &["var"], false, false));
        assert!(!has_ref(&f, &["T"], false, false));
    }

    #[test]
    fn anonymous_and_local_classes() {
        let src = r"interface I {
  Runnable R = new Runnable() { public void run() {} void helper() {} };
  default void m() { class Local { void f() {} } }
}";
        let f = java(src);
        let got: Vec<(&str, Option<u32>, bool)> =
            f.symbols.iter().map(|s| (s.name.as_str(), s.container, s.exported)).collect();
        assert_eq!(
            got,
            vec![
                ("I", None, false),
                ("R", Some(0), true),
                ("run", Some(0), true),
                ("helper", Some(0), false),
                ("m", Some(0), true),
                ("Local", Some(4), false),
                ("f", Some(5), false),
            ]
        );
        assert!(has_ref(&f, &["Runnable"], true, false));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let parens = format!("class A {{ int x = {}1{}; }}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(java(&parens).truncated_depth);
        let chain = format!("class A {{ void m() {{ a{}.z(); }} }}", ".b".repeat(10_000));
        let f = java(&chain);
        assert_eq!(f.refs[0].segments.len(), 10_002);
        let generics = format!("class A {{ {}X{} x; }}", "L<".repeat(5_000), ">".repeat(5_000));
        assert!(java(&generics).truncated_depth);
        let classes = format!("{}{}", "class A { ".repeat(5_000), "}".repeat(5_000));
        assert!(java(&classes).truncated_depth);
    }
}
