//! Extraction for Go (tree-sitter-go 0.25).
//!
//! Declarations: functions, methods (with `impl_of` = the receiver's type), type specs (struct →
//! `Struct` with `Field`s, interface → `Interface` with `Method`s, anything else → `Type`), file-level
//! `const`/`var` names. Embedded struct fields and embedded interfaces are `Extends` relations.
//! Locals: receivers, parameters, named results, type parameters, `:=` / `var` / `const` names in
//! bodies, range and type-switch and select-case bindings.

use super::{Field, Kind};
use tree_sitter::Node;

use super::{has_token, named_children, Builder, ChainSyntax, Member};
use crate::facts::{ImportItem, ImportKind, LocalOrigin, Pos, Receiver, ReceiverBase, SymbolKind, TypeRelKind};

/// Go's predeclared type names: not references to anything in the project, and not useful as a
/// declared type.
const PREDECLARED_TYPES: &[&str] = &[
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
];

pub(crate) fn extract(b: &mut Builder, root: Node) {
    for child in named_children(root) {
        walk(b, child);
    }
}

fn is_predeclared(name: &str) -> bool {
    PREDECLARED_TYPES.contains(&name)
}

fn is_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

fn is_top_level(node: Node) -> bool {
    node.parent().is_none_or(|p| p.kind_str() == "source_file")
}

/// Walks any node: declarations, statements, expressions and types.
fn walk(b: &mut Builder, node: Node) {
    if !b.descend() {
        return;
    }
    match node.kind_str() {
        "comment"
        | "interpreted_string_literal"
        | "raw_string_literal"
        | "rune_literal"
        | "label_name"
        | "field_identifier"
        | "package_identifier"
        | "blank_identifier"
        | "dot"
        | "escape_sequence" => {}
        "package_clause" => {
            if let Some(name) = named_children(node).into_iter().find(|c| c.kind_str() == "package_identifier") {
                b.facts.package = Some(b.text(name).to_string());
            }
        }
        "import_declaration" => import_declaration(b, node),
        "function_declaration" => function_declaration(b, node),
        "method_declaration" => method_declaration(b, node),
        "type_declaration" => {
            let top = is_top_level(node);
            let specs = named_children(node);
            let single = specs.iter().filter(|s| matches!(s.kind_str(), "type_spec" | "type_alias")).count() == 1;
            for spec in specs {
                if matches!(spec.kind_str(), "type_spec" | "type_alias") {
                    type_spec(b, spec, if single { node } else { spec }, top);
                }
            }
        }
        "const_declaration" | "var_declaration" => value_declaration(b, node),
        "short_var_declaration" => short_var_declaration(b, node),
        "range_clause" | "receive_statement" => {
            let declares = has_token(node, ":=");
            let left = node.field("left");
            // `for i, it := range c.Items`: the second name is an element, typed as the ranged
            // value is (a slice's type is its element's, see `type_path`); the first is an index
            // or a map key.
            let element = match (node.kind_str(), node.field("right")) {
                ("range_clause", Some(right)) => expr_origin(b, right),
                _ => LocalOrigin::Unknown,
            };
            for child in named_children(node) {
                if declares && Some(child) == left {
                    let names: Vec<Node> =
                        named_children(child).into_iter().filter(|n| n.kind_str() == "identifier").collect();
                    for (i, name) in names.iter().enumerate() {
                        let origin = if i == 1 { element.clone() } else { LocalOrigin::Unknown };
                        local(b, *name, origin);
                    }
                } else {
                    walk(b, child);
                }
            }
        }
        "type_switch_statement" => {
            let alias = node.field("alias");
            for child in named_children(node) {
                if Some(child) == alias {
                    for name in named_children(child) {
                        if name.kind_str() == "identifier" {
                            local(b, name, LocalOrigin::Unknown);
                        }
                    }
                } else {
                    walk(b, child);
                }
            }
        }
        "identifier" => {
            let name = b.text(node);
            if name != "_" {
                let seg = b.seg(node);
                b.add_ref(vec![seg], false, false);
            }
        }
        "type_identifier" | "qualified_type" => {
            if let Some(segs) = type_segs(b, node) {
                b.add_ref(segs, false, false);
            }
        }
        "selector_expression" => ref_chain(b, node, false),
        "call_expression" => call_expression(b, node),
        "type_conversion_expression" => {
            let ty = node.field("type");
            match ty.and_then(|t| named_type_segs(b, t)) {
                Some(segs) => {
                    b.add_ref(segs, true, false);
                    if let Some(args) = ty.and_then(|t| t.field("type_arguments")) {
                        walk(b, args);
                    }
                }
                None => {
                    if let Some(t) = ty {
                        walk(b, t);
                    }
                }
            }
            if let Some(operand) = node.field("operand") {
                walk(b, operand);
            }
        }
        "composite_literal" => {
            let ty = node.field("type");
            if let Some(t) = ty {
                walk(b, t);
            }
            // `Item{Name: n}`: the keys are the fields of the named struct type.
            let fields_of = ty
                .filter(|t| matches!(t.kind_str(), "type_identifier" | "qualified_type" | "generic_type"))
                .and_then(|t| type_path(b, t))
                .map(|p| Receiver { base: ReceiverBase::Value(LocalOrigin::Constructed(p)), members: Vec::new() });
            if let Some(body) = node.field("body") {
                literal_value(b, body, ty.is_some_and(|t| t.kind_str() == "map_type"), fields_of.as_ref());
            }
        }
        "literal_value" => literal_value(b, node, false, None),
        "func_literal" => {
            if let Some(params) = node.field("parameters") {
                parameters(b, params, true);
            }
            result(b, node, true);
            if let Some(body) = node.field("body") {
                walk(b, body);
            }
        }
        // Outside a declaration (function types, anonymous structs and interfaces) only the types
        // are references; the names declare nothing we record.
        "parameter_list" => parameters(b, node, false),
        "parameter_declaration" | "variadic_parameter_declaration" | "field_declaration" => {
            if let Some(ty) = node.field("type") {
                walk(b, ty);
            }
        }
        "method_elem" => {
            if let Some(params) = node.field("parameters") {
                parameters(b, params, false);
            }
            result(b, node, false);
        }
        _ => {
            for child in named_children(node) {
                walk(b, child);
            }
        }
    }
    b.ascend();
}

/// Records a local of the enclosing symbol (nothing at file level, and nothing for `_`).
fn local(b: &mut Builder, name: Node, origin: LocalOrigin) {
    let text = b.text(name);
    if text != "_" && !text.is_empty() && b.enclosing().is_some() {
        b.add_local(text, origin);
    }
}

fn import_declaration(b: &mut Builder, node: Node) {
    let mut specs = Vec::new();
    for child in named_children(node) {
        match child.kind_str() {
            "import_spec" => specs.push(child),
            "import_spec_list" => {
                specs.extend(named_children(child).into_iter().filter(|c| c.kind_str() == "import_spec"));
            }
            _ => {}
        }
    }
    for spec in specs {
        let Some(path) = spec.field("path") else {
            continue;
        };
        let module = b.text(path).trim_matches(|c| c == '"' || c == '`').to_string();
        let pos = b.pos(spec);
        match spec.field("name") {
            Some(name) if name.kind_str() == "blank_identifier" => {
                b.add_import(module, ImportKind::SideEffect, Vec::new(), pos, false);
            }
            Some(name) if name.kind_str() == "dot" => {
                b.add_import(module, ImportKind::Glob, Vec::new(), pos, false);
            }
            Some(name) => {
                let item = ImportItem { name: String::new(), alias: b.text(name).to_string(), pos: b.pos(name) };
                b.add_import(module, ImportKind::Namespace, vec![item], pos, false);
            }
            None => {
                let item =
                    ImportItem { name: String::new(), alias: String::new(), pos: b.pos_of_byte(path.start_byte() + 1) };
                b.add_import(module, ImportKind::Namespace, vec![item], pos, false);
            }
        }
    }
}

fn function_declaration(b: &mut Builder, node: Node) {
    let Some(name) = node.field("name") else {
        for child in named_children(node) {
            walk(b, child);
        }
        return;
    };
    let exported = is_exported(b.text(name));
    let idx = b.add_symbol(node, name, SymbolKind::Function, exported);
    b.symbol_mut(idx).returns = returns(b, node);
    b.within(idx, |b| {
        if let Some(tp) = node.field("type_parameters") {
            type_parameters(b, tp);
        }
        if let Some(params) = node.field("parameters") {
            parameters(b, params, true);
        }
        result(b, node, true);
        if let Some(body) = node.field("body") {
            walk(b, body);
        }
    });
}

fn method_declaration(b: &mut Builder, node: Node) {
    let Some(name) = node.field("name") else {
        for child in named_children(node) {
            walk(b, child);
        }
        return;
    };
    let exported = is_exported(b.text(name));
    let idx = b.add_symbol(node, name, SymbolKind::Method, exported);
    b.symbol_mut(idx).returns = returns(b, node);

    // The receiver: `(c *Cart)`, `(Cart)`, `(l *List[T])`.
    let receiver = node
        .field("receiver")
        .and_then(|r| named_children(r).into_iter().find(|c| c.kind_str() == "parameter_declaration"));
    let recv_name = receiver.and_then(|r| r.field("name"));
    let mut recv_type = receiver.and_then(|r| r.field("type"));
    while let Some(t) = recv_type {
        if matches!(t.kind_str(), "pointer_type" | "parenthesized_type") {
            recv_type = named_children(t).into_iter().next();
        } else {
            break;
        }
    }
    let (recv_base, recv_args) = match recv_type {
        Some(t) if t.kind_str() == "generic_type" => (t.field("type"), t.field("type_arguments")),
        other => (other, None),
    };
    let recv_base = recv_base.filter(|t| t.kind_str() == "type_identifier");
    if let Some(base) = recv_base {
        b.symbol_mut(idx).impl_of = Some(vec![b.text(base).to_string()]);
    }

    b.within(idx, |b| {
        if let Some(base) = recv_base {
            let seg = b.seg(base);
            b.add_ref(vec![seg.clone()], false, false);
            if let Some(rn) = recv_name {
                local(b, rn, LocalOrigin::Declared(vec![seg.0]));
            }
        } else if let Some(t) = recv_type {
            walk(b, t);
            if let Some(rn) = recv_name {
                local(b, rn, LocalOrigin::Unknown);
            }
        }
        // `List[T]` in a receiver declares the type parameter `T`.
        if let Some(args) = recv_args {
            for elem in named_children(args) {
                for t in named_children(elem) {
                    if t.kind_str() == "type_identifier" {
                        local(b, t, LocalOrigin::Unknown);
                    }
                }
            }
        }
        if let Some(params) = node.field("parameters") {
            parameters(b, params, true);
        }
        result(b, node, true);
        if let Some(body) = node.field("body") {
            walk(b, body);
        }
    });
}

/// `[T any, U comparable]`: the names are locals of the declaration, the constraints are types.
fn type_parameters(b: &mut Builder, list: Node) {
    for decl in named_children(list) {
        if decl.kind_str() != "type_parameter_declaration" {
            continue;
        }
        let mut cursor = decl.walk();
        let names: Vec<Node> = decl.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            local(b, name, LocalOrigin::Unknown);
        }
        if let Some(constraint) = decl.field("type") {
            walk(b, constraint);
        }
    }
}

/// A parameter list: the types are references; with `locals`, the names are locals.
fn parameters(b: &mut Builder, list: Node, locals: bool) {
    for decl in named_children(list) {
        match decl.kind_str() {
            "parameter_declaration" | "variadic_parameter_declaration" => {
                let ty = decl.field("type");
                if let Some(t) = ty {
                    walk(b, t);
                }
                if locals {
                    let mut cursor = decl.walk();
                    let names: Vec<Node> = decl.children_by_field_name("name", &mut cursor).collect();
                    for name in names {
                        let origin = ty.map_or(LocalOrigin::Unknown, |t| declared(b, t));
                        local(b, name, origin);
                    }
                }
            }
            "comment" => {}
            _ => walk(b, decl),
        }
    }
}

/// The `result` of a function, method, method element or function literal.
fn result(b: &mut Builder, node: Node, locals: bool) {
    if let Some(res) = node.field("result") {
        if res.kind_str() == "parameter_list" {
            parameters(b, res, locals);
        } else {
            walk(b, res);
        }
    }
}

/// The declared return type (the first result), as a path.
fn returns(b: &Builder, node: Node) -> Option<Vec<String>> {
    let res = node.field("result")?;
    let ty = if res.kind_str() == "parameter_list" {
        named_children(res)
            .into_iter()
            .find(|c| matches!(c.kind_str(), "parameter_declaration" | "variadic_parameter_declaration"))?
            .field("type")?
    } else {
        res
    };
    type_path(b, ty)
}

fn declared(b: &Builder, ty: Node) -> LocalOrigin {
    type_path(b, ty).map_or(LocalOrigin::Unknown, LocalOrigin::Declared)
}

/// A type as a path, with pointers, arrays, slices and type arguments stripped: `*cart.Cart` →
/// `["cart", "Cart"]`, `[]Order` → `["Order"]`, `List[T]` → `["List"]`. Predeclared types, maps,
/// channels, functions and literal struct/interface types have none.
fn type_path(b: &Builder, ty: Node) -> Option<Vec<String>> {
    let mut node = ty;
    loop {
        match node.kind_str() {
            "pointer_type" | "parenthesized_type" | "parenthesized_expression" => {
                node = named_children(node).into_iter().next()?;
            }
            "slice_type" | "array_type" | "implicit_length_array_type" => {
                node = node.field("element")?;
            }
            "generic_type" => node = node.field("type")?,
            "type_identifier" | "identifier" => {
                let name = b.text(node);
                return (!is_predeclared(name)).then(|| vec![name.to_string()]);
            }
            "qualified_type" => {
                return Some(type_segs(b, node)?.into_iter().map(|(s, _)| s).collect());
            }
            "selector_expression" => {
                return CHAIN.names(b, node).map(|segs| segs.into_iter().map(|(s, _)| s).collect());
            }
            _ => return None,
        }
    }
}

/// The segments of a named type: `Cart` or `cart.Cart` (none for a predeclared type).
fn type_segs(b: &Builder, node: Node) -> Option<Vec<(String, Pos)>> {
    match node.kind_str() {
        "type_identifier" => {
            let name = b.text(node);
            (!is_predeclared(name)).then(|| vec![b.seg(node)])
        }
        "qualified_type" => {
            let pkg = node.field("package")?;
            let name = node.field("name")?;
            Some(vec![b.seg(pkg), b.seg(name)])
        }
        _ => None,
    }
}

/// The segments of a named type, possibly instantiated: `Cart`, `cart.Cart`, `List[int]`.
fn named_type_segs(b: &Builder, node: Node) -> Option<Vec<(String, Pos)>> {
    if node.kind_str() == "generic_type" {
        type_segs(b, node.field("type")?)
    } else {
        type_segs(b, node)
    }
}

/// How Go writes chains of names: `a.b.c`, `pkg.Func`. A chain does not go on through calls here:
/// `f().x` records `x` as an opaque tail.
const CHAIN: ChainSyntax = ChainSyntax {
    names: &["identifier"],
    members: &[Member {
        kind: "selector_expression",
        object: &["operand"],
        name: &["field"],
        rooted: false,
        path: false,
    }],
    member_calls: &[],
    silent_names: &[],
    calls: &[],
    operators: &[],
    slices: &[],
    through: &[],
    extras: &[],
    typed_head: None,
    arguments: None,
    closure: None,
};

/// Records a chain as one reference (see `extract::reference`).
fn ref_chain(b: &mut Builder, node: Node, call: bool) {
    super::reference(b, node, call, &CHAIN, walk);
}

fn is_type_node(node: Node) -> bool {
    node.kind_str().ends_with("_type") || node.kind_str() == "type_identifier"
}

fn call_expression(b: &mut Builder, node: Node) {
    if let Some(function) = node.field("function") {
        match function.kind_str() {
            "identifier" | "selector_expression" => ref_chain(b, function, true),
            // `F[int](x)` read as an index: a generic call when the index is clearly a type.
            "index_expression"
                if function.field("index").is_some_and(|i| {
                    is_type_node(i) || (i.kind_str() == "identifier" && is_predeclared(b.text(i)))
                }) && function
                    .field("operand")
                    .is_some_and(|o| matches!(o.kind_str(), "identifier" | "selector_expression")) =>
            {
                if let Some(operand) = function.field("operand") {
                    ref_chain(b, operand, true);
                }
                if let Some(index) = function.field("index") {
                    if !is_predeclared(b.text(index)) {
                        walk(b, index);
                    }
                }
            }
            _ => walk(b, function),
        }
    }
    if let Some(args) = node.field("type_arguments") {
        walk(b, args);
    }
    if let Some(args) = node.field("arguments") {
        walk(b, args);
    }
}

/// What an initialiser proves about a variable's type.
fn expr_origin(b: &Builder, expr: Node) -> LocalOrigin {
    let mut e = expr;
    loop {
        match e.kind_str() {
            "parenthesized_expression" => match named_children(e).into_iter().next() {
                Some(inner) => e = inner,
                None => return LocalOrigin::Unknown,
            },
            "unary_expression" => match e.field("operand") {
                Some(operand) if operand.kind_str() == "composite_literal" && has_token(e, "&") => e = operand,
                _ => return LocalOrigin::Unknown,
            },
            "composite_literal" => {
                return e
                    .field("type")
                    .and_then(|t| type_path(b, t))
                    .map_or(LocalOrigin::Unknown, LocalOrigin::Constructed);
            }
            // A name or a field of one: `items`, `c.Items`.
            "identifier" | "selector_expression" => {
                return CHAIN.names(b, e).map_or(LocalOrigin::Unknown, |segs| {
                    LocalOrigin::CallChain(segs.into_iter().map(|(s, _)| s).collect(), Vec::new())
                });
            }
            "call_expression" => {
                let Some(function) = e.field("function") else {
                    return LocalOrigin::Unknown;
                };
                let function = match function.kind_str() {
                    "index_expression" => match function.field("operand") {
                        Some(o) => o,
                        None => return LocalOrigin::Unknown,
                    },
                    _ => function,
                };
                if !matches!(function.kind_str(), "identifier" | "selector_expression") {
                    return LocalOrigin::Unknown;
                }
                let Some(segs) = CHAIN.names(b, function) else {
                    return LocalOrigin::Unknown;
                };
                let path: Vec<String> = segs.into_iter().map(|(s, _)| s).collect();
                if path.len() == 1 && path[0] == "new" {
                    // `new(Cart)` constructs a `*Cart`.
                    let args = e.field("arguments").map(named_children).unwrap_or_default();
                    return match args.as_slice() {
                        [arg] => type_path(b, *arg).map_or(LocalOrigin::Unknown, LocalOrigin::Constructed),
                        _ => LocalOrigin::Unknown,
                    };
                }
                return LocalOrigin::CallResult(path);
            }
            "type_conversion_expression" => {
                return e.field("type").and_then(|t| named_type_segs(b, t)).map_or(LocalOrigin::Unknown, |segs| {
                    LocalOrigin::CallResult(segs.into_iter().map(|(s, _)| s).collect())
                });
            }
            "type_assertion_expression" => {
                return e.field("type").map_or(LocalOrigin::Unknown, |t| declared(b, t));
            }
            _ => return LocalOrigin::Unknown,
        }
    }
}

/// The origin of each of `names` initialised by `values`: pairwise when the counts match, else only
/// the first name from a single value (`a, err := f()`).
fn origins(b: &Builder, count: usize, values: &[Node]) -> Vec<LocalOrigin> {
    (0..count)
        .map(|i| {
            if values.len() == count {
                expr_origin(b, values[i])
            } else if i == 0 && values.len() == 1 {
                expr_origin(b, values[0])
            } else {
                LocalOrigin::Unknown
            }
        })
        .collect()
}

fn short_var_declaration(b: &mut Builder, node: Node) {
    let values: Vec<Node> = node
        .field("right")
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c.kind_str() != "comment")
        .collect();
    for v in &values {
        walk(b, *v);
    }
    let names: Vec<Node> = node
        .field("left")
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c.kind_str() != "comment")
        .collect();
    let origins = origins(b, names.len(), &values);
    for (name, origin) in names.into_iter().zip(origins) {
        if name.kind_str() == "identifier" {
            local(b, name, origin);
        } else {
            walk(b, name);
        }
    }
}

/// `const`/`var` declarations: symbols at file level, locals in bodies.
fn value_declaration(b: &mut Builder, node: Node) {
    let top = is_top_level(node);
    let mut specs = Vec::new();
    for child in named_children(node) {
        match child.kind_str() {
            "const_spec" | "var_spec" => specs.push(child),
            "var_spec_list" => specs.extend(named_children(child).into_iter().filter(|c| c.kind_str() == "var_spec")),
            _ => {}
        }
    }
    let single = specs.len() == 1;
    for spec in specs {
        let mut cursor = spec.walk();
        let names: Vec<Node> =
            spec.children_by_field_name("name", &mut cursor).filter(|n| n.kind_str() == "identifier").collect();
        let ty = spec.field("type");
        let values: Vec<Node> = spec
            .field("value")
            .map(named_children)
            .unwrap_or_default()
            .into_iter()
            .filter(|c| c.kind_str() != "comment")
            .collect();
        if top {
            let kind = if spec.kind_str() == "const_spec" { SymbolKind::Constant } else { SymbolKind::Variable };
            let decl = if single && names.len() == 1 { node } else { spec };
            let mut indices = Vec::new();
            for name in &names {
                let exported = is_exported(b.text(*name));
                indices.push(b.add_symbol(decl, *name, kind, exported));
            }
            let walk_rest = |b: &mut Builder| {
                if let Some(t) = ty {
                    walk(b, t);
                }
                for v in &values {
                    walk(b, *v);
                }
            };
            // A single name owns what its initialiser references (e.g. a function literal's calls).
            match indices.as_slice() {
                [idx] => b.within(*idx, walk_rest),
                _ => walk_rest(b),
            }
        } else {
            if let Some(t) = ty {
                walk(b, t);
            }
            for v in &values {
                walk(b, *v);
            }
            let origins = match ty {
                Some(t) => vec![declared(b, t); names.len()],
                None => origins(b, names.len(), &values),
            };
            for (name, origin) in names.into_iter().zip(origins) {
                local(b, name, origin);
            }
        }
    }
}

/// `type X ...` / `type X = ...`. `decl` spans the declaration (the whole `type` statement when it
/// declares one type).
fn type_spec(b: &mut Builder, spec: Node, decl: Node, top: bool) {
    let Some(name) = spec.field("name") else {
        return;
    };
    let ty = spec.field("type");
    let kind = match ty.map(|t| t.kind_str()) {
        Some("struct_type") => SymbolKind::Struct,
        Some("interface_type") => SymbolKind::Interface,
        _ => SymbolKind::Type,
    };
    let exported = top && is_exported(b.text(name));
    let idx = b.add_symbol(decl, name, kind, exported);
    b.within(idx, |b| {
        if let Some(tp) = spec.field("type_parameters") {
            type_parameters(b, tp);
        }
        let Some(ty) = ty else { return };
        match kind {
            SymbolKind::Struct => struct_body(b, idx, ty),
            SymbolKind::Interface => interface_body(b, idx, ty),
            _ => walk(b, ty),
        }
    });
}

/// Records an embedded type (`*Base`, `pkg.Base`, `Base[T]`) as an `Extends` relation of `owner`.
fn embed(b: &mut Builder, owner: u32, ty: Node) {
    if let Some(segs) = named_type_segs(b, ty) {
        let pos = segs.last().map(|s| s.1).unwrap_or_default();
        let target = segs.into_iter().map(|(s, _)| s).collect();
        b.add_relation(owner, TypeRelKind::Extends, target, pos);
    }
}

fn struct_body(b: &mut Builder, owner: u32, struct_type: Node) {
    let Some(list) = named_children(struct_type).into_iter().find(|c| c.kind_str() == "field_declaration_list") else {
        return;
    };
    for field in named_children(list) {
        if field.kind_str() != "field_declaration" {
            continue;
        }
        let mut cursor = field.walk();
        let names: Vec<Node> = field.children_by_field_name("name", &mut cursor).collect();
        let ty = field.field("type");
        if names.is_empty() {
            // An embedded field: `Base`, `*Base`, `pkg.Base`.
            if let Some(t) = ty {
                embed(b, owner, t);
            }
        } else {
            // A field's declared type, as a path (the type of what `x.field` holds).
            let declared = ty.and_then(|t| type_path(b, t));
            for name in names {
                let exported = is_exported(b.text(name));
                let idx = b.add_symbol(field, name, SymbolKind::Field, exported);
                b.symbol_mut(idx).returns.clone_from(&declared);
            }
        }
        if let Some(t) = ty {
            walk(b, t);
        }
    }
}

fn interface_body(b: &mut Builder, owner: u32, iface: Node) {
    for elem in named_children(iface) {
        match elem.kind_str() {
            "method_elem" => {
                let Some(name) = elem.field("name") else {
                    continue;
                };
                let exported = is_exported(b.text(name));
                let idx = b.add_symbol(elem, name, SymbolKind::Method, exported);
                b.symbol_mut(idx).returns = returns(b, elem);
                b.within(idx, |b| {
                    if let Some(params) = elem.field("parameters") {
                        parameters(b, params, false);
                    }
                    result(b, elem, false);
                });
            }
            "type_elem" => {
                // A single named type embeds an interface; unions and `~T` are constraints.
                let types = named_children(elem);
                if let [t] = types.as_slice() {
                    embed(b, owner, *t);
                }
                walk(b, elem);
            }
            "comment" => {}
            _ => walk(b, elem),
        }
    }
}

/// A literal's elements. In a struct literal (any literal but a map's) a bare-name key is a field
/// name, not a reference to a variable.
/// With `fields_of` (the literal's struct type is named) such a key is a use of that field.
fn literal_value(b: &mut Builder, node: Node, is_map: bool, fields_of: Option<&Receiver>) {
    for elem in named_children(node) {
        match elem.kind_str() {
            "keyed_element" => {
                if let Some(key) = elem.field("key") {
                    let inner = named_children(key);
                    match inner.as_slice() {
                        [k] if !is_map && k.kind_str() == "identifier" => {
                            if let Some(r) = fields_of {
                                b.add_member_ref(b.seg(*k), false, r.clone());
                            }
                        }
                        _ => walk(b, key),
                    }
                }
                if let Some(value) = elem.field("value") {
                    walk(b, value);
                }
            }
            "comment" => {}
            _ => walk(b, elem),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::{FileFacts, ImportKind, LocalOrigin, SymbolKind, TypeRelKind};
    use crate::lang::Language;

    fn go(src: &str) -> FileFacts {
        extract(Language::Go, src)
    }

    /// Refs as (dotted segments, call, `opaque_head`, enclosing symbol name).
    fn refs(f: &FileFacts) -> Vec<(String, bool, bool, Option<String>)> {
        f.refs
            .iter()
            .map(|r| {
                let path = r.segments.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>().join(".");
                let enclosing = r.enclosing.map(|i| f.symbols[i as usize].name.clone());
                (path, r.call, r.opaque_head, enclosing)
            })
            .collect()
    }

    fn has_ref(f: &FileFacts, path: &str, call: bool, enclosing: Option<&str>) -> bool {
        refs(f).iter().any(|(p, c, o, e)| p == path && *c == call && !*o && e.as_deref() == enclosing)
    }

    fn local<'f>(f: &'f FileFacts, name: &str) -> &'f LocalOrigin {
        &f.locals.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no local {name}: {:?}", f.locals)).origin
    }

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(std::string::ToString::to_string).collect()
    }

    #[test]
    fn package_and_imports() {
        let f = go("package shop\n\nimport (\n\tm \"example.com/shop/money\"\n\t_ \"embed\"\n\t. \"strings\"\n\t\"example.com/shop/cart\"\n)\nimport \"fmt\"\n");
        assert_eq!(f.package.as_deref(), Some("shop"));
        assert_eq!(f.imports.len(), 5);
        let i = &f.imports[0];
        assert_eq!(i.module, "example.com/shop/money");
        assert_eq!(i.kind, ImportKind::Namespace);
        assert_eq!(i.items.len(), 1);
        assert_eq!(i.items[0].name, "");
        assert_eq!(i.items[0].alias, "m");
        assert_eq!((i.items[0].pos.line, i.items[0].pos.col), (4, 2));
        assert_eq!((i.pos.line, i.pos.col), (4, 2));
        assert_eq!(f.imports[1].kind, ImportKind::SideEffect);
        assert!(f.imports[1].items.is_empty());
        assert_eq!(f.imports[2].kind, ImportKind::Glob);
        assert_eq!(f.imports[2].module, "strings");
        let plain = &f.imports[3];
        assert_eq!(plain.module, "example.com/shop/cart");
        assert_eq!(plain.kind, ImportKind::Namespace);
        assert_eq!(plain.items[0].alias, "");
        // Inside the quotes.
        assert_eq!((plain.items[0].pos.line, plain.items[0].pos.col), (7, 3));
        assert_eq!((plain.pos.line, plain.pos.col), (7, 2));
        assert_eq!(f.imports[4].module, "fmt");
        assert!(f.imports.iter().all(|i| i.scope.is_none() && !i.reexport));
        // Import names are not references.
        assert!(f.refs.is_empty());
    }

    #[test]
    fn types_fields_methods_and_relations() {
        let src = "package p\n\ntype Cart struct {\n\t*Base\n\tmoney.Ledger\n\tItems []Item\n\ttotal, count int\n}\n\ntype Shape interface {\n\tfmt.Stringer\n\tNamed\n\tArea() float64\n\tscale(k int) *Shape\n}\n\ntype ID = string\ntype Celsius float64\n";
        let f = go(src);
        let syms: Vec<_> = f
            .symbols
            .iter()
            .map(|s| (s.name.as_str(), s.kind, s.container.map(|c| f.symbols[c as usize].name.as_str()), s.exported))
            .collect();
        assert_eq!(
            syms,
            vec![
                ("Cart", SymbolKind::Struct, None, true),
                ("Items", SymbolKind::Field, Some("Cart"), true),
                ("total", SymbolKind::Field, Some("Cart"), false),
                ("count", SymbolKind::Field, Some("Cart"), false),
                ("Shape", SymbolKind::Interface, None, true),
                ("Area", SymbolKind::Method, Some("Shape"), true),
                ("scale", SymbolKind::Method, Some("Shape"), false),
                ("ID", SymbolKind::Type, None, true),
                ("Celsius", SymbolKind::Type, None, true),
            ]
        );
        assert_eq!(f.symbols[0].signature, "type Cart struct {");
        assert_eq!(f.symbols[6].returns, Some(path(&["Shape"])));
        assert_eq!(f.symbols[5].returns, None);
        let rels: Vec<_> =
            f.relations.iter().map(|r| (r.symbol, r.kind, r.target.join("."), (r.pos.line, r.pos.col))).collect();
        assert_eq!(
            rels,
            vec![
                (0, TypeRelKind::Extends, "Base".to_string(), (4, 3)),
                (0, TypeRelKind::Extends, "money.Ledger".to_string(), (5, 8)),
                (4, TypeRelKind::Extends, "fmt.Stringer".to_string(), (11, 6)),
                (4, TypeRelKind::Extends, "Named".to_string(), (12, 2)),
            ]
        );
        assert!(has_ref(&f, "Base", false, Some("Cart")));
        assert!(has_ref(&f, "money.Ledger", false, Some("Cart")));
        assert!(has_ref(&f, "Item", false, Some("Cart")));
        assert!(has_ref(&f, "Shape", false, Some("scale")));
        // Predeclared types are not references; field names are not references.
        assert!(!refs(&f).iter().any(|r| matches!(r.0.as_str(), "int" | "string" | "float64" | "Items" | "total")));
    }

    #[test]
    fn functions_methods_receivers_and_returns() {
        let src = "package cart\n\nfunc New() *Cart { return &Cart{} }\n\nfunc Load(id string) (cart.Cart, error) { return cart.Cart{}, nil }\n\nfunc (c *Cart) Total(rate money.Rate, xs ...Item) (n int) {\n\treturn c.sum(rate)\n}\n\nfunc (l List[T]) push(v T) {}\n";
        let f = go(src);
        let new = &f.symbols[0];
        assert_eq!((new.name.as_str(), new.kind, new.exported), ("New", SymbolKind::Function, true));
        assert_eq!(new.returns, Some(path(&["Cart"])));
        assert_eq!(f.symbols[1].returns, Some(path(&["cart", "Cart"])));
        let total = &f.symbols[2];
        assert_eq!((total.name.as_str(), total.kind, total.container), ("Total", SymbolKind::Method, None));
        assert_eq!(total.impl_of, Some(path(&["Cart"])));
        assert_eq!(total.returns, None);
        let push = &f.symbols[3];
        assert_eq!((push.name.as_str(), push.exported), ("push", false));
        assert_eq!(push.impl_of, Some(path(&["List"])));
        assert_eq!(f.symbols.len(), 4);

        assert_eq!(local(&f, "c"), &LocalOrigin::Declared(path(&["Cart"])));
        assert_eq!(local(&f, "rate"), &LocalOrigin::Declared(path(&["money", "Rate"])));
        assert_eq!(local(&f, "xs"), &LocalOrigin::Declared(path(&["Item"])));
        assert_eq!(local(&f, "n"), &LocalOrigin::Unknown);
        assert_eq!(local(&f, "l"), &LocalOrigin::Declared(path(&["List"])));
        assert_eq!(local(&f, "T"), &LocalOrigin::Unknown);
        assert_eq!(local(&f, "id"), &LocalOrigin::Unknown);
        assert!(f.locals.iter().filter(|l| l.name == "c").all(|l| l.scope == Some(2)));

        assert!(has_ref(&f, "Cart", false, Some("New")));
        assert!(has_ref(&f, "cart.Cart", false, Some("Load")));
        assert!(has_ref(&f, "Cart", false, Some("Total")));
        assert!(has_ref(&f, "money.Rate", false, Some("Total")));
        assert!(has_ref(&f, "c.sum", true, Some("Total")));
        assert!(has_ref(&f, "rate", false, Some("Total")));
        assert!(has_ref(&f, "List", false, Some("push")));
    }

    #[test]
    fn calls_chains_and_positions() {
        let src = "package main\n\nfunc main() {\n\tx := money.Add(1, y)\n\tc.Total()\n\ta.b.c(x)\n\tf().g.h()\n\titems[0].Price()\n\tprintln(x)\n}\n";
        let f = go(src);
        let r = refs(&f);
        let main = Some("main".to_string());
        assert!(r.contains(&("money.Add".to_string(), true, false, main.clone())));
        assert!(r.contains(&("y".to_string(), false, false, main.clone())));
        assert!(r.contains(&("c.Total".to_string(), true, false, main.clone())));
        assert!(r.contains(&("f".to_string(), true, false, main.clone())));
        assert!(r.contains(&("g.h".to_string(), true, true, main.clone())));
        assert!(r.contains(&("items".to_string(), false, false, main.clone())));
        assert!(r.contains(&("Price".to_string(), true, true, main.clone())));
        assert!(r.contains(&("println".to_string(), true, false, main.clone())));
        // `a.b.c(x)` is one chain; neither `a` nor `b` is a ref of its own.
        let abc = f.refs.iter().find(|r| r.segments.len() == 3).unwrap();
        let segs: Vec<_> = abc.segments.iter().map(|(s, p)| (s.as_str(), p.line, p.col)).collect();
        assert_eq!(segs, vec![("a", 6, 2), ("b", 6, 4), ("c", 6, 6)]);
        assert!(abc.call);
        assert!(!r.iter().any(|x| x.0 == "a" || x.0 == "b"));
        assert_eq!(r.iter().filter(|x| x.0 == "x").count(), 2);
        // `x` is declared, not referenced, on its own line.
        assert!(!f.refs.iter().any(|r| r.segments[0].0 == "x" && r.segments[0].1.line == 4));
    }

    #[test]
    fn locals_and_their_origins() {
        let src = "package main\n\nfunc run(p *Cart, q, r2 int) {\n\ta := cart.New()\n\tb := &cart.Cart{Items: items}\n\tc := Cart{}\n\tvar d cart.Cart\n\tvar e = c.Clone()\n\tg, err := load()\n\th, i := 1, other()\n\tj := new(Order)\n\tk, ok := shape.(*Circle)\n\tm := map[string]int{key: 1}\n\tn := G[int](x)\n\tfor idx, item := range items {}\n\tvar s, t int\n\t_ = 3\n}\n";
        let f = go(src);
        assert_eq!(local(&f, "p"), &LocalOrigin::Declared(path(&["Cart"])));
        assert_eq!(local(&f, "q"), &LocalOrigin::Unknown);
        assert_eq!(local(&f, "a"), &LocalOrigin::CallResult(path(&["cart", "New"])));
        assert_eq!(local(&f, "b"), &LocalOrigin::Constructed(path(&["cart", "Cart"])));
        assert_eq!(local(&f, "c"), &LocalOrigin::Constructed(path(&["Cart"])));
        assert_eq!(local(&f, "d"), &LocalOrigin::Declared(path(&["cart", "Cart"])));
        assert_eq!(local(&f, "e"), &LocalOrigin::CallResult(path(&["c", "Clone"])));
        assert_eq!(local(&f, "g"), &LocalOrigin::CallResult(path(&["load"])));
        assert_eq!(local(&f, "err"), &LocalOrigin::Unknown);
        assert_eq!(local(&f, "h"), &LocalOrigin::Unknown);
        assert_eq!(local(&f, "i"), &LocalOrigin::CallResult(path(&["other"])));
        assert_eq!(local(&f, "j"), &LocalOrigin::Constructed(path(&["Order"])));
        assert_eq!(local(&f, "k"), &LocalOrigin::Declared(path(&["Circle"])));
        assert_eq!(local(&f, "ok"), &LocalOrigin::Unknown);
        assert_eq!(local(&f, "m"), &LocalOrigin::Unknown);
        assert_eq!(local(&f, "n"), &LocalOrigin::CallResult(path(&["G"])));
        assert_eq!(local(&f, "idx"), &LocalOrigin::Unknown);
        // A slice's element has the type the slice is given (see `type_path`).
        assert_eq!(local(&f, "item"), &LocalOrigin::CallChain(path(&["items"]), Vec::new()));
        assert_eq!(local(&f, "s"), &LocalOrigin::Unknown);
        assert_eq!(local(&f, "t"), &LocalOrigin::Unknown);
        assert!(!f.locals.iter().any(|l| l.name == "_"));
        assert!(f.locals.iter().all(|l| l.scope == Some(0)));
        // Only the function is a symbol.
        assert_eq!(f.symbols.len(), 1);
        // Composite literal types are refs; struct-literal keys are uses of the literal type's
        // fields (a member of the value constructed), map keys are plain names.
        assert!(has_ref(&f, "cart.Cart", false, Some("run")));
        assert!(has_ref(&f, "items", false, Some("run")));
        let key = f.refs.iter().find(|r| r.segments[0].0 == "Items").expect("the key is a field use");
        assert_eq!(
            key.receiver.as_ref().map(|r| &r.base),
            Some(&crate::facts::ReceiverBase::Value(LocalOrigin::Constructed(path(&["cart", "Cart"]))))
        );
        assert!(has_ref(&f, "key", false, Some("run")));
        assert!(has_ref(&f, "G", true, Some("run")));
        assert!(has_ref(&f, "Circle", false, Some("run")));
        assert!(has_ref(&f, "shape", false, Some("run")));
    }

    #[test]
    fn file_level_consts_and_vars() {
        let src = "package p\n\nconst (\n\tA Kind = iota\n\tb\n)\n\nvar x, Y = 1, 2\nvar Handler = func(w Writer) { serve(w) }\n";
        let f = go(src);
        let syms: Vec<_> = f.symbols.iter().map(|s| (s.name.as_str(), s.kind, s.exported, s.container)).collect();
        assert_eq!(
            syms,
            vec![
                ("A", SymbolKind::Constant, true, None),
                ("b", SymbolKind::Constant, false, None),
                ("x", SymbolKind::Variable, false, None),
                ("Y", SymbolKind::Variable, true, None),
                ("Handler", SymbolKind::Variable, true, None),
            ]
        );
        assert!(has_ref(&f, "Kind", false, Some("A")));
        assert!(has_ref(&f, "serve", true, Some("Handler")));
        assert!(has_ref(&f, "Writer", false, Some("Handler")));
        assert_eq!(local(&f, "w"), &LocalOrigin::Declared(path(&["Writer"])));
    }

    #[test]
    fn switches_labels_and_closures() {
        let src = "package p\n\nfunc f(ch chan int) {\nL:\n\tfor {\n\t\tbreak L\n\t}\n\tswitch v := x.(type) {\n\tcase *Circle:\n\t\tuse(v)\n\t}\n\tselect {\n\tcase msg := <-ch:\n\t\tuse(msg)\n\t}\n\tgo func(n int) { work(n) }(1)\n\ts := \"quoted name\"\n}\n";
        let f = go(src);
        assert!(!refs(&f).iter().any(|r| r.0 == "L" || r.0.contains("quoted")));
        assert_eq!(local(&f, "v"), &LocalOrigin::Unknown);
        assert_eq!(local(&f, "msg"), &LocalOrigin::Unknown);
        assert_eq!(local(&f, "n"), &LocalOrigin::Unknown);
        assert!(has_ref(&f, "Circle", false, Some("f")));
        assert!(has_ref(&f, "x", false, Some("f")));
        assert!(has_ref(&f, "work", true, Some("f")));
        assert!(has_ref(&f, "ch", false, Some("f")));
        assert_eq!(f.symbols.len(), 1);
    }

    #[test]
    fn local_types_are_symbols_of_the_function() {
        let f = go("package p\n\nfunc F() {\n\ttype Point struct { X int }\n\t_ = Point{X: 1}\n}\n");
        let point = &f.symbols[1];
        assert_eq!(
            (point.name.as_str(), point.kind, point.container, point.exported),
            ("Point", SymbolKind::Struct, Some(0), false)
        );
        assert_eq!(f.symbols[2].name, "X");
        assert_eq!(f.symbols[2].container, Some(1));
    }

    #[test]
    fn deep_nesting_does_not_crash() {
        let src = format!("package p\n\nvar x = {}1{}\n", "(".repeat(10_000), ")".repeat(10_000));
        assert!(go(&src).truncated_depth);
        let chain = format!("package p\n\nfunc f() {{ a{}() }}\n", ".b".repeat(5_000));
        let f = go(&chain);
        assert!(f.refs.iter().any(|r| r.call && r.segments.len() == 5_001));
        let calls = format!("package p\n\nfunc f() {{ {}x{} }}\n", "g(".repeat(5_000), ")".repeat(5_000));
        assert!(go(&calls).truncated_depth);
    }
}
