//! Extraction for Kotlin (tree-sitter-kotlin-ng 1.1).
//!
//! The package (`package a.b`) is the file's, as in Java: the resolver finds Kotlin and Java
//! declarations of a package alike. Declarations: classes, interfaces, enum classes (entries as
//! constants), data classes (their `val`/`var` constructor parameters are properties), objects,
//! companion objects (their members are the class's), functions and methods, extension functions
//! (`fun Order.total()`: `extension_of` = the receiver type, so the type has it as a member),
//! properties. Supertypes (`: Base(), I`) are `extends` (the resolver makes an interface
//! `implements`). Imports: `import a.b.C [as D]`, `import a.b.*`. Uses: calls (`Order(…)` calls the
//! class), member chains (`a.b()`, `a?.b`, `this.x`, `super.f()`), types. Locals: parameters,
//! `val`/`var` in bodies (declared type, or the call that initialises them), `for` variables.

use super::{Field, Kind};
use tree_sitter::Node;

use super::{has_token, named_children, texts, Builder, Segment, Walk};
use crate::facts::{ImportItem, ImportKind, LocalOrigin, SymbolKind, TypeRelKind};

pub(crate) fn extract(b: &mut Builder, root: Node) {
    let mut w = Walker { b, class: false };
    w.walk_children(root);
}

struct Walker<'a, 's> {
    b: &'a mut Builder<'s>,
    /// Walking a class body: functions are methods, properties fields.
    class: bool,
}

impl Walk for Walker<'_, '_> {
    fn walk(&mut self, node: Node) {
        if !self.b.descend() {
            return;
        }
        match node.kind_str() {
            "line_comment" | "block_comment" | "string_content" | "number_literal" | "float_literal"
            | "character_literal" | "boolean_literal" | "null" | "modifiers" | "label" | "escape_sequence"
            | "this_expression" | "super_expression" => {}
            "package_header" => {
                if let Some(q) = named_children(node).into_iter().find(|c| c.kind_str() == "qualified_identifier") {
                    self.b.facts.package = Some(texts(&self.qualified(q)).join("."));
                }
            }
            "import" => self.import(node),
            "class_declaration" | "object_declaration" => self.class(node),
            "companion_object" => {
                // Its members are the enclosing class's (`Order.empty()`).
                let saved = std::mem::replace(&mut self.class, true);
                for c in named_children(node) {
                    if c.kind_str() == "class_body" {
                        self.walk_children(c);
                    }
                }
                self.class = saved;
            }
            "function_declaration" => self.function(node),
            "secondary_constructor" => {
                for c in named_children(node) {
                    if c.kind_str() == "function_value_parameters" {
                        self.parameters(c);
                    } else {
                        self.walk(c);
                    }
                }
            }
            "property_declaration" => self.property(node),
            "for_statement" => {
                for c in named_children(node) {
                    if c.kind_str() == "variable_declaration" {
                        if let Some(n) = named_children(c).into_iter().find(|x| x.kind_str() == "identifier") {
                            let text = self.b.text(n).to_string();
                            let origin = self.declared(c);
                            self.b.add_local(&text, origin);
                        }
                    } else {
                        self.walk(c);
                    }
                }
            }
            "lambda_literal" => {
                for c in named_children(node) {
                    if c.kind_str() == "lambda_parameters" {
                        for p in named_children(c) {
                            if let Some(n) = named_children(p).into_iter().find(|x| x.kind_str() == "identifier") {
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
            "identifier" => {
                let seg = self.b.seg(node);
                self.b.add_ref(vec![seg], false, false);
            }
            // `f(x = 1)`: the name is a parameter of the callee.
            "value_argument" => {
                let kids = named_children(node);
                let named = kids.len() > 1 && kids[0].kind_str() == "identifier";
                for (i, c) in kids.into_iter().enumerate() {
                    if !(named && i == 0) {
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
    fn within(&mut self, symbol: u32, class: bool, f: impl FnOnce(&mut Walker<'_, '_>)) {
        self.b.within(symbol, |b| {
            let mut w = Walker { b, class };
            f(&mut w);
        });
    }

    fn exported(&self, node: Node) -> bool {
        !named_children(node).iter().any(|m| {
            m.kind_str() == "modifiers"
                && named_children(*m).iter().any(|v| {
                    v.kind_str() == "visibility_modifier"
                        && matches!(self.b.text(*v), "private" | "internal" | "protected")
                })
        })
    }

    fn qualified(&self, node: Node) -> Vec<Segment> {
        match node.kind_str() {
            "identifier" => vec![self.b.seg(node)],
            _ => named_children(node)
                .into_iter()
                .filter(|c| c.kind_str() == "identifier")
                .map(|c| self.b.seg(c))
                .collect(),
        }
    }

    /// `a.b.C<T>` as [a, b, C].
    fn user_type(&self, node: Node) -> Vec<Segment> {
        named_children(node).into_iter().filter(|c| c.kind_str() == "identifier").map(|c| self.b.seg(c)).collect()
    }

    /// The one class a type names (`Order`, `Order?`, `a.Order<T>`), as a path.
    fn type_path(&self, ty: Node) -> Option<Vec<String>> {
        match ty.kind_str() {
            "user_type" => Some(texts(&self.user_type(ty))).filter(|p| !p.is_empty()),
            "nullable_type" | "parenthesized_type" => named_children(ty).into_iter().find_map(|c| self.type_path(c)),
            _ => None,
        }
    }

    /// The declared type of a `variable_declaration` (`x: Order`), as an origin.
    fn declared(&self, decl: Node) -> LocalOrigin {
        named_children(decl)
            .into_iter()
            .find_map(|c| self.type_path(c))
            .map_or(LocalOrigin::Unknown, LocalOrigin::Declared)
    }

    fn import(&mut self, node: Node) {
        let kids = named_children(node);
        let Some(q) = kids.iter().find(|c| c.kind_str() == "qualified_identifier" || c.kind_str() == "identifier")
        else {
            return;
        };
        let mut path = self.qualified(*q);
        let pos = self.b.pos(node);
        if self.b.text(node).trim_end().trim_end_matches(';').trim_end().ends_with('*') {
            self.b.add_import(texts(&path).join("."), ImportKind::Glob, Vec::new(), pos, false);
            return;
        }
        let alias =
            kids.iter().rev().find(|c| c.kind_str() == "identifier" && *c != q).map(|a| self.b.text(*a).to_string());
        let Some((name, name_pos)) = path.pop() else { return };
        let item = ImportItem { alias: alias.unwrap_or_else(|| name.clone()), name, pos: name_pos };
        self.b.add_import(texts(&path).join("."), ImportKind::Named, vec![item], pos, false);
    }

    fn class(&mut self, node: Node) {
        let Some(name) = node.field("name") else { return self.walk_children(node) };
        let enum_class = named_children(node)
            .iter()
            .any(|m| m.kind_str() == "modifiers" && named_children(*m).iter().any(|c| self.b.text(*c) == "enum"));
        let kind = if has_token(node, "interface") {
            SymbolKind::Interface
        } else if enum_class {
            SymbolKind::Enum
        } else {
            SymbolKind::Class
        };
        let exported = self.exported(node);
        let idx = self.b.add_symbol(node, name, kind, exported);
        for c in named_children(node) {
            if c.kind_str() != "delegation_specifiers" {
                continue;
            }
            for d in named_children(c) {
                let ty = named_children(d).into_iter().find_map(|x| match x.kind_str() {
                    "user_type" => Some(x),
                    "constructor_invocation" => named_children(x).into_iter().find(|y| y.kind_str() == "user_type"),
                    _ => None,
                });
                if let Some(t) = ty {
                    let path = self.user_type(t);
                    if let Some(pos) = path.last().map(|s| s.1) {
                        self.b.add_relation(idx, TypeRelKind::Extends, texts(&path), pos);
                    }
                }
                self.walk(d);
            }
        }
        self.within(idx, true, |w| {
            for c in named_children(node) {
                match c.kind_str() {
                    "primary_constructor" => w.primary_constructor(c),
                    "class_body" => w.walk_children(c),
                    "enum_class_body" => {
                        for e in named_children(c) {
                            if e.kind_str() == "enum_entry" {
                                if let Some(n) = named_children(e).into_iter().find(|x| x.kind_str() == "identifier") {
                                    let i = w.b.add_symbol(e, n, SymbolKind::Constant, true);
                                    let enum_name = w.b.facts.symbols[idx as usize].name.clone();
                                    w.b.symbol_mut(i).returns = Some(vec![enum_name]);
                                }
                                for x in named_children(e).into_iter().skip(1) {
                                    w.walk(x);
                                }
                            } else {
                                w.walk(e);
                            }
                        }
                    }
                    _ => {}
                }
            }
        });
    }

    /// `class P(val x: Int, y: Int)`: `val`/`var` parameters are properties.
    fn primary_constructor(&mut self, node: Node) {
        for params in named_children(node).into_iter().filter(|c| c.kind_str() == "class_parameters") {
            for p in named_children(params) {
                let kids = named_children(p);
                let ty = kids.iter().find_map(|c| self.type_path(*c));
                for c in &kids {
                    if c.kind_str() != "identifier" {
                        self.walk(*c);
                    }
                }
                let Some(name) = kids.iter().find(|c| c.kind_str() == "identifier") else { continue };
                if has_token(p, "val") || has_token(p, "var") {
                    let exported = self.exported(p);
                    let i = self.b.add_symbol(p, *name, SymbolKind::Field, exported);
                    self.b.symbol_mut(i).returns = ty;
                }
            }
        }
    }

    fn function(&mut self, node: Node) {
        let Some(name) = node.field("name").filter(|n| !self.b.text(*n).is_empty()) else {
            return self.walk_children(node);
        };
        let kids = named_children(node);
        let params_at = kids.iter().position(|c| c.kind_str() == "function_value_parameters");
        // `fun Order.total()`: the receiver type is written before the name.
        let receiver =
            kids.iter().take_while(|c| Some(**c) != Some(name)).find(|c| c.kind_str() == "user_type").copied();
        let returns = params_at.and_then(|i| kids[i + 1..].iter().find_map(|c| self.type_path(*c)));
        let kind = if self.class { SymbolKind::Method } else { SymbolKind::Function };
        let exported = self.exported(node);
        let idx = self.b.add_symbol(node, name, kind, exported);
        self.b.symbol_mut(idx).returns = returns;
        if let Some(r) = receiver {
            let path = texts(&self.user_type(r));
            self.b.symbol_mut(idx).extension_of = Some(path);
        }
        self.within(idx, false, |w| {
            for c in kids {
                match c.kind_str() {
                    "function_value_parameters" => w.parameters(c),
                    "identifier" if c == name => {}
                    _ => w.walk(c),
                }
            }
        });
    }

    fn parameters(&mut self, node: Node) {
        for p in named_children(node) {
            if p.kind_str() != "parameter" {
                self.walk(p);
                continue;
            }
            let kids = named_children(p);
            let origin =
                kids.iter().find_map(|c| self.type_path(*c)).map_or(LocalOrigin::Unknown, LocalOrigin::Declared);
            for c in &kids {
                if c.kind_str() != "identifier" {
                    self.walk(*c);
                }
            }
            if let Some(n) = kids.iter().find(|c| c.kind_str() == "identifier") {
                let text = self.b.text(*n).to_string();
                self.b.add_local(&text, origin);
            }
        }
    }

    fn property(&mut self, node: Node) {
        let kids = named_children(node);
        let Some(decl) = kids.iter().find(|c| c.kind_str() == "variable_declaration").copied() else {
            return self.walk_children(node);
        };
        let Some(name) = named_children(decl).into_iter().find(|c| c.kind_str() == "identifier") else { return };
        let value =
            kids.iter().copied().find(|c| *c != decl && !matches!(c.kind_str(), "modifiers" | "type_parameters"));
        for c in named_children(decl) {
            if c != name {
                self.walk(c);
            }
        }
        let declared = self.declared(decl);
        let origin = match (&declared, value) {
            (LocalOrigin::Declared(_), _) => declared.clone(),
            (_, Some(v)) => self.value_origin(v),
            _ => LocalOrigin::Unknown,
        };
        let in_body =
            self.b.enclosing().is_some_and(|e| self.b.facts.symbols[e as usize].kind.is_callable()) && !self.class;
        if in_body {
            let text = self.b.text(name).to_string();
            self.b.add_local(&text, origin);
        } else {
            let kind = if self.class { SymbolKind::Field } else { SymbolKind::Variable };
            let exported = self.exported(node);
            let idx = self.b.add_symbol(node, name, kind, exported);
            if let LocalOrigin::Declared(p) = &declared {
                self.b.symbol_mut(idx).returns = Some(p.clone());
            } else if origin != LocalOrigin::Unknown {
                let scope = self.b.enclosing();
                self.b.symbol_mut(idx).init = Some(Box::new(crate::facts::Init { origin, scope }));
            }
        }
        for c in kids {
            if c != decl && c.kind_str() != "modifiers" {
                self.walk(c);
            }
        }
    }

    /// The origin of a local from its initialiser: a call (of a class: an instance of it).
    fn value_origin(&self, value: Node) -> LocalOrigin {
        self.chain_path(value).map_or(LocalOrigin::Unknown, |(segs, calls)| super::call_origin(&segs, calls))
    }

    /// A chain of names and calls: `a.b(x).c` → [a, b, c] with the call at 1.
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
                    let kids = named_children(cur);
                    let (object, member) = (kids.first()?, kids.last()?);
                    if kids.len() < 2 || member.kind_str() != "identifier" {
                        return None;
                    }
                    frames.push((self.b.seg(*member), std::mem::take(&mut called)));
                    cur = *object;
                }
                "identifier" => break (self.b.seg(cur), std::mem::take(&mut called)),
                "this_expression" => break (("this".to_string(), self.b.pos(cur)), std::mem::take(&mut called)),
                "super_expression" => break (("super".to_string(), self.b.pos(cur)), std::mem::take(&mut called)),
                "parenthesized_expression" => cur = cur.named_child(0)?,
                _ => return None,
            }
        };
        Some(super::assemble_chain(head, frames))
    }

    fn chain(&mut self, node: Node) {
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
        // Arguments, lambdas and type arguments of every call on the way.
        let mut cur = Some(node);
        let mut steps = 0;
        while let Some(n) = cur {
            steps += 1;
            if steps > 100_000 {
                break;
            }
            let kids = named_children(n);
            match n.kind_str() {
                "call_expression" | "navigation_expression" => {
                    for c in kids.iter().skip(1) {
                        if c.kind_str() != "identifier" {
                            self.walk(*c);
                        }
                    }
                    cur = kids.first().copied();
                }
                _ => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::{FileFacts, ImportKind, LocalOrigin, SymbolKind, TypeRelKind};
    use crate::lang::Language;

    fn kt(src: &str) -> FileFacts {
        extract(Language::Kotlin, src)
    }

    #[test]
    fn declarations_imports_and_locals() {
        let src = r"package shop.model

import shop.util.Money
import shop.util.format as fmt
import shop.io.*

interface Priced {
    fun price(): Double
}

enum class Color { RED, GREEN }

class Order(id: String, private val total: Money) : Base(id), Priced {
    val note: String? = null
    override fun price(): Double {
        val m: Money = total
        val o = Order.empty()
        val n = Money(1.0)
        for (l in lines) {
            l.amount
        }
        return this.total.value + fmt(m)
    }
    companion object {
        fun empty(): Order {
            return Order(Money(0.0))
        }
    }
}

fun Order.doubled(): Double {
    return price() * 2
}
";
        let f = kt(src);
        assert_eq!(f.package.as_deref(), Some("shop.model"));
        use SymbolKind::*;
        let got = crate::extract::testing::symbols(&f);
        assert_eq!(
            got,
            vec![
                ("Priced", Interface, None, true),
                ("price", Method, Some(0), true),
                ("Color", Enum, None, true),
                ("RED", Constant, Some(2), true),
                ("GREEN", Constant, Some(2), true),
                ("Order", Class, None, true),
                ("total", Field, Some(5), false),
                ("note", Field, Some(5), true),
                ("price", Method, Some(5), true),
                ("empty", Method, Some(5), true),
                ("doubled", Function, None, true),
            ]
        );
        assert_eq!(f.symbols[10].extension_of.as_deref(), Some(&["Order".to_string()][..]));
        assert_eq!(f.symbols[9].returns.as_deref(), Some(&["Order".to_string()][..]));
        let imports = crate::extract::testing::imports(&f);
        assert_eq!(
            imports,
            vec![
                ("shop.util", ImportKind::Named, vec![("Money", "Money")]),
                ("shop.util", ImportKind::Named, vec![("format", "fmt")]),
                ("shop.io", ImportKind::Glob, vec![]),
            ]
        );
        let rels: Vec<(u32, TypeRelKind, Vec<String>)> =
            f.relations.iter().map(|r| (r.symbol, r.kind, r.target.clone())).collect();
        assert_eq!(
            rels,
            vec![(5, TypeRelKind::Extends, vec!["Base".into()]), (5, TypeRelKind::Extends, vec!["Priced".into()])]
        );
        let local = |n: &str| f.locals.iter().find(|l| l.name == n).map(|l| l.origin.clone());
        assert_eq!(local("m"), Some(LocalOrigin::Declared(vec!["Money".into()])));
        assert_eq!(local("o"), Some(LocalOrigin::CallResult(vec!["Order".into(), "empty".into()])));
        assert_eq!(local("n"), Some(LocalOrigin::CallResult(vec!["Money".into()])));
        assert_eq!(local("l"), Some(LocalOrigin::Unknown));
        let refs = crate::extract::testing::refs(&f);
        assert!(refs.contains(&(vec!["this", "total", "value"], false)));
        assert!(refs.contains(&(vec!["fmt"], true)));
        assert!(refs.contains(&(vec!["price"], true)));
        assert!(refs.contains(&(vec!["Money"], true)));
    }

    #[test]
    fn hostile_kotlin_is_bounded() {
        let parens = format!("val x = {}1{}\n", "(".repeat(10_000), ")".repeat(10_000));
        assert!(kt(&parens).truncated_depth);
        let chain = format!("fun f() {{\n    a{}.z()\n}}\n", ".b".repeat(10_000));
        assert_eq!(kt(&chain).refs.iter().map(|r| r.segments.len()).max(), Some(10_002));
        let f = kt("val s = \"\"\"never closed ${a.b} \"${c \"${d}\"}\"");
        assert!(f.error_nodes > 0 || !f.refs.is_empty());
        let big = "fun f() {\n    g(1)\n}\n".repeat(60_000);
        assert!(big.len() > 1 << 20);
        assert_eq!(kt(&big).symbols.len(), 60_000);
    }
}
