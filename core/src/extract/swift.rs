//! Extraction for Swift (tree-sitter-swift 0.7).
//!
//! Declarations: classes, structs, enums (cases as constants), actors, protocols (their requirements
//! as members), extensions (their members belong to the extended type through `impl_of`, as a Rust
//! impl's do; a conformance written on an extension is a relation of that type), functions and
//! methods, `init`, properties (`let`/`var`, typed by their annotation or initialiser), type
//! aliases. Supertypes (`: Base, Proto`) are `extends` (the resolver makes a protocol
//! `implements`). `import Module` binds a module (a `SwiftPM` target: the files of
//! `Sources/<Target>/`). Uses: calls (`Order(total:)` calls the type), member chains (`a.b()`,
//! `self.x`, `a?.b`), types. Locals: parameters, `let`/`var` in bodies, `for` variables.
//! `private` and `fileprivate` declarations are not exported.

use super::{Field, Kind};
use tree_sitter::Node;

use super::{has_token, named_children, texts, Builder, Segment, Walk};
use crate::facts::{ImportKind, LocalOrigin, SymbolKind, TypeRelKind, TypeRelation};

pub(crate) fn extract(b: &mut Builder, root: Node) {
    let mut w = Walker { b, extension: None, in_type: false };
    w.walk_children(root);
}

struct Walker<'a, 's> {
    b: &'a mut Builder<'s>,
    /// Inside `extension T { … }`: the extended type's path.
    extension: Option<Vec<String>>,
    /// Inside a type's body: functions are methods, properties fields.
    in_type: bool,
}

impl Walk for Walker<'_, '_> {
    fn walk(&mut self, node: Node) {
        if !self.b.descend() {
            return;
        }
        match node.kind_str() {
            "comment"
            | "multiline_comment"
            | "line_string_literal"
            | "multi_line_string_literal"
            | "integer_literal"
            | "real_literal"
            | "boolean_literal"
            | "nil"
            | "modifiers"
            | "value_binding_pattern"
            | "value_argument_label"
            | "self_expression"
            | "super_expression" => {}
            "import_declaration" => {
                let path: Vec<Segment> = named_children(node)
                    .into_iter()
                    .filter(|c| c.kind_str() == "identifier")
                    .flat_map(named_children)
                    .map(|c| self.b.seg(c))
                    .collect();
                if let Some((name, _)) = path.first().cloned() {
                    let at = self.b.pos(node);
                    self.b.add_import(name, ImportKind::Glob, Vec::new(), at, false);
                }
            }
            "class_declaration" => self.type_decl(node),
            "protocol_declaration" => self.protocol(node),
            "function_declaration" | "protocol_function_declaration" => self.function(node),
            "init_declaration" => self.function(node),
            "property_declaration" | "protocol_property_declaration" => self.property(node),
            "typealias_declaration" => {
                if let Some(name) = node.field("name") {
                    let exported = self.exported(node);
                    let idx = self.b.add_symbol(node, name, SymbolKind::Type, exported);
                    let target = named_children(node).into_iter().skip(1).find_map(|c| self.type_path(c));
                    self.b.symbol_mut(idx).returns = target;
                }
                for c in named_children(node).into_iter().skip(1) {
                    self.walk(c);
                }
            }
            "for_statement" => {
                for c in named_children(node) {
                    if c.kind_str() == "pattern" {
                        self.pattern_locals(c, LocalOrigin::Unknown);
                    } else {
                        self.walk(c);
                    }
                }
            }
            "lambda_literal" => {
                for c in named_children(node) {
                    if c.kind_str() == "lambda_function_type" {
                        for p in named_children(c).into_iter().flat_map(named_children) {
                            if let Some(n) = p.field("name").filter(|n| n.kind_str() == "simple_identifier") {
                                let text = self.b.text(n).to_string();
                                self.b.add_local(&text, LocalOrigin::Unknown);
                            }
                        }
                    } else {
                        self.walk(c);
                    }
                }
            }
            "call_expression" | "navigation_expression" => self.chain(node),
            "user_type" => {
                let path = self.user_type(node);
                if !path.is_empty() {
                    self.b.add_ref(path, false, false);
                }
                for c in named_children(node) {
                    if c.kind_str() == "type_arguments" {
                        self.walk(c);
                    }
                }
            }
            "simple_identifier" => {
                let seg = self.b.seg(node);
                self.b.add_ref(vec![seg], false, false);
            }
            _ => self.walk_children(node),
        }
        self.b.ascend();
    }
}

impl Walker<'_, '_> {
    fn within(&mut self, symbol: u32, in_type: bool, f: impl FnOnce(&mut Walker<'_, '_>)) {
        let extension = self.extension.take();
        let mut back = None;
        self.b.within(symbol, |b| {
            let mut w = Walker { b, extension: None, in_type };
            f(&mut w);
            back = w.extension;
        });
        self.extension = extension.or(back);
    }

    fn exported(&self, node: Node) -> bool {
        !named_children(node).iter().any(|m| {
            m.kind_str() == "modifiers"
                && named_children(*m).iter().any(|v| {
                    v.kind_str() == "visibility_modifier" && {
                        let t = self.b.text(*v);
                        t.starts_with("private") || t.starts_with("fileprivate")
                    }
                })
        })
    }

    fn user_type(&self, node: Node) -> Vec<Segment> {
        named_children(node).into_iter().filter(|c| c.kind_str() == "type_identifier").map(|c| self.b.seg(c)).collect()
    }

    /// The one type a type expression names (`Order`, `Order?`, `[Order]`, `Mod.Order`).
    fn type_path(&self, ty: Node) -> Option<Vec<String>> {
        match ty.kind_str() {
            "user_type" => Some(texts(&self.user_type(ty))).filter(|p| !p.is_empty()),
            "optional_type" | "array_type" | "type_annotation" | "implicitly_unwrapped_type" => {
                named_children(ty).into_iter().find_map(|c| self.type_path(c))
            }
            _ => None,
        }
    }

    fn type_decl(&mut self, node: Node) {
        let Some(name) = node.field("name") else { return self.walk_children(node) };
        let supertypes: Vec<Vec<Segment>> = named_children(node)
            .into_iter()
            .filter(|c| c.kind_str() == "inheritance_specifier")
            .filter_map(|c| c.field("inherits_from"))
            .map(|t| self.user_type(t))
            .filter(|p| !p.is_empty())
            .collect();
        for c in named_children(node).into_iter().filter(|c| c.kind_str() == "inheritance_specifier") {
            self.walk(c);
        }
        let body = node.field("body");
        if has_token(node, "extension") {
            // `extension Order: Proto { … }`: members and conformances of `Order`.
            let path = if name.kind_str() == "user_type" { self.user_type(name) } else { vec![self.b.seg(name)] };
            if path.is_empty() {
                return;
            }
            self.b.add_ref(path.clone(), false, false);
            let target = texts(&path);
            for sup in supertypes {
                let pos = sup.last().map(|s| s.1).unwrap_or_default();
                self.b.facts.relations.push(TypeRelation {
                    symbol: 0,
                    subject: Some(target.clone()),
                    kind: TypeRelKind::Extends,
                    target: texts(&sup),
                    pos,
                });
            }
            let saved = (self.extension.replace(target), self.in_type);
            self.in_type = true;
            if let Some(b) = body {
                self.walk_children(b);
            }
            (self.extension, self.in_type) = saved;
            return;
        }
        let kind = if has_token(node, "struct") {
            SymbolKind::Struct
        } else if has_token(node, "enum") {
            SymbolKind::Enum
        } else {
            SymbolKind::Class
        };
        let exported = self.exported(node);
        let idx = self.b.add_symbol(node, name, kind, exported);
        for sup in supertypes {
            let pos = sup.last().map(|s| s.1).unwrap_or_default();
            self.b.add_relation(idx, TypeRelKind::Extends, texts(&sup), pos);
        }
        let type_name = self.b.text(name).to_string();
        self.within(idx, true, |w| {
            let Some(body) = body else { return };
            for c in named_children(body) {
                if c.kind_str() == "enum_entry" {
                    let mut cursor = c.walk();
                    let names: Vec<Node> = c.children_by_field_name("name", &mut cursor).collect();
                    for n in names.into_iter().filter(|n| n.kind_str() == "simple_identifier") {
                        let i = w.b.add_symbol(c, n, SymbolKind::Constant, true);
                        w.b.symbol_mut(i).returns = Some(vec![type_name.clone()]);
                    }
                } else {
                    w.walk(c);
                }
            }
        });
    }

    fn protocol(&mut self, node: Node) {
        let Some(name) = node.field("name") else { return self.walk_children(node) };
        let exported = self.exported(node);
        let idx = self.b.add_symbol(node, name, SymbolKind::Interface, exported);
        for c in named_children(node).into_iter().filter(|c| c.kind_str() == "inheritance_specifier") {
            if let Some(t) = c.field("inherits_from") {
                let path = self.user_type(t);
                if let Some(pos) = path.last().map(|s| s.1) {
                    self.b.add_relation(idx, TypeRelKind::Extends, texts(&path), pos);
                }
            }
            self.walk(c);
        }
        self.within(idx, true, |w| {
            if let Some(body) = node.field("body") {
                w.walk_children(body);
            }
        });
    }

    /// Adds a member: inside an extension, of the extended type.
    fn add_member(&mut self, node: Node, name: Node, kind: SymbolKind) -> u32 {
        let exported = self.exported(node);
        let idx = self.b.add_symbol(node, name, kind, exported);
        if let Some(ext) = &self.extension {
            self.b.symbol_mut(idx).impl_of = Some(ext.clone());
        }
        idx
    }

    fn function(&mut self, node: Node) {
        let kids = named_children(node);
        let name = match node.kind_str() {
            // `init(…)`: the keyword is its name.
            "init_declaration" => Some(node),
            _ => node.field("name").filter(|n| n.kind_str() == "simple_identifier"),
        };
        let Some(name) = name else { return self.walk_children(node) };
        let kind = if self.in_type { SymbolKind::Method } else { SymbolKind::Function };
        let idx = if node.kind_str() == "init_declaration" {
            let exported = self.exported(node);
            let pos = self.b.pos(node);
            let i = self.b.add_symbol_named(node, "init".into(), pos, kind, exported);
            if let Some(ext) = &self.extension {
                self.b.symbol_mut(i).impl_of = Some(ext.clone());
            }
            i
        } else {
            self.add_member(node, name, kind)
        };
        // The return type: a type written after the parameters, before the body.
        let returns = kids
            .iter()
            .filter(|c| !matches!(c.kind_str(), "parameter" | "function_body" | "modifiers" | "simple_identifier"))
            .find_map(|c| self.type_path(*c));
        self.b.symbol_mut(idx).returns = returns;
        self.within(idx, false, |w| {
            for c in kids {
                match c.kind_str() {
                    "parameter" => w.parameter(c),
                    "simple_identifier" if c == name => {}
                    _ => w.walk(c),
                }
            }
        });
    }

    fn parameter(&mut self, node: Node) {
        let kids = named_children(node);
        let ty = kids.iter().find_map(|c| self.type_path(*c));
        for c in &kids {
            if !matches!(c.kind_str(), "simple_identifier") {
                self.walk(*c);
            }
        }
        let mut cursor = node.walk();
        let local = node.children_by_field_name("name", &mut cursor).find(|n| n.kind_str() == "simple_identifier");
        if let Some(n) = local {
            let text = self.b.text(n).to_string();
            self.b.add_local(&text, ty.map_or(LocalOrigin::Unknown, LocalOrigin::Declared));
        }
    }

    fn pattern_locals(&mut self, pattern: Node, origin: LocalOrigin) {
        if let Some(n) = pattern.field("bound_identifier") {
            let text = self.b.text(n).to_string();
            self.b.add_local(&text, origin);
            return;
        }
        for c in named_children(pattern) {
            if c.kind_str() == "simple_identifier" {
                let text = self.b.text(c).to_string();
                self.b.add_local(&text, origin.clone());
            }
        }
    }

    fn property(&mut self, node: Node) {
        let kids = named_children(node);
        let pattern = node.field("name").filter(|p| p.kind_str() == "pattern");
        let name = pattern
            .and_then(|p| p.field("bound_identifier"))
            .or_else(|| node.field("name").filter(|n| n.kind_str() == "simple_identifier"));
        let declared = kids.iter().find(|c| c.kind_str() == "type_annotation").and_then(|t| self.type_path(*t));
        let value = node.field("value");
        for c in &kids {
            if Some(*c) != pattern && Some(*c) != name {
                self.walk(*c);
            }
        }
        let Some(name) = name else { return };
        let in_body =
            !self.in_type && self.b.enclosing().is_some_and(|e| self.b.facts.symbols[e as usize].kind.is_callable());
        let origin = match (&declared, value) {
            (Some(p), _) => LocalOrigin::Declared(p.clone()),
            (None, Some(v)) => self.value_origin(v),
            _ => LocalOrigin::Unknown,
        };
        if in_body {
            let text = self.b.text(name).to_string();
            self.b.add_local(&text, origin);
            return;
        }
        let kind = if self.in_type { SymbolKind::Field } else { SymbolKind::Variable };
        let idx = self.add_member(node, name, kind);
        if let Some(p) = declared {
            self.b.symbol_mut(idx).returns = Some(p);
        } else if origin != LocalOrigin::Unknown {
            let scope = self.b.enclosing();
            self.b.symbol_mut(idx).init = Some(Box::new(crate::facts::Init { origin, scope }));
        }
    }

    fn value_origin(&self, value: Node) -> LocalOrigin {
        self.chain_path(value).map_or(LocalOrigin::Unknown, |(segs, calls)| super::call_origin(&segs, calls))
    }

    /// `a.b(x).c` → [a, b, c] with the call at 1; `self.x` → [self, x].
    fn chain_path(&self, node: Node) -> Option<(Vec<Segment>, Vec<u32>)> {
        let mut frames: Vec<(Segment, bool)> = Vec::new();
        let mut cur = node;
        let mut called = false;
        let head = loop {
            if frames.len() > 100_000 {
                return None;
            }
            match cur.kind_str() {
                "call_expression" => {
                    called = true;
                    cur = cur.named_child(0)?;
                }
                "navigation_expression" => {
                    let member = cur.field("suffix").and_then(|s| s.field("suffix"))?;
                    if member.kind_str() != "simple_identifier" {
                        return None;
                    }
                    frames.push((self.b.seg(member), std::mem::take(&mut called)));
                    cur = cur.field("target")?;
                }
                "simple_identifier" => break (self.b.seg(cur), std::mem::take(&mut called)),
                "self_expression" => break (("self".to_string(), self.b.pos(cur)), std::mem::take(&mut called)),
                "super_expression" => break (("super".to_string(), self.b.pos(cur)), std::mem::take(&mut called)),
                "tuple_expression" | "parenthesized_expression" if cur.named_child_count() == 1 => {
                    cur = cur.named_child(0)?;
                }
                // `a?.b`, `a!.b`: through the optional.
                "optional_chaining_expression" | "postfix_expression" | "force_unwrap_expression" => {
                    cur = cur.named_child(0)?;
                }
                _ => return None,
            }
        };
        Some(super::assemble_chain(head, frames))
    }

    fn chain(&mut self, node: Node) {
        // `a + b.c()` comes out of the grammar as `(a + b.c)()`; an operator's result is never what
        // is called, so the call is its right operand's.
        if node.kind_str() == "call_expression" {
            if let Some(op) = node.named_child(0).filter(|c| c.field("rhs").is_some() && c.field("lhs").is_some()) {
                self.walk_opt(op.field("lhs"));
                let rhs = op.field("rhs").expect("checked");
                match self.chain_path(rhs) {
                    Some((segs, calls)) => self.b.add_call_chain(segs, calls, true, false),
                    None => self.walk(rhs),
                }
                for c in named_children(node).into_iter().skip(1) {
                    self.walk(c);
                }
                return;
            }
        }
        match self.chain_path(node) {
            Some((segs, mut calls)) => {
                let last = segs.len() as u32 - 1;
                let called = calls.last() == Some(&last);
                if called {
                    calls.pop();
                }
                self.b.add_call_chain(segs, calls, called, false);
            }
            None => {
                if let Some(head) = node.named_child(0) {
                    self.walk(head);
                }
            }
        }
        // The arguments of every call on the way.
        let mut cur = Some(node);
        let mut steps = 0;
        while let Some(n) = cur {
            steps += 1;
            if steps > 100_000 {
                break;
            }
            match n.kind_str() {
                "call_expression" => {
                    for c in named_children(n).into_iter().skip(1) {
                        self.walk(c);
                    }
                    cur = n.named_child(0);
                }
                "navigation_expression" => cur = n.field("target"),
                "optional_chaining_expression" | "postfix_expression" | "force_unwrap_expression" => {
                    cur = n.named_child(0);
                }
                _ => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::{FileFacts, LocalOrigin, SymbolKind, TypeRelKind};
    use crate::lang::Language;

    fn swift(src: &str) -> FileFacts {
        extract(Language::Swift, src)
    }

    #[test]
    fn types_extensions_members_and_locals() {
        let src = r"import Foundation

public protocol Priced {
    func price() -> Double
}

public final class Order: Base, Priced {
    private var total: Money
    public static let maxLines = 10

    public init(total: Money) {
        self.total = total
    }

    public func price() -> Double {
        let m: Money = total
        let o = Order.empty()
        for l in lines {
            l.amount
        }
        return self.total.value + m.value
    }
}

enum Kind { case a, b }

extension Order: Codable {
    func doubled() -> Double {
        return price() * 2
    }
}
";
        let f = swift(src);
        use SymbolKind::*;
        let got = crate::extract::testing::symbols(&f);
        assert_eq!(
            got,
            vec![
                ("Priced", Interface, None, true),
                ("price", Method, Some(0), true),
                ("Order", Class, None, true),
                ("total", Field, Some(2), false),
                ("maxLines", Field, Some(2), true),
                ("init", Method, Some(2), true),
                ("price", Method, Some(2), true),
                ("Kind", Enum, None, true),
                ("a", Constant, Some(7), true),
                ("b", Constant, Some(7), true),
                ("doubled", Method, None, true),
            ]
        );
        assert_eq!(f.symbols[10].impl_of.as_deref(), Some(&["Order".to_string()][..]));
        assert_eq!(f.symbols[6].returns.as_deref(), Some(&["Double".to_string()][..]));
        type Rel = (u32, Option<Vec<String>>, TypeRelKind, Vec<String>);
        let rels: Vec<Rel> =
            f.relations.iter().map(|r| (r.symbol, r.subject.clone(), r.kind, r.target.clone())).collect();
        assert_eq!(
            rels,
            vec![
                (2, None, TypeRelKind::Extends, vec!["Base".into()]),
                (2, None, TypeRelKind::Extends, vec!["Priced".into()]),
                (0, Some(vec!["Order".into()]), TypeRelKind::Extends, vec!["Codable".into()]),
            ]
        );
        assert_eq!(f.imports.iter().map(|i| i.module.as_str()).collect::<Vec<_>>(), ["Foundation"]);
        let local = |n: &str| f.locals.iter().find(|l| l.name == n).map(|l| l.origin.clone());
        assert_eq!(local("total"), Some(LocalOrigin::Declared(vec!["Money".into()])));
        assert_eq!(local("m"), Some(LocalOrigin::Declared(vec!["Money".into()])));
        assert_eq!(local("o"), Some(LocalOrigin::CallResult(vec!["Order".into(), "empty".into()])));
        assert_eq!(local("l"), Some(LocalOrigin::Unknown));
        let refs = crate::extract::testing::refs(&f);
        assert!(refs.contains(&(vec!["self", "total", "value"], false)));
        assert!(refs.contains(&(vec!["price"], true)));
    }

    #[test]
    fn hostile_swift_is_bounded() {
        let parens = format!("let x = {}1{}\n", "(".repeat(10_000), ")".repeat(10_000));
        assert!(swift(&parens).truncated_depth);
        let chain = format!("func f() {{\n    a{}.z()\n}}\n", ".b".repeat(5_000));
        assert!(swift(&chain).refs.iter().map(|r| r.segments.len()).max() >= Some(5_001));
        let f = swift("let s = \"\"\"\nnever closed \\(a.b) \"\\(c \"\\(d)\")\"");
        assert!(f.error_nodes > 0 || !f.refs.is_empty());
        let big = "func f() {\n    g(1)\n}\n".repeat(60_000);
        assert!(big.len() > 1 << 20);
        assert_eq!(swift(&big).symbols.len(), 60_000);
    }
}
