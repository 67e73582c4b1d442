//! Extraction for Rust: items (fns, structs, enums, traits, impls, consts, statics, type aliases,
//! macros), inline and file modules (`mod x;`), `use` trees, paths, method calls and local bindings.
//! Items written inside macro invocations (`cfg_rt! { pub fn spawn_blocking … }`, as tokio does) are
//! parsed as items: tree-sitter leaves such bodies as token trees, so they are re-parsed in place.

use super::{Field, Kind};
use std::ops::ControlFlow;
use tree_sitter::{Node, Parser, Range};

use super::{named_children, Builder, ChainSyntax, Member, Segment, MAX_TYPE_NESTING};
use crate::facts::{
    is_pointer, map_path, marked, tuple_path, ImportItem, ImportKind, Init, Invocation, LocalBinding, LocalOrigin,
    MacroArgument, MacroRule, MacroRules, ModDecl, Param, Pos, Receiver, ReceiverBase, SymbolKind, TypeRelKind,
    TypeRelation, CELL, CONVERTIBLE, IMPLEMENTORS, MAP, MAYBE, MUT_POINTER, PARAM, POINTER, SEQUENCE,
};
use crate::lang::Language;

pub(crate) fn extract(b: &mut Builder, root: Node) {
    items(b, root);
    invocations(b, root);
}

/// The items of a source file, inline module body, impl or trait body.
fn items(b: &mut Builder, node: Node) {
    // `#[cfg(…)]` before an item: whether the configuration the index reads leaves it out.
    let mut left_out = false;
    for child in named_children(node) {
        if child.kind_str() == "attribute_item" {
            left_out |= cfg_predicate(b.text(child)) == Some(false);
            continue;
        }
        if !matches!(child.kind_str(), "line_comment" | "block_comment") {
            b.configured(left_out, |b| item(b, child));
            left_out = false;
        }
    }
}

/// The build configuration `cfg` predicates are evaluated against: x86-64 Linux with glibc (what
/// rust-analyzer reads on the most common host). Keys it doesn't fix (`feature`, `test`, a crate's
/// own cfgs) are unknown, and unknown never leaves code out.
const CFG: [(&str, &str); 8] = [
    ("target_family", "unix"),
    ("target_os", "linux"),
    ("target_arch", "x86_64"),
    ("target_env", "gnu"),
    ("target_pointer_width", "64"),
    ("target_endian", "little"),
    ("target_vendor", "unknown"),
    ("panic", "unwind"),
];

/// The value of an attribute `#[cfg(predicate)]` (or of a `cfg_if!` condition's `[cfg(…)]`) under
/// `CFG`; `None` for another attribute or an unknown predicate.
fn cfg_predicate(attribute: &str) -> Option<bool> {
    cfg_value(&mut attribute_arguments(attribute, "cfg")?.trim())
}

/// What the parentheses of attribute `#[name(…)]` hold; `None` for another attribute.
fn attribute_arguments<'t>(attribute: &'t str, name: &str) -> Option<&'t str> {
    let text = attribute.trim().trim_start_matches('#').trim_start();
    let inner = text.strip_prefix('[')?.strip_suffix(']')?.trim();
    inner.strip_prefix(name)?.trim_start().strip_prefix('(')?.strip_suffix(')')
}

/// Evaluates the predicate at the start of `text` (`unix`, `target_os = "linux"`, `any(…)`,
/// `all(…)`, `not(…)`), consuming it.
fn cfg_value(text: &mut &str) -> Option<bool> {
    let rest = text.trim_start();
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
    let (word, after) = rest.split_at(end);
    *text = after.trim_start();
    if word.is_empty() {
        *text = "";
        return None;
    }
    if matches!(word, "any" | "all" | "not") && text.starts_with('(') {
        *text = &text[1..];
        let mut values = Vec::new();
        loop {
            *text = text.trim_start();
            if let Some(after) = text.strip_prefix(')') {
                *text = after;
                break;
            }
            if text.is_empty() {
                return None;
            }
            values.push(cfg_value(text));
            *text = text.trim_start();
            if let Some(after) = text.strip_prefix(',') {
                *text = after;
            }
        }
        return match word {
            "not" => values.first().copied().flatten().map(|v| !v),
            "any" if values.contains(&Some(true)) => Some(true),
            "any" if values.iter().all(|v| *v == Some(false)) => Some(false),
            "all" if values.contains(&Some(false)) => Some(false),
            "all" if values.iter().all(|v| *v == Some(true)) => Some(true),
            _ => None,
        };
    }
    if let Some(after) = text.strip_prefix('=') {
        let after = after.trim_start().strip_prefix('"')?;
        let close = after.find('"')?;
        let value = &after[..close];
        *text = &after[close + 1..];
        let fixed = CFG.iter().any(|(k, _)| *k == word);
        return fixed.then(|| CFG.contains(&(word, value)));
    }
    // `unix`, `windows`: a target family.
    matches!(word, "unix" | "windows").then(|| CFG.contains(&("target_family", word)))
}

/// The types of a tuple struct's or variant's fields, in order (one `Param` each).
fn tuple_fields(b: &Builder, list: Node, params: &[&str]) -> Vec<Param> {
    named_children(list)
        .into_iter()
        .filter(|f| {
            !matches!(f.kind_str(), "attribute_item" | "visibility_modifier" | "line_comment" | "block_comment")
        })
        .map(|t| Param { ty: field_type(b, t, params), callback: Vec::new() })
        .collect()
}

/// The names of an item's type parameters (`struct Pre<P>`: `P`).
fn type_parameter_names<'s>(b: &Builder<'s>, item: Node) -> Vec<&'s str> {
    let Some(list) = item.field("type_parameters") else { return Vec::new() };
    let names = named_children(list).into_iter().filter(|p| p.kind_str() == "type_parameter");
    names.filter_map(|p| p.field("name").or_else(|| p.named_child(0))).map(|n| b.text(n)).collect()
}

/// A field's type path, where one of its type's parameters `params` (itself, or behind wrappers:
/// `Option<P>`, `&P`) is marked `PARAM`.
fn field_type(b: &Builder, t: Node, params: &[&str]) -> Option<Vec<String>> {
    let mut path = type_path(b, t)?;
    let wrappers = path.iter().take_while(|s| [MAYBE, SEQUENCE, CELL].contains(&s.as_str()) || is_pointer(s)).count();
    if let [name] = &path[wrappers..] {
        if params.contains(&name.as_str()) {
            path.insert(wrappers, PARAM.to_string());
        }
    }
    Some(path)
}

/// Whether an item is `pub` (its visibility, when written, is its first part).
fn is_pub(node: Node) -> bool {
    node.named_child(0).is_some_and(|c| c.kind_str() == "visibility_modifier")
}

fn item(b: &mut Builder, node: Node) {
    if !b.descend() {
        return;
    }
    let exported = is_pub(node);
    match node.kind_str() {
        "function_item" | "function_signature_item" => function(b, node, exported, &[]),
        "struct_item" | "union_item" => {
            if let Some(name) = node.field("name") {
                let idx = b.add_symbol(node, name, SymbolKind::Struct, exported);
                let params = type_parameter_names(b, node);
                b.within(idx, |b| {
                    for child in named_children(node) {
                        match child.kind_str() {
                            "field_declaration_list" => struct_fields(b, child, None, &params),
                            // `struct Locations(captures::Captures);`: `self.0` is of the first type.
                            "ordered_field_declaration_list" => {
                                b.symbol_mut(idx).params = tuple_fields(b, child, &params);
                                ty(b, child);
                            }
                            "type_parameters" | "where_clause" => ty(b, child),
                            _ => {}
                        }
                    }
                });
            }
        }
        "enum_item" => {
            if let Some(name) = node.field("name") {
                let idx = b.add_symbol(node, name, SymbolKind::Enum, exported);
                let params = type_parameter_names(b, node);
                if let Some(body) = node.field("body") {
                    b.within(idx, |b| {
                        for variant in named_children(body).into_iter().filter(|v| v.kind_str() == "enum_variant") {
                            let body = variant.field("body");
                            let v = variant.field("name").map(|vname| {
                                let v = b.add_symbol(variant, vname, SymbolKind::Constant, exported);
                                // A tuple variant's field types, for the bindings of `Variant(x)`.
                                if let Some(fields) = body.filter(|f| f.kind_str() == "ordered_field_declaration_list")
                                {
                                    b.symbol_mut(v).params = tuple_fields(b, fields, &params);
                                }
                                v
                            });
                            match (v, body) {
                                // A struct variant's fields are members of the variant, as public
                                // as the enum (`GroupKind::CaptureName { name, .. }` binds one).
                                (Some(v), Some(fields)) if fields.kind_str() == "field_declaration_list" => {
                                    b.within(v, |b| struct_fields(b, fields, Some(exported), &params));
                                }
                                (_, Some(body)) => ty(b, body),
                                (_, None) => {}
                            }
                        }
                    });
                }
            }
        }
        "trait_item" => {
            if let Some(name) = node.field("name") {
                let idx = b.add_symbol(node, name, SymbolKind::Trait, exported);
                b.within(idx, |b| generics(b, node));
                if let Some(bounds) = node.field("bounds") {
                    for bound in named_children(bounds) {
                        if let Some(segs) = type_chain(b, bound) {
                            let pos = segs.last().map(|s| s.1).unwrap_or_default();
                            b.add_relation(idx, TypeRelKind::Extends, segs.into_iter().map(|s| s.0).collect(), pos);
                        }
                        ty(b, bound);
                    }
                }
                if let Some(body) = node.field("body") {
                    let owner = Owner { bounds: type_param_bounds(b, node), impl_of: None, impl_trait: None };
                    b.within(idx, |b| {
                        for child in named_children(body) {
                            // Trait members are as public as the trait.
                            member(b, child, exported, &owner);
                        }
                    });
                }
            }
        }
        "impl_item" => impl_item(b, node),
        "mod_item" => {
            let Some(name) = node.field("name") else { return b.ascend() };
            if let Some(body) = node.field("body") {
                let idx = b.add_symbol(node, name, SymbolKind::Module, exported);
                b.within(idx, |b| items(b, body));
            } else {
                let path_attr = path_attribute(b, node);
                let decl = ModDecl {
                    name: b.text(name).to_string(),
                    pos: b.pos(name),
                    scope: b.enclosing(),
                    path_attr,
                    template: None,
                };
                b.facts.mods.push(decl);
            }
        }
        "use_declaration" => {
            if let Some(arg) = node.field("argument") {
                let mut uses = Vec::new();
                use_tree(b, arg, Vec::new(), &mut uses, 0);
                let pos = b.pos(node);
                for u in uses {
                    let (module, kind, items) = match u {
                        UseItem::Glob(path, written) => {
                            // `use self::ClassAsciiKind::*;` names the enum: a use of it. `self::`
                            // is the module the name is looked up in anyway (in a method, a
                            // leading `self` would be read as its receiver).
                            let segs =
                                written.map(|s| s.into_iter().skip_while(|(n, _)| n == "self").collect::<Vec<_>>());
                            if let Some(segs) = segs.filter(|s| !s.is_empty()) {
                                b.add_path(segs, false);
                            }
                            (path.join("::"), ImportKind::Glob, Vec::new())
                        }
                        UseItem::Name(mut path, alias, pos) => {
                            let name = path.pop().unwrap_or_default();
                            let alias = alias.unwrap_or_else(|| name.clone());
                            (path.join("::"), ImportKind::Named, vec![ImportItem { name, alias, pos }])
                        }
                    };
                    b.add_import(module, kind, items, pos, exported);
                }
            }
        }
        "const_item" | "static_item" => {
            if let Some(name) = node.field("name") {
                let kind = if node.kind_str() == "const_item" { SymbolKind::Constant } else { SymbolKind::Variable };
                let idx = b.add_symbol(node, name, kind, exported);
                if let Some(t) = node.field("type") {
                    b.symbol_mut(idx).returns = type_path(b, t);
                    ty(b, t);
                }
                if let Some(value) = node.field("value") {
                    b.within(idx, |b| expr(b, value));
                }
            }
        }
        "type_item" => {
            if let Some(name) = node.field("name") {
                let idx = b.add_symbol(node, name, SymbolKind::Type, exported);
                if let Some(t) = node.field("type") {
                    b.within(idx, |b| ty(b, t));
                    // `type OwnedDFA = DFA<Vec<u32>>;`: the type it names, whose members it has.
                    b.symbol_mut(idx).returns = type_path(b, t);
                }
            }
        }
        "macro_definition" => {
            let mut symbol = None;
            if let Some(name) = node.field("name") {
                let exported = b.text(node).contains("macro_export") || has_macro_export(b, node);
                let idx = b.add_symbol(node, name, SymbolKind::Macro, exported);
                if let Some(origin) = macro_result(b, node) {
                    let scope = b.enclosing();
                    b.symbol_mut(idx).init = Some(Box::new(Init { origin, scope }));
                }
                let rules = named_children(node).into_iter().filter(|r| r.kind_str() == "macro_rule");
                let rules = rules.filter_map(|r| r.field("left")).map(|l| macro_rule(b.text(l))).collect();
                b.facts.macro_rules.push(MacroRules { symbol: idx, rules });
                symbol = Some(idx);
            }
            b.in_inner_trees(|b| macro_templates(b, node, symbol));
        }
        "macro_invocation" => macro_invocation(b, node, true),
        // `extern "C" { pub fn close(fd: c_int) -> c_int; pub static environ: … }`: declarations of
        // the items another library defines, which the crate names like its own.
        "foreign_mod_item" => {
            if let Some(body) = node.field("body") {
                items(b, body);
            }
        }
        // `crate_root!();` where items go writes an argument-less template's items; other
        // `m!(…);` are read as expressions.
        "expression_statement" => named_children(node).into_iter().for_each(|c| {
            let empty = c.kind_str() == "macro_invocation"
                && named_children(c).into_iter().any(|t| t.kind_str() == "token_tree" && t.named_child_count() == 0);
            if empty {
                macro_invocation(b, c, true);
            } else {
                expr(b, c);
            }
        }),
        "attribute_item" | "inner_attribute_item" | "line_comment" | "block_comment" | "extern_crate_declaration" => {}
        _ => expr(b, node),
    }
    b.ascend();
}

fn has_macro_export(b: &Builder, node: Node) -> bool {
    let mut prev = node.prev_named_sibling();
    while let Some(p) = prev.filter(|p| p.kind_str() == "attribute_item") {
        if b.text(p).contains("macro_export") {
            return true;
        }
        prev = p.prev_named_sibling();
    }
    false
}

/// `#[path = "x.rs"] mod m;`, or `#[cfg_attr(unix, path = "x.rs")]` where the build configuration
/// (`CFG`) holds its predicate.
fn path_attribute(b: &Builder, node: Node) -> Option<String> {
    let mut prev = node.prev_named_sibling();
    let mut configured = None;
    while let Some(p) = prev.filter(|p| p.kind_str() == "attribute_item") {
        let text = b.text(p);
        if let Some(rest) = text.strip_prefix("#[path") {
            let value = rest.split('"').nth(1)?;
            return Some(value.to_string());
        }
        configured = configured.or_else(|| configured_path(text));
        prev = p.prev_named_sibling();
    }
    configured
}

/// The path of `#[cfg_attr(predicate, path = "x.rs")]` when the predicate holds.
fn configured_path(attribute: &str) -> Option<String> {
    let mut rest = attribute_arguments(attribute, "cfg_attr")?;
    if cfg_value(&mut rest) != Some(true) {
        return None;
    }
    let value =
        rest.trim_start().strip_prefix(',')?.trim_start().strip_prefix("path")?.trim_start().strip_prefix('=')?;
    Some(value.split('"').nth(1)?.to_string())
}

/// The named fields of a struct (each as public as it says) or of an enum's struct variant
/// (`exported`: as public as the enum).
fn struct_fields(b: &mut Builder, list: Node, exported: Option<bool>, params: &[&str]) {
    for field in named_children(list).into_iter().filter(|f| f.kind_str() == "field_declaration") {
        if let Some(name) = field.field("name") {
            let idx = b.add_symbol(field, name, SymbolKind::Field, exported.unwrap_or_else(|| is_pub(field)));
            if let Some(t) = field.field("type") {
                b.symbol_mut(idx).returns = field_type(b, t, params);
                ty(b, t);
            }
        }
    }
}

fn impl_item(b: &mut Builder, node: Node) {
    let Some(self_ty) = node.field("type") else { return };
    let self_path = type_path(b, self_ty);
    let trait_path = node.field("trait").and_then(|t| type_path(b, t));
    let bounds = type_param_bounds(b, node);
    generics(b, node);
    ty(b, self_ty);
    if let Some(t) = node.field("trait") {
        ty(b, t);
        // `impl<S: AsyncSeek> AsyncSeekExt for S`: for every type that implements the bound.
        let blanket = match self_path.as_deref() {
            Some([param]) => bound_of(&bounds, param).map(|bound| marked(IMPLEMENTORS, bound.clone())),
            _ => None,
        };
        if let (Some(subject), Some(target)) = (blanket.or_else(|| self_path.clone()), trait_path.clone()) {
            let pos = type_chain(b, t).and_then(|s| s.last().map(|s| s.1)).unwrap_or_default();
            b.facts.relations.push(TypeRelation {
                symbol: 0,
                subject: Some(subject),
                kind: TypeRelKind::Implements,
                target,
                pos,
            });
        }
    }
    if let Some(body) = node.field("body") {
        let owner = Owner { bounds, impl_of: self_path, impl_trait: trait_path };
        for child in named_children(body) {
            member(b, child, false, &owner);
        }
    }
}

/// The impl or trait an item is written in.
struct Owner {
    /// The trait bounds of its type parameters (`impl<R: AsyncRead> BufReader<R>`), which its
    /// methods see too.
    bounds: Vec<(String, Vec<String>)>,
    /// The type an impl is for; None in a trait.
    impl_of: Option<Vec<String>>,
    /// The trait an impl implements.
    impl_trait: Option<Vec<String>>,
}

/// An item inside an impl or trait body.
fn member(b: &mut Builder, node: Node, exported: bool, owner: &Owner) {
    let before = b.facts.symbols.len();
    match node.kind_str() {
        "function_item" | "function_signature_item" => {
            // Trait impl members are as public as the trait; inherent ones as their `pub`.
            let exported = exported || is_pub(node) || owner.impl_trait.is_some();
            function(b, node, exported, &owner.bounds);
            if let Some(sym) = b.facts.symbols.get_mut(before) {
                sym.kind = SymbolKind::Method;
            }
        }
        "const_item" | "type_item" | "associated_type" => {
            if let Some(name) = node.field("name") {
                let kind = if node.kind_str() == "const_item" { SymbolKind::Constant } else { SymbolKind::Type };
                let idx = b.add_symbol(node, name, kind, exported || is_pub(node));
                if let Some(value) = node.field("value").or_else(|| node.field("type")) {
                    b.within(idx, |b| expr(b, value));
                }
                // An associated type names its type (`type Target = Inner;`: what `Deref` gives).
                if kind == SymbolKind::Type {
                    let aliased = node.field("type").and_then(|t| type_path(b, t));
                    if let Some(sym) = b.facts.symbols.get_mut(idx as usize) {
                        sym.returns = aliased;
                    }
                }
            }
        }
        "macro_invocation" => macro_invocation(b, node, true),
        _ => item(b, node),
    }
    // A symbol made above; impl members belong to the impl's type, not to the module. The trait
    // is kept even when the type is one the index can't name (`impl U16 for u16`).
    if let Some(sym) = b.facts.symbols.get_mut(before).filter(|_| owner.impl_of.is_some() || owner.impl_trait.is_some())
    {
        sym.impl_of.clone_from(&owner.impl_of);
        sym.impl_trait.clone_from(&owner.impl_trait);
    }
}

/// A function; a method also sees its impl's or trait's type parameters (`owner_bounds`), shadowed
/// by its own.
fn function(b: &mut Builder, node: Node, exported: bool, owner_bounds: &[(String, Vec<String>)]) {
    let Some(name) = node.field("name") else { return };
    let idx = b.add_symbol(node, name, SymbolKind::Function, exported);
    let mut bounds = type_param_bounds(b, node);
    bounds.extend_from_slice(owner_bounds);
    if let Some(ret) = node.field("return_type") {
        b.symbol_mut(idx).returns = bounded_type(b, ret, &bounds);
    }
    // A function taking a closure: its parameters, for the closures passed to it
    // (`LocalOrigin::Callback`); the others' are not needed.
    if let Some(params) = closure_taking_parameters(b, node, &bounds) {
        b.symbol_mut(idx).params = params;
    }
    b.within(idx, |b| function_inside(b, node, &bounds));
}

/// A function's parameters after `self`, each with the parameter types of the closure it takes
/// (`f: impl FnMut(&Match) -> bool`, `f: F` where `F: FnMut(&Match) -> bool`); `None` when it
/// takes no closure with parameters (most functions: their parameters' types are not read).
fn closure_taking_parameters(b: &Builder, item: Node, bounds: &[(String, Vec<String>)]) -> Option<Vec<Param>> {
    let params: Vec<Node> =
        named_children(item.field("parameters")?).into_iter().filter(|p| p.kind_str() == "parameter").collect();
    let callbacks: Vec<Vec<Option<Vec<String>>>> = params
        .iter()
        .map(|p| p.field("type").and_then(|t| closure_parameters(b, t, item, bounds)).unwrap_or_default())
        .collect();
    if callbacks.iter().all(Vec::is_empty) {
        return None;
    }
    let typed = params.iter().zip(callbacks);
    Some(
        typed
            .map(|(p, callback)| Param { ty: p.field("type").and_then(|t| bounded_type(b, t, bounds)), callback })
            .collect(),
    )
}

/// The type path of a type; a type parameter with a trait bound is known by that trait: `fn f<T:
/// Area>(x: T)`.
fn bounded_type(b: &Builder, t: Node, bounds: &[(String, Vec<String>)]) -> Option<Vec<String>> {
    type_path(b, t).map(|p| match p.as_slice() {
        [one] => bound_of(bounds, one).map_or(p.clone(), Clone::clone),
        [pointer, one] if is_pointer(pointer) => {
            bound_of(bounds, one).map_or(p.clone(), |b| marked(pointer, b.clone()))
        }
        _ => p,
    })
}

/// The trait bound of type parameter `name` (`type_param_bounds`).
fn bound_of<'b>(bounds: &'b [(String, Vec<String>)], name: &str) -> Option<&'b Vec<String>> {
    bounds.iter().find(|(n, _)| n == name).map(|(_, bound)| bound)
}

/// A function's type parameters, parameters (its locals), return type and body.
fn function_inside(b: &mut Builder, node: Node, bounds: &[(String, Vec<String>)]) {
    let declared = |b: &Builder, t: Node| bounded_type(b, t, bounds);
    let ret = node.field("return_type");
    generics(b, node);
    // A bounded type parameter named in a path is a value of its trait: `T::all_named()`.
    for (name, bound) in bounds {
        b.add_local(name, LocalOrigin::Declared(bound.clone()));
    }
    if let Some(params) = node.field("parameters") {
        for p in named_children(params) {
            match p.kind_str() {
                "parameter" => {
                    let t = p.field("type");
                    let origin = t.and_then(|t| declared(b, t)).map_or(LocalOrigin::Unknown, LocalOrigin::Declared);
                    if let Some(pattern) = p.field("pattern") {
                        pattern_bind(b, pattern, origin);
                    }
                    if let Some(t) = t {
                        ty(b, t);
                    }
                }
                "self_parameter" | "attribute_item" => {}
                _ => ty(b, p),
            }
        }
    }
    // Within the function, as its parameters are: `Self` in `-> Result<(), Self::Error>` is
    // its impl's type.
    if let Some(ret) = ret {
        ty(b, ret);
    }
    let Some(body) = node.field("body") else { return };
    // `-> impl FnMut(&RegexTest) -> R { move |test| … }`: the closure the body gives back takes the
    // parameters its return type declares.
    let typed = ret.and_then(|r| closure_parameters(b, r, node, bounds)).zip(tail_closure(body));
    let Some((params, tail)) = typed else {
        let first_local = b.facts.locals.len();
        expr(b, body);
        return returned_local(b, first_local, body, ret.and_then(|r| declared(b, r)));
    };
    b.block(|b| {
        for c in named_children(body) {
            if c.id() == tail.id() {
                closure(b, c, &|i| {
                    params.get(i as usize).cloned().flatten().map_or(LocalOrigin::Unknown, LocalOrigin::Declared)
                });
            } else {
                expr(b, c);
            }
        }
    });
}

/// A local the function's body gives back (`out`, `Ok(out)`, `Some(out)` at its end) has the
/// type the function returns when its own is not known (`let mut out = vec![];`, `Vec::new()`):
/// Rust gives a returned value exactly that type. `first_local` is the first of the body's locals.
fn returned_local(b: &mut Builder, first_local: usize, body: Node, returns: Option<Vec<String>>) {
    let Some(mut returns) = returns else { return };
    let Some(mut value) = tail(body) else { return };
    if value.kind_str() == "call_expression" {
        let wrapper = value.field("function").filter(|f| matches!(b.text(*f), "Ok" | "Some"));
        let args = value.field("arguments").filter(|a| a.named_child_count() == 1);
        let (Some(_), Some(arg)) = (wrapper, args.and_then(|a| a.named_child(0))) else { return };
        if returns.first().map(String::as_str) != Some(MAYBE) {
            return;
        }
        returns.remove(0);
        value = arg;
    }
    if value.kind_str() != "identifier" {
        return;
    }
    // The latest binding of the name still seen at the end (an inner block's closed before).
    let (name, scope, end) = (b.text(value), b.enclosing(), b.facts.refs.len() as u32);
    let locals = &mut b.facts.locals[first_local..];
    let seen = |l: &LocalBinding| l.name == name && l.scope == scope && l.until_refs.is_none_or(|u| u >= end);
    let Some(local) = locals.iter_mut().rev().find(|l| seen(l)) else { return };
    let unknown = match &local.origin {
        LocalOrigin::Unknown => true,
        LocalOrigin::Wrapped(_, inner) => **inner == LocalOrigin::Unknown,
        // `Vec::new()`: a standard wrapper of values of no known type.
        LocalOrigin::Declared(path) => {
            matches!(path.as_slice(), [marker] if [SEQUENCE, MAP, MAYBE].contains(&marker.as_str()))
        }
        _ => false,
    };
    if unknown {
        local.origin = LocalOrigin::Declared(returns);
    }
}

/// The declared parameter types of a closure type: `impl Fn(&Item, usize) -> bool`, `&dyn
/// FnMut(u8)`, or a type parameter of `item` bounded by one (`F: FnMut(&Match) -> bool`).
fn closure_parameters(
    b: &Builder,
    t: Node,
    item: Node,
    bounds: &[(String, Vec<String>)],
) -> Option<Vec<Option<Vec<String>>>> {
    let function = function_type(b, t, item, 0)?;
    let params =
        named_children(function.field("parameters")?).into_iter().filter(|p| !p.kind_str().ends_with("comment"));
    // `fn(x: u8)` names its parameters; `Fn(u8)` doesn't.
    let types = params.map(|p| if p.kind_str() == "parameter" { p.field("type") } else { Some(p) });
    Some(types.map(|t| t.and_then(|t| bounded_type(b, t, bounds))).collect())
}

/// The function type (`FnMut(&Match) -> bool`) a type is or is bounded by (see `closure_parameters`).
fn function_type<'t>(b: &Builder, t: Node<'t>, item: Node<'t>, depth: usize) -> Option<Node<'t>> {
    if depth > MAX_TYPE_NESTING {
        return None;
    }
    let inner = |n: Node<'t>| function_type(b, n, item, depth + 1);
    match t.kind_str() {
        "function_type" => Some(t),
        "reference_type" => inner(t.field("type")?),
        "abstract_type" | "dynamic_type" => inner(t.field("trait").or_else(|| t.named_child(0))?),
        "trait_bounds" => named_children(t).into_iter().find_map(inner),
        // `F`: the bounds `<F: …>` or `where F: …` give it.
        "type_identifier" if depth == 0 => {
            let name = b.text(t);
            let params = item.field("type_parameters").into_iter().flat_map(named_children);
            let declared = params
                .filter(|tp| tp.field("name").or_else(|| tp.named_child(0)).is_some_and(|n| b.text(n) == name))
                .filter_map(|tp| tp.field("bounds"));
            let clause = named_children(item).into_iter().find(|c| c.kind_str() == "where_clause");
            let predicates = clause.into_iter().flat_map(named_children).filter(|p| p.kind_str() == "where_predicate");
            let required = predicates
                .filter(|p| p.field("left").is_some_and(|l| b.text(l) == name))
                .filter_map(|p| p.field("bounds"));
            declared.chain(required).find_map(|bounds| function_type(b, bounds, item, depth + 1))
        }
        _ => None,
    }
}

/// The closure a block ends with (its value).
fn tail_closure(block: Node) -> Option<Node> {
    named_children(block)
        .into_iter()
        .rfind(|c| !c.kind_str().ends_with("comment"))
        .filter(|c| c.kind_str() == "closure_expression")
}

/// The types an item's `<…>` and `where` clause name (its type parameters' bounds).
fn generics(b: &mut Builder, item: Node) {
    if let Some(tp) = item.field("type_parameters") {
        ty(b, tp);
    }
    if let Some(clause) = named_children(item).into_iter().find(|c| c.kind_str() == "where_clause") {
        ty(b, clause);
    }
}

/// The first trait bound of each type parameter of an item, from `<T: Trait>` and `where T: Trait`,
/// the standard marker traits passed over (`T: Send + Handler` is known by `Handler`).
fn type_param_bounds(b: &Builder, item: Node) -> Vec<(String, Vec<String>)> {
    const MARKERS: [&str; 8] = ["Send", "Sync", "Sized", "Unpin", "Copy", "Clone", "Debug", "Default"];
    let mut out = Vec::new();
    let mut add = |name: Node, bounds: Option<Node>| {
        let paths = bounds.into_iter().flat_map(named_children).filter(|t| t.kind_str() != "lifetime");
        let first = paths
            .filter_map(|t| type_path(b, t))
            .find(|p| p.last().is_some_and(|last| !MARKERS.contains(&last.as_str())));
        if let Some(path) = first {
            out.push((b.text(name).to_string(), path));
        }
    };
    if let Some(tps) = item.field("type_parameters") {
        for tp in named_children(tps) {
            if let Some(name) = tp.field("name").or_else(|| tp.named_child(0)) {
                add(name, tp.field("bounds"));
            }
        }
    }
    if let Some(clause) = named_children(item).into_iter().find(|c| c.kind_str() == "where_clause") {
        for pred in named_children(clause).into_iter().filter(|p| p.kind_str() == "where_predicate") {
            if let Some(left) = pred.field("left").filter(|l| l.kind_str() == "type_identifier") {
                add(left, pred.field("bounds"));
            }
        }
    }
    out
}

enum UseItem {
    Name(Vec<String>, Option<String>, Pos),
    /// A glob's module path, and its segments with their positions when the whole path is written
    /// in one piece (`use self::Kind::*;`, not `use a::{b::*}`).
    Glob(Vec<String>, Option<Vec<Segment>>),
}

/// Flattens a use tree: `a::{b, c::d as e, f::*, self}`. Lists nested deeper than the walk goes
/// are left out.
fn use_tree(b: &Builder, node: Node, prefix: Vec<String>, out: &mut Vec<UseItem>, depth: usize) {
    if depth > super::MAX_WALK_DEPTH {
        return;
    }
    let join = |extra: Vec<String>| -> Vec<String> { prefix.iter().cloned().chain(extra).collect() };
    match node.kind_str() {
        "identifier" | "self" | "super" | "crate" | "scoped_identifier" | "metavariable" => {
            let Some(segs) = path_segments(b, node) else { return };
            let pos = segs.last().map(|s| s.1).unwrap_or_default();
            let mut path = join(segs.into_iter().map(|s| s.0).collect());
            // `use a::b::{self}` binds `b`.
            if path.last().is_some_and(|l| l == "self") && path.len() > 1 {
                path.pop();
            }
            out.push(UseItem::Name(path, None, pos));
        }
        "use_as_clause" => {
            let (Some(path), Some(alias)) = (node.field("path"), node.field("alias")) else {
                return;
            };
            let Some(segs) = path_segments(b, path) else { return };
            let pos = segs.last().map(|s| s.1).unwrap_or_default();
            let mut full = join(segs.into_iter().map(|s| s.0).collect());
            if full.last().is_some_and(|l| l == "self") && full.len() > 1 {
                full.pop();
            }
            out.push(UseItem::Name(full, Some(b.text(alias).to_string()), pos));
        }
        "scoped_use_list" => {
            let base = node.field("path").and_then(|p| path_segments(b, p)).unwrap_or_default();
            let prefix = join(base.into_iter().map(|s| s.0).collect());
            if let Some(list) = node.field("list") {
                for child in named_children(list) {
                    use_tree(b, child, prefix.clone(), out, depth + 1);
                }
            }
        }
        "use_list" => {
            for child in named_children(node) {
                use_tree(b, child, prefix.clone(), out, depth + 1);
            }
        }
        "use_wildcard" => {
            let base = named_children(node).first().and_then(|p| path_segments(b, *p)).unwrap_or_default();
            let written = (prefix.is_empty() && !base.is_empty()).then(|| base.clone());
            out.push(UseItem::Glob(join(base.into_iter().map(|s| s.0).collect()), written));
        }
        _ => {}
    }
}

/// Paths: `a`, `a::b::c`, `crate::x`, `::std::y` (a leading `::` is dropped), `a::B<T>::c`.
const PATH: ChainSyntax = ChainSyntax {
    names: &["identifier", "self", "super", "crate", "type_identifier", "metavariable"],
    members: &[
        Member { kind: "scoped_identifier", object: &["path"], name: &["name"], rooted: true, path: true },
        Member { kind: "scoped_type_identifier", object: &["path"], name: &["name"], rooted: true, path: true },
    ],
    member_calls: &[],
    silent_names: &[],
    calls: &[],
    operators: &[],
    slices: &[],
    through: &[("generic_type", Some("type"))],
    extras: &[],
    typed_head: None,
    arguments: None,
    closure: None,
};

/// Expression chains: paths, `self.x.y`, `Circle::new(1.0).area`, `rt.handle().spawn_blocking`;
/// generic arguments (`f::<T>`) and `.await` are looked through; `x?` and `x[i]` are operator
/// segments (`?`, `[]`: the value inside an option, an element).
const CHAIN: ChainSyntax = ChainSyntax {
    names: PATH.names,
    members: &[
        Member { kind: "field_expression", object: &["value"], name: &["field"], rooted: false, path: false },
        Member { kind: "scoped_identifier", object: &["path"], name: &["name"], rooted: true, path: true },
        Member { kind: "scoped_type_identifier", object: &["path"], name: &["name"], rooted: true, path: true },
    ],
    member_calls: &[],
    silent_names: &[],
    calls: &["call_expression"],
    operators: &[("try_expression", MAYBE), ("index_expression", SEQUENCE)],
    slices: &[("index_expression", "range_expression")],
    through: &[("generic_function", Some("function")), ("generic_type", Some("type")), ("await_expression", None)],
    extras: &[("generic_function", "type_arguments")],
    typed_head: Some(head_origin),
    arguments: Some(call_arguments),
    closure: Some(closure_argument),
};

/// A call's one argument when it is a closure of one parameter bound to a name (`|h| h.item()`,
/// `|h: &Holder| { h.item() }`): the closure, the name, and the expression it gives.
fn closure_argument<'t>(_: &Builder, call: Node<'t>) -> Option<(Node<'t>, Node<'t>, Node<'t>)> {
    let args = call.field("arguments")?;
    let closure =
        args.named_child(0).filter(|a| args.named_child_count() == 1 && a.kind_str() == "closure_expression")?;
    let params = closure.field("parameters")?;
    let param = params.named_child(0).filter(|_| params.named_child_count() == 1)?;
    let name = match param.kind_str() {
        "identifier" => param,
        "parameter" => param.field("pattern").filter(|p| p.kind_str() == "identifier")?,
        _ => return None,
    };
    let mut body = closure.field("body")?;
    if body.kind_str() == "block" {
        body = body.named_child(0).filter(|e| body.named_child_count() == 1 && !e.kind_str().ends_with("statement"))?;
    }
    Some((closure, name, body))
}

/// Where a chain's head expression's value comes from, as `let` would infer it: `(*self).f()`,
/// `(x as T).f()`, `Point { .. }.f()`, `Pin::new(&mut x).poll()` (the wrapper derefs to `x`).
fn head_origin(b: &Builder, node: Node) -> Option<LocalOrigin> {
    match node.kind_str() {
        "call_expression" if transparent_argument(b, node).is_none() => return None,
        "parenthesized_expression"
        | "unary_expression"
        | "reference_expression"
        | "call_expression"
        | "struct_expression"
        | "type_cast_expression" => {}
        _ => return None,
    }
    Some(local_origin(b, node)).filter(|o| !matches!(o, LocalOrigin::Unknown))
}

/// Wrappers whose value derefs to what they were made of: `Pin::new(&mut x)` is `x` for a method
/// call, as `Box::new(x)`, `Rc::new(x)` and `Arc::new(x)` are.
const TRANSPARENT_NEW: [(&str, &str); 6] =
    [("Pin", "new"), ("Pin", "new_unchecked"), ("Box", "new"), ("Box", "pin"), ("Rc", "new"), ("Arc", "new")];

/// The type's last name and the function's name of a call of an associated function: `Pin::new(…)`,
/// `std::pin::Pin::new(…)`, `Box::<T>::new(…)`.
fn associated_call(call: Node) -> Option<(Node, Node)> {
    let f = call.field("function")?;
    if f.kind_str() != "scoped_identifier" {
        return None;
    }
    let (path, name) = (f.field("path")?, f.field("name")?);
    let ty = match path.kind_str() {
        "scoped_identifier" => path.field("name")?,
        "generic_type" => path.field("type")?,
        _ => path,
    };
    Some((ty, name))
}

/// The argument whose value `std::mem::replace(dest, value)` (`value`) or `mem::take(dest)`
/// (`dest`) gives back.
fn replaced_value<'t>(b: &Builder, call: Node<'t>) -> Option<Node<'t>> {
    let (ty, name) = associated_call(call)?;
    let at = match (b.text(ty), b.text(name)) {
        ("mem", "replace") => 1,
        ("mem", "take") => 0,
        _ => return None,
    };
    call.field("arguments")?.named_child(at)
}

/// The wrapper marker of a call of a standard collection's constructor: `Vec::new()` is a sequence,
/// `HashMap::default()` a map (of values of no known type).
fn new_collection(b: &Builder, call: Node) -> Option<&'static str> {
    let (ty, name) = associated_call(call)?;
    if !["new", "with_capacity", "default"].contains(&b.text(name)) {
        return None;
    }
    let ty = b.text(ty);
    if SEQUENCE_TYPES.contains(&ty) {
        Some(SEQUENCE)
    } else if MAP_TYPES.contains(&ty) {
        Some(MAP)
    } else {
        None
    }
}

/// The one argument of a call of a transparent wrapper's constructor (`TRANSPARENT_NEW`).
fn transparent_argument<'t>(b: &Builder, call: Node<'t>) -> Option<Node<'t>> {
    let (ty, name) = associated_call(call)?;
    if !TRANSPARENT_NEW.contains(&(b.text(ty), b.text(name))) {
        return None;
    }
    match named_children(call.field("arguments")?).as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The segments of a path.
fn path_segments(b: &Builder, node: Node) -> Option<Vec<Segment>> {
    PATH.names(b, node)
}

/// A type's path with references, pointers and generic arguments stripped; `Box<T>`, `Arc<T>`,
/// `Rc<T>` are looked through because they deref to `T`.
fn type_path(b: &Builder, node: Node) -> Option<Vec<String>> {
    type_path_within(b, node, 0)
}

fn type_path_within(b: &Builder, node: Node, depth: usize) -> Option<Vec<String>> {
    if depth > MAX_TYPE_NESTING {
        return None;
    }
    let inner = |n: Node| type_path_within(b, n, depth + 1);
    match node.kind_str() {
        "reference_type" => inner(node.field("type")?),
        // `*const T`: a pointer to `T` (the impls for pointers are the repository's to give).
        "pointer_type" => {
            let mutable = named_children(node).iter().any(|c| c.kind_str() == "mutable_specifier");
            let marker = if mutable { MUT_POINTER } else { POINTER };
            Some(marked(marker, inner(node.field("type")?).unwrap_or_default()))
        }
        // `[T]`, `[T; N]`: a sequence of `T`.
        "array_type" => Some(marked(SEQUENCE, inner(node.field("element")?)?)),
        // `(A, B)`: each element's type (empty when unknown).
        "tuple_type" => tuple_path(named_children(node).into_iter().map(|e| inner(e).unwrap_or_default()).collect()),
        // `dyn Trait + Send`, `impl Trait`: a value of the (first) trait.
        "dynamic_type" | "abstract_type" => {
            let t = node.field("trait").or_else(|| node.named_child(0))?;
            let t = if t.kind_str() == "trait_bounds" { t.named_child(0)? } else { t };
            // `impl Iterator<Item = T>`: a sequence of `T`.
            if let Some(item) = iterator_item(b, t) {
                return Some(marked(SEQUENCE, inner(item)?));
            }
            inner(t)
        }
        "generic_type" => {
            let base: Vec<String> = path_segments(b, node.field("type")?)?.into_iter().map(|s| s.0).collect();
            // The type arguments, lifetimes left out (`Iter<'a, T>`: `T`).
            let type_args = || {
                node.field("type_arguments").map_or_else(Vec::new, |args| {
                    named_children(args).into_iter().filter(|a| a.kind_str() != "lifetime").collect::<Vec<_>>()
                })
            };
            let first_arg = || type_args().into_iter().next();
            // `Iterator<Item = T>` (a bound, `dyn`, `impl`): a sequence of `T`.
            if let Some(item) = iterator_item(b, node) {
                return Some(marked(SEQUENCE, inner(item).unwrap_or_default()));
            }
            let last = base.last().map(String::as_str);
            // `Option<T>`, `Vec<T>` of a `T` of no known type: a wrapper of unknown values.
            if let Some(marker) = last.and_then(wrapper_marker).filter(|_| standard_wrapper(b, &base)) {
                return Some(marked(marker, first_arg().and_then(inner).unwrap_or_default()));
            }
            match last {
                Some(w) if TRANSPARENT.contains(&w) => inner(first_arg()?),
                Some(w) if MAP_TYPES.contains(&w) => {
                    map_path(type_args().into_iter().map(|t| inner(t).unwrap_or_default()).collect())
                }
                _ => Some(base),
            }
        }
        "type_identifier" | "scoped_type_identifier" => {
            Some(path_segments(b, node)?.into_iter().map(|s| s.0).collect())
        }
        // `u32`, `str`: a type the language provides (its values' members are its own).
        "primitive_type" => Some(vec![b.text(node).to_string()]),
        _ => None,
    }
}

/// The `Item` type of an iterator trait (`Iterator<Item = T>` and its kin), when `t` is one.
fn iterator_item<'t>(b: &Builder, t: Node<'t>) -> Option<Node<'t>> {
    if t.kind_str() != "generic_type" {
        return None;
    }
    let name = t.field("type")?;
    let last = path_segments(b, name)?.pop()?.0;
    if !ITERATOR_TRAITS.contains(&last.as_str()) {
        return None;
    }
    let args = t.field("type_arguments")?;
    named_children(args).into_iter().find_map(|a| {
        (a.kind_str() == "type_binding" && a.field("name").is_some_and(|n| b.text(n) == "Item"))
            .then(|| a.field("type"))?
    })
}

/// Traits of iterators, whose `Item` is the element type.
const ITERATOR_TRAITS: [&str; 4] = ["Iterator", "IntoIterator", "DoubleEndedIterator", "ExactSizeIterator"];

/// Standard generic types that are their first argument for member resolution (smart pointers,
/// pins, copy-on-write, the guards of locks: each derefs to it).
const TRANSPARENT: [&str; 14] = [
    "Box",
    "Arc",
    "Rc",
    "Pin",
    "Cow",
    "ManuallyDrop",
    "NonNull",
    "MutexGuard",
    "RwLockReadGuard",
    "RwLockWriteGuard",
    "ReentrantMutexGuard",
    "MappedMutexGuard",
    "MappedRwLockReadGuard",
    "MappedRwLockWriteGuard",
];
/// Options and results: the value is inside, reached through `?`, `unwrap()`, `Some(x)`, `Ok(x)`.
const MAYBE_TYPES: [&str; 3] = ["Option", "Result", "Poll"];
/// Cells: the value is inside, reached through `borrow()`, `borrow_mut()`, `get()`.
const CELL_TYPES: [&str; 2] = ["RefCell", "Cell"];
/// Conversion traits: a value bounded by one (`I: Into<Input>`, `impl AsRef<Path>`) gives the
/// argument through its method (`into()`, `as_ref()`, `borrow()`).
const CONVERSION_TRAITS: [&str; 4] = ["Into", "AsRef", "AsMut", "Borrow"];
/// The marker of a wrapper of one type argument (`Option` → `MAYBE`), if `name` is one.
fn wrapper_marker(name: &str) -> Option<&'static str> {
    [
        (&MAYBE_TYPES[..], MAYBE),
        (&CELL_TYPES[..], CELL),
        (&SEQUENCE_TYPES[..], SEQUENCE),
        (&CONVERSION_TRAITS[..], CONVERTIBLE),
    ]
    .into_iter()
    .find_map(|(types, marker)| types.contains(&name).then_some(marker))
}
/// Standard iterator names crates give their own iterators too (`pub struct Iter<'a> { … }`).
const COMMON_ITERATOR_NAMES: [&str; 3] = ["Iter", "IterMut", "IntoIter"];

/// Modules the standard library's iterator types live in, as a path to one starts.
const STD_ITERATOR_MODULES: [&str; 13] = [
    "std",
    "core",
    "alloc",
    "slice",
    "vec",
    "vec_deque",
    "collections",
    "hash_map",
    "hash_set",
    "btree_map",
    "btree_set",
    "linked_list",
    "binary_heap",
];

/// Whether a wrapper's name in `path` is the standard library's: any but a common iterator name,
/// and that one when written through a standard module (`slice::Iter`) or imported from the
/// standard library (`use std::slice::Iter;`). A crate's own `Iter` is its type.
fn standard_wrapper(b: &Builder, path: &[String]) -> bool {
    let Some(name) = path.last() else { return false };
    if !COMMON_ITERATOR_NAMES.contains(&name.as_str()) {
        return true;
    }
    match path {
        [_] => b
            .facts
            .imports
            .iter()
            .any(|imp| Language::Rust.is_std_module(&imp.module) && imp.items.iter().any(|it| it.alias == *name)),
        [first, ..] => STD_ITERATOR_MODULES.contains(&first.as_str()),
        [] => false,
    }
}

/// Maps: their elements are (key, value) pairs; `values()`, `get()` and `[k]` reach the values.
const MAP_TYPES: [&str; 4] = ["HashMap", "BTreeMap", "IndexMap", "FxHashMap"];
/// Sequences: their elements are reached through `for`, indexing, `first()`, `iter()`.
const SEQUENCE_TYPES: [&str; 9] =
    ["Vec", "VecDeque", "HashSet", "BTreeSet", "BinaryHeap", "LinkedList", "Iter", "IterMut", "IntoIter"];

fn type_chain(b: &Builder, node: Node) -> Option<Vec<Segment>> {
    path_segments(b, node)
}

/// Walks a type, recording references to named types.
fn ty(b: &mut Builder, node: Node) {
    if !b.descend() {
        return;
    }
    match node.kind_str() {
        "type_identifier" | "scoped_type_identifier" | "scoped_identifier" => {
            if let Some(segs) = path_segments(b, node) {
                b.add_path(segs, false);
            }
        }
        "generic_type" => {
            let base = node.field("type");
            if let Some(t) = base {
                ty(b, t);
            }
            if let Some(args) = node.field("type_arguments") {
                for arg in named_children(args) {
                    if arg.kind_str() != "type_binding" {
                        ty(b, arg);
                        continue;
                    }
                    // `Iterator<Item = T>`: `Item` is the trait's associated type (a member of the
                    // trait, never a type of that name in scope); `T` is a type.
                    let trait_path = base.and_then(|t| path_segments(b, t));
                    if let (Some(mut segs), Some(name)) = (trait_path, arg.field("name")) {
                        segs.push(b.seg(name));
                        b.add_path(segs, false);
                    }
                    if let Some(t) = arg.field("type") {
                        ty(b, t);
                    }
                }
            }
        }
        "primitive_type" | "lifetime" | "line_comment" | "block_comment" => {}
        "type_parameter" | "constrained_type_parameter" => {
            // The parameter's own name is a declaration; its bounds are references.
            for child in named_children(node).into_iter().skip(1) {
                ty(b, child);
            }
        }
        // `where F: FnMut(&Item)`: a type parameter on the left is the item's own name.
        "where_predicate" => {
            if let Some(left) = node.field("left").filter(|l| l.kind_str() != "type_identifier") {
                ty(b, left);
            }
            if let Some(bounds) = node.field("bounds") {
                ty(b, bounds);
            }
        }
        _ => named_children(node).into_iter().for_each(|c| ty(b, c)),
    }
    b.ascend();
}

/// Binds the names a pattern introduces as locals and records the paths it mentions.
fn pattern_bind(b: &mut Builder, node: Node, origin: LocalOrigin) {
    if !b.descend() {
        return;
    }
    match node.kind_str() {
        "identifier" => b.add_local(b.text(node), origin),
        "mut_pattern" | "ref_pattern" | "reference_pattern" => {
            if let Some(inner) = named_children(node).into_iter().last() {
                pattern_bind(b, inner, origin);
            }
        }
        "tuple_struct_pattern" | "struct_pattern" => {
            let path = node.field("type").and_then(|t| path_segments(b, t));
            let names: Option<Vec<String>> = path.as_ref().map(|p| p.iter().map(|s| s.0.clone()).collect());
            if let Some(segs) = path {
                b.add_path(segs, false);
            }
            let tuple = node.kind_str() == "tuple_struct_pattern";
            if !tuple {
                // `Point { x, .. }`: each field pattern names a field of that struct.
                let whole = names.clone().map_or(LocalOrigin::Unknown, LocalOrigin::Constructed);
                for child in named_children(node).into_iter().skip(1) {
                    pattern_bind(b, child, whole.clone());
                }
                b.ascend();
                return;
            }
            for (i, child) in pattern_elements(node).into_iter().enumerate() {
                let part = match names.as_deref() {
                    Some(path) => tuple_pattern_part(path, i as u32, || origin.clone()),
                    None => LocalOrigin::Unknown,
                };
                pattern_bind(b, child, part);
            }
        }
        "field_pattern" => {
            // `origin` is the struct the pattern takes apart (see `struct_pattern`): the field's
            // name is a use of its field, and what it binds has the field's type.
            let name = node
                .field("name")
                .filter(|n| matches!(n.kind_str(), "field_identifier" | "shorthand_field_identifier"));
            let member = match (&origin, name) {
                (LocalOrigin::Constructed(_), Some(name)) => {
                    let receiver = Receiver { base: ReceiverBase::Value(origin.clone()), members: Vec::new() };
                    b.add_member_ref(b.seg(name), false, receiver);
                    LocalOrigin::Member(Box::new(origin.clone()), b.text(name).to_string())
                }
                _ => LocalOrigin::Unknown,
            };
            if let Some(pattern) = node.field("pattern") {
                pattern_bind(b, pattern, member);
            } else if let Some(name) = node.field("name") {
                b.add_local(b.text(name), member);
            }
        }
        "scoped_identifier" => {
            if let Some(segs) = path_segments(b, node) {
                b.add_path(segs, false);
            }
        }
        "captured_pattern" => {
            for child in named_children(node) {
                pattern_bind(b, child, LocalOrigin::Unknown);
            }
        }
        // `let (tx, rx) = channel()`: each name binds its element of the tuple.
        "tuple_pattern" => {
            for (i, child) in pattern_elements(node).into_iter().enumerate() {
                let part = match &origin {
                    LocalOrigin::Unknown => LocalOrigin::Unknown,
                    o => LocalOrigin::TupleElement(Box::new(o.clone()), i as u32),
                };
                pattern_bind(b, child, part);
            }
        }
        _ => named_children(node).into_iter().for_each(|c| pattern_bind(b, c, LocalOrigin::Unknown)),
    }
    b.ascend();
}

/// What element `i` of tuple-struct pattern `path` binds of the value `origin` gives: the value
/// inside for `Some(x)` / `Ok(x)` of a known value, the variant's field `i` for `Enum::Variant(x)`.
fn tuple_pattern_part(path: &[String], i: u32, origin: impl FnOnce() -> LocalOrigin) -> LocalOrigin {
    match path {
        [one] if matches!(one.as_str(), "Some" | "Ok") => match origin() {
            LocalOrigin::Unknown => LocalOrigin::Unknown,
            o => LocalOrigin::Unwrapped(Box::new(o)),
        },
        _ if !matches!(path.last().map(String::as_str), Some("Some" | "Ok" | "Err" | "None")) => {
            LocalOrigin::VariantField(path.to_vec(), i)
        }
        _ => LocalOrigin::Unknown,
    }
}

/// The element patterns of a tuple or tuple-struct pattern (or the elements of a tuple expression),
/// by position: `_` (an anonymous token, not a named child) counts, so `(_, x)` binds `x` to the
/// second element.
fn pattern_elements(node: Node) -> Vec<Node> {
    let ty = node.field("type").map(|t| t.id());
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .filter(|c| Some(c.id()) != ty && !matches!(c.kind_str(), "(" | ")" | "," | "line_comment" | "block_comment"))
        .collect()
}

/// One arm of a match on a value of origin `scrutinee`: its pattern binds parts of that value.
fn match_arm(b: &mut Builder, arm: Node, scrutinee: &LocalOrigin) {
    b.block(|b| match_arm_scope(b, arm, scrutinee));
}

/// What a match arm's pattern binds is seen in its guard and its value only.
fn match_arm_scope(b: &mut Builder, arm: Node, scrutinee: &LocalOrigin) {
    if let Some(pattern) = arm.field("pattern") {
        for child in named_children(pattern) {
            if child.kind_str() == "condition" || pattern.field("condition").is_some_and(|c| c.id() == child.id()) {
                expr(b, child);
            } else {
                pattern_bind(b, child, scrutinee.clone());
            }
        }
    }
    if let Some(value) = arm.field("value") {
        expr(b, value);
    }
}

fn texts(segments: Vec<Segment>) -> Vec<String> {
    segments.into_iter().map(|s| s.0).collect()
}

/// The pure chain of an expression: `a`, `a::b::c`, `self.x.y`, `a.b`.
fn chain(b: &Builder, node: Node) -> Option<Vec<Segment>> {
    CHAIN.names(b, node)
}

/// A path, field chain or chain through calls (see `extract::reference`).
fn reference(b: &mut Builder, node: Node, call: bool) {
    super::reference(b, node, call, &CHAIN, expr);
}

fn local_origin(b: &Builder, value: Node) -> LocalOrigin {
    local_origin_within(b, value, 0)
}

fn local_origin_within(b: &Builder, value: Node, depth: usize) -> LocalOrigin {
    if depth > MAX_TYPE_NESTING {
        return LocalOrigin::Unknown;
    }
    let inner = |v: Node| local_origin_within(b, v, depth + 1);
    match value.kind_str() {
        "await_expression" | "reference_expression" | "parenthesized_expression" => {
            return value.named_children(&mut value.walk()).last().map_or(LocalOrigin::Unknown, inner);
        }
        "try_expression" => {
            return match value.named_child(0).map(inner) {
                Some(LocalOrigin::Unknown) | None => LocalOrigin::Unknown,
                Some(o) => LocalOrigin::Unwrapped(Box::new(o)),
            };
        }
        // `&v[1..]`: the same sequence.
        "index_expression" if value.named_child(1).is_some_and(|i| i.kind_str() == "range_expression") => {
            return value.named_child(0).map_or(LocalOrigin::Unknown, inner);
        }
        "index_expression" => {
            return match value.named_child(0).map(inner) {
                Some(LocalOrigin::Unknown) | None => LocalOrigin::Unknown,
                Some(o) => LocalOrigin::Element(Box::new(o)),
            };
        }
        // `*x`: the same value for a method call (references are looked through).
        "unary_expression" if value.child(0).is_some_and(|op| b.text(op) == "*") => {
            return value.named_child(0).map_or(LocalOrigin::Unknown, inner);
        }
        "call_expression" if let Some(arg) = transparent_argument(b, value) => return inner(arg),
        // `Vec::new()`, `HashMap::with_capacity(n)`, `vec![…]`: a new, empty sequence or map.
        "call_expression" if let Some(marker) = new_collection(b, value) => {
            return LocalOrigin::Declared(vec![marker.to_string()]);
        }
        // `vec![x, …]`, `vec![x; n]`: a sequence of what its first element is.
        "macro_invocation" if macro_name(b, value) == Some("vec") => {
            let tt = named_children(value).into_iter().find(|c| c.kind_str() == "token_tree");
            let tree = tt.and_then(|tt| parse_arguments(b, tt));
            let array = tree.as_ref().and_then(argument_expression);
            let first = array.filter(|a| a.kind_str() == "array_expression").and_then(|a| a.named_child(0));
            return LocalOrigin::Wrapped(SEQUENCE.to_string(), Box::new(first.map_or(LocalOrigin::Unknown, inner)));
        }
        // `mem::replace(&mut x, y)` gives what `y` is, `mem::take(&mut x)` what `x` is.
        "call_expression" if let Some(given) = replaced_value(b, value) => return inner(given),
        "macro_invocation" => {
            return macro_name(b, value).map_or(LocalOrigin::Unknown, |m| LocalOrigin::Expanded(m.to_string()));
        }
        // `Some(x)`, `Ok(x)`: an option or result of `x`.
        "call_expression"
            if value.field("function").is_some_and(|f| matches!(b.text(f), "Some" | "Ok"))
                && value.field("arguments").is_some_and(|a| a.named_child_count() == 1) =>
        {
            let argument = value.field("arguments").and_then(|a| a.named_child(0));
            return LocalOrigin::Wrapped(MAYBE.to_string(), Box::new(argument.map_or(LocalOrigin::Unknown, inner)));
        }
        // `[a, b]`, `[None; 32]`: an array of what its first element is.
        "array_expression" => {
            let first = value.named_child(0).map_or(LocalOrigin::Unknown, inner);
            return LocalOrigin::Wrapped(SEQUENCE.to_string(), Box::new(first));
        }
        // `it.collect::<Vec<(&Set, &u64)>>()`: the collection its type argument names.
        "call_expression" if let Some(t) = collected_type(b, value) => return LocalOrigin::Declared(t),
        // `match opt { Some(x) => x, None => return }`: what the arm that gives a value bound.
        "match_expression" => return match_value(b, value, depth),
        // `{ …; x }`, `unsafe { x }`: its last expression.
        "block" => return tail(value).map_or(LocalOrigin::Unknown, inner),
        "unsafe_block" => return value.named_child(0).map_or(LocalOrigin::Unknown, inner),
        // `if c { a } else { b }`: either branch (both of one type).
        "if_expression" => return if_value(b, value, depth),
        "type_cast_expression" => {
            return value
                .field("type")
                .and_then(|t| type_path(b, t))
                .map_or(LocalOrigin::Unknown, LocalOrigin::Declared);
        }
        // `self.items`, `config`, `a.b.c`: the same value.
        "identifier" | "self" | "field_expression" => {
            return chain(b, value).map_or(LocalOrigin::Unknown, |s| LocalOrigin::CallChain(texts(s), Vec::new()));
        }
        _ => {}
    }
    match value.kind_str() {
        "struct_expression" => value
            .field("name")
            .and_then(|n| path_segments(b, n))
            .map_or(LocalOrigin::Unknown, |s| LocalOrigin::Constructed(s.into_iter().map(|s| s.0).collect())),
        "call_expression" => match value.field("function") {
            // A method call, possibly on the result of others: `rt.handle().clone()`.
            Some(f) if f.kind_str() == "field_expression" => {
                CHAIN.called_origin(b, value).unwrap_or(LocalOrigin::Unknown)
            }
            Some(f) => chain(b, f)
                .map_or(LocalOrigin::Unknown, |s| LocalOrigin::CallResult(s.into_iter().map(|s| s.0).collect())),
            None => LocalOrigin::Unknown,
        },
        _ => LocalOrigin::Unknown,
    }
}

/// What a `macro_rules!` of one rule whose transcriber is one expression gives (`($p:expr) => {
/// Regex::new($p).unwrap() }`), as a local initialised with that expression would be typed.
fn macro_result(b: &Builder, node: Node) -> Option<LocalOrigin> {
    let mut rules = named_children(node).into_iter().filter(|r| r.kind_str() == "macro_rule");
    let (Some(rule), None) = (rules.next(), rules.next()) else { return None };
    let tree = parse_arguments(b, rule.field("right")?)?;
    let origin = local_origin(b, argument_expression(&tree)?);
    (origin != LocalOrigin::Unknown).then_some(origin)
}

/// The type a `collect::<T>()` call names.
fn collected_type(b: &Builder, call: Node) -> Option<Vec<String>> {
    let generic = call.field("function").filter(|f| f.kind_str() == "generic_function")?;
    let method = generic.field("function").filter(|f| f.kind_str() == "field_expression")?.field("field")?;
    (b.text(method) == "collect").then_some(())?;
    type_path(b, generic.field("type_arguments")?.named_child(0)?)
}

/// What a match gives: what its arms that don't diverge give (all of one type), an arm giving back
/// a name its tuple pattern bound giving the value inside the scrutinee for `Some(x)` / `Ok(x)`
/// (`match opt { Some(x) => x, None => return }`), a variant's field otherwise (`match *hir.kind_str()
/// { HirKind::Alternation(ref alts) => alts, _ => return None }`). An arm whose value starts from
/// another name its pattern binds is passed over.
fn match_value(b: &Builder, m: Node, depth: usize) -> LocalOrigin {
    let Some(body) = m.field("body") else { return LocalOrigin::Unknown };
    let arms = named_children(body).into_iter().filter(|a| a.kind_str() == "match_arm");
    let values = arms.filter_map(|arm| {
        let value = arm.field("value").filter(|v| !diverges(b, *v))?;
        let value = if value.kind_str() == "block" { tail(value)? } else { value };
        let pattern = arm.field("pattern")?.named_child(0)?;
        match arm_binding(b, m, pattern, value, depth) {
            Some(origin) => Some(origin),
            None if leftmost_name(b, value).is_some_and(|n| binds(b, pattern, n)) => None,
            None => Some(local_origin_within(b, value, depth + 1)),
        }
    });
    either(values.collect())
}

/// What an arm gives back when that is a name its tuple-struct patterns bound (`Some(x) => x`,
/// `Some(Ok(Some(m))) => m`): the scrutinee taken apart level by level.
///
/// An arm giving back the tuple its pattern took apart, rebuilt from its names (`Some((a, b)) =>
/// (a, b)`), gives that tuple the same way; one giving back what such a name holds
/// (`Some(result) => result?`, `Concat(ref xs) => &**xs`, `Some(r) => r.span`) goes on from it.
fn arm_binding(b: &Builder, m: Node, pattern: Node, value: Node, depth: usize) -> Option<LocalOrigin> {
    let (value, peels) = peeled(b, value);
    let names = |n: Node| -> Option<Vec<&str>> {
        let elements = pattern_elements(n);
        let names = elements.iter().map(|e| (e.kind_str() == "identifier").then(|| b.text(*e)));
        names.collect::<Option<Vec<_>>>().filter(|names| !names.is_empty())
    };
    let gives: &dyn Fn(Node) -> bool = match value.kind_str() {
        "identifier" => &|p: Node| p.kind_str() == "identifier" && b.text(p) == b.text(value),
        "tuple_expression" => {
            let rebuilt = names(value)?;
            &move |p: Node| {
                let elements = pattern_elements(p).into_iter().map(|e| unbound(e).map(|e| b.text(e)));
                p.kind_str() == "tuple_pattern" && elements.collect::<Option<Vec<_>>>().as_ref() == Some(&rebuilt)
            }
        }
        _ => return None,
    };
    let steps = binding_steps(b, pattern, gives, 0)?;
    if steps.is_empty() && peels.is_empty() {
        return None;
    }
    let scrutinee = m.field("value")?;
    let mut origin = local_origin_within(b, scrutinee, depth + 1);
    for (path, position) in steps {
        origin = tuple_pattern_part(&path, position, || origin);
    }
    for peel in peels.into_iter().rev() {
        origin = match peel {
            Peel::Unwrap => LocalOrigin::Unwrapped(Box::new(origin)),
            Peel::Field(name) => LocalOrigin::Member(Box::new(origin), name),
        };
    }
    Some(origin)
}

/// A step from a value to what an expression around it gives.
enum Peel {
    /// The value inside an option or result (`x?`, `x.unwrap()`, `x.expect(…)`).
    Unwrap,
    /// A field of it (`x.span`).
    Field(String),
}

/// The expression inside `value`'s references, dereferences, parentheses, unwraps and field
/// accesses, and those steps from the outside in (`&**xs` is `xs`; `result?.span` is `result`,
/// then `Field(span)`, `Unwrap`).
fn peeled<'t>(b: &Builder, mut value: Node<'t>) -> (Node<'t>, Vec<Peel>) {
    let mut peels = Vec::new();
    loop {
        let inner = match value.kind_str() {
            "reference_expression" => value.field("value"),
            "unary_expression" if b.text(value).starts_with('*') => value.named_child(0),
            "parenthesized_expression" => value.named_child(0),
            "try_expression" => {
                peels.push(Peel::Unwrap);
                value.named_child(0)
            }
            "call_expression" => {
                let method = value.field("function").filter(|f| f.kind_str() == "field_expression");
                let unwrap =
                    method.filter(|f| f.field("field").is_some_and(|n| matches!(b.text(n), "unwrap" | "expect")));
                if unwrap.is_some() {
                    peels.push(Peel::Unwrap);
                }
                unwrap.and_then(|f| f.field("value"))
            }
            "field_expression" => {
                let field = value.field("field").filter(|f| f.kind_str() == "field_identifier");
                if let Some(f) = field {
                    peels.push(Peel::Field(b.text(f).to_string()));
                }
                field.and_then(|_| value.field("value"))
            }
            _ => None,
        };
        match inner {
            Some(inner) => value = inner,
            None => return (value, peels),
        }
    }
}

/// The tuple-struct patterns from `pattern` down to the pattern `found` accepts (a name it binds,
/// a tuple of names), each as (its path, the element holding it); empty when `pattern` is that
/// pattern itself, `None` when it holds none.
fn binding_steps(
    b: &Builder,
    pattern: Node,
    found: &dyn Fn(Node) -> bool,
    depth: usize,
) -> Option<Vec<(Vec<String>, u32)>> {
    let pattern = unbound(pattern)?;
    if found(pattern) {
        return Some(Vec::new());
    }
    if pattern.kind_str() != "tuple_struct_pattern" || depth > MAX_TYPE_NESTING {
        return None;
    }
    let path: Vec<String> = path_segments(b, pattern.field("type")?)?.into_iter().map(|s| s.0).collect();
    pattern_elements(pattern).into_iter().enumerate().find_map(|(i, element)| {
        let mut steps = binding_steps(b, element, found, depth + 1)?;
        steps.insert(0, (path.clone(), i as u32));
        Some(steps)
    })
}

/// A pattern without its `mut` and `ref`.
fn unbound(mut pattern: Node) -> Option<Node> {
    while matches!(pattern.kind_str(), "mut_pattern" | "ref_pattern") {
        pattern = named_children(pattern).into_iter().last()?;
    }
    Some(pattern)
}

/// What an `if` gives: either branch that doesn't diverge (the first passed over when it starts
/// from a name its `if let` binds).
fn if_value(b: &Builder, e: Node, depth: usize) -> LocalOrigin {
    if depth > MAX_TYPE_NESTING {
        return LocalOrigin::Unknown;
    }
    let condition = e.field("condition");
    let bound = |v: &Node| leftmost_name(b, *v).is_some_and(|n| condition.is_some_and(|c| condition_binds(b, c, n)));
    let then = e.field("consequence").filter(|c| !diverges(b, *c)).and_then(tail).filter(|v| !bound(v));
    let otherwise = e.field("alternative").and_then(|a| a.named_child(0)).filter(|x| !diverges(b, *x));
    let otherwise = otherwise.map(|x| match x.kind_str() {
        "if_expression" => if_value(b, x, depth + 1),
        _ => tail(x).map_or(LocalOrigin::Unknown, |v| local_origin_within(b, v, depth + 1)),
    });
    either(then.map(|v| local_origin_within(b, v, depth + 1)).into_iter().chain(otherwise).collect())
}

/// One origin of several known ones (`LocalOrigin::Either`).
fn either(values: Vec<LocalOrigin>) -> LocalOrigin {
    let mut known: Vec<LocalOrigin> = values.into_iter().filter(|o| *o != LocalOrigin::Unknown).collect();
    match known.len() {
        0 => LocalOrigin::Unknown,
        1 => known.pop().unwrap_or(LocalOrigin::Unknown),
        _ => LocalOrigin::Either(known),
    }
}

/// A block's last expression (`{ …; x }`), when it ends in one.
fn tail(block: Node) -> Option<Node> {
    let last = named_children(block).into_iter().rfind(|c| !c.kind_str().ends_with("comment"))?;
    (!last.kind_str().ends_with("_statement")
        && !last.kind_str().ends_with("_declaration")
        && !last.kind_str().ends_with("_item"))
    .then_some(last)
}

/// The name an expression starts from: `x` of `x.f().g`, `&x`, `x?`.
fn leftmost_name<'s>(b: &Builder<'s>, mut e: Node) -> Option<&'s str> {
    loop {
        e = match e.kind_str() {
            "identifier" => return Some(b.text(e)),
            "field_expression" => e.field("value")?,
            "call_expression" => e.field("function")?,
            "try_expression"
            | "await_expression"
            | "reference_expression"
            | "parenthesized_expression"
            | "unary_expression"
            | "index_expression" => e.named_child(0)?,
            _ => return None,
        };
    }
}

/// Whether the patterns of an `if` condition's `let`s (`if let Some(x) = o && let …`) bind `name`.
fn condition_binds(b: &Builder, condition: Node, name: &str) -> bool {
    match condition.kind_str() {
        "let_condition" => condition.field("pattern").is_some_and(|p| binds(b, p, name)),
        "let_chain" => named_children(condition).into_iter().any(|c| condition_binds(b, c, name)),
        _ => false,
    }
}

/// Whether a pattern binds `name`.
fn binds(b: &Builder, pattern: Node, name: &str) -> bool {
    let mut cursor = pattern.walk();
    let mut stack = vec![pattern];
    while let Some(n) = stack.pop() {
        if n.kind_str() == "identifier" && b.text(n) == name {
            return true;
        }
        stack.extend(n.named_children(&mut cursor));
    }
    false
}

/// The name a macro invocation calls, without its path (`std::vec!` is `vec`).
fn macro_name<'s>(b: &Builder<'s>, call: Node) -> Option<&'s str> {
    b.text(call.field("macro")?).rsplit("::").next()
}

/// Whether an expression never gives a value: `return`, `break`, `continue`, `panic!(…)`, or a
/// block ending in one.
fn diverges(b: &Builder, e: Node) -> bool {
    match e.kind_str() {
        "return_expression" | "break_expression" | "continue_expression" => true,
        "macro_invocation" => matches!(macro_name(b, e), Some("panic" | "unreachable" | "todo" | "unimplemented")),
        "expression_statement" => e.named_child(0).is_some_and(|x| diverges(b, x)),
        "block" => {
            named_children(e).into_iter().rfind(|c| !c.kind_str().ends_with("comment")).is_some_and(|x| diverges(b, x))
        }
        _ => false,
    }
}

fn expr(b: &mut Builder, node: Node) {
    if !b.descend() {
        return;
    }
    match node.kind_str() {
        "identifier" | "self" => b.add_ref(vec![b.seg(node)], false, false),
        "scoped_identifier" | "field_expression" | "generic_function" => reference(b, node, false),
        "type_identifier" | "scoped_type_identifier" | "generic_type" | "reference_type" => ty(b, node),
        "call_expression" => {
            if let Some(func) = node.field("function") {
                if matches!(
                    func.kind_str(),
                    "identifier" | "scoped_identifier" | "field_expression" | "generic_function"
                ) {
                    reference(b, func, true);
                } else {
                    expr(b, func);
                }
            }
            // (The arguments of the calls inside a chain are walked by the chain driver, with
            // the same function.)
            if let Some(args) = node.field("arguments") {
                call_arguments(b, node, args);
            }
        }
        "struct_expression" => {
            let path = node.field("name").and_then(|n| path_segments(b, n));
            // `Point { x: 1, y }`: the field names are the struct's fields.
            let receiver = path.as_ref().map(|p| Receiver {
                base: ReceiverBase::Value(LocalOrigin::Constructed(p.iter().map(|s| s.0.clone()).collect())),
                members: Vec::new(),
            });
            if let Some(segs) = path {
                b.add_path(segs, false);
            }
            if let Some(body) = node.field("body") {
                for field in named_children(body) {
                    match field.kind_str() {
                        "field_initializer" => {
                            if let (Some(name), Some(r)) = (field.field("field"), &receiver) {
                                if name.kind_str() == "field_identifier" {
                                    b.add_member_ref(b.seg(name), false, r.clone());
                                }
                            }
                            if let Some(value) = field.field("value") {
                                expr(b, value);
                            }
                        }
                        "shorthand_field_initializer" => {
                            if let (Some(name), Some(r)) = (field.named_child(0), &receiver) {
                                b.add_member_ref(b.seg(name), false, r.clone());
                            }
                            expr(b, field);
                        }
                        _ => expr(b, field),
                    }
                }
            }
        }
        "let_declaration" => {
            let value = node.field("value");
            let t = node.field("type");
            if let Some(t) = t {
                ty(b, t);
            }
            if let Some(value) = value {
                expr(b, value);
            }
            if let Some(alt) = node.field("alternative") {
                expr(b, alt);
            }
            let declared = t.and_then(|t| type_path(b, t)).map(LocalOrigin::Declared);
            let pattern = node.field("pattern");
            match (pattern, value) {
                // `let (a, b) = (vec![], Vec::new())`: each name is bound by its own expression.
                (Some(pattern), Some(value))
                    if declared.is_none()
                        && pattern.kind_str() == "tuple_pattern"
                        && value.kind_str() == "tuple_expression"
                        && pattern_elements(pattern).len() == pattern_elements(value).len() =>
                {
                    for (p, v) in pattern_elements(pattern).into_iter().zip(pattern_elements(value)) {
                        let origin = local_origin(b, v);
                        pattern_bind(b, p, origin);
                    }
                }
                (Some(pattern), _) => {
                    let origin = declared.or_else(|| value.map(|v| local_origin(b, v))).unwrap_or(LocalOrigin::Unknown);
                    pattern_bind(b, pattern, origin);
                }
                _ => {}
            }
        }
        // What `if let` and `while let` bind is seen by the rest of the condition and the body
        // only, not by an `else` or what follows.
        "if_expression" | "while_expression" => {
            b.block(|b| {
                for part in ["condition", "consequence", "body"].into_iter().filter_map(|f| node.field(f)) {
                    expr(b, part);
                }
            });
            if let Some(alternative) = node.field("alternative") {
                expr(b, alternative);
            }
        }
        // The loop's pattern binds an element of the value, seen by its body only.
        "for_expression" => b.block(|b| {
            bind_value(b, node, |o| match o {
                LocalOrigin::Unknown => LocalOrigin::Unknown,
                o => LocalOrigin::Element(Box::new(o)),
            });
            if let Some(body) = node.field("body") {
                expr(b, body);
            }
        }),
        // `if let PAT = value`: the value, taken apart by PAT.
        "let_condition" => bind_value(b, node, |o| o),
        "match_expression" => {
            let value = node.field("value");
            if let Some(value) = value {
                expr(b, value);
            }
            let origin = value.map_or(LocalOrigin::Unknown, |v| local_origin(b, v));
            if let Some(body) = node.field("body") {
                for arm in named_children(body) {
                    match arm.kind_str() {
                        "match_arm" => match_arm(b, arm, &origin),
                        _ => expr(b, arm),
                    }
                }
            }
        }
        "match_arm" => match_arm(b, node, &LocalOrigin::Unknown),
        "closure_expression" => closure(b, node, &|_| LocalOrigin::Unknown),
        "block" => b.block(|b| named_children(node).into_iter().for_each(|c| expr(b, c))),
        "macro_invocation" => macro_invocation(b, node, false),
        "function_item" | "struct_item" | "enum_item" | "impl_item" | "trait_item" | "mod_item" | "use_declaration"
        | "const_item" | "static_item" | "type_item" | "macro_definition" => item(b, node),
        "field_identifier" | "string_literal" | "raw_string_literal" | "char_literal" | "integer_literal"
        | "float_literal" | "boolean_literal" | "line_comment" | "block_comment" | "attribute_item" | "lifetime"
        | "label" | "primitive_type" => {}
        _ => named_children(node).into_iter().for_each(|c| expr(b, c)),
    }
    b.ascend();
}

/// Walks the `value` of a `for` or `let` condition and binds its `pattern` to what `taken` makes
/// of the value's origin.
fn bind_value(b: &mut Builder, node: Node, taken: impl FnOnce(LocalOrigin) -> LocalOrigin) {
    let value = node.field("value");
    if let Some(value) = value {
        expr(b, value);
    }
    let origin = value.map_or(LocalOrigin::Unknown, |v| local_origin(b, v));
    if let Some(pattern) = node.field("pattern") {
        pattern_bind(b, pattern, taken(origin));
    }
}

/// A call's arguments. A closure passed to a method or to a function called by its name has its
/// untyped parameters typed as the callee's callback parameters (`LocalOrigin::Callback`): the
/// resolver gives a standard adaptor's closure the receiver's elements (`items.iter().filter(|a|
/// …)`), a function's the types its parameter declares (`run(tests, |test| …)` of `fn run<F:
/// FnMut(&Test)>(tests: &[Test], f: F)`). A path (`T::f(x, |a| …)`) may name a method called
/// with its receiver as the first argument, so its arguments are not counted.
fn call_arguments(b: &mut Builder, call: Node, args: Node) {
    let args = named_children(args);
    // The callee's chain only when a closure needs it: reading it walks the chain below, once per
    // call of a long chain (`a.b().c()…`) would be quadratic.
    let callee = args
        .iter()
        .any(|a| a.kind_str() == "closure_expression")
        .then(|| call.field("function").filter(|f| matches!(f.kind_str(), "field_expression" | "identifier")))
        .flatten()
        .and_then(|f| CHAIN.called_names(b, f));
    for (i, arg) in args.into_iter().enumerate() {
        match &callee {
            Some((segments, calls_at)) if arg.kind_str() == "closure_expression" => {
                let callee: Vec<String> = segments.iter().map(|s| s.0.clone()).collect();
                let origin = |param: u32| LocalOrigin::Callback {
                    callee: callee.clone(),
                    calls_at: calls_at.clone(),
                    construct: false,
                    arg: i as u32,
                    param,
                };
                if b.descend() {
                    closure(b, arg, &origin);
                    b.ascend();
                }
            }
            _ => expr(b, arg),
        }
    }
}

/// A closure: its parameters are locals (of their declared type, else `untyped(i)`), seen only in
/// its body.
fn closure(b: &mut Builder, node: Node, untyped: &dyn Fn(u32) -> LocalOrigin) {
    b.block(|b| closure_scope(b, node, untyped));
}

fn closure_scope(b: &mut Builder, node: Node, untyped: &dyn Fn(u32) -> LocalOrigin) {
    if let Some(params) = node.field("parameters") {
        for (i, p) in named_children(params).into_iter().enumerate() {
            match p.kind_str() {
                "parameter" => {
                    let declared = p.field("type");
                    let origin =
                        declared.and_then(|t| type_path(b, t)).map_or_else(|| untyped(i as u32), LocalOrigin::Declared);
                    if let Some(pattern) = p.field("pattern") {
                        pattern_bind(b, pattern, origin);
                    }
                    if let Some(t) = declared {
                        ty(b, t);
                    }
                }
                _ => pattern_bind(b, p, untyped(i as u32)),
            }
        }
    }
    if let Some(body) = node.field("body") {
        expr(b, body);
    }
}

/// Keywords that start an item: a macro body beginning with one of them is parsed as items.
const ITEM_STARTS: [&str; 15] = [
    "pub",
    "fn",
    "struct",
    "enum",
    "trait",
    "impl",
    "mod",
    "use",
    "const",
    "static",
    "type",
    "async",
    "unsafe",
    "#[",
    "macro_rules!",
];

/// Whether a macro body's text (after its opening delimiter and comments) starts with an item.
fn holds_items(text: &str) -> bool {
    ITEM_STARTS.iter().any(|k| text.starts_with(k))
}

/// The code a `macro_rules!` writes (each rule's transcriber), read as code where it parses:
/// `builder.match_kind(MatchKind::$kind)` is a method of the builder its template made. Nothing in
/// it is declared (`fn $name()` is named at each use); its functions' and statements' locals are
/// its own, and a metavariable is a name of nothing.
///
/// A rule that takes no input, or only attributes (`($(#[$doc:meta])*) => { $(#[$doc])* pub
/// struct Regex<A> { … } }`), and writes items (`macro_rules! crate_root { () => { mod lib { … }
/// pub mod de; } }`) writes the same items wherever it is invoked: they are read as this file's
/// items (the attributes it is given left out), marked as the template's
/// (`FileFacts::templates`), and are the invoking module's.
///
/// Other rules' sites are the macro's (`symbol`): a metavariable in them (`$m::Finder::$cons(b)`)
/// stands for what the macro's invocations give it (`Resolver::bound_paths`, across files).
fn macro_templates(b: &mut Builder, node: Node, symbol: Option<u32>) {
    let name = node.field("name").map(|n| b.text(n));
    for (r, rule) in named_children(node).into_iter().filter(|r| r.kind_str() == "macro_rule").enumerate() {
        let Some(right) = rule.field("right") else { continue };
        let before = b.facts.refs.len();
        let taken = rule.field("left").and_then(|l| attributes_taken(b.text(l)));
        let template = taken.and_then(|names| without_attributes_given(b.text(right), &names));
        let writes_items = template.as_ref().is_some_and(|t| holds_items(skip_comments(t.get(1..).unwrap_or(""))));
        let items_tree = name.filter(|_| writes_items).and(template).and_then(|t| parse_range_as(b, right, &t));
        if let (Some(name), Some(tree)) = (name, &items_tree) {
            let before = b.facts.mods.len();
            items(b, tree.root_node());
            for m in &mut b.facts.mods[before..] {
                m.template = Some(name.to_string());
            }
            if !b.facts.templates.iter().any(|t| t == name) {
                b.facts.templates.push(name.to_string());
            }
        } else if let Some(tree) = parse_range_as(b, right, &metavariables_as_names(b.text(right))) {
            // The template's sites are in the macro's scope: where its metavariables are looked up.
            let read = |b: &mut Builder| b.function_body(|b| template_parts(b, tree.root_node(), 0));
            match symbol {
                Some(symbol) => b.within(symbol, read),
                None => read(b),
            }
        }
        // The metavariables written in the template more often than its sites read them, and
        // those not bound by position that it writes at all.
        let Some(rules) = b.facts.macro_rules.last_mut().filter(|m| Some(m.symbol) == symbol) else { continue };
        let Some(read) = rules.rules.get_mut(r) else { continue };
        let sites = &b.facts.refs[before..];
        let text = b.src.get(right.byte_range()).unwrap_or("");
        for (i, m) in read.metavariables.iter().enumerate() {
            let written = metavariables_in(text).filter(|w| *w == m).count();
            let seen = sites.iter().flat_map(|c| &c.segments).filter(|s| s.0 == *m).count();
            if written > seen || (i >= read.positional as usize && written > 0) {
                read.unread.push(m.clone());
            }
        }
    }
}

/// The parts of a template read as code: its functions' bodies, its statements, and the items an
/// invocation in it is given (`quickcheck! { fn prop(…) -> bool { … } }`), to `MAX_TYPE_NESTING`
/// invocations deep.
fn template_parts(b: &mut Builder, parent: Node, depth: usize) {
    for part in named_children(parent) {
        match part.kind_str() {
            "function_item" => template_function(b, part, &[]),
            // `impl $name { fn new() … }`: its functions' bodies.
            "impl_item" => {
                let bounds = type_param_bounds(b, part);
                let body = part.field("body").map(named_children).unwrap_or_default();
                for f in body.into_iter().filter(|f| f.kind_str() == "function_item") {
                    template_function(b, f, &bounds);
                }
            }
            "let_declaration" | "expression_statement" => expr(b, part),
            "macro_invocation" if depth < MAX_TYPE_NESTING => {
                let Some(tt) = named_children(part).into_iter().find(|c| c.kind_str() == "token_tree") else {
                    continue;
                };
                if !holds_items(skip_comments(b.text(tt).get(1..).unwrap_or(""))) {
                    continue;
                }
                if let Some(segs) = part.field("macro").and_then(|m| path_segments(b, m)) {
                    b.add_macro_path(segs);
                }
                if let Some(tree) = parse_range_as(b, tt, &metavariables_as_names(b.text(tt))) {
                    template_parts(b, tree.root_node(), depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// A transcriber's text with each metavariable read as a name of the same length (`$cons` as
/// `_cons`), so that it parses where the grammar takes no metavariable (`$m::Finder::$cons(b)`):
/// the name's text is still the file's, `$cons`. `$crate` and repetitions (`$(…)*`) are left.
fn metavariables_as_names(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let named = after.starts_with(|c: char| c.is_alphabetic() || c == '_') && !after.starts_with("crate");
        out.push(if named { '_' } else { '$' });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// A `macro_rules!` rule's matcher (its text, delimiters included), as the metavariables it binds.
fn macro_rule(matcher: &str) -> MacroRule {
    let (positional, exact) = flat_metavariables(matcher).map_or((0, false), |(names, exact)| (names.len(), exact));
    let mut metavariables: Vec<String> = Vec::new();
    for m in metavariables_in(matcher) {
        if !metavariables.iter().any(|known| known == m) {
            metavariables.push(m.to_string());
        }
    }
    // The positional ones come first, in order, as the matcher lists them.
    MacroRule { metavariables, positional: positional as u32, exact, unread: Vec::new() }
}

/// Each metavariable written in a matcher or transcriber, as written (`$cons`), in order.
fn metavariables_in(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('$').filter_map(|(at, _)| {
        let rest = &text[at + 1..];
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        (end > 0).then(|| &text[at..=at + end])
    })
}

/// The macro invocations the file's text holds (`name!(…)`, `a::name! { … }`), wherever the parse
/// put them: in code, and as tokens in other macros' arguments and templates
/// (`FileFacts::invocations`), one entry per distinct (name, scope, arguments). A name imported
/// under another (`use a::m as n;`) is written as an invocation of the name that can't be read,
/// since its invocations are spelled otherwise.
fn invocations(b: &mut Builder, root: Node) {
    let src = b.src.as_bytes();
    let mut scopes = ScopesAround::new(&b.facts.symbols);
    // The chains of one name, by where it is written: an argument given alone is marked.
    let mut names: std::collections::HashMap<Pos, usize> = std::collections::HashMap::new();
    for (k, chain) in b.facts.refs.iter().enumerate() {
        if let [(_, pos)] = chain.segments.as_slice() {
            names.entry(*pos).or_insert(k);
        }
    }
    let mut found: Vec<Invocation> = Vec::new();
    let mut seen: std::collections::HashSet<Invocation> = std::collections::HashSet::new();
    for bang in memchr::memchr_iter(b'!', src) {
        let start = src[..bang].iter().rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_')).map_or(0, |p| p + 1);
        if start == bang || src[start].is_ascii_digit() {
            continue;
        }
        let Some(open) = delimiter_after(src, bang) else { continue };
        let Some(id) = root.descendant_for_byte_range(start, bang) else { continue };
        if id.kind_str() != "identifier" || id.start_byte() != start || id.end_byte() != bang {
            continue;
        }
        let Some(tt) = invoked_tree(root, open) else { continue };
        let name = b.text(id);
        if name == "macro_rules" {
            continue;
        }
        let scope = scopes.innermost(b.pos(id));
        let mut cursor = tt.walk();
        let tokens: Vec<Node> = tt.children(&mut cursor).collect();
        let groups = argument_groups(&tokens);
        let given = groups.as_ref().map_or(0, Vec::len) as u32;
        for (index, group) in groups.iter().flatten().enumerate() {
            let [one] = group else { continue };
            let Some(&k) = names.get(&b.pos(*one)).filter(|_| one.kind_str() == "identifier") else { continue };
            let argument = MacroArgument { name: name.to_string(), index: index as u32, given };
            b.facts.refs[k].argument = Some(Box::new(argument));
        }
        let arguments = groups.map(|g| g.iter().map(|group| argument_path(b, group)).collect());
        let call = Invocation { name: name.to_string(), scope, arguments };
        if seen.insert(call.clone()) {
            found.push(call);
        }
    }
    for imp in &b.facts.imports {
        for item in imp.items.iter().filter(|i| !i.alias.is_empty() && i.alias != i.name) {
            let call = Invocation { name: item.name.clone(), scope: imp.scope, arguments: None };
            if seen.insert(call.clone()) {
                found.push(call);
            }
        }
    }
    b.facts.invocations = found;
}

/// The symbols whose names a position's paths are read among (modules, functions, macros), asked
/// in the order of the file: those around the last position asked are stacked (they nest).
struct ScopesAround {
    /// (start, end, symbol), in the order they start.
    sorted: Vec<(Pos, Pos, u32)>,
    next: usize,
    /// (end, symbol) of those around, the innermost last.
    around: Vec<(Pos, u32)>,
}

impl ScopesAround {
    fn new(symbols: &[crate::facts::Symbol]) -> ScopesAround {
        let scoping = |k: SymbolKind| {
            matches!(k, SymbolKind::Module | SymbolKind::Function | SymbolKind::Method | SymbolKind::Macro)
        };
        let mut sorted: Vec<(Pos, Pos, u32)> = symbols
            .iter()
            .enumerate()
            .filter(|(_, sym)| scoping(sym.kind))
            .map(|(i, sym)| (sym.start, sym.end, i as u32))
            .collect();
        sorted.sort_by_key(|&(start, _, i)| (start, i));
        ScopesAround { sorted, next: 0, around: Vec::new() }
    }

    /// The innermost symbol around `at`, no earlier than the position asked before.
    fn innermost(&mut self, at: Pos) -> Option<u32> {
        while let Some(&(start, end, s)) = self.sorted.get(self.next).filter(|(start, ..)| *start <= at) {
            self.next += 1;
            if end >= at {
                self.around.retain(|&(e, _)| e >= start);
                self.around.push((end, s));
            }
        }
        self.around.retain(|&(end, _)| end >= at);
        self.around.last().map(|&(_, s)| s)
    }
}

/// Where the delimiter of a macro's arguments is after its `!` at `bang` (`name!(…)`, `name! { … }`);
/// `None` when the `!` is followed by something else (`x!= y`).
fn delimiter_after(src: &[u8], bang: usize) -> Option<usize> {
    let open = bang + 1 + src.get(bang + 1..)?.iter().position(|c| !c.is_ascii_whitespace())?;
    matches!(src[open], b'(' | b'[' | b'{').then_some(open)
}

/// The token tree a macro name is invoked with, opened at `open` (`delimiter_after`): parsed as an
/// invocation or written as tokens inside another macro's. Found by position: a node's parent is a
/// walk down from the root.
fn invoked_tree(root: Node, open: usize) -> Option<Node> {
    // The smallest node holding the delimiter and the byte after it is the tree it opens.
    let tt = root.descendant_for_byte_range(open, open + 2)?;
    (tt.kind_str() == "token_tree" && tt.start_byte() == open).then_some(tt)
}

/// A token tree's arguments, separated by commas (a trailing one allowed; those between `<` and
/// `>` separate a type's arguments), as their tokens. `None` when a `<` is not closed.
fn argument_groups<'t>(tokens: &'t [Node<'t>]) -> Option<Vec<&'t [Node<'t>]>> {
    let inner = tokens.get(1..tokens.len().checked_sub(1)?)?;
    let mut groups: Vec<&[Node]> = Vec::new();
    let (mut depth, mut from) = (0i64, 0);
    for (i, t) in inner.iter().enumerate() {
        match t.kind_str() {
            "<" => depth += 1,
            ">" => depth -= 1,
            ">>" => depth -= 2,
            "," if depth == 0 => {
                groups.push(&inner[from..i]);
                from = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    if depth != 0 {
        return None;
    }
    groups.push(&inner[from..]);
    if groups.last().is_some_and(|g| g.is_empty()) {
        groups.pop();
    }
    Some(groups)
}

/// An argument's path (`super`, `a::B`, `$m`); empty when it is anything else.
fn argument_path(b: &Builder, group: &[Node]) -> Vec<String> {
    let path = || -> Option<Vec<String>> {
        let mut path = Vec::new();
        for (i, t) in group.iter().enumerate() {
            let name = matches!(t.kind_str(), "identifier" | "self" | "super" | "crate" | "metavariable");
            match (i % 2, t.kind_str()) {
                (0, _) if name => path.push(b.text(*t).to_string()),
                (1, "::") => {}
                _ => return None,
            }
        }
        (group.len() % 2 == 1).then_some(path)
    };
    path().unwrap_or_default()
}

/// A function a template writes: its body, its parameters and type parameters its locals.
fn template_function(b: &mut Builder, f: Node, owner_bounds: &[(String, Vec<String>)]) {
    let mut bounds = type_param_bounds(b, f);
    bounds.extend_from_slice(owner_bounds);
    b.function_body(|b| function_inside(b, f, &bounds));
}

/// The metavariables of a matcher that is a list of names, types or paths separated by commas
/// (`($name:ident, $err:ident,)`, a trailing `$(,)?` allowed), and whether that is all of it
/// (`false`: a repetition ends it, `($ty:ident, $($n:ident),+)`); `None` for any other matcher.
fn flat_metavariables(matcher: &str) -> Option<(Vec<String>, bool)> {
    let inside = matcher_inside(matcher)?;
    let inner = inside.strip_suffix("$(,)?").unwrap_or(&inside);
    let (inner, exact) = match inner.find("$(") {
        Some(at) if at == 0 || inner[..at].ends_with(',') => (&inner[..at], false),
        Some(_) => return None,
        None => (inner, true),
    };
    let mut names = Vec::new();
    for part in inner.split(',').filter(|p| !p.is_empty()) {
        let (name, fragment) = part.strip_prefix('$')?.split_once(':')?;
        let plain = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !plain || !matches!(fragment, "ident" | "ty" | "path") {
            return None;
        }
        names.push(name.to_string());
    }
    (!names.is_empty()).then_some((names, exact))
}

fn macro_invocation(b: &mut Builder, node: Node, item_level: bool) {
    b.in_inner_trees(|b| macro_body(b, node, item_level));
}

/// A macro invocation's name, then its body: items, blocks of items, an expression, or names.
fn macro_body(b: &mut Builder, node: Node, item_level: bool) {
    if let Some(name) = node.field("macro") {
        if let Some(segs) = path_segments(b, name) {
            b.add_macro_path(segs);
        }
    }
    let Some(tt) = named_children(node).into_iter().find(|c| c.kind_str() == "token_tree") else { return };
    let inner = skip_comments(b.text(tt).get(1..b.text(tt).len().saturating_sub(1)).unwrap_or(""));
    if item_level && only_attributes(inner) {
        // `crate_root!();`: the items of an argument-less template are this module's, as are
        // those of one given attributes only (`define_regex_type!(/// docs …)`).
        if let Some(name) = macro_name(b, node) {
            b.facts.splices.push(name.to_string());
        }
        return;
    }
    if item_level && holds_items(inner) {
        if let Some(tree) = parse_range(b, tt) {
            items(b, tree.root_node());
            return;
        }
    }
    // `cfg_if! { if #[cfg(unix)] { mod unix; pub use unix::*; } else { … } }`: a macro whose own
    // syntax holds blocks of items declares the items of every block (which one a build compiles is
    // a matter of configuration, as for `#[cfg]` items); the syntax around them is not code.
    if item_level {
        // Each block's branch: `if #[cfg(p)] { … }` is left out where `p` is false, an `else`
        // branch where an earlier condition of its chain is true.
        let mut blocks: Vec<(tree_sitter::Tree, bool)> = Vec::new();
        let (mut condition, mut taken) = (None, false);
        for t in named_children(tt) {
            if t.kind_str() != "token_tree" {
                continue;
            }
            let text = b.text(t);
            if text.starts_with('[') {
                condition = cfg_predicate(text);
                continue;
            }
            if !text.starts_with('{') {
                continue;
            }
            let left_out = taken || condition == Some(false);
            taken |= condition == Some(true);
            condition = None;
            let Some(tree) = parse_range(b, t) else { continue };
            let root = tree.root_node();
            if holds_items(skip_comments(&text[1..])) || (root.named_child_count() > 0 && !root.has_error()) {
                blocks.push((tree, left_out));
            }
        }
        if !blocks.is_empty() {
            for (tree, left_out) in blocks {
                b.configured(left_out, |b| items(b, tree.root_node()));
            }
            return;
        }
    }
    // Names, literals, paths, calls and operators between them read the same as tokens as parsed;
    // only what a parse gives structure to (method and field chains, closures, struct literals,
    // blocks, nested macros, generic paths) is worth parsing the arguments for.
    if plain_tokens(b, tt) {
        return token_tree(b, tt);
    }
    if let Some(tree) = parse_arguments(b, tt) {
        if let Some(arguments) = argument_expression(&tree) {
            expr(b, arguments);
            return;
        }
    }
    token_tree(b, tt);
}

/// Whether a macro's arguments hold only names, literals, paths, calls and arithmetic or logical
/// operators (in parenthesised or bracketed groups): tokens whose names the token walk records
/// exactly as walking their parse would.
fn plain_tokens(b: &Builder, tt: Node) -> bool {
    let mut cursor = tt.walk();
    let plain = tt.children(&mut cursor).all(|t| match t.kind_str() {
        "token_tree" => matches!(b.text(t).as_bytes().first(), Some(b'(' | b'[')) && plain_tokens(b, t),
        "identifier" => !matches!(
            b.text(t),
            "let"
                | "match"
                | "if"
                | "else"
                | "loop"
                | "while"
                | "for"
                | "in"
                | "move"
                | "as"
                | "return"
                | "break"
                | "continue"
                | "unsafe"
                | "async"
                | "await"
                | "fn"
                | "impl"
                | "dyn"
                | "ref"
                | "where"
                | "pub"
                | "Self"
                | "static"
                | "const"
                | "struct"
                | "enum"
                | "type"
                | "use"
                | "mod"
                | "trait"
                | "yield"
        ),
        "self" | "crate" | "super" | "string_literal" | "raw_string_literal" | "char_literal" | "integer_literal"
        | "float_literal" | "boolean_literal" | "(" | ")" | "[" | "]" | "," | "::" | "&" | "*" | "-" | "+" | "/"
        | "%" | "==" | "!=" | "&&" | "^" => true,
        _ => false,
    });
    plain
}

/// Parses an expression macro's arguments as the expression their delimiters make of them — a
/// tuple (`assert_eq!(a.len(), b)`), a parenthesised expression (`assert!(x.is_ok())`), an array
/// (`vec![x.f()]`), a block — at the file's own byte offsets, so that method calls in them are
/// chains like any other. The parser reads `fn f(){` in place of the 7 bytes before the token tree
/// and `;}` after it (served by the read callback, the file untouched). None when the arguments
/// don't parse as one expression (a macro's own syntax: `select! { … }`, `test!(IPv4 ttl, …)`):
/// then its tokens are read as names.
fn parse_arguments(b: &Builder, tt: Node) -> Option<tree_sitter::Tree> {
    if never_an_expression(b, tt) {
        return None;
    }
    parse_as_expression(b, tt)
}

/// `parse_arguments`'s parse, asked of any token tree.
fn parse_as_expression(b: &Builder, tt: Node) -> Option<tree_sitter::Tree> {
    const OPEN: &[u8] = b"fn f(){";
    const CLOSE: &[u8] = b";}";
    let (start, end) = (tt.start_byte(), tt.end_byte());
    let from = start.checked_sub(OPEN.len())?;
    let src = b.src.as_bytes();
    if end <= start + 2 || end > src.len() {
        return None;
    }
    let at = tt.start_position();
    let stop = tt.end_position();
    let range = Range {
        start_byte: from,
        end_byte: end + CLOSE.len(),
        // Points are not read (positions come from byte offsets): the row of the token tree.
        start_point: tree_sitter::Point { row: at.row, column: at.column.saturating_sub(OPEN.len()) },
        end_point: tree_sitter::Point { row: stop.row, column: stop.column + CLOSE.len() },
    };
    // A metavariable of a macro's transcriber (`$p`) is read as a name (`_p`); `$crate` is left
    // as written (no parse: its tokens are read as names, `$crate::x` a path).
    let mut read = |i: usize, _| -> &[u8] {
        match i {
            _ if i < from => &[],
            _ if i < start => &OPEN[i - from..],
            _ if i < end && src[i] == b'$' && !src[i + 1..end].starts_with(b"crate") => b"_",
            _ if i < end && src[i] == b'$' => &src[i..=i],
            _ if i < end => &src[i..src[i + 1..end].iter().position(|&c| c == b'$').map_or(end, |d| i + 1 + d)],
            _ if i < end + CLOSE.len() => &CLOSE[i - end..],
            _ => &[],
        }
    };
    // Arguments that are not one expression are read as names, so the parse stops at the first
    // error instead of recovering through the rest of a macro's own syntax (most of the time such
    // a parse took: tree-sitter tries every symbol of the grammar at each error).
    let mut stop_at_error = |state: &tree_sitter::ParseState| {
        if state.has_error() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut stop_at_error);
    let tree = with_range_parser(&range, |parser| parser.parse_with_options(&mut read, None, Some(options)))?;
    (!tree.root_node().has_error()).then_some(tree)
}

/// Operators that only join two operands: no expression starts with one.
const BINARY_ONLY: &[&str] = &[
    ",", "=", ":", "+", ">", "/", "%", "^", ".", "?", "==", "!=", ">=", "<=", "+=", "-=", "*=", "/=", "%=", "^=", "&=",
    "|=", "<<=", ">>=", ">>",
];

/// Tokens no expression or statement ends with: an operator still waiting for its operand, or a
/// keyword that starts an expression and needs what follows it (`Token![<]`, `Token![const]`,
/// `$( $tt )*` read as `_(_tt)*`). Other keywords are names to tree-sitter where no item can start
/// (`Token![fn]` parses).
const NEVER_LAST: &[&str] = &[
    "!", "+", "-", "*", "/", "%", "^", "&", "|", "&&", "||", "<", "=", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=",
    "%=", "^=", "&=", "|=", "<<=", ">>=", "<<", "::", ":", ".", "->", "#", "const", "unsafe", "static", "async",
    "loop", "if", "match", "while", "for",
];

/// Whether a token tree's tokens can't be an expression (or, in braces, a block's statements), so
/// that parsing them as one would fail — the costliest parse there is, as tree-sitter tries every
/// symbol of the grammar while it recovers. Between the delimiters:
/// - a token no expression has there: `=>` (a macro's arms), `@` (a pattern's binding), `#` before
///   anything but `[` or `!` (`quote!`'s `#x`), `;` in parentheses or twice in brackets (`vec![x; n]`
///   has one);
/// - a first token that can't start one (`BINARY_ONLY`: `Token![,]`), a last that can't end one
///   (`NEVER_LAST`);
/// - outside braces (where a block's `let x: T` and `fn f() -> T` are), a `:` or `->` outside
///   generic arguments and before any closure's `|` or a cast's `as`: `assert_value!(T: Send)`,
///   `method!(f(u8) -> Ok)`; a label's `:` (`'a: loop {}`) is an expression's.
fn never_an_expression(b: &Builder, tt: Node) -> bool {
    let delimiter = b.text(tt).as_bytes().first().copied();
    let all = super::children(tt);
    let inner = all.get(1..all.len().saturating_sub(1)).unwrap_or_default();
    let braces = delimiter == Some(b'{');
    let kind = |i: usize| inner.get(i).map_or("", |t| t.kind_str());
    let first = kind(0);
    // `[,]` is an empty array to tree-sitter.
    let empty_array = delimiter == Some(b'[') && first == "," && inner.len() == 1;
    if (BINARY_ONLY.contains(&first) && !empty_array) || (first == ";" && !braces) {
        return true;
    }
    if inner.last().is_some_and(|t| NEVER_LAST.contains(&t.kind_str())) {
        return true;
    }
    let mut semicolons = 0;
    // Open `<` of generic arguments (a comparison's `>` never takes it below 0), and whether a
    // closure's parameters or a cast's type came first: a `:` or `->` is theirs.
    let (mut angles, mut typed) = (0usize, false);
    for (i, t) in inner.iter().enumerate() {
        let never = match t.kind_str() {
            "=>" | "@" => true,
            "#" => !inner.get(i + 1).is_some_and(|n| b.text(*n).starts_with(['[', '!'])),
            ";" => {
                semicolons += 1;
                delimiter == Some(b'(') || (delimiter == Some(b'[') && semicolons > 1)
            }
            "<" => {
                angles += 1;
                false
            }
            "<<" => {
                angles += 2;
                false
            }
            ">" => {
                angles = angles.saturating_sub(1);
                false
            }
            ">>" => {
                angles = angles.saturating_sub(2);
                false
            }
            "|" | "||" | "as" => {
                typed = true;
                false
            }
            ":" => {
                let label = i >= 2 && kind(i - 1) == "identifier" && kind(i - 2) == "'";
                !braces && angles == 0 && !typed && !label
            }
            "->" => !braces && angles == 0 && !typed,
            _ => false,
        };
        if never {
            return true;
        }
    }
    false
}

/// The expression `parse_arguments` parsed: `fn f(){ <arguments>; }`'s body's one statement's.
fn argument_expression(tree: &tree_sitter::Tree) -> Option<Node<'_>> {
    let function = tree.root_node().named_child(0)?;
    function.field("body")?.named_child(0)?.named_child(0)
}

/// The text after leading whitespace and comments (doc comments included).
fn skip_comments(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        if text.starts_with("//") {
            text = text.find('\n').map_or("", |i| &text[i + 1..]);
        } else if text.starts_with("/*") {
            text = text.find("*/").map_or("", |i| &text[i + 2..]);
        } else {
            return text;
        }
    }
}

/// Whether a macro's input (inside its delimiters) is nothing but comments and attributes.
fn only_attributes(mut input: &str) -> bool {
    loop {
        input = skip_comments(input);
        let Some(attribute) = input.strip_prefix("#[") else { return input.is_empty() };
        let mut depth = 1;
        let Some(end) = attribute.find(|c| {
            depth += match c {
                '[' => 1,
                ']' => -1,
                _ => 0,
            };
            depth == 0
        }) else {
            return false;
        };
        input = &attribute[end + 1..];
    }
}

/// A `macro_rules!` rule's matcher (its text, delimiters included) inside its delimiters, without
/// whitespace (`( $( #[$doc:meta] )* )` is `$(#[$doc:meta])*`); `None` without delimiters.
fn matcher_inside(matcher: &str) -> Option<String> {
    let compact: String = matcher.chars().filter(|c| !c.is_whitespace()).collect();
    compact.get(1..compact.len().checked_sub(1)?).map(str::to_string)
}

/// The metavariables of a `macro_rules!` rule's matcher (its text, delimiters included) when it
/// takes nothing but attributes: `()`, `($(#[$doc:meta])*)`, `(#[$attr:meta])`.
fn attributes_taken(matcher: &str) -> Option<Vec<String>> {
    let inside = matcher_inside(matcher)?;
    let mut rest = inside.as_str();
    let mut names = Vec::new();
    let metavariable = |s: &str| -> Option<usize> {
        let body = s.strip_prefix("#[$")?;
        let name = body.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
        (name > 0 && body[name..].starts_with(":meta]")).then_some(name)
    };
    while !rest.is_empty() {
        let repeated = rest.starts_with("$(");
        let at = if repeated { 2 } else { 0 };
        let name = metavariable(&rest[at..])?;
        names.push(rest[at + 3..at + 3 + name].to_string());
        rest = &rest[at + 3 + name + ":meta]".len()..];
        if repeated {
            rest = rest.strip_prefix(')')?.strip_prefix(['*', '+', '?'])?;
        }
    }
    Some(names)
}

/// A transcriber's text with the attributes its rule is given (`names`) blanked out
/// (`$(#[$doc])*`, `#[$attr]`; same length, so positions stay the file's); `None` when one of
/// them is used elsewhere. Other `$` (a nested `macro_rules!`'s, `$crate`) are left.
fn without_attributes_given(template: &str, names: &[String]) -> Option<String> {
    if names.is_empty() {
        return Some(template.to_string());
    }
    let mut out = template.as_bytes().to_vec();
    let given = |at: usize| {
        let word = template[at + 1..].split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("");
        names.iter().any(|n| n == word)
    };
    let mut i = 0;
    while let Some(d) = template[i..].find('$').map(|d| i + d) {
        i = d + 1;
        // `$(#[$doc])*` (the repetition), else `#[$attr]` (a `$` right inside `#[`).
        let blank = if template[d + 1..].starts_with('(') {
            // An attribute's repetition is short: its `)` is looked for nearby only (a crafted
            // template of nested `$(` costs no quadratic scan).
            let near = &template.as_bytes()[d + 2..template.len().min(d + 2 + 256)];
            let Some(close) = near.iter().position(|&c| c == b')').map(|c| d + 2 + c) else { continue };
            let inner: String = template[d + 2..close].chars().filter(|c| !c.is_whitespace()).collect();
            let attribute = inner.starts_with("#[$") && inner.ends_with(']') && inner.matches('[').count() == 1;
            if !(attribute && given(d + 2 + template[d + 2..].find('$')?)) {
                continue;
            }
            let after = close + 1 + template[close + 1..].find(|c: char| !c.is_whitespace())?;
            matches!(template.as_bytes()[after], b'*' | b'+' | b'?').then_some((d, after + 1))?
        } else if given(d) {
            let open = template[..d].trim_end().strip_suffix('[').map(str::trim_end).filter(|t| t.ends_with('#'))?;
            (open.len() - 1, d + template[d..].find(']')? + 1)
        } else {
            continue;
        };
        out[blank.0..blank.1].fill(b' ');
        i = blank.1;
    }
    String::from_utf8(out).ok()
}

/// `parse_range` of a token tree whose text is read as `text` (its own, edited to the same length).
fn parse_range_as(b: &Builder, tt: Node, text: &str) -> Option<tree_sitter::Tree> {
    if text == b.text(tt) {
        return parse_range(b, tt);
    }
    let (start, end) = (tt.start_byte(), tt.end_byte());
    let range = inside(tt)?;
    let mut read = |i: usize, _| -> &[u8] {
        if (start..end).contains(&i) {
            &text.as_bytes()[i - start..]
        } else {
            &[]
        }
    };
    with_range_parser(&range, |parser| parser.parse_with_options(&mut read, None, None))
}

/// The range inside a token tree's delimiters, in the file's byte and point coordinates.
fn inside(tt: Node) -> Option<Range> {
    if tt.end_byte() < tt.start_byte() + 2 {
        return None;
    }
    let start = tt.start_position();
    let end = tt.end_position();
    Some(Range {
        start_byte: tt.start_byte() + 1,
        end_byte: tt.end_byte() - 1,
        start_point: tree_sitter::Point { row: start.row, column: start.column + 1 },
        end_point: tree_sitter::Point { row: end.row, column: end.column.saturating_sub(1) },
    })
}

/// Parses the inside of a token tree as Rust items, keeping the file's byte and point coordinates.
fn parse_range(b: &Builder, tt: Node) -> Option<tree_sitter::Tree> {
    let range = inside(tt)?;
    with_range_parser(&range, |parser| parser.parse(b.src, None))
}

thread_local! {
    /// One Rust parser per thread for the ranges inside macros (a file may hold thousands).
    static RANGE_PARSER: std::cell::RefCell<Option<Parser>> = const { std::cell::RefCell::new(None) };
}

/// Runs `parse` with this thread's Rust parser limited to `range`.
fn with_range_parser(
    range: &Range,
    parse: impl FnOnce(&mut Parser) -> Option<tree_sitter::Tree>,
) -> Option<tree_sitter::Tree> {
    RANGE_PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&Language::Rust.grammar()).ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        parser.set_included_ranges(std::slice::from_ref(range)).ok()?;
        let tree = parse(parser);
        parser.reset();
        tree
    })
}

/// Names in a token tree of an expression macro (`assert_eq!(spawn_job(), x)`): a path followed by
/// a parenthesised group is a call; other paths are plain references.
fn token_tree(b: &mut Builder, tt: Node) {
    if !b.descend() {
        return;
    }
    let mut cursor = tt.walk();
    let tokens: Vec<Node> = tt.children(&mut cursor).collect();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        match t.kind_str() {
            "identifier" | "self" | "crate" | "super" => {
                let mut segs = vec![b.seg(t)];
                let mut j = i + 1;
                while j + 1 < tokens.len()
                    && matches!(tokens[j].kind_str(), "::" | ".")
                    && tokens[j + 1].kind_str() == "identifier"
                {
                    segs.push(b.seg(tokens[j + 1]));
                    j += 2;
                }
                let preceded_by_dot = i > 0 && tokens[i - 1].kind_str() == ".";
                let is_call =
                    tokens.get(j).is_some_and(|n| n.kind_str() == "token_tree" && b.text(*n).starts_with('('));
                let is_macro = tokens.get(j).is_some_and(|n| n.kind_str() == "!");
                // Keywords arrive as identifiers inside token trees.
                let keyword = matches!(
                    b.text(t),
                    "let"
                        | "mut"
                        | "ref"
                        | "fn"
                        | "if"
                        | "else"
                        | "match"
                        | "return"
                        | "in"
                        | "for"
                        | "while"
                        | "loop"
                        | "move"
                        | "as"
                        | "pub"
                        | "impl"
                        | "where"
                        | "async"
                        | "await"
                        | "dyn"
                        | "true"
                        | "false"
                );
                if !preceded_by_dot && !is_macro && !keyword {
                    let path_head = tokens.get(i + 1).is_some_and(|n| n.kind_str() == "::");
                    b.add_call_chain(segs, Vec::new(), is_call, path_head);
                }
                i = j;
            }
            "token_tree" => {
                token_tree(b, t);
                i += 1;
            }
            _ => i += 1,
        }
    }
    b.ascend();
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::*;
    use crate::lang::Language;

    #[test]
    fn a_template_given_only_attributes_is_read_without_them() {
        use super::{attributes_taken, without_attributes_given};
        assert_eq!(attributes_taken("()"), Some(vec![]));
        assert_eq!(attributes_taken("( $( #[$doc:meta] )* #[$at:meta] )"), Some(vec!["doc".into(), "at".into()]));
        assert_eq!(attributes_taken("($name:ident)"), None);
        assert_eq!(attributes_taken("($(#[$doc:meta])* $name:ident)"), None);
        let names = ["doc".to_string()];
        let template = "{ $(#[$doc])* #[cfg(x)] pub struct R; macro_rules! m { ($e:expr) => { $e } } }";
        let read = without_attributes_given(template, &names).expect("read");
        assert_eq!(read.len(), template.len());
        assert!(read.starts_with("{             #[cfg(x)] pub struct R;"), "{read}");
        assert!(read.ends_with("($e:expr) => { $e } } }"), "a nested macro's metavariables are its own");
        let attribute = without_attributes_given("{ #[$doc] struct S; }", &names).expect("read");
        assert_eq!(attribute, "{         struct S; }");
        assert_eq!(without_attributes_given("{ $(#[$doc])* fn $doc() {} }", &names), None);
    }

    #[test]
    fn invocations_are_read_wherever_the_text_holds_them() {
        let src = "use crate::m as renamed;\nmod a {\n    fn f() { m!(super, x::Y,); }\n    outer! { m!(b, Vec<(u8, u16)>, &[u8]) }\n}\nmacro_rules! t { ($p:ident) => { m!($p, name); }; }\nfn g() { m!(x < y, z); }\n// m!(in, a, comment)\n";
        let f = extract(Language::Rust, src);
        let named = |n: &str| f.symbols.iter().position(|s| s.name == n).map(|i| i as u32);
        let calls: Vec<String> =
            f.invocations.iter().map(|c| format!("{} {:?} {:?}", c.name, c.scope, c.arguments)).collect();
        let call = |scope: Option<u32>, arguments: &str| format!("m {scope:?} {arguments}");
        assert_eq!(
            calls,
            [
                call(named("f"), r#"Some([["super"], ["x", "Y"]])"#),
                format!("outer {:?} Some([[]])", named("a")),
                // In another macro's tokens; a type's commas are its own.
                call(named("a"), r#"Some([["b"], [], []])"#),
                // In a template, its metavariable.
                call(named("t"), r#"Some([["$p"], ["name"]])"#),
                // A `<` that is no type's: its arguments can't be told apart.
                call(named("g"), "None"),
                // Imported under another name: its invocations can't be found.
                call(None, "None"),
            ]
        );
        // A name given alone is marked as that argument of that macro.
        let given: Vec<(&str, u32, u32)> = f
            .refs
            .iter()
            .filter_map(|c| Some((c.segments[0].0.as_str(), c.argument.as_deref()?)))
            .map(|(n, a)| (n, a.index, a.given))
            .collect();
        assert!(given.contains(&("name", 1, 2)) && given.contains(&("b", 0, 3)), "{given:?}");
    }

    #[test]
    fn arguments_judged_never_an_expression_never_parse_as_one() {
        use super::{never_an_expression, parse_as_expression};
        use crate::extract::{Builder, Kind};
        #[derive(Debug, PartialEq)]
        enum Verdict {
            Parses,
            /// Fails, and is judged to without a parse.
            Never,
            /// Fails; only a parse tells.
            Fails,
        }
        use Verdict::*;
        // A macro's arguments, and how they fare when parsed as an expression or block.
        let cases = [
            ("(a.b(), c)", Parses),
            ("[x; n]", Parses),
            ("(x, y,)", Parses),
            ("[..]", Parses),
            ("[_]", Parses),
            ("[self]", Parses),
            ("[break]", Parses),
            ("(a?)", Parses),
            ("(a..)", Parses),
            ("(f::<T>)", Parses),
            ("(a > ::b)", Parses),
            ("(<T>::f(x))", Parses),
            ("(&&x)", Parses),
            ("(|x: u32| x)", Parses),
            ("(|| -> T { x })", Parses),
            ("(async move |x: T| x)", Parses),
            ("(x as fn() -> u8)", Parses),
            ("('a: loop {})", Parses),
            ("[$x, $crate::y]", Parses),
            ("($($x)?)", Parses),
            ("{ let x: T = y; x }", Parses),
            ("{ fn f() -> u8 { 1 } f() }", Parses),
            ("{ #[cfg(x)] a; #![allow(y)] }", Parses),
            ("(r#type)", Parses),
            // `[,]` is an empty array to tree-sitter, `fn` a name where no item can start.
            ("[,]", Parses),
            ("[fn]", Parses),
            ("[where]", Parses),
            ("(mut)", Parses),
            ("{ a => b }", Never),
            ("(x @ 1..)", Never),
            ("(#x.f())", Never),
            ("{ _serde::#private::Into::x(y) }", Never),
            ("(a; b)", Never),
            ("[a; b; c]", Never),
            ("(,)", Never),
            ("(x + if)", Never),
            ("[match]", Never),
            ("[while]", Never),
            ("[for]", Never),
            ("[, x]", Never),
            ("[=]", Never),
            ("[<]", Never),
            ("[!]", Never),
            ("[const]", Never),
            ("[unsafe]", Never),
            ("[static]", Never),
            ("($($tt)*)", Never),
            ("(a +)", Never),
            ("(x::)", Never),
            ("(target: \"x\", y)", Never),
            ("(T<U>: Send & !Sync)", Never),
            ("(f(x): Send)", Never),
            ("(f(&str, usize) -> Ok)", Never),
            ("(mut x)", Fails),
            ("(a > b: T)", Never),
        ];
        let mut wrong = Vec::new();
        for (arguments, expected) in cases {
            let src = format!("fn g() {{ m!{arguments}; }}");
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&Language::Rust.grammar()).expect("grammar");
            let tree = parser.parse(&src, None).expect("parse");
            let at = src.find('!').expect("m!") + 1;
            let tt = tree.root_node().descendant_for_byte_range(at, at + 1).and_then(|n| n.parent()).expect("tt");
            assert_eq!(tt.kind_str(), "token_tree", "{arguments}");
            let b = Builder::new(&src, Language::Rust);
            let verdict = match (parse_as_expression(&b, tt).is_some(), never_an_expression(&b, tt)) {
                (true, false) => Parses,
                (false, true) => Never,
                (false, false) => Fails,
                (true, true) => panic!("{arguments} parses, yet was judged never to"),
            };
            if verdict != expected {
                wrong.push((arguments, verdict));
            }
        }
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn flat_matchers_list_their_metavariables() {
        use super::flat_metavariables;
        let names = |v: &[&str]| Some(v.iter().map(ToString::to_string).collect::<Vec<_>>());
        assert_eq!(flat_metavariables("($name:ident, $err:ident)"), names(&["name", "err"]).map(|n| (n, true)));
        assert_eq!(flat_metavariables("( $t:ty , $p:path $(,)? )"), names(&["t", "p"]).map(|n| (n, true)));
        assert_eq!(flat_metavariables("($name:ident,)"), names(&["name"]).map(|n| (n, true)));
        assert_eq!(
            flat_metavariables("($ty:ident, $find:ident, $($needles:ident),+)"),
            names(&["ty", "find"]).map(|n| (n, false)),
            "a repetition ending it binds the names before it"
        );
        assert_eq!(flat_metavariables("($ty:ident $($needles:ident),+)"), None);
        assert_eq!(flat_metavariables("($e:expr)"), None, "an expression is not a path");
        assert_eq!(flat_metavariables("($($x:ident),*)"), None);
        assert_eq!(flat_metavariables("(fn $name:ident)"), None);
        assert_eq!(flat_metavariables("()"), None);
    }

    #[test]
    fn items_of_extern_blocks_are_declared() {
        let src = "extern \"C\" {\n    pub fn close(fd: i32) -> i32;\n    #[cfg(windows)]\n    pub fn closesocket(fd: u64) -> i32;\n    pub static mut environ: *const *const u8;\n    fn hidden();\n}\n";
        let facts = extract(Language::Rust, src);
        let close = facts.symbols.iter().find(|s| s.name == "close").expect("close");
        assert_eq!(
            (close.kind, close.exported, close.returns.as_deref()),
            (SymbolKind::Function, true, Some(&["i32".to_string()][..]))
        );
        assert!(
            facts.symbols.iter().any(|s| s.name == "closesocket"),
            "another platform's declaration is still declared"
        );
        assert!(facts.symbols.iter().any(|s| s.name == "environ" && s.exported));
        assert!(facts.symbols.iter().any(|s| s.name == "hidden" && !s.exported));
    }

    #[test]
    fn items_impls_and_uses() {
        let src = r"use crate::shapes::{circle::Circle, Shape as S};
pub mod inner { pub fn f() {} }
mod outer;
pub struct P { pub x: f64 }
impl Shape for Circle {
    fn area(&self) -> f64 { self.radius() * 2.0 }
}
fn g() { let c = Circle::new(1.0); c.area(); }
";
        let facts = extract(Language::Rust, src);
        assert_eq!(facts.imports.len(), 2);
        assert_eq!(facts.imports[0].module, "crate::shapes::circle");
        assert_eq!(facts.imports[1].items[0].alias, "S");
        assert_eq!(facts.mods[0].name, "outer");
        let area = facts.symbols.iter().find(|s| s.name == "area").expect("area");
        assert_eq!(area.impl_of, Some(vec!["Circle".to_string()]));
        assert_eq!(area.kind, SymbolKind::Method);
        let inner_f = facts.symbols.iter().find(|s| s.name == "f").expect("f");
        assert_eq!(facts.symbols[inner_f.container.expect("in inner") as usize].name, "inner");
        assert_eq!(facts.relations[0].subject, Some(vec!["Circle".to_string()]));
        let local = facts.locals.iter().find(|l| l.name == "c").expect("c");
        assert_eq!(local.origin, LocalOrigin::CallResult(vec!["Circle".into(), "new".into()]));
    }

    #[test]
    fn items_inside_macro_bodies_are_parsed() {
        let src = "macro_rules! cfg_rt { ($($i:item)*) => { $($i)* } }\ncfg_rt! {\n    pub fn spawn_blocking() { helper(1) }\n}\nfn main() { assert!(spawn_blocking()); }\n";
        let facts = extract(Language::Rust, src);
        let spawn = facts.symbols.iter().find(|s| s.name == "spawn_blocking").expect("found inside the macro");
        assert_eq!(spawn.name_pos, Pos { line: 3, col: 12 });
        assert!(spawn.exported);
        let calls: Vec<&str> = facts.refs.iter().filter(|r| r.call).map(|r| r.segments[0].0.as_str()).collect();
        assert_eq!(calls, vec!["helper", "spawn_blocking"]);
    }

    #[test]
    fn expression_macro_arguments_are_expressions() {
        // At the file's own offsets: `x.name()` is the chain [x, name] with its call, at its column.
        let src = "fn f(x: &Item) {\n    assert_eq!(x.name().len(), vec![x.size()].len());\n    assert!(Pin::new(&mut *x).ready());\n}\n";
        let facts = extract(Language::Rust, src);
        let chains: Vec<(Vec<&str>, Vec<u32>)> = facts
            .refs
            .iter()
            .filter(|r| r.segments.len() > 1 || r.receiver.is_some())
            .map(|r| (r.segments.iter().map(|s| s.0.as_str()).collect(), r.calls_at.clone()))
            .collect();
        assert!(chains.contains(&(vec!["x", "name", "len"], vec![1])), "{chains:?}");
        assert!(chains.contains(&(vec!["x", "size"], vec![])), "{chains:?}");
        assert!(chains.contains(&(vec!["ready"], vec![])), "{chains:?}");
        let name = facts.refs.iter().flat_map(|r| &r.segments).find(|s| s.0 == "name").expect("name");
        assert_eq!(name.1, Pos { line: 2, col: 18 });
        // A macro's own syntax is read as names, as before.
        let facts = extract(Language::Rust, "fn g() { test!(IPv4 ttl, set_ttl(40)); }\n");
        assert!(crate::extract::testing::refs(&facts).contains(&(vec!["set_ttl"], true)));
    }
}
