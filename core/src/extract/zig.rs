//! Extraction for Zig (tree-sitter-zig 1.1).
//!
//! A file is a struct: its top-level `const`/`var` declarations and functions are its members.
//! Declarations: `const X = struct/enum/union { … }` (a struct, an enum, a union as a struct) with
//! their fields and functions (methods), other top-level constants and variables, functions; `pub`
//! is `exported`. Imports: `const m = @import("m.zig")` binds the file (`@import("std")` and other
//! packages are outside the repository), and `const X = m.X;` is a named import of `X` from it.
//! Uses: calls and field chains (`self.total.plus(x)`, `m.f()`), types in declarations, struct
//! literals `T{ .field = … }` (the keys are fields of `T`). Locals: parameters (`self: *Order` is
//! an `Order`), `const`/`var` in bodies, typed by their type or by what they are initialised with.

use super::{Field, Kind};
use tree_sitter::Node;

use super::{has_token, named_children, Builder, ChainSyntax, Member, Segment, Walk};
use crate::facts::{ImportItem, ImportKind, LocalOrigin, Receiver, ReceiverBase, SymbolKind};

pub(crate) fn extract(b: &mut Builder, root: Node) {
    let mut w = Walker { b, imports: Vec::new(), in_function: false, in_container: false };
    w.walk_children(root);
}

struct Walker<'a, 's> {
    b: &'a mut Builder<'s>,
    /// Names bound to an imported file at file level: (name, module).
    imports: Vec<(String, String)>,
    in_function: bool,
    in_container: bool,
}

const CHAIN: ChainSyntax = ChainSyntax {
    names: &["identifier"],
    members: &[Member { kind: "field_expression", object: &["object"], name: &["member"], rooted: false, path: false }],
    member_calls: &[],
    silent_names: &[],
    calls: &["call_expression"],
    operators: &[],
    slices: &[],
    through: &[("parenthesized_expression", None), ("index_expression", Some("object")), ("try_expression", None)],
    extras: &[("index_expression", "index")],
    typed_head: None,
    arguments: None,
    closure: None,
};

/// Zig's primitive types and values: no declarations of the project.
fn is_builtin(name: &str) -> bool {
    matches!(name, "void" | "bool" | "anytype" | "type" | "noreturn" | "true" | "false" | "null" | "undefined")
        || name.strip_prefix(['i', 'u', 'f']).is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
        || matches!(name, "usize" | "isize" | "comptime_int" | "comptime_float" | "c_int" | "c_uint" | "c_long")
}

impl<'s> super::chain::ChainWalker<'s> for Walker<'_, 's> {
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
            "comment" | "string" | "multiline_string" | "integer" | "float" | "character" | "builtin_type"
            | "escape_sequence" | "string_content" | "boolean" | "null" | "undefined" | "unreachable" => {}
            "variable_declaration" => self.variable(node),
            "function_declaration" => self.function(node),
            "test_declaration" => {
                let saved = std::mem::replace(&mut self.in_function, true);
                for c in named_children(node) {
                    if c.kind_str() == "block" {
                        self.walk(c);
                    }
                }
                self.in_function = saved;
            }
            "call_expression" | "field_expression" => super::chain::drive(self, node, false, &CHAIN),
            "struct_initializer" => {
                let kids = named_children(node);
                let ty = kids.first().copied();
                let path = ty.and_then(|t| CHAIN.names(self.b, t));
                if let Some(p) = path.clone() {
                    self.b.add_ref(p, false, false);
                }
                let receiver = path.map(|p| Receiver {
                    base: ReceiverBase::Value(LocalOrigin::Constructed(p.into_iter().map(|s| s.0).collect())),
                    members: Vec::new(),
                });
                for list in kids.into_iter().skip(1) {
                    self.initializer(list, receiver.as_ref());
                }
            }
            "anonymous_struct_initializer" => {
                for list in named_children(node) {
                    self.initializer(list, None);
                }
            }
            "identifier" => {
                let name = self.b.text(node);
                if !is_builtin(name) {
                    let seg = self.b.seg(node);
                    self.b.add_ref(vec![seg], false, false);
                }
            }
            "builtin_function" => {
                // `@import("x")` outside a declaration, `@as(T, v)`: the arguments.
                for c in named_children(node) {
                    if c.kind_str() == "arguments" {
                        self.walk(c);
                    }
                }
            }
            "struct_declaration" | "enum_declaration" | "union_declaration" | "opaque_declaration" => {
                // An anonymous container (`fn List(T) type { return struct { … }; }`).
                let saved = (self.in_function, self.in_container);
                self.in_function = false;
                self.in_container = true;
                self.walk_children(node);
                (self.in_function, self.in_container) = saved;
            }
            "container_field" => {
                self.walk_opt(node.field("type"));
                for c in named_children(node) {
                    if Some(c) != node.field("name") && Some(c) != node.field("type") {
                        self.walk(c);
                    }
                }
            }
            _ => self.walk_children(node),
        }
        self.b.ascend();
    }
}

impl Walker<'_, '_> {
    fn within(&mut self, symbol: u32, in_function: bool, in_container: bool, f: impl FnOnce(&mut Walker<'_, '_>)) {
        let imports = std::mem::take(&mut self.imports);
        let mut back = Vec::new();
        self.b.within(symbol, |b| {
            let mut w = Walker { b, imports, in_function, in_container };
            f(&mut w);
            back = w.imports;
        });
        self.imports = back;
    }

    /// `.{ .a = 1 }` / `T{ .a = 1 }`: with a known type, the keys are its fields.
    fn initializer(&mut self, list: Node, receiver: Option<&Receiver>) {
        for item in named_children(list) {
            if item.kind_str() != "assignment_expression" {
                self.walk(item);
                continue;
            }
            let key = item.field("left").and_then(|l| l.field("member"));
            if let (Some(k), Some(r)) = (key, receiver) {
                let seg = self.b.seg(k);
                self.b.add_member_ref(seg, false, r.clone());
            }
            self.walk_opt(item.field("right"));
        }
    }

    /// The path a type names: `*Order`, `?Order`, `!Order`, `[]Order`, `m.Order` → the named type.
    fn type_path(&self, ty: Node) -> Option<Vec<Segment>> {
        let mut cur = ty;
        for _ in 0..super::MAX_TYPE_NESTING {
            match cur.kind_str() {
                "identifier" => {
                    let name = self.b.text(cur);
                    return (!is_builtin(name)).then(|| vec![self.b.seg(cur)]);
                }
                "field_expression" => return CHAIN.names(self.b, cur),
                "pointer_type" | "nullable_type" | "slice_type" | "array_type" => {
                    cur = named_children(cur).into_iter().rfind(|c| !c.kind_str().ends_with("modifier"))?;
                }
                "error_union_type" => cur = cur.field("ok")?,
                _ => return None,
            }
        }
        None
    }

    fn type_names(&self, ty: Node) -> Option<Vec<String>> {
        self.type_path(ty).map(|p| p.into_iter().map(|s| s.0).collect())
    }

    /// `const x = …;`, `var x: T = …;`, and (no `const`/`var`) an assignment.
    fn variable(&mut self, node: Node) {
        let kids = named_children(node);
        let declares = has_token(node, "const") || has_token(node, "var");
        let Some(&target) = kids.first() else { return };
        let ty = node.field("type");
        let value = kids.iter().copied().rfind(|k| Some(*k) != ty && *k != target);
        if !declares || target.kind_str() != "identifier" {
            for k in kids {
                self.walk(k);
            }
            return;
        }
        let name = self.b.text(target).to_string();
        if self.in_function {
            self.walk_opt(ty);
            let origin = match (ty.and_then(|t| self.type_names(t)), value) {
                (Some(p), _) => LocalOrigin::Declared(p),
                (None, Some(v)) => self.value_origin(v),
                (None, None) => LocalOrigin::Unknown,
            };
            self.b.add_local(&name, origin);
            self.walk_opt(value);
            return;
        }
        let exported = has_token(node, "pub");
        // `const m = @import("m.zig");`: the file, under this name.
        if let Some(module) = value.and_then(|v| self.import_of(v)) {
            let item = ImportItem { name: String::new(), alias: name.clone(), pos: self.b.pos(target) };
            let pos = self.b.pos(node);
            self.b.add_import(module.clone(), ImportKind::Namespace, vec![item], pos, exported);
            self.imports.push((name, module));
            return;
        }
        // `const X = m.X;` with `m` an imported file: a named import.
        if let Some(v) = value.filter(|v| v.kind_str() == "field_expression") {
            if let Some(path) = CHAIN.names(self.b, v) {
                if let [(head, _), (member, member_pos)] = path.as_slice() {
                    if let Some((_, module)) = self.imports.iter().find(|(n, _)| n == head).cloned() {
                        self.b.add_ref(vec![path[0].clone()], false, false);
                        let item = ImportItem { name: member.clone(), alias: name, pos: *member_pos };
                        let pos = self.b.pos(node);
                        self.b.add_import(module, ImportKind::Named, vec![item], pos, exported);
                        return;
                    }
                }
            }
        }
        let container = value.and_then(|v| {
            let kind = match v.kind_str() {
                "struct_declaration" | "union_declaration" | "opaque_declaration" => SymbolKind::Struct,
                "enum_declaration" => SymbolKind::Enum,
                _ => return None,
            };
            Some((v, kind))
        });
        if let Some((body, kind)) = container {
            let idx = self.b.add_symbol(node, target, kind, exported);
            self.within(idx, false, true, |w| w.container(body, kind));
        } else {
            let kind = if has_token(node, "const") { SymbolKind::Constant } else { SymbolKind::Variable };
            let idx = self.b.add_symbol(node, target, kind, exported);
            let returns = ty.and_then(|t| self.type_names(t));
            self.b.symbol_mut(idx).returns = returns;
            self.walk_opt(ty);
            self.walk_opt(value);
        }
    }

    /// The members of a container: fields, declarations, functions.
    fn container(&mut self, body: Node, kind: SymbolKind) {
        for c in named_children(body) {
            match c.kind_str() {
                "container_field" => {
                    if let Some(name) = c.field("name") {
                        let field_kind =
                            if kind == SymbolKind::Enum { SymbolKind::Constant } else { SymbolKind::Field };
                        let idx = self.b.add_symbol(c, name, field_kind, true);
                        let returns = c.field("type").and_then(|t| self.type_names(t));
                        self.b.symbol_mut(idx).returns = returns;
                    }
                    self.walk(c);
                }
                _ => self.walk(c),
            }
        }
    }

    /// `@import("x")`: the module it names.
    fn import_of(&self, value: Node) -> Option<String> {
        if value.kind_str() != "builtin_function" {
            return None;
        }
        let kids = named_children(value);
        let builtin = kids.iter().find(|k| k.kind_str() == "builtin_identifier")?;
        if self.b.text(*builtin) != "@import" {
            return None;
        }
        let args = kids.iter().find(|k| k.kind_str() == "arguments")?;
        let s = named_children(*args).into_iter().find(|a| a.kind_str() == "string")?;
        let content = named_children(s).into_iter().find(|c| c.kind_str() == "string_content")?;
        Some(self.b.text(content).to_string())
    }

    fn value_origin(&self, value: Node) -> LocalOrigin {
        match value.kind_str() {
            "struct_initializer" => value
                .named_child(0)
                .and_then(|t| CHAIN.names(self.b, t))
                .map_or(LocalOrigin::Unknown, |p| LocalOrigin::Constructed(p.into_iter().map(|s| s.0).collect())),
            "call_expression" => CHAIN
                .called_names(self.b, value)
                .map_or(LocalOrigin::Unknown, |(segs, calls)| super::call_origin(&segs, calls)),
            "try_expression" => value.named_child(0).map_or(LocalOrigin::Unknown, |v| self.value_origin(v)),
            _ => LocalOrigin::Unknown,
        }
    }

    fn function(&mut self, node: Node) {
        let Some(name) = node.field("name") else { return self.walk_children(node) };
        let kind = if self.in_container { SymbolKind::Method } else { SymbolKind::Function };
        let idx = self.b.add_symbol(node, name, kind, has_token(node, "pub"));
        let returns = node.field("type").and_then(|t| self.type_names(t));
        self.b.symbol_mut(idx).returns = returns;
        self.walk_opt(node.field("type"));
        self.within(idx, true, false, |w| {
            for c in named_children(node) {
                if c.kind_str() == "parameters" {
                    for p in named_children(c) {
                        let ty = p.field("type");
                        w.walk_opt(ty);
                        if let Some(n) = p.field("name") {
                            let origin =
                                ty.and_then(|t| w.type_names(t)).map_or(LocalOrigin::Unknown, LocalOrigin::Declared);
                            let text = w.b.text(n).to_string();
                            w.b.add_local(&text, origin);
                        }
                    }
                }
            }
            w.walk_opt(node.field("body"));
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::{FileFacts, ImportKind, LocalOrigin, SymbolKind};
    use crate::lang::Language;

    fn zig(src: &str) -> FileFacts {
        extract(Language::Zig, src)
    }

    #[test]
    fn containers_imports_and_locals() {
        let src = r#"const std = @import("std");
const m = @import("money.zig");
const Money = m.Money;
pub const Order = struct {
    total: Money,
    pub fn add(self: *Order, x: f64) void { self.total = self.total.plus(x); }
    fn hidden() void {}
};
pub const Kind = enum { a, b };
var count: usize = 0;
pub fn main() !void {
    var o = Order{ .total = m.zero() };
    const p = Order.init();
    o.add(1);
}
"#;
        let f = zig(src);
        use SymbolKind::*;
        let got = crate::extract::testing::symbols(&f);
        assert_eq!(
            got,
            vec![
                ("Order", Struct, None, true),
                ("total", Field, Some(0), true),
                ("add", Method, Some(0), true),
                ("hidden", Method, Some(0), false),
                ("Kind", Enum, None, true),
                ("a", Constant, Some(4), true),
                ("b", Constant, Some(4), true),
                ("count", Variable, None, false),
                ("main", Function, None, true),
            ]
        );
        let imports = crate::extract::testing::imports(&f);
        assert_eq!(
            imports,
            vec![
                ("std", ImportKind::Namespace, vec![("", "std")]),
                ("money.zig", ImportKind::Namespace, vec![("", "m")]),
                ("money.zig", ImportKind::Named, vec![("Money", "Money")]),
            ]
        );
        let local = |n: &str| f.locals.iter().find(|l| l.name == n).map(|l| l.origin.clone());
        assert_eq!(local("self"), Some(LocalOrigin::Declared(vec!["Order".into()])));
        assert_eq!(local("x"), Some(LocalOrigin::Unknown));
        assert_eq!(local("o"), Some(LocalOrigin::Constructed(vec!["Order".into()])));
        assert_eq!(local("p"), Some(LocalOrigin::CallResult(vec!["Order".into(), "init".into()])));
        // The key of a struct literal is a field of its type.
        assert!(f.refs.iter().any(|r| r.receiver.is_some() && r.segments[0].0 == "total"));
        assert!(f.refs.iter().any(|r| r.call && r.segments.iter().map(|s| s.0.as_str()).eq(["self", "total", "plus"])));
    }

    #[test]
    fn hostile_zig_is_bounded() {
        let parens = format!("const x = {}1{};", "(".repeat(10_000), ")".repeat(10_000));
        assert!(zig(&parens).truncated_depth);
        let chain = format!("fn f() void {{ a{}.z(); }}", ".b".repeat(10_000));
        assert_eq!(zig(&chain).refs.iter().map(|r| r.segments.len()).max(), Some(10_002));
        let f = zig("const s = \\\\ never closed\nfn (");
        assert!(f.error_nodes > 0);
        let big = "pub fn f() void { g(1); }\n".repeat(45_000);
        assert!(big.len() > 1 << 20);
        assert_eq!(zig(&big).symbols.len(), 45_000);
    }
}
