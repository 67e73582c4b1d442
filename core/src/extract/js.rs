//! Extraction for TypeScript, TSX and JavaScript (the grammars share their node kinds): ES imports and
//! re-exports, `CommonJS` `require`, classes, interfaces, functions (including `const f = () => …`),
//! member chains, `new` expressions, type annotations and local bindings.

use super::{Field, Kind};
use tree_sitter::Node;

use super::{named_children, Builder, ChainSyntax, Member, Segment, MAX_TYPE_NESTING};
use crate::facts::{
    marked, record_path, union_path, ImportItem, ImportKind, Init, LocalOrigin, Param, Receiver, ReceiverBase,
    SymbolKind, TypeRelKind, IN_PLACE, SEQUENCE,
};

pub(crate) fn extract(b: &mut Builder, root: Node) {
    for child in named_children(root) {
        statement(b, child, false);
    }
    // `export { a, b as c }` marks the local declarations exported.
    let exported: Vec<String> = b.facts.export_names.iter().map(|(local, _)| local.clone()).collect();
    for sym in &mut b.facts.symbols {
        if sym.container.is_none() && exported.contains(&sym.name) {
            sym.exported = true;
        }
    }
}

/// A statement at file level or in a block; `exported` is set under `export`.
fn statement(b: &mut Builder, node: Node, exported: bool) {
    if !b.descend() {
        return;
    }
    match node.kind_str() {
        "import_statement" => import_statement(b, node),
        "export_statement" => export_statement(b, node),
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            function(b, node, node.field("name"), SymbolKind::Function, exported);
        }
        "class_declaration" | "abstract_class_declaration" | "class" => class(b, node, exported),
        "interface_declaration" => interface(b, node, exported),
        "type_alias_declaration" => {
            if let Some(name) = node.field("name") {
                let idx = b.add_symbol(node, name, SymbolKind::Type, exported);
                // `type Holder = { service: Service }`, `type Input = A | B`: the type it names,
                // whose members it has.
                b.symbol_mut(idx).returns = node.field("value").and_then(|v| type_path(b, v));
                b.within(idx, |b| walk_children_except(b, node, name));
            }
        }
        "enum_declaration" => {
            if let Some(name) = node.field("name") {
                let idx = b.add_symbol(node, name, SymbolKind::Enum, exported);
                if let Some(body) = node.field("body") {
                    b.within(idx, |b| {
                        for member in named_children(body) {
                            let name = if member.kind_str() == "enum_assignment" {
                                member.field("name")
                            } else {
                                Some(member)
                            };
                            if let Some(name) = name.filter(|n| n.kind_str() == "property_identifier") {
                                b.add_symbol(member, name, SymbolKind::Constant, exported);
                            }
                        }
                    });
                }
            }
        }
        "internal_module" | "module" => match node.field("name").filter(|n| n.kind_str() == "identifier") {
            Some(name) => {
                let idx = b.add_symbol(node, name, SymbolKind::Module, exported);
                if let Some(body) = node.field("body") {
                    b.within(idx, |b| named_children(body).into_iter().for_each(|c| statement(b, c, exported)));
                }
            }
            None => walk_children(b, node),
        },
        "lexical_declaration" | "variable_declaration" => declaration(b, node, exported),
        "expression_statement" => walk_children(b, node),
        "ambient_declaration" => named_children(node).into_iter().for_each(|c| statement(b, c, true)),
        _ => expr(b, node),
    }
    b.ascend();
}

fn import_statement(b: &mut Builder, node: Node) {
    let Some(source) = node.field("source") else { return };
    let module = string_value(b, source);
    let pos = b.pos(node);
    let Some(clause) = named_children(node).into_iter().find(|c| c.kind_str() == "import_clause") else {
        // `import x = require("y")` carries an import_require_clause; plain `import "y"` binds nothing.
        if let Some(req) = named_children(node).into_iter().find(|c| c.kind_str() == "import_require_clause") {
            if let Some(id) = named_children(req).into_iter().find(|c| c.kind_str() == "identifier") {
                let item = ImportItem { name: String::new(), alias: b.text(id).to_string(), pos: b.pos(id) };
                b.add_import(module, ImportKind::Namespace, vec![item], pos, false);
                return;
            }
        }
        b.add_import(module, ImportKind::SideEffect, Vec::new(), pos, false);
        return;
    };
    for part in named_children(clause) {
        match part.kind_str() {
            "identifier" => {
                let item = ImportItem { name: "default".into(), alias: b.text(part).to_string(), pos: b.pos(part) };
                b.add_import(module.clone(), ImportKind::Default, vec![item], pos, false);
            }
            "namespace_import" => {
                if let Some(id) = named_children(part).into_iter().find(|c| c.kind_str() == "identifier") {
                    let item = ImportItem { name: String::new(), alias: b.text(id).to_string(), pos: b.pos(id) };
                    b.add_import(module.clone(), ImportKind::Namespace, vec![item], pos, false);
                }
            }
            "named_imports" => {
                let items = specifiers(b, part, "import_specifier");
                b.add_import(module.clone(), ImportKind::Named, items, pos, false);
            }
            _ => {}
        }
    }
}

/// `{ a, b as c }` in an import or export clause.
fn specifiers(b: &Builder, clause: Node, kind: &str) -> Vec<ImportItem> {
    named_children(clause)
        .into_iter()
        .filter(|s| s.kind_str() == kind)
        .filter_map(|s| {
            let name = s.field("name")?;
            let alias = s.field("alias").unwrap_or(name);
            Some(ImportItem { name: unquote(b.text(name)), alias: unquote(b.text(alias)), pos: b.pos(name) })
        })
        .collect()
}

fn export_statement(b: &mut Builder, node: Node) {
    let pos = b.pos(node);
    if let Some(source) = node.field("source") {
        let module = string_value(b, source);
        let children = named_children(node);
        if let Some(clause) = children.iter().find(|c| c.kind_str() == "export_clause") {
            let items = specifiers(b, *clause, "export_specifier");
            b.add_import(module, ImportKind::Named, items, pos, true);
        } else if let Some(ns) = children.iter().find(|c| c.kind_str() == "namespace_export") {
            if let Some(id) = named_children(*ns).into_iter().last() {
                let item = ImportItem { name: String::new(), alias: unquote(b.text(id)), pos: b.pos(id) };
                b.add_import(module, ImportKind::Namespace, vec![item], pos, true);
            }
        } else {
            b.add_import(module, ImportKind::Glob, Vec::new(), pos, true);
        }
        return;
    }
    let is_default = super::has_token(node, "default");
    if let Some(decl) = node.field("declaration") {
        let before = b.facts.symbols.len();
        statement(b, decl, true);
        if is_default {
            if let Some(sym) = b.facts.symbols.get_mut(before) {
                sym.default_export = true;
            }
        }
        return;
    }
    if let Some(value) = node.field("value") {
        // `export default function () {}` / `export default class {}` have no name; `export default X`
        // exports a local name.
        if value.kind_str() == "identifier" {
            let name = b.text(value).to_string();
            b.facts.export_names.push((name, "default".into()));
            b.add_ref(vec![b.seg(value)], false, false);
        } else if matches!(value.kind_str(), "function_expression" | "class" | "arrow_function") {
            let before = b.facts.symbols.len();
            match value.kind_str() {
                "class" => class(b, value, true),
                _ => function(b, value, value.field("name"), SymbolKind::Function, true),
            }
            if let Some(sym) = b.facts.symbols.get_mut(before) {
                sym.default_export = true;
            }
        } else {
            expr(b, value);
        }
        return;
    }
    for clause in named_children(node).into_iter().filter(|c| c.kind_str() == "export_clause") {
        for item in specifiers(b, clause, "export_specifier") {
            b.facts.export_names.push((item.name.clone(), item.alias.clone()));
            b.add_ref(vec![(item.name, item.pos)], false, false);
        }
    }
}

/// A function, method or arrow function bound to a name. Anonymous ones still get their body walked.
fn function(b: &mut Builder, node: Node, name: Option<Node>, kind: SymbolKind, exported: bool) {
    let Some(name) = name else {
        function_body(b, node);
        return;
    };
    let overload = after_signature(b, node, b.text(name)).then(|| b.continue_overload(node, b.text(name), kind));
    let idx = if let Some(idx) = overload.flatten() {
        // A parameter typed in one signature is typed for the symbol (its first typing wins).
        if let Some(params) = node.field("parameters") {
            let more = declared_params(b, params);
            let known = &mut b.symbol_mut(idx).params;
            for (i, p) in more.into_iter().enumerate() {
                match known.get_mut(i) {
                    Some(k) if k.ty.is_none() && k.callback.is_empty() => *k = p,
                    Some(_) => {}
                    None => known.push(p),
                }
            }
        }
        idx
    } else {
        let idx = b.add_symbol(node, name, kind, exported);
        b.symbol_mut(idx).returns = return_type(b, node);
        if let Some(params) = node.field("parameters") {
            b.symbol_mut(idx).params = declared_params(b, params);
        }
        idx
    };
    if kind == SymbolKind::Method && b.text(name) == "constructor" {
        parameter_properties(b, node);
    }
    b.within(idx, |b| function_body(b, node));
}

/// The parameters of a function or function type, as declared (a `this` parameter is not one).
fn declared_params(b: &Builder, params: Node) -> Vec<Param> {
    named_children(params)
        .into_iter()
        .filter(|p| matches!(p.kind_str(), "required_parameter" | "optional_parameter"))
        .filter(|p| p.field("pattern").is_none_or(|n| n.kind_str() != "this"))
        .map(|p| {
            let ty = p.field("type");
            let inner = ty.and_then(|t| if t.kind_str() == "type_annotation" { t.named_child(0) } else { Some(t) });
            let callback = match inner {
                Some(f) if f.kind_str() == "function_type" => f
                    .field("parameters")
                    .map(|ps| declared_params(b, ps).into_iter().map(|p| p.ty).collect())
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            Param { ty: ty.and_then(|t| type_path(b, t)), callback }
        })
        .collect()
}

/// `constructor(private readonly dep: Dep, public opts: Opts)`: parameters with an accessibility
/// or `readonly` modifier are fields of the class too, typed as declared.
fn parameter_properties(b: &mut Builder, ctor: Node) {
    let Some(params) = ctor.field("parameters") else { return };
    let Some(class) = b.enclosing() else { return };
    for p in named_children(params) {
        let modifiers = named_children(p)
            .into_iter()
            .filter(|c| matches!(c.kind_str(), "accessibility_modifier" | "override_modifier"))
            .count()
            + usize::from(super::has_token(p, "readonly"));
        let Some(name) = p.field("pattern").filter(|n| n.kind_str() == "identifier") else { continue };
        if modifiers == 0 {
            continue;
        }
        let exported = b.facts.symbols[class as usize].exported && !member_is_private(b, p);
        if let Some(idx) = b.add_member(class, p, name, SymbolKind::Field, exported) {
            b.symbol_mut(idx).returns = p.field("type").and_then(|t| type_path(b, t));
        }
    }
}

/// Whether the declaration written just before `node` (through `export`) is an overload signature
/// of the same name: `function f(a: A): X;` then `function f(a: any) { … }`.
fn after_signature(b: &Builder, node: Node, name: &str) -> bool {
    let outer = node.parent().filter(|p| p.kind_str() == "export_statement").unwrap_or(node);
    let mut prev = outer.prev_named_sibling();
    while let Some(p) = prev.filter(|p| p.kind_str() == "comment" || p.kind_str() == "decorator") {
        prev = p.prev_named_sibling();
    }
    let Some(mut prev) = prev else { return false };
    if prev.kind_str() == "export_statement" {
        match prev.field("declaration") {
            Some(d) => prev = d,
            None => return false,
        }
    }
    matches!(prev.kind_str(), "function_signature" | "method_signature" | "abstract_method_signature")
        && prev.field("name").is_some_and(|n| b.text(n) == name)
}

/// The value a declaration is initialised with; an object literal where the type is declared
/// (`const c: Config = { … }`) names members of that type.
fn initialiser(b: &mut Builder, value: Node, ty: Option<Node>) {
    match ty.and_then(|t| type_path(b, t)) {
        Some(ty) if value.kind_str() == "object" => object_literal(b, value, Some(declared_receiver(ty))),
        _ => expr(b, value),
    }
}

/// A receiver typed by a declared type.
fn declared_receiver(ty: Vec<String>) -> Receiver {
    Receiver { base: ReceiverBase::Value(LocalOrigin::Declared(ty)), members: Vec::new() }
}

/// An object literal. Where its type is declared (`receiver`), its keys are references to the
/// members of that type, and a nested literal's keys to the members of the member's type.
fn object_literal(b: &mut Builder, node: Node, receiver: Option<Receiver>) {
    if !b.descend() {
        return;
    }
    for child in named_children(node) {
        let key = match child.kind_str() {
            "pair" => child.field("key").filter(|k| k.kind_str() == "property_identifier"),
            "shorthand_property_identifier" => Some(child),
            "method_definition" => child.field("name").filter(|k| k.kind_str() == "property_identifier"),
            _ => None,
        };
        if let (Some(key), Some(receiver)) = (key, &receiver) {
            b.add_member_ref(b.seg(key), false, receiver.clone());
        }
        match child.kind_str() {
            "pair" => {
                if let Some(k) = child.field("key").filter(|k| k.kind_str() == "computed_property_name") {
                    expr(b, k);
                }
                let Some(value) = child.field("value") else { continue };
                match (key, &receiver) {
                    (Some(key), Some(r)) if value.kind_str() == "object" => {
                        let mut inner = r.clone();
                        inner.members.push(b.text(key).to_string());
                        object_literal(b, value, Some(inner));
                    }
                    _ => expr(b, value),
                }
            }
            "method_definition" => function_body(b, child),
            _ => expr(b, child),
        }
    }
    b.ascend();
}

/// The arguments of a call (`construct`: of `new`). A function passed to a callee whose chain is
/// known gets its untyped parameters typed by the function type the callee declares for that
/// argument (`operate((source, subscriber) => …)`).
/// A call's arguments (`ChainSyntax::arguments`): typed by the callee's parameters.
fn call_arguments(b: &mut Builder, call: Node, args: Node) {
    arguments(b, args, call.field("function"), false);
}

/// The arguments of a call of `callee` (or of `new callee`, `construct`): an object literal or a
/// callback is typed by the callee's declared parameter.
fn arguments(b: &mut Builder, args: Node, callee: Option<Node>, construct: bool) {
    let args: Vec<Node> = named_children(args).into_iter().filter(|a| a.kind_str() != "comment").collect();
    // The callee's chain only when an argument needs it: reading it walks the chain below, once
    // per call of a long chain (`a.b().c()…`) would be quadratic.
    let typed = |a: &Node| matches!(a.kind_str(), "object" | "arrow_function" | "function_expression" | "function");
    let callee = if args.iter().any(typed) { callee.and_then(|f| CHAIN.called_names(b, f)) } else { None };
    for (i, arg) in args.into_iter().enumerate() {
        match &callee {
            Some((segments, calls_at)) if arg.kind_str() == "object" => {
                let callee = segments.iter().map(|s| s.0.clone()).collect();
                let base = ReceiverBase::Argument { callee, calls_at: calls_at.clone(), construct, arg: i as u32 };
                object_literal(b, arg, Some(Receiver { base, members: Vec::new() }));
            }
            Some((segments, calls_at))
                if matches!(arg.kind_str(), "arrow_function" | "function_expression" | "function") =>
            {
                let callee: Vec<String> = segments.iter().map(|s| s.0.clone()).collect();
                let origin = |param: u32| LocalOrigin::Callback {
                    callee: callee.clone(),
                    calls_at: calls_at.clone(),
                    construct,
                    arg: i as u32,
                    param,
                };
                callback_body(b, arg, &origin);
            }
            _ => expr(b, arg),
        }
    }
}

/// Parameters (as locals), return type and body of a function-like node, in the current scope.
fn function_body(b: &mut Builder, node: Node) {
    callback_body(b, node, &|_| LocalOrigin::Unknown);
}

/// `function_body` where an untyped parameter `i` (a plain name) has the origin `untyped(i)`.
fn callback_body(b: &mut Builder, node: Node, untyped: &dyn Fn(u32) -> LocalOrigin) {
    b.function_body(|b| {
        if let Some(params) = node.field("parameters") {
            parameters(b, params, untyped);
        } else if let Some(param) = node.field("parameter") {
            // `x => …`
            b.add_local(b.text(param), untyped(0));
        }
        if let Some(ret) = node.field("return_type") {
            expr(b, ret);
        }
        if let Some(tp) = node.field("type_parameters") {
            expr(b, tp);
        }
        if let Some(body) = node.field("body") {
            block(b, body);
        }
    });
}

fn block(b: &mut Builder, body: Node) {
    if body.kind_str() == "statement_block" {
        for child in named_children(body) {
            statement(b, child, false);
        }
    } else {
        expr(b, body);
    }
}

fn parameters(b: &mut Builder, params: Node, untyped: &dyn Fn(u32) -> LocalOrigin) {
    let mut index = 0;
    for p in named_children(params) {
        let i = index;
        if matches!(p.kind_str(), "required_parameter" | "optional_parameter") {
            if p.field("pattern").is_some_and(|n| n.kind_str() == "this") {
                // `function (this: SchedulerAction<T>)`: `this` inside has the declared type.
                if let Some(t) = p.field("type") {
                    if let Some(path) = type_path(b, t) {
                        b.add_local("this", LocalOrigin::Declared(path));
                    }
                    expr(b, t);
                }
                continue;
            }
            index += 1;
        }
        match p.kind_str() {
            "required_parameter" | "optional_parameter" => {
                let pattern = p.field("pattern");
                let ty = p.field("type");
                let origin = match ty {
                    Some(t) => type_path(b, t).map_or(LocalOrigin::Unknown, LocalOrigin::Declared),
                    None if pattern.is_some_and(|n| n.kind_str() == "identifier") => untyped(i),
                    None => LocalOrigin::Unknown,
                };
                if let Some(pattern) = pattern {
                    bind_pattern(b, pattern, origin);
                }
                if let Some(ty) = ty {
                    expr(b, ty);
                }
                if let Some(value) = p.field("value") {
                    expr(b, value);
                }
            }
            "identifier" | "object_pattern" | "array_pattern" | "rest_pattern" | "assignment_pattern" => {
                bind_pattern(b, p, LocalOrigin::Unknown);
            }
            _ => expr(b, p),
        }
    }
}

/// Declares every name bound by a pattern as a local. A plain identifier keeps the origin; the
/// keys of an object pattern over a value of known origin are members of it (references, and the
/// origins of the names they bind).
fn bind_pattern(b: &mut Builder, pattern: Node, origin: LocalOrigin) {
    match pattern.kind_str() {
        "object_pattern" if origin != LocalOrigin::Unknown => {
            if !b.descend() {
                return;
            }
            let receiver = Receiver { base: ReceiverBase::Value(origin.clone()), members: Vec::new() };
            for child in named_children(pattern) {
                let key = match child.kind_str() {
                    "shorthand_property_identifier_pattern" => Some(child),
                    "object_assignment_pattern" => {
                        child.field("left").filter(|l| l.kind_str() == "shorthand_property_identifier_pattern")
                    }
                    "pair_pattern" => child.field("key").filter(|k| k.kind_str() == "property_identifier"),
                    _ => None,
                };
                let Some(key) = key else {
                    bind_pattern(b, child, LocalOrigin::Unknown);
                    continue;
                };
                b.add_member_ref(b.seg(key), false, receiver.clone());
                let member = LocalOrigin::Member(Box::new(origin.clone()), b.text(key).to_string());
                match child.kind_str() {
                    "pair_pattern" => {
                        if let Some(value) = child.field("value") {
                            bind_pattern(b, value, member);
                        }
                    }
                    "object_assignment_pattern" => {
                        b.add_local(b.text(key), member);
                        if let Some(right) = child.field("right") {
                            expr(b, right);
                        }
                    }
                    _ => b.add_local(b.text(key), member),
                }
            }
            b.ascend();
        }
        "identifier" | "shorthand_property_identifier_pattern" => b.add_local(b.text(pattern), origin),
        "assignment_pattern" => {
            if let Some(left) = pattern.field("left") {
                bind_pattern(b, left, origin);
            }
            if let Some(right) = pattern.field("right") {
                expr(b, right);
            }
        }
        "pair_pattern" => {
            if let Some(value) = pattern.field("value") {
                bind_pattern(b, value, LocalOrigin::Unknown);
            }
        }
        "this" => {}
        _ => {
            if !b.descend() {
                return;
            }
            for child in named_children(pattern) {
                bind_pattern(b, child, LocalOrigin::Unknown);
            }
            b.ascend();
        }
    }
}

/// `const a = …, b = …` at file level (symbols) or in a function (locals; also in a callback or an
/// object literal's method at file level).
fn declaration(b: &mut Builder, node: Node, exported: bool) {
    let at_file_level =
        !b.in_function_body() && b.enclosing().is_none_or(|s| b.facts.symbols[s as usize].kind == SymbolKind::Module);
    let is_const = super::has_token(node, "const");
    for decl in named_children(node).into_iter().filter(|d| d.kind_str() == "variable_declarator") {
        let Some(name) = decl.field("name") else { continue };
        let value = decl.field("value");
        let ty = decl.field("type");
        if let Some(require) = value.and_then(|v| require_call(b, v)) {
            require_binding(b, name, require);
            continue;
        }
        let is_fn =
            value.is_some_and(|v| matches!(v.kind_str(), "arrow_function" | "function_expression" | "function"));
        if at_file_level && name.kind_str() == "identifier" {
            if is_fn {
                let value = value.expect("checked above");
                let idx = b.add_symbol(decl, name, SymbolKind::Function, exported);
                b.symbol_mut(idx).returns = return_type(b, value);
                b.within(idx, |b| function_body(b, value));
                continue;
            }
            let text = b.text(name);
            let kind = if is_const
                && text.len() > 1
                && text.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
            {
                SymbolKind::Constant
            } else {
                SymbolKind::Variable
            };
            let idx = b.add_symbol(decl, name, kind, exported);
            let declared = ty.and_then(|t| type_path(b, t)).or_else(|| value.and_then(|v| constructed_type(b, v)));
            if declared.is_none() {
                // `const _bind = Function.prototype.bind;`, `const config = load();`: typed by its value.
                let origin = local_origin(b, ty, value);
                if origin != LocalOrigin::Unknown {
                    b.symbol_mut(idx).init = Some(Box::new(Init { origin, scope: b.enclosing() }));
                }
            }
            b.symbol_mut(idx).returns = declared;
        } else {
            let origin = local_origin(b, ty, value);
            bind_pattern(b, name, origin);
        }
        if let Some(ty) = ty {
            expr(b, ty);
        }
        if let Some(value) = value {
            initialiser(b, value, ty);
        }
    }
}

/// How a local's type is known from its annotation or initialiser.
fn local_origin(b: &Builder, ty: Option<Node>, value: Option<Node>) -> LocalOrigin {
    if let Some(path) = ty.and_then(|t| type_path(b, t)) {
        return LocalOrigin::Declared(path);
    }
    let Some(mut value) = value else { return LocalOrigin::Unknown };
    if value.kind_str() == "await_expression" {
        match value.named_child(0) {
            Some(inner) => value = inner,
            None => return LocalOrigin::Unknown,
        }
    }
    match value.kind_str() {
        "new_expression" => value
            .field("constructor")
            .and_then(|c| chain(b, c))
            .map_or(LocalOrigin::Unknown, |segs| LocalOrigin::Constructed(texts(segs))),
        "call_expression" => match value.field("function").and_then(|f| chain(b, f)) {
            Some(segs) => LocalOrigin::CallResult(texts(segs)),
            // `a.b().c()`: the chain through its calls, the last one included.
            None => CHAIN.called_origin(b, value).unwrap_or(LocalOrigin::Unknown),
        },
        // `this`, `config`, `this.options.scheduler`: the same value.
        "this" | "identifier" | "member_expression" => {
            chain(b, value).map_or(LocalOrigin::Unknown, |segs| LocalOrigin::CallChain(texts(segs), Vec::new()))
        }
        // `this.messages[i]`, `subject.observers!`: an element, the value itself.
        "subscript_expression" | "non_null_expression" => CHAIN.called_origin(b, value).unwrap_or(LocalOrigin::Unknown),
        // `[new Subject<T>()]`: an array of what every element constructs (its inferred type).
        "array" => {
            let elements: Vec<Node> = named_children(value).into_iter().filter(|c| c.kind_str() != "comment").collect();
            let mut constructed = elements.iter().map(|e| {
                let ctor = e.field("constructor").filter(|_| e.kind_str() == "new_expression")?;
                chain(b, ctor).map(texts)
            });
            match constructed.next().flatten() {
                Some(first) if constructed.all(|p| p.as_ref() == Some(&first)) => {
                    LocalOrigin::Declared(marked(SEQUENCE, first))
                }
                _ => LocalOrigin::Unknown,
            }
        }
        // `{ async: true, ...init }`: a spread last overrides every key before it, so the members
        // the value shares with `init` are `init`'s (keys only the literal has resolve to nothing).
        "object" => {
            let last = named_children(value).into_iter().rev().find(|c| c.kind_str() != "comment");
            match last.filter(|l| l.kind_str() == "spread_element").and_then(|l| l.named_child(0)) {
                Some(spread) if matches!(spread.kind_str(), "identifier" | "member_expression") => chain(b, spread)
                    .map_or(LocalOrigin::Unknown, |segs| LocalOrigin::CallChain(texts(segs), Vec::new())),
                _ => LocalOrigin::Unknown,
            }
        }
        _ => LocalOrigin::Unknown,
    }
}

fn constructed_type(b: &Builder, value: Node) -> Option<Vec<String>> {
    match local_origin(b, None, Some(value)) {
        LocalOrigin::Constructed(path) => Some(path),
        _ => None,
    }
}

/// `require("./x")` → the module string.
fn require_call(b: &Builder, value: Node) -> Option<String> {
    if value.kind_str() != "call_expression" {
        return None;
    }
    let func = value.field("function")?;
    if func.kind_str() != "identifier" || b.text(func) != "require" {
        return None;
    }
    let args = value.field("arguments")?;
    let first = args.named_child(0)?;
    (first.kind_str() == "string").then(|| string_value(b, first))
}

/// `const x = require("m")` (namespace) or `const { a, b: c } = require("m")` (named).
fn require_binding(b: &mut Builder, name: Node, module: String) {
    let pos = b.pos(name);
    match name.kind_str() {
        "identifier" => {
            let item = ImportItem { name: String::new(), alias: b.text(name).to_string(), pos };
            b.add_import(module, ImportKind::Namespace, vec![item], pos, false);
        }
        "object_pattern" => {
            let mut items = Vec::new();
            for prop in named_children(name) {
                match prop.kind_str() {
                    "shorthand_property_identifier_pattern" => items.push(ImportItem {
                        name: b.text(prop).into(),
                        alias: b.text(prop).into(),
                        pos: b.pos(prop),
                    }),
                    "pair_pattern" => {
                        if let (Some(k), Some(v)) = (prop.field("key"), prop.field("value")) {
                            items.push(ImportItem { name: b.text(k).into(), alias: b.text(v).into(), pos: b.pos(k) });
                        }
                    }
                    _ => {}
                }
            }
            b.add_import(module, ImportKind::Named, items, pos, false);
        }
        _ => {}
    }
}

fn class(b: &mut Builder, node: Node, exported: bool) {
    let Some(name) = node.field("name") else {
        walk_children(b, node);
        return;
    };
    let idx = b.add_symbol(node, name, SymbolKind::Class, exported);
    for part in named_children(node) {
        match part.kind_str() {
            "class_heritage" => heritage(b, idx, part),
            "type_parameters" | "decorator" => expr(b, part),
            _ => {}
        }
    }
    if let Some(body) = node.field("body") {
        b.within(idx, |b| class_body(b, body, exported));
    }
}

fn heritage(b: &mut Builder, class: u32, node: Node) {
    for clause in named_children(node) {
        let kind =
            if clause.kind_str() == "implements_clause" { TypeRelKind::Implements } else { TypeRelKind::Extends };
        if clause.kind_str() != "extends_clause" && clause.kind_str() != "implements_clause" {
            // The JavaScript grammar puts the superclass expression directly under class_heritage.
            relation_to(b, class, clause, TypeRelKind::Extends);
            continue;
        }
        for target in named_children(clause) {
            relation_to(b, class, target, kind);
        }
    }
}

fn relation_to(b: &mut Builder, class: u32, target: Node, kind: TypeRelKind) {
    let base = if target.kind_str() == "generic_type" { target.field("name").unwrap_or(target) } else { target };
    if let Some(segs) = chain(b, base).or_else(|| type_segments(b, base)) {
        let pos = segs.last().map(|s| s.1).unwrap_or_default();
        b.add_relation(class, kind, texts(segs), pos);
    }
    expr(b, target);
}

fn class_body(b: &mut Builder, body: Node, exported: bool) {
    for member in named_children(body) {
        let private = member_is_private(b, member);
        let member_exported = exported && !private;
        match member.kind_str() {
            "method_definition" | "method_signature" | "abstract_method_signature" => {
                let name = member.field("name");
                function(b, member, name, SymbolKind::Method, member_exported);
            }
            "public_field_definition" | "property_signature" | "field_definition" => {
                let Some(name) = member.field("name").or_else(|| member.field("property")) else {
                    continue;
                };
                let value = member.field("value");
                if let Some(value) = value.filter(|v| matches!(v.kind_str(), "arrow_function" | "function_expression"))
                {
                    let idx = b.add_symbol(member, name, SymbolKind::Method, member_exported);
                    b.within(idx, |b| function_body(b, value));
                    continue;
                }
                let idx = b.add_symbol(member, name, SymbolKind::Field, member_exported);
                let ty = member.field("type");
                let declared = ty.and_then(|t| type_path(b, t)).or_else(|| value.and_then(|v| constructed_type(b, v)));
                b.symbol_mut(idx).returns = declared;
                if let Some(ty) = ty {
                    expr(b, ty);
                }
                if let Some(value) = value {
                    b.within(idx, |b| initialiser(b, value, ty));
                }
            }
            "decorator" => expr(b, member),
            _ => expr(b, member),
        }
    }
}

fn member_is_private(b: &Builder, member: Node) -> bool {
    let name_private = member.field("name").is_some_and(|n| n.kind_str() == "private_property_identifier");
    name_private
        || named_children(member).iter().any(|c| c.kind_str() == "accessibility_modifier" && b.text(*c) != "public")
}

fn interface(b: &mut Builder, node: Node, exported: bool) {
    let Some(name) = node.field("name") else { return };
    let idx = b.add_symbol(node, name, SymbolKind::Interface, exported);
    for part in named_children(node) {
        if part.kind_str() == "extends_type_clause" {
            for target in named_children(part) {
                relation_to(b, idx, target, TypeRelKind::Extends);
            }
        }
    }
    if let Some(body) = node.field("body") {
        b.within(idx, |b| class_body(b, body, exported));
    }
}

/// How TypeScript and JavaScript write chains: `a.b.c`, `this.x`, `A.B` (types), `a.b().c()`.
const CHAIN: ChainSyntax = ChainSyntax {
    names: &["identifier", "this", "super", "type_identifier", "property_identifier", "private_property_identifier"],
    members: &[
        Member { kind: "member_expression", object: &["object"], name: &["property"], rooted: false, path: false },
        Member { kind: "nested_type_identifier", object: &["module"], name: &["name"], rooted: false, path: false },
        Member {
            kind: "nested_identifier",
            object: &["object", "module"],
            name: &["property", "name"],
            rooted: false,
            path: false,
        },
    ],
    member_calls: &[],
    silent_names: &[],
    calls: &["call_expression"],
    operators: &[("subscript_expression", SEQUENCE)],
    slices: &[],
    through: &[("non_null_expression", None), ("parenthesized_expression", None)],
    extras: &[],
    typed_head: Some(head_type),
    arguments: Some(call_arguments),
    closure: Some(arrow_argument),
};

/// A call's one argument when it is an arrow function of one parameter bound to a name that gives
/// an expression (`h => h.item`, `(h: Holder) => h.item()`): the function, the name, the expression.
fn arrow_argument<'t>(_: &Builder, call: Node<'t>) -> Option<(Node<'t>, Node<'t>, Node<'t>)> {
    let args = call.field("arguments")?;
    let arrow = args.named_child(0).filter(|a| args.named_child_count() == 1 && a.kind_str() == "arrow_function")?;
    let name = if let Some(p) = arrow.field("parameter") {
        p
    } else {
        let params = arrow.field("parameters")?;
        let param = params.named_child(0).filter(|_| params.named_child_count() == 1)?;
        match param.kind_str() {
            "identifier" => param,
            "required_parameter" => param.field("pattern")?,
            _ => return None,
        }
    };
    let body = arrow.field("body").filter(|b| b.kind_str() != "statement_block")?;
    (name.kind_str() == "identifier").then_some((arrow, name, body))
}

/// A value of the type a cast declares (`x as T`, `x satisfies T`, `<T>x`) or of the class a
/// `new` constructs.
fn head_type(b: &Builder, node: Node) -> Option<LocalOrigin> {
    let path = match node.kind_str() {
        "as_expression" | "satisfies_expression" => type_path(b, *named_children(node).get(1)?),
        "new_expression" => chain(b, node.field("constructor")?).map(|p| p.into_iter().map(|s| s.0).collect()),
        "type_assertion" => {
            let ty = node.named_child(0)?;
            type_path(b, if ty.kind_str() == "type_arguments" { ty.named_child(0)? } else { ty })
        }
        _ => None,
    };
    path.map(LocalOrigin::Declared)
}

/// The segments of a pure name chain: `a`, `this`, `a.b.c`, `A.B` (types). None when any part is
/// not a name.
fn chain(b: &Builder, node: Node) -> Option<Vec<Segment>> {
    CHAIN.names(b, node)
}

fn type_segments(b: &Builder, node: Node) -> Option<Vec<Segment>> {
    match node.kind_str() {
        "generic_type" => chain(b, node.field("name")?),
        _ => chain(b, node),
    }
}

fn texts(segs: Vec<Segment>) -> Vec<String> {
    segs.into_iter().map(|s| s.0).collect()
}

/// Generic types whose members are their first argument's (a promise's value, `Readonly<T>`;
/// `Omit<T, K>` and `Pick<T, K>` have some of T's, and a name they leave out doesn't type-check).
const TRANSPARENT_GENERICS: [&str; 8] =
    ["Promise", "PromiseLike", "Readonly", "Partial", "Required", "NonNullable", "Omit", "Pick"];

/// Generic types of sequences: their elements are the first argument.
const SEQUENCE_GENERICS: [&str; 4] = ["Array", "ReadonlyArray", "Set", "ReadonlySet"];

/// The type a type annotation names, as a path: `: Circle`, `: geo.Circle`, `: Promise<Circle>`
/// (a promise's value type), `: Circle[]` and `: Circle | null` (the one named type).
fn type_path(b: &Builder, node: Node) -> Option<Vec<String>> {
    type_path_within(b, node, 0)
}

fn type_path_within(b: &Builder, node: Node, depth: usize) -> Option<Vec<String>> {
    if depth > MAX_TYPE_NESTING {
        return None;
    }
    let inner = |n: Node| type_path_within(b, n, depth + 1);
    match node.kind_str() {
        "type_annotation" | "parenthesized_type" => inner(node.named_child(0)?),
        "type_identifier" | "nested_type_identifier" => chain(b, node).map(texts),
        "generic_type" => {
            let name = chain(b, node.field("name")?).map(texts)?;
            let first_arg = || node.field("type_arguments")?.named_child(0);
            if matches!(name.as_slice(), [one] if TRANSPARENT_GENERICS.contains(&one.as_str())) {
                return inner(first_arg()?);
            }
            if matches!(name.as_slice(), [one] if SEQUENCE_GENERICS.contains(&one.as_str())) {
                return Some(marked(SEQUENCE, inner(first_arg()?)?));
            }
            Some(name)
        }
        // `T[]`: a sequence of `T` (its elements reached through `for … of`, `[i]`, `find`, callbacks).
        "array_type" => Some(marked(SEQUENCE, inner(node.named_child(0)?)?)),
        // `A | B | undefined`: a value of one of the named types (members of each); the parts of
        // no named type (`undefined`, `string`, a function type) are what a narrowing leaves out
        // before a member is used.
        // `A & { closed: true }`: a value of every part; its members are those of the named parts.
        "union_type" | "intersection_type" => union_path(named_children(node).into_iter().filter_map(inner).collect()),
        // `{ window: Subject<T>; subs: Subscription }`: its properties' types.
        "object_type" => Some(record_path(
            named_children(node)
                .into_iter()
                .filter(|p| p.kind_str() == "property_signature")
                .filter_map(|p| {
                    let name = p.field("name").filter(|n| n.kind_str() == "property_identifier")?;
                    let ty = p.field("type").and_then(|t| t.named_child(0)).and_then(inner).unwrap_or_default();
                    Some((b.text(name).to_string(), ty))
                })
                .collect(),
        )),
        "function_type" | "constructor_type" => Some(vec![IN_PLACE.to_string()]),
        _ => None,
    }
}

/// What a function returns: its declared return type, else a type written in place when every
/// value it returns is an object literal (`return { animate, delegate };`, `() => ({ a })`).
fn return_type(b: &Builder, func: Node) -> Option<Vec<String>> {
    if let Some(ret) = func.field("return_type") {
        return type_path(b, ret);
    }
    let object = |n: Option<Node>| {
        let n = match n {
            Some(p) if p.kind_str() == "parenthesized_expression" => p.named_child(0),
            n => n,
        };
        n.is_some_and(|n| n.kind_str() == "object")
    };
    let body = func.field("body")?;
    if body.kind_str() != "statement_block" {
        return object(Some(body)).then(|| vec![IN_PLACE.to_string()]);
    }
    // The `return`s of the body, not of the functions and classes inside it.
    let mut returns = 0;
    let mut pending = vec![body];
    while let Some(n) = pending.pop() {
        match n.kind_str() {
            "return_statement" if !object(n.named_child(0)) => return None,
            "return_statement" => returns += 1,
            "arrow_function"
            | "function_expression"
            | "function"
            | "function_declaration"
            | "generator_function"
            | "generator_function_declaration"
            | "class"
            | "class_declaration"
            | "method_definition" => {}
            _ if pending.len() > MAX_TYPE_NESTING * 64 => return None,
            _ => pending.extend(named_children(n)),
        }
    }
    (returns > 0).then(|| vec![IN_PLACE.to_string()])
}

/// Walks an expression (or any node that is not a declaration), recording references.
fn expr(b: &mut Builder, node: Node) {
    if !b.descend() {
        return;
    }
    match node.kind_str() {
        "identifier" | "type_identifier" | "this" | "super" | "shorthand_property_identifier" => {
            b.add_ref(vec![b.seg(node)], false, false);
        }
        "member_expression" | "nested_type_identifier" => reference(b, node, false),
        "call_expression" => {
            if let Some(func) = node.field("function") {
                if require_call(b, node).is_some() {
                    // A bare `require("x")` outside a declaration is still a dependency.
                    let module = require_call(b, node).expect("checked");
                    b.add_import(module, ImportKind::SideEffect, Vec::new(), b.pos(node), false);
                } else if matches!(func.kind_str(), "identifier" | "member_expression") {
                    reference(b, func, true);
                } else {
                    expr(b, func);
                }
            }
            if let Some(args) = node.field("type_arguments") {
                expr(b, args);
            }
            // (The arguments of the calls inside a chain are walked by the chain driver, with
            // the same function.)
            if let Some(args) = node.field("arguments") {
                call_arguments(b, node, args);
            }
        }
        "new_expression" => {
            if let Some(ctor) = node.field("constructor") {
                reference(b, ctor, true);
            }
            if let Some(args) = node.field("arguments") {
                arguments(b, args, node.field("constructor"), true);
            }
        }
        "arrow_function" | "function_expression" | "function" | "generator_function" => function_body(b, node),
        "class" => class(b, node, false),
        "function_declaration"
        | "generator_function_declaration"
        | "class_declaration"
        | "lexical_declaration"
        | "variable_declaration"
        | "import_statement"
        | "export_statement"
        | "interface_declaration"
        | "type_alias_declaration"
        | "enum_declaration" => statement(b, node, false),
        "for_in_statement" => {
            // `for (const x of xs)`: an element of `xs`; `for (k in o)`: a key (a string).
            let of = node.field("operator").is_some_and(|o| b.text(o) == "of");
            let origin = match node.field("right").map(|r| local_origin(b, None, Some(r))) {
                Some(LocalOrigin::Unknown) | None => LocalOrigin::Unknown,
                Some(o) if of => LocalOrigin::Element(Box::new(o)),
                Some(_) => LocalOrigin::Unknown,
            };
            if let Some(left) = node.field("left") {
                bind_pattern(b, left, origin);
            }
            for field in ["right", "body"] {
                if let Some(part) = node.field(field) {
                    expr(b, part);
                }
            }
        }
        "catch_clause" => {
            if let Some(param) = node.field("parameter") {
                bind_pattern(b, param, LocalOrigin::Unknown);
            }
            if let Some(body) = node.field("body") {
                expr(b, body);
            }
        }
        "object" => object_literal(b, node, None),
        // `x = { … }`, `this.options = { … }`: the keys are members of what the target holds.
        "assignment_expression"
            if node.field("right").is_some_and(|r| r.kind_str() == "object")
                && node.field("left").is_some_and(|l| matches!(l.kind_str(), "identifier" | "member_expression")) =>
        {
            let (left, right) = (node.field("left").expect("checked"), node.field("right").expect("checked"));
            expr(b, left);
            match chain(b, left) {
                Some(target) => {
                    let origin = LocalOrigin::CallChain(texts(target), Vec::new());
                    object_literal(b, right, Some(Receiver { base: ReceiverBase::Value(origin), members: Vec::new() }));
                }
                None => expr(b, right),
            }
        }
        "return_statement" => {
            // `return { … }` from a function with a declared return type: the keys are its members.
            let declared = b.enclosing().and_then(|f| b.facts.symbols[f as usize].returns.clone());
            for child in named_children(node) {
                match (&declared, child.kind_str()) {
                    (Some(ty), "object") => object_literal(b, child, Some(declared_receiver(ty.clone()))),
                    _ => expr(b, child),
                }
            }
        }
        "as_expression" | "satisfies_expression" => {
            // `{ … } as T`, `{ … } satisfies T`.
            let parts = named_children(node);
            let ty = parts.get(1).and_then(|t| type_path(b, *t));
            for (i, part) in parts.into_iter().enumerate() {
                match (&ty, i, part.kind_str()) {
                    (Some(ty), 0, "object") => object_literal(b, part, Some(declared_receiver(ty.clone()))),
                    _ => expr(b, part),
                }
            }
        }
        "jsx_opening_element" | "jsx_self_closing_element" => {
            if let Some(name) = node.field("name") {
                // Lower-case tags are intrinsic elements (`div`), not components.
                if b.text(name).chars().next().is_some_and(char::is_uppercase) {
                    reference(b, name, false);
                }
            }
            for attr in named_children(node).into_iter().filter(|c| c.kind_str() == "jsx_attribute") {
                for value in named_children(attr).into_iter().skip(1) {
                    expr(b, value);
                }
            }
        }
        "jsx_closing_element"
        | "string"
        | "template_string"
        | "comment"
        | "regex"
        | "number"
        | "property_identifier"
        | "predefined_type"
        | "literal_type"
        | "statement_identifier" => {
            if node.kind_str() == "template_string" {
                for sub in named_children(node).into_iter().filter(|c| c.kind_str() == "template_substitution") {
                    expr(b, sub);
                }
            }
        }
        "statement_block" => block(b, node),
        _ => walk_children(b, node),
    }
    b.ascend();
}

/// A name, member chain or type reference (see `extract::reference`).
fn reference(b: &mut Builder, node: Node, call: bool) {
    super::reference(b, node, call, &CHAIN, expr);
}

fn walk_children(b: &mut Builder, node: Node) {
    for child in named_children(node) {
        expr(b, child);
    }
}

fn walk_children_except(b: &mut Builder, node: Node, skip: Node) {
    for child in named_children(node) {
        if child.id() != skip.id() {
            expr(b, child);
        }
    }
}

/// The contents of a string literal node.
fn string_value(b: &Builder, node: Node) -> String {
    unquote(b.text(node))
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`').to_string()
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::*;
    use crate::lang::Language;

    fn names(facts: &FileFacts) -> Vec<(String, SymbolKind, Option<u32>, bool)> {
        facts.symbols.iter().map(|s| (s.name.clone(), s.kind, s.container, s.exported)).collect()
    }

    #[test]
    fn classes_methods_and_exports() {
        let src = "import { a as b } from './x';\nexport class C extends B implements I {\n  m(): void { this.n(); b(); }\n  private n() {}\n}\nfunction f() {}\nexport { f };\n";
        let facts = extract(Language::TypeScript, src);
        assert_eq!(
            names(&facts),
            vec![
                ("C".into(), SymbolKind::Class, None, true),
                ("m".into(), SymbolKind::Method, Some(0), true),
                ("n".into(), SymbolKind::Method, Some(0), false),
                ("f".into(), SymbolKind::Function, None, true),
            ]
        );
        assert_eq!(facts.imports[0].items[0].name, "a");
        assert_eq!(facts.imports[0].items[0].alias, "b");
        let calls: Vec<Vec<String>> =
            facts.refs.iter().filter(|r| r.call).map(|r| r.segments.iter().map(|s| s.0.clone()).collect()).collect();
        assert_eq!(calls, vec![vec!["this".to_string(), "n".into()], vec!["b".into()]]);
        assert_eq!(facts.relations.len(), 2);
        assert_eq!(facts.relations[1].kind, TypeRelKind::Implements);
    }

    #[test]
    fn locals_know_constructed_types() {
        let src = "function g() { const c = new Circle(2); c.area(); }";
        let facts = extract(Language::TypeScript, src);
        assert_eq!(facts.locals[0].origin, LocalOrigin::Constructed(vec!["Circle".into()]));
        let area = facts.refs.iter().find(|r| r.segments.len() == 2).expect("c.area");
        assert_eq!(area.segments[1].1, Pos { line: 1, col: 43 });
        assert!(area.call);
    }

    #[test]
    fn opaque_heads_keep_their_tail() {
        let facts = extract(Language::JavaScript, "(a + b).g.h();");
        let tail = facts.refs.iter().find(|r| r.opaque_head).expect("tail");
        assert_eq!(tail.segments.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(), vec!["g", "h"]);
    }

    #[test]
    fn chains_go_on_through_calls() {
        let facts = extract(Language::JavaScript, "f(x).g.h(y);");
        let chain = facts.refs.iter().find(|r| r.segments.len() == 3).expect("f().g.h()");
        assert_eq!(chain.segments.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(), vec!["f", "g", "h"]);
        assert_eq!(chain.calls_at, vec![0]);
        assert!(chain.call && !chain.opaque_head);
        // The arguments of the inner call are walked too.
        assert!(facts.refs.iter().any(|r| r.segments[0].0 == "x"));
    }
}
