//! Extraction for Python: `import`/`from … import` (absolute and relative), classes with their bases,
//! functions and methods, module- and class-level assignments, attribute chains, calls and local
//! bindings typed by annotations or by the call that initialises them.

use super::{Field, Kind};
use tree_sitter::Node;

use super::{named_children, Builder, ChainSyntax, Member, Segment, MAX_TYPE_NESTING};
use crate::facts::{
    map_path, marked, tuple_path, ImportItem, ImportKind, Init, LocalOrigin, SymbolKind, TypeRelKind, SEQUENCE,
};

pub(crate) fn extract(b: &mut Builder, root: Node) {
    block(b, root);
}

fn block(b: &mut Builder, node: Node) {
    for child in named_children(node) {
        statement(b, child);
    }
}

/// Where a statement sits decides what a name bound there is.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Module,
    Class,
    Function,
}

fn place(b: &Builder) -> Place {
    match b.enclosing().map(|s| b.facts.symbols[s as usize].kind) {
        None => Place::Module,
        Some(SymbolKind::Class) => Place::Class,
        Some(_) => Place::Function,
    }
}

fn is_public(name: &str) -> bool {
    !name.starts_with('_') || (name.starts_with("__") && name.ends_with("__"))
}

fn container_exported(b: &Builder) -> bool {
    b.enclosing().is_none_or(|s| b.facts.symbols[s as usize].exported)
}

fn statement(b: &mut Builder, node: Node) {
    if !b.descend() {
        return;
    }
    match node.kind_str() {
        "import_statement" => import_statement(b, node),
        "import_from_statement" | "future_import_statement" => import_from(b, node),
        "function_definition" => function(b, node, node),
        "class_definition" => class(b, node, node),
        "decorated_definition" => {
            for child in named_children(node) {
                match child.kind_str() {
                    "decorator" => expr(b, child),
                    "function_definition" => function(b, node, child),
                    "class_definition" => class(b, node, child),
                    _ => {}
                }
            }
        }
        "expression_statement" => {
            for child in named_children(node) {
                match child.kind_str() {
                    "assignment" => assignment(b, child),
                    _ => expr(b, child),
                }
            }
        }
        "for_statement" => {
            let right = node.field("right");
            if let Some(right) = right {
                expr(b, right);
            }
            if let Some(left) = node.field("left") {
                bind_target(b, left, element_origin(b, right));
            }
            for part in ["body", "alternative"] {
                if let Some(body) = node.field(part) {
                    statement(b, body);
                }
            }
        }
        "if_statement" => {
            // `if isinstance(x, T):` — in the consequence x is a T; after it, what it was before
            // (only for a local of this scope, whose earlier binding is known).
            let narrowed = node.field("condition").and_then(|c| isinstance_narrowing(b, c));
            let consequence = node.field("consequence");
            for child in named_children(node) {
                let body = Some(child) == consequence;
                if let (true, Some((name, ty, _))) = (body, &narrowed) {
                    b.add_local(name, LocalOrigin::Declared(ty.clone()));
                }
                statement(b, child);
                if let (true, Some((name, _, before))) = (body, &narrowed) {
                    b.add_local(name, before.clone());
                }
            }
        }
        "block" | "elif_clause" | "else_clause" | "while_statement" | "try_statement" | "finally_clause"
        | "with_statement" | "with_clause" | "match_statement" | "case_clause" => {
            for child in named_children(node) {
                statement(b, child);
            }
        }
        "except_clause" => {
            for child in named_children(node) {
                if child.kind_str() == "as_pattern" {
                    as_pattern(b, child);
                } else {
                    statement(b, child);
                }
            }
        }
        "with_item" => {
            for child in named_children(node) {
                if child.kind_str() == "as_pattern" {
                    as_pattern(b, child);
                } else {
                    expr(b, child);
                }
            }
        }
        "global_statement" | "nonlocal_statement" | "pass_statement" | "comment" | "break_statement"
        | "continue_statement" => {}
        _ => expr(b, node),
    }
    b.ascend();
}

fn as_pattern(b: &mut Builder, node: Node) {
    let children = named_children(node);
    if let Some(value) = children.first() {
        expr(b, *value);
    }
    if let Some(target) = node.field("alias") {
        for id in named_children(target).into_iter().chain(std::iter::once(target)) {
            if id.kind_str() == "identifier" {
                b.add_local(b.text(id), LocalOrigin::Unknown);
            }
        }
    }
}

fn dotted(b: &Builder, node: Node) -> String {
    b.text(node).split_whitespace().collect()
}

/// `import a.b.c` binds `a` (the top package); `import a.b.c as x` binds `x` to `a.b.c`.
fn import_statement(b: &mut Builder, node: Node) {
    let pos = b.pos(node);
    for name in named_children(node) {
        match name.kind_str() {
            "dotted_name" => {
                let module = dotted(b, name);
                let top = module.split('.').next().unwrap_or("").to_string();
                let item = ImportItem { name: top.clone(), alias: top, pos: b.pos(name) };
                b.add_import(module, ImportKind::Namespace, vec![item], pos, false);
            }
            "aliased_import" => {
                let (Some(module), Some(alias)) = (name.field("name"), name.field("alias")) else {
                    continue;
                };
                let last = named_children(module).last().copied().unwrap_or(module);
                let item = ImportItem { name: String::new(), alias: b.text(alias).into(), pos: b.pos(last) };
                b.add_import(dotted(b, module), ImportKind::Namespace, vec![item], pos, false);
            }
            _ => {}
        }
    }
}

/// `from m import a, b as c`, `from . import x`, `from ..m import *`.
fn import_from(b: &mut Builder, node: Node) {
    let pos = b.pos(node);
    let module = node.field("module_name").map_or_else(|| "__future__".into(), |m| dotted(b, m));
    let mut items = Vec::new();
    let mut glob = false;
    let module_id = node.field("module_name").map(|m| m.id());
    for child in named_children(node) {
        if Some(child.id()) == module_id {
            continue;
        }
        match child.kind_str() {
            "dotted_name" => {
                let name = dotted(b, child);
                items.push(ImportItem { name: name.clone(), alias: name, pos: b.pos(child) });
            }
            "aliased_import" => {
                if let (Some(name), Some(alias)) = (child.field("name"), child.field("alias")) {
                    items.push(ImportItem { name: dotted(b, name), alias: b.text(alias).into(), pos: b.pos(name) });
                }
            }
            "wildcard_import" => glob = true,
            _ => {}
        }
    }
    if glob {
        b.add_import(module, ImportKind::Glob, Vec::new(), pos, false);
    } else {
        b.add_import(module, ImportKind::Named, items, pos, false);
    }
}

/// Decorators that make a method an attribute read without a call, typed by its return annotation.
const PROPERTY_DECORATORS: [&str; 3] = ["property", "cached_property", "functools.cached_property"];

fn function(b: &mut Builder, decl: Node, node: Node) {
    let Some(name) = node.field("name") else { return };
    // Decorators stand in the `decorated_definition` around the definition, when there is one.
    let property = place(b) == Place::Class
        && decl != node
        && named_children(decl)
            .into_iter()
            .filter(|d| d.kind_str() == "decorator")
            .any(|d| d.named_child(0).is_some_and(|e| PROPERTY_DECORATORS.contains(&b.text(e))));
    let kind = match place(b) {
        Place::Class if property => SymbolKind::Field,
        Place::Class => SymbolKind::Method,
        _ => SymbolKind::Function,
    };
    let exported = place(b) != Place::Function && is_public(b.text(name)) && container_exported(b);
    let idx = b.add_symbol(decl, name, kind, exported);
    docstring_if_no_comment(b, idx, node);
    if let Some(ret) = node.field("return_type") {
        b.symbol_mut(idx).returns = annotation_path(b, ret);
        expr(b, ret);
    }
    b.within(idx, |b| {
        if let Some(params) = node.field("parameters") {
            parameters(b, params, kind != SymbolKind::Function);
        }
        if let Some(body) = node.field("body") {
            block(b, body);
        }
    });
}

fn parameters(b: &mut Builder, params: Node, is_method: bool) {
    for (i, p) in named_children(params).into_iter().enumerate() {
        let (name, ty, value) = match p.kind_str() {
            "identifier" => (Some(p), None, None),
            "typed_parameter" => {
                (named_children(p).into_iter().find(|c| c.kind_str() == "identifier"), p.field("type"), None)
            }
            "default_parameter" | "typed_default_parameter" => (p.field("name"), p.field("type"), p.field("value")),
            "list_splat_pattern" | "dictionary_splat_pattern" => (p.named_child(0), None, None),
            _ => (None, None, None),
        };
        if let Some(ty) = ty {
            expr(b, ty);
        }
        if let Some(value) = value {
            expr(b, value);
        }
        let Some(name) = name.filter(|n| n.kind_str() == "identifier") else { continue };
        // `self`/`cls` are resolved to the enclosing class by the resolver, not bound as locals.
        if is_method && i == 0 && matches!(b.text(name), "self" | "cls") {
            continue;
        }
        let origin = ty.and_then(|t| annotation_path(b, t)).map_or(LocalOrigin::Unknown, LocalOrigin::Declared);
        b.add_local(b.text(name), origin);
    }
}

fn class(b: &mut Builder, decl: Node, node: Node) {
    let Some(name) = node.field("name") else { return };
    let exported = place(b) != Place::Function && is_public(b.text(name)) && container_exported(b);
    let idx = b.add_symbol(decl, name, SymbolKind::Class, exported);
    docstring_if_no_comment(b, idx, node);
    if let Some(bases) = node.field("superclasses") {
        for base in named_children(bases) {
            if base.kind_str() == "keyword_argument" {
                if let Some(value) = base.field("value") {
                    expr(b, value);
                }
                continue;
            }
            if let Some(segs) = chain(b, base) {
                let pos = segs.last().map(|s| s.1).unwrap_or_default();
                let target: Vec<String> = segs.iter().map(|s| s.0.clone()).collect();
                if target != ["object"] {
                    b.add_relation(idx, TypeRelKind::Extends, target, pos);
                }
            }
            expr(b, base);
        }
    }
    if let Some(body) = node.field("body") {
        b.within(idx, |b| block(b, body));
    }
}

/// A function's or class's docstring is its doc, unless a comment above the declaration is.
fn docstring_if_no_comment(b: &mut Builder, idx: u32, node: Node) {
    if b.facts.symbols[idx as usize].doc.is_none() {
        let doc = node.field("body").and_then(|body| super::docstring(b, body));
        b.symbol_mut(idx).doc = doc;
    }
}

/// `x = …`, `x: T = …`, `a, b = …`, `self.x = …`.
fn assignment(b: &mut Builder, node: Node) {
    let left = node.field("left");
    let right = node.field("right");
    let ty = node.field("type");
    if let Some(ty) = ty {
        expr(b, ty);
    }
    if let Some(right) = right {
        if right.kind_str() == "assignment" {
            // `a = b = c = 1`: each target binds in turn; a long run must not recurse once per `=`.
            if b.descend() {
                assignment(b, right);
                b.ascend();
            }
        } else {
            expr(b, right);
        }
    }
    let Some(left) = left else { return };
    if left.kind_str() != "identifier" {
        if place(b) == Place::Function {
            if let Some((class, name)) = self_attribute(b, left) {
                let origin = ty
                    .and_then(|t| annotation_path(b, t))
                    .map(LocalOrigin::Declared)
                    .or_else(|| right.and_then(|r| value_origin(b, r)));
                let exported = is_public(b.text(name)) && b.facts.symbols[class as usize].exported;
                if let Some(idx) = b.add_member(class, node, name, SymbolKind::Field, exported) {
                    let scope = b.enclosing();
                    b.symbol_mut(idx).init = origin.map(|origin| Box::new(Init { origin, scope }));
                }
            }
            let origin = ty
                .and_then(|t| annotation_path(b, t))
                .map(LocalOrigin::Declared)
                .or_else(|| right.and_then(|r| call_origin(b, r)))
                .unwrap_or(LocalOrigin::Unknown);
            bind_target(b, left, origin);
        } else {
            // `a, b = …` at module level: the names are still module attributes.
            for id in named_children(left).into_iter().filter(|c| c.kind_str() == "identifier") {
                let text = b.text(id);
                let kind = if place(b) == Place::Class { SymbolKind::Field } else { SymbolKind::Variable };
                let exported = is_public(text) && container_exported(b);
                b.add_symbol(node, id, kind, exported);
            }
            if !matches!(left.kind_str(), "pattern_list" | "tuple_pattern") {
                expr(b, left);
            }
        }
        return;
    }
    let element = right.filter(|r| r.kind_str() == "subscript");
    let origin = ty
        .and_then(|t| annotation_path(b, t))
        .map(LocalOrigin::Declared)
        .or_else(|| right.and_then(|r| call_origin(b, r)))
        .or_else(|| element.and_then(|r| CHAIN.called_origin(b, r)))
        .or_else(|| right.and_then(|r| or_origin(b, r)))
        .unwrap_or(LocalOrigin::Unknown);
    match place(b) {
        Place::Function => b.add_local(b.text(left), origin),
        p => {
            let text = b.text(left);
            if p == Place::Module && text == "__all__" {
                return;
            }
            let is_constant =
                text.len() > 1 && text.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit());
            let kind = match (p, is_constant) {
                (Place::Class, _) => SymbolKind::Field,
                (_, true) => SymbolKind::Constant,
                _ => SymbolKind::Variable,
            };
            let exported = is_public(text) && container_exported(b);
            let idx = b.add_symbol(node, left, kind, exported);
            match origin {
                LocalOrigin::Declared(path) | LocalOrigin::Constructed(path) => b.symbol_mut(idx).returns = Some(path),
                LocalOrigin::Unknown => {}
                origin => {
                    let scope = b.enclosing();
                    b.symbol_mut(idx).init = Some(Box::new(Init { origin, scope }));
                }
            }
        }
    }
}

/// `self.name` written in a method: the class it is an attribute of, and the name's node.
fn self_attribute<'t>(b: &Builder, target: Node<'t>) -> Option<(u32, Node<'t>)> {
    if target.kind_str() != "attribute" {
        return None;
    }
    target.field("object").filter(|o| o.kind_str() == "identifier" && b.text(*o) == "self")?;
    let method = &b.facts.symbols[b.enclosing()? as usize];
    let class = method.container.filter(|c| b.facts.symbols[*c as usize].kind == SymbolKind::Class)?;
    (method.kind == SymbolKind::Method).then_some(())?;
    Some((class, target.field("attribute")?))
}

/// An element of what a `for` iterates over (a sequence of known element type).
fn element_origin(b: &Builder, iterable: Option<Node>) -> LocalOrigin {
    match iterable.and_then(|i| value_origin(b, i)) {
        Some(o) => LocalOrigin::Element(Box::new(o)),
        None => LocalOrigin::Unknown,
    }
}

/// What an assigned value proves about its type: a call's result, or the type of the local (a
/// parameter) it copies.
fn value_origin(b: &Builder, mut value: Node) -> Option<LocalOrigin> {
    // `items[1:]`: the same sequence.
    let sliced = |v: Node| {
        v.named_child(v.named_child_count().saturating_sub(1) as u32).is_some_and(|i| i.kind_str() == "slice")
    };
    while value.kind_str() == "subscript" && sliced(value) {
        value = value.field("value")?;
    }
    if value.kind_str() == "subscript" {
        // `self.items[0]`, `options[key]`: an element of a sequence, a value of a dict.
        return CHAIN.called_origin(b, value);
    }
    if let Some(either) = or_origin(b, value) {
        return Some(either);
    }
    if value.kind_str() == "attribute" {
        // `self.items`, `order.lines`: the same value.
        return chain(b, value).map(|s| LocalOrigin::CallChain(s.into_iter().map(|s| s.0).collect(), Vec::new()));
    }
    if value.kind_str() == "identifier" {
        let name = b.text(value);
        let scope = b.enclosing();
        return b
            .facts
            .locals
            .iter()
            .rev()
            .find(|l| l.scope == scope && l.name == name)
            .map(|l| l.origin.clone())
            .filter(|o| *o != LocalOrigin::Unknown);
    }
    call_origin(b, value)
}

/// `questioner or MigrationQuestioner()`: either side, typed by the first whose type is known
/// (a falsy default replaced by a value of the type).
fn or_origin(b: &Builder, value: Node) -> Option<LocalOrigin> {
    let is_or = |v: Node| v.kind_str() == "boolean_operator" && v.field("operator").is_some_and(|o| b.text(o) == "or");
    if !is_or(value) {
        return None;
    }
    // `a or b or c` nests to the left: its operands, in a loop (no recursion however long).
    let mut sides = Vec::new();
    let mut rest = value;
    while is_or(rest) {
        sides.push(rest.field("right")?);
        rest = rest.field("left")?;
    }
    sides.push(rest);
    sides.reverse();
    let known: Vec<LocalOrigin> = sides.into_iter().filter_map(|side| value_origin(b, side)).collect();
    match known.len() {
        0 => None,
        1 => known.into_iter().next(),
        _ => Some(LocalOrigin::Either(known)),
    }
}

fn call_origin(b: &Builder, value: Node) -> Option<LocalOrigin> {
    let value = if value.kind_str() == "await" { value.named_child(0)? } else { value };
    if value.kind_str() != "call" {
        return None;
    }
    let function = value.field("function")?;
    let segs: Vec<String> = chain(b, function)?.into_iter().map(|s| s.0).collect();
    if function.kind_str() == "attribute" && segs.len() > 1 {
        // A method call (`d.items()`): the chain through it, so that a standard method of a
        // sequence or a dict gives what it gives.
        let last = (segs.len() - 1) as u32;
        return Some(LocalOrigin::CallChain(segs, vec![last]));
    }
    Some(LocalOrigin::CallResult(segs))
}

fn bind_target(b: &mut Builder, target: Node, origin: LocalOrigin) {
    match target.kind_str() {
        "identifier" => b.add_local(b.text(target), origin),
        "pattern_list" | "tuple_pattern" | "list_pattern" | "list_splat_pattern" | "parenthesized_expression" => {
            if !b.descend() {
                return;
            }
            // `a, b = pair()`, `for k, v in d.items()`: each name binds its element of the tuple
            // (up to a starred name, after which positions are unknown).
            let elements =
                matches!(target.kind_str(), "pattern_list" | "tuple_pattern") && origin != LocalOrigin::Unknown;
            let mut starred = false;
            for (i, child) in named_children(target).into_iter().enumerate() {
                starred |= child.kind_str() == "list_splat_pattern";
                let part = if elements && !starred {
                    LocalOrigin::TupleElement(Box::new(origin.clone()), i as u32)
                } else {
                    LocalOrigin::Unknown
                };
                bind_target(b, child, part);
            }
            b.ascend();
        }
        _ => expr(b, target),
    }
}

/// An annotation's named type: `Order`, `"Order"`, `models.Order`, `Optional[Order]`, `Order | None`.
fn annotation_path(b: &Builder, node: Node) -> Option<Vec<String>> {
    annotation_path_within(b, node, 0)
}

fn annotation_path_within(b: &Builder, node: Node, depth: usize) -> Option<Vec<String>> {
    if depth > MAX_TYPE_NESTING {
        return None;
    }
    let inner = |n: Node| annotation_path_within(b, n, depth + 1);
    match node.kind_str() {
        "type" => inner(node.named_child(0)?),
        "identifier" | "attribute" => {
            let segs: Vec<String> = chain(b, node)?.into_iter().map(|s| s.0).collect();
            (!matches!(segs.as_slice(), [s] if is_builtin_type(s))).then_some(segs)
        }
        "string" => {
            let text = b.text(node).trim_matches(|c| c == '"' || c == '\'');
            let segs: Vec<String> = text.split('.').map(str::to_string).collect();
            segs.iter().all(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(segs)
        }
        "subscript" | "generic_type" => {
            let value = node.field("value").or_else(|| node.named_child(0))?;
            let head: Vec<String> = chain(b, value).map(|s| s.into_iter().map(|s| s.0).collect()).unwrap_or_default();
            // The type arguments: `Optional[Order]`, `Tuple[A, B]`, `dict[str, Order]`.
            let args = || -> Vec<Node> {
                let mut all: Vec<Node> = named_children(node).into_iter().skip(1).collect();
                if let [one] = all.as_slice() {
                    if one.kind_str() == "type_parameter" {
                        all = named_children(*one);
                    }
                }
                all
            };
            let arg = || args().into_iter().next();
            let arg_paths = || args().into_iter().map(|a| inner(a).unwrap_or_default()).collect();
            match head.last().map(String::as_str) {
                Some("Optional") => inner(arg()?),
                // `list[Order]`, `Sequence[Order]`: a sequence of them.
                Some(s) if SEQUENCE_ANNOTATIONS.contains(&s) => Some(marked(SEQUENCE, inner(arg()?)?)),
                // `tuple[Order, int]`: each element's type (empty when unknown).
                Some("tuple" | "Tuple") => tuple_path(arg_paths()),
                // `dict[str, Order]`: (key, value) pairs.
                Some(s) if MAP_ANNOTATIONS.contains(&s) => map_path(arg_paths()),
                _ => None,
            }
        }
        "binary_operator" => {
            let named: Vec<Vec<String>> = [node.field("left"), node.field("right")]
                .into_iter()
                .flatten()
                .filter(|n| b.text(*n) != "None")
                .filter_map(inner)
                .collect();
            (named.len() == 1).then(|| named.into_iter().next().expect("one"))
        }
        _ => None,
    }
}

/// Annotations of maps: the key and value types.
const MAP_ANNOTATIONS: [&str; 8] =
    ["dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict", "Counter"];

/// Annotations of sequences whose first argument is the element type.
const SEQUENCE_ANNOTATIONS: [&str; 12] = [
    "list",
    "List",
    "Sequence",
    "MutableSequence",
    "Iterable",
    "Iterator",
    "set",
    "Set",
    "frozenset",
    "FrozenSet",
    "Collection",
    "deque",
];

fn is_builtin_type(s: &str) -> bool {
    matches!(
        s,
        "int" | "str" | "float" | "bool" | "bytes" | "None" | "list" | "dict" | "set" | "tuple" | "object" | "Any"
    )
}

/// How Python writes chains: `a.b.c`, `a.b().c()`.
const CHAIN: ChainSyntax = ChainSyntax {
    names: &["identifier"],
    members: &[Member { kind: "attribute", object: &["object"], name: &["attribute"], rooted: false, path: false }],
    member_calls: &[],
    silent_names: &[],
    calls: &["call"],
    operators: &[("subscript", SEQUENCE)],
    slices: &[("subscript", "slice")],
    through: &[],
    extras: &[],
    typed_head: None,
    arguments: None,
    closure: None,
};

/// `a`, `a.b.c`: a pure name chain.
fn chain(b: &Builder, node: Node) -> Option<Vec<Segment>> {
    CHAIN.names(b, node)
}

/// A name or attribute chain (see `extract::reference`).
fn reference(b: &mut Builder, node: Node, call: bool) {
    super::reference(b, node, call, &CHAIN, expr);
}

/// `isinstance(x, T)` on a local `x` of the current scope: its name, `T` as a path, and the
/// origin of its latest binding before (restored after the narrowed block).
fn isinstance_narrowing(b: &Builder, condition: Node) -> Option<(String, Vec<String>, LocalOrigin)> {
    if condition.kind_str() != "call" || condition.field("function").map(|f| b.text(f)) != Some("isinstance") {
        return None;
    }
    let args = named_children(condition.field("arguments")?);
    let [value, ty] = args.as_slice() else { return None };
    if value.kind_str() != "identifier" || !matches!(ty.kind_str(), "identifier" | "attribute") {
        return None;
    }
    let name = b.text(*value).to_string();
    let scope = b.enclosing();
    let before = b.facts.locals.iter().rev().find(|l| l.scope == scope && l.name == name)?.origin.clone();
    let path: Vec<String> = b.text(*ty).split('.').map(str::to_string).collect();
    Some((name, path, before))
}

fn expr(b: &mut Builder, node: Node) {
    if !b.descend() {
        return;
    }
    match node.kind_str() {
        "identifier" => b.add_ref(vec![b.seg(node)], false, false),
        "attribute" => reference(b, node, false),
        "call" => {
            if let Some(func) = node.field("function") {
                if matches!(func.kind_str(), "identifier" | "attribute") {
                    reference(b, func, true);
                } else {
                    expr(b, func);
                }
            }
            if let Some(args) = node.field("arguments") {
                expr(b, args);
            }
        }
        "keyword_argument" => {
            if let Some(value) = node.field("value") {
                expr(b, value);
            }
        }
        "lambda" => {
            if let Some(params) = node.field("parameters") {
                for p in named_children(params) {
                    if p.kind_str() == "identifier" {
                        b.add_local(b.text(p), LocalOrigin::Unknown);
                    }
                }
            }
            if let Some(body) = node.field("body") {
                expr(b, body);
            }
        }
        "for_in_clause" => {
            let right = node.field("right");
            if let Some(left) = node.field("left") {
                bind_target(b, left, element_origin(b, right));
            }
            if let Some(right) = right {
                expr(b, right);
            }
        }
        // `[x.y for x in xs if x.z]`: the clauses bind before the element is written.
        "list_comprehension" | "set_comprehension" | "dictionary_comprehension" | "generator_expression" => {
            let parts = named_children(node);
            let (clauses, body): (Vec<Node>, Vec<Node>) =
                parts.into_iter().partition(|c| matches!(c.kind_str(), "for_in_clause" | "if_clause"));
            for c in clauses.into_iter().chain(body) {
                expr(b, c);
            }
        }
        "string" if interpolated(b.text(node)) => {
            for child in named_children(node).into_iter().filter(|c| c.kind_str() == "interpolation") {
                expr(b, child);
            }
        }
        "string" => {}
        "comment" | "integer" | "float" | "true" | "false" | "none" | "escape_sequence" => {}
        "function_definition"
        | "class_definition"
        | "decorated_definition"
        | "import_statement"
        | "import_from_statement" => statement(b, node),
        _ => {
            for child in named_children(node) {
                expr(b, child);
            }
        }
    }
    b.ascend();
}

/// Whether a string literal is an f-string (or a t-string), the only kind that holds expressions:
/// its prefix, before the quote, says so.
fn interpolated(literal: &str) -> bool {
    literal.bytes().take_while(|c| !matches!(c, b'"' | b'\'')).any(|c| matches!(c, b'f' | b'F' | b't' | b'T'))
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::*;
    use crate::lang::Language;

    #[test]
    fn imports_classes_and_locals() {
        let src = "from ..util.text import slugify as slug\nimport shop.pricing as pricing\nimport os.path\n\nclass Special(Order):\n    def total(self) -> int:\n        o = Order(1)\n        return self.base() + o.total() + pricing.tax(slug('x'))\n";
        let facts = extract(Language::Python, src);
        assert_eq!(facts.imports[0].module, "..util.text");
        assert_eq!(facts.imports[0].items[0].alias, "slug");
        assert_eq!(facts.imports[1].kind, ImportKind::Namespace);
        assert_eq!(facts.imports[1].items[0].alias, "pricing");
        assert_eq!(facts.imports[2].items[0].name, "os");
        let kinds: Vec<(&str, SymbolKind, Option<u32>)> =
            facts.symbols.iter().map(|s| (s.name.as_str(), s.kind, s.container)).collect();
        assert_eq!(kinds, vec![("Special", SymbolKind::Class, None), ("total", SymbolKind::Method, Some(0))]);
        assert_eq!(facts.relations[0].target, vec!["Order".to_string()]);
        assert_eq!(facts.locals[0].origin, LocalOrigin::CallResult(vec!["Order".into()]));
        let calls: Vec<String> = facts
            .refs
            .iter()
            .filter(|r| r.call)
            .map(|r| r.segments.iter().map(|s| s.0.as_str()).collect::<Vec<_>>().join("."))
            .collect();
        assert_eq!(calls, vec!["Order", "self.base", "o.total", "pricing.tax", "slug"]);
    }

    #[test]
    fn only_interpolated_strings_hold_references() {
        let src = "a = f\"{order.total()}\"\nb = rf'{price}'\nc = \"{not_code}\"\nd = b'{nor_this}'\ne = T\"{tax}\"\n";
        let facts = extract(Language::Python, src);
        let refs: Vec<String> =
            facts.refs.iter().map(|r| r.segments.iter().map(|s| s.0.as_str()).collect::<Vec<_>>().join(".")).collect();
        assert!(refs.contains(&"order.total".to_string()), "{refs:?}");
        assert!(refs.contains(&"price".to_string()), "{refs:?}");
        assert!(!refs.iter().any(|r| r == "not_code" || r == "nor_this"), "{refs:?}");
    }
}
