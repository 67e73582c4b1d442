//! Extraction for Ruby (tree-sitter-ruby 0.23).
//!
//! Declarations: modules (as modules) and classes (a class or module written again is the same one:
//! the resolver merges the writings by qualified name), instance and singleton methods (`def x`,
//! `def self.x`, `class << self`), `attr_reader`/`attr_writer`/`attr_accessor` names as fields,
//! instance variables (declared by their first assignment in the class, named with their `@`),
//! constants. Relations: the superclass (`extends`), `include`/`prepend`/`extend` of a module
//! (`implements`: the class has the module's methods). Imports: `require` and `require_relative`
//! of a literal path. Uses: calls with and without a receiver (a call without one is a method of
//! `self`, or a local), `Const::Name`, `X.new(…)` as a call of the class (the chain goes on from an
//! instance of it), `self.x`, `@x`. Dynamic dispatch (`send`, `public_send`, `method_missing`) is a
//! call of a method named so: never found, so unresolved and counted.

use super::{Field, Kind};
use tree_sitter::Node;

use super::{named_children, texts, Builder, Segment, Walk};
use crate::facts::{ImportKind, Init, LocalOrigin, Pos, Receiver, ReceiverBase, SymbolKind, TypeRelKind};

pub(crate) fn extract(b: &mut Builder, root: Node) {
    let mut w = Walker { b, class: None, method: false, locals: Vec::new(), singleton: false };
    w.walk_children(root);
}

struct Walker<'a, 's> {
    b: &'a mut Builder<'s>,
    /// The innermost class or module being walked.
    class: Option<u32>,
    /// Inside a method body.
    method: bool,
    /// The locals of the method (or file) assigned so far: a bare name that is none of them is a
    /// call of a method of `self`.
    locals: Vec<String>,
    /// Inside `class << self`: the methods are singleton methods.
    singleton: bool,
}

impl Walk for Walker<'_, '_> {
    fn walk(&mut self, node: Node) {
        if !self.b.descend() {
            return;
        }
        match node.kind_str() {
            "comment" | "string_content" | "integer" | "float" | "true" | "false" | "nil" | "simple_symbol"
            | "hash_key_symbol" | "escape_sequence" | "heredoc_beginning" | "heredoc_content" | "heredoc_end"
            | "regex" | "character" | "uninterpreted" | "global_variable" | "class_variable" | "self" => {}
            "module" => self.class_like(node, SymbolKind::Module),
            "class" => self.class_like(node, SymbolKind::Class),
            "singleton_class" => {
                // `class << self`: its methods are the class's own.
                let saved = std::mem::replace(&mut self.singleton, true);
                self.walk_opt(node.field("body"));
                self.singleton = saved;
            }
            "method" | "singleton_method" => self.method(node),
            "assignment" | "operator_assignment" => self.assignment(node),
            "call" => self.call(node),
            "identifier" => {
                // A local, or (any other name) a call of a method of `self` without arguments.
                let seg = self.b.seg(node);
                let call = !self.locals.contains(&seg.0);
                self.b.add_ref(vec![seg], call, false);
            }
            "constant" | "scope_resolution" => match self.const_path(node) {
                Some(path) => self.b.add_ref(path, false, false),
                None => self.walk_children(node),
            },
            "instance_variable" => {
                let seg = self.ivar_seg(node);
                self.b.add_receiver_chain(vec![seg], Vec::new(), false, Self::self_receiver());
            }
            "method_parameters" | "block_parameters" | "lambda_parameters" => self.parameters(node),
            "block" | "do_block" => {
                self.walk_opt(node.field("parameters"));
                self.walk_opt(node.field("body"));
            }
            _ => self.walk_children(node),
        }
        self.b.ascend();
    }
}

impl Walker<'_, '_> {
    fn within(&mut self, symbol: u32, class: Option<u32>, method: bool, f: impl FnOnce(&mut Walker<'_, '_>)) {
        self.b.within(symbol, |b| {
            let mut w = Walker { b, class, method, locals: Vec::new(), singleton: false };
            f(&mut w);
        });
    }

    fn add_local(&mut self, name: &str, origin: LocalOrigin) {
        self.b.add_local(name, origin);
        self.locals.push(name.to_string());
    }

    /// A constant or `A::B::C` as its segments (`::C` is [C]).
    fn const_path(&self, node: Node) -> Option<Vec<Segment>> {
        let mut out = Vec::new();
        let mut cur = node;
        for _ in 0..4096 {
            match cur.kind_str() {
                "constant" => {
                    out.push(self.b.seg(cur));
                    break;
                }
                "scope_resolution" => {
                    out.push(self.b.seg(cur.field("name")?));
                    match cur.field("scope") {
                        Some(s) => cur = s,
                        None => break,
                    }
                }
                _ => return None,
            }
        }
        out.reverse();
        Some(out)
    }

    /// `@x` as a member name: the instance variable, with its `@`.
    fn ivar_seg(&self, node: Node) -> Segment {
        self.b.seg(node)
    }

    /// The value a member of `self` is read from.
    fn self_receiver() -> Receiver {
        Receiver { base: ReceiverBase::Value(LocalOrigin::Declared(vec!["self".into()])), members: Vec::new() }
    }

    fn class_like(&mut self, node: Node, kind: SymbolKind) {
        let Some(name) = node.field("name") else { return self.walk_children(node) };
        let Some(path) = self.const_path(name) else { return self.walk_children(node) };
        let (last, pos) = path.last().cloned().expect("a path has a segment");
        // `class A::B`: defined in `A` (the prefix is a use of it).
        if path.len() > 1 {
            self.b.add_ref(path[..path.len() - 1].to_vec(), false, false);
        }
        let idx = self.b.add_symbol_named(node, last, pos, kind, true);
        if let Some(sup) = node.field("superclass") {
            for t in named_children(sup) {
                if let Some(p) = self.const_path(t) {
                    let at = p.last().map(|s| s.1).unwrap_or_default();
                    self.b.add_relation(idx, TypeRelKind::Extends, texts(&p), at);
                    self.b.add_ref(p, false, false);
                } else {
                    self.walk(t);
                }
            }
        }
        self.within(idx, Some(idx), false, |w| w.walk_opt(node.field("body")));
    }

    fn method(&mut self, node: Node) {
        let Some(name) = node.field("name") else { return self.walk_children(node) };
        let kind = if self.class.is_some() { SymbolKind::Method } else { SymbolKind::Function };
        let idx = self.b.add_symbol(node, name, kind, true);
        let returns = self.returns(node);
        self.b.symbol_mut(idx).returns = returns;
        self.b.symbol_mut(idx).singleton = node.kind_str() == "singleton_method" || self.singleton;
        let class = self.class;
        self.within(idx, class, true, |w| {
            w.walk_opt(node.field("parameters"));
            w.walk_opt(node.field("body"));
        });
    }

    /// What a method returns when its last expression says so: `new(…)` or `self` in a class (an
    /// instance of it), `X.new(…)` (an instance of `X`).
    fn returns(&self, node: Node) -> Option<Vec<String>> {
        let body = node.field("body")?;
        let last = if body.kind_str() == "body_statement" { named_children(body).into_iter().last()? } else { body };
        let class = self.class.map(|c| self.b.facts.symbols[c as usize].name.clone());
        match last.kind_str() {
            "self" if node.kind_str() == "method" => class.map(|c| vec![c]),
            "call" if last.field("method").is_some_and(|m| self.b.text(m) == "new") => match last.field("receiver") {
                None => class.map(|c| vec![c]),
                Some(r) => self.const_path(r).map(|p| texts(&p)),
            },
            _ => None,
        }
    }

    fn parameters(&mut self, node: Node) {
        for p in named_children(node) {
            let name = if p.kind_str() == "identifier" { Some(p) } else { p.field("name") };
            if let Some(n) = name.filter(|n| n.kind_str() == "identifier") {
                let text = self.b.text(n).to_string();
                self.add_local(&text, LocalOrigin::Unknown);
            }
            self.walk_opt(p.field("value"));
        }
    }

    fn assignment(&mut self, node: Node) {
        let left = node.field("left");
        let right = node.field("right");
        self.walk_opt(right);
        let origin = right.map_or(LocalOrigin::Unknown, |r| self.value_origin(r));
        let Some(l) = left else { return };
        match l.kind_str() {
            "identifier" => {
                let text = self.b.text(l).to_string();
                self.add_local(&text, origin);
            }
            "constant" if !self.method => {
                self.b.add_symbol(node, l, SymbolKind::Constant, true);
            }
            "instance_variable" => {
                // The first assignment in a class's method declares the instance variable.
                match self.class.filter(|_| self.method) {
                    Some(class) => {
                        let scope = self.b.enclosing();
                        if let Some(idx) = self.b.add_member(class, l, l, SymbolKind::Field, false) {
                            if origin != LocalOrigin::Unknown {
                                self.b.symbol_mut(idx).init = Some(Box::new(Init { origin, scope }));
                            }
                        } else {
                            let seg = self.ivar_seg(l);
                            self.b.add_receiver_chain(vec![seg], Vec::new(), false, Self::self_receiver());
                        }
                    }
                    None => self.walk(l),
                }
            }
            _ => self.walk(l),
        }
    }

    /// What a local is assigned: `X.new(…)` constructs `X`; `X.m` / `m` is a call's result.
    fn value_origin(&self, value: Node) -> LocalOrigin {
        if value.kind_str() != "call" {
            return LocalOrigin::Unknown;
        }
        let Some(method) = value.field("method") else { return LocalOrigin::Unknown };
        let name = self.b.text(method);
        match value.field("receiver") {
            Some(r) => match self.const_path(r) {
                Some(p) if name == "new" => LocalOrigin::Constructed(texts(&p)),
                Some(mut p) => {
                    p.push(self.b.seg(method));
                    LocalOrigin::CallResult(texts(&p))
                }
                None => LocalOrigin::Unknown,
            },
            None => LocalOrigin::CallResult(vec![name.to_string()]),
        }
    }

    /// The call a method name is (`include`, `attr_reader`, `require` are declarations here).
    fn call(&mut self, node: Node) {
        let method = node.field("method");
        let receiver = node.field("receiver");
        let name = method.map_or("", |m| self.b.text(m));
        if receiver.is_none() && !self.method {
            let declared = match name {
                "include" | "prepend" | "extend" => self.mixin(node),
                "attr_reader" | "attr_writer" | "attr_accessor" => self.accessors(node),
                "require" | "require_relative" | "load" => self.require(node, name),
                _ => false,
            };
            if declared {
                return;
            }
        }
        if method.is_some_and(|m| m.kind_str() == "super") {
            self.walk_opt(node.field("arguments"));
            self.walk_opt(node.field("block"));
            return;
        }
        if let Some((segs, mut calls, receiver)) = self.chain(node) {
            let last = segs.len() as u32 - 1;
            let called = calls.last() == Some(&last);
            if called {
                calls.pop();
            }
            match receiver {
                Some(r) => self.b.add_receiver_chain(segs, calls, called, r),
                None => self.b.add_call_chain(segs, calls, called, false),
            }
        } else {
            self.walk_opt(receiver);
            if let Some(m) = method {
                let seg = self.b.seg(m);
                self.b.add_ref(vec![seg], true, true);
            }
        }
        // The arguments and blocks of every call on the way, and `X.new` inside the chain (a call of
        // the class the chain then goes on from).
        let mut cur = Some(node);
        let mut steps = 0;
        while let Some(n) = cur.filter(|n| n.kind_str() == "call") {
            steps += 1;
            if steps > 100_000 {
                break;
            }
            if n != node && n.field("method").is_some_and(|m| self.b.text(m) == "new") {
                if let Some(path) = n.field("receiver").and_then(|r| self.const_path(r)) {
                    self.b.add_ref(path, true, false);
                }
            }
            self.walk_opt(n.field("arguments"));
            self.walk_opt(n.field("block"));
            cur = n.field("receiver");
        }
    }

    /// A chain of calls from a name, `self`, a constant path or `X.new`: its segments, the called
    /// ones, and the value it starts from when that is not named (`self`, a new instance).
    fn chain(&self, node: Node) -> Option<(Vec<Segment>, Vec<u32>, Option<Receiver>)> {
        // The names from the outside in; an instance variable's is the one that is not a call.
        let mut frames: Vec<Segment> = Vec::new();
        let mut ivar = false;
        let mut cur = node;
        let (mut segs, receiver) = loop {
            if frames.len() > 100_000 {
                return None;
            }
            match cur.kind_str() {
                "call" => {
                    let m = cur.field("method")?;
                    if m.kind_str() != "identifier" && m.kind_str() != "constant" {
                        return None;
                    }
                    let name = self.b.text(m);
                    match cur.field("receiver") {
                        None => {
                            frames.push(self.b.seg(m));
                            break (Vec::new(), None);
                        }
                        Some(r) if name == "new" && self.const_path(r).is_some() => {
                            // `X.new(…)`: a call of the class, then members of an instance of it.
                            let path = self.const_path(r).expect("checked");
                            if frames.is_empty() {
                                frames.extend(path.into_iter().rev());
                                break (Vec::new(), None);
                            }
                            let recv = Receiver {
                                base: ReceiverBase::Value(LocalOrigin::Constructed(texts(&path))),
                                members: Vec::new(),
                            };
                            break (Vec::new(), Some(recv));
                        }
                        Some(r) => {
                            frames.push(self.b.seg(m));
                            cur = r;
                        }
                    }
                }
                "identifier" | "constant" | "scope_resolution" => {
                    let head = self.const_path(cur).unwrap_or_else(|| vec![self.b.seg(cur)]);
                    break (head, None);
                }
                "self" => break (Vec::new(), Some(Self::self_receiver())),
                "instance_variable" => {
                    frames.push(self.ivar_seg(cur));
                    ivar = true;
                    break (Vec::new(), Some(Self::self_receiver()));
                }
                "parenthesized_statements" => cur = cur.named_child(0)?,
                _ => return None,
            }
        };
        let head_len = segs.len();
        frames.reverse();
        // Every frame is a method call except a trailing constant path (`X.new` written as the head).
        let new_call = node.field("method").is_some_and(|m| self.b.text(m) == "new")
            && node.field("receiver").is_some_and(|r| self.const_path(r).is_some());
        segs.extend(frames);
        // Every method segment is a call (Ruby calls a method without parentheses too).
        let calls: Vec<u32> = if new_call && receiver.is_none() {
            vec![segs.len() as u32 - 1]
        } else {
            (head_len + usize::from(ivar)..segs.len()).map(|i| i as u32).collect()
        };
        if segs.is_empty() {
            return None;
        }
        Some((segs, calls, receiver))
    }

    fn mixin(&mut self, node: Node) -> bool {
        let Some(class) = self.class else { return false };
        for a in node.field("arguments").map(named_children).unwrap_or_default() {
            match self.const_path(a) {
                Some(p) => {
                    let at = p.last().map(|s| s.1).unwrap_or_default();
                    self.b.add_relation(class, TypeRelKind::Implements, texts(&p), at);
                    self.b.add_ref(p, false, false);
                }
                None => self.walk(a),
            }
        }
        true
    }

    fn accessors(&mut self, node: Node) -> bool {
        if self.class.is_none() {
            return false;
        }
        for a in node.field("arguments").map(named_children).unwrap_or_default() {
            if a.kind_str() == "simple_symbol" {
                let text = self.b.text(a).trim_start_matches(':').to_string();
                let pos = self.b.pos(a);
                let pos = Pos { line: pos.line, col: pos.col + 1 };
                self.b.add_symbol_named(a, text, pos, SymbolKind::Field, true);
            }
        }
        true
    }

    fn require(&mut self, node: Node, how: &str) -> bool {
        let args = node.field("arguments").map(named_children).unwrap_or_default();
        let Some(path) = args.first().filter(|a| a.kind_str() == "string") else { return false };
        let parts = named_children(*path);
        if parts.len() != 1 || parts[0].kind_str() != "string_content" {
            return false;
        }
        let text = self.b.text(parts[0]);
        let module = if how == "require_relative" { format!("./{text}") } else { text.to_string() };
        let pos = self.b.pos(node);
        self.b.add_import(module, ImportKind::SideEffect, Vec::new(), pos, false);
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::{FileFacts, ImportKind, LocalOrigin, SymbolKind, TypeRelKind};
    use crate::lang::Language;

    fn rb(src: &str) -> FileFacts {
        extract(Language::Ruby, src)
    }

    use crate::extract::testing::refs;

    #[test]
    fn modules_classes_methods_and_mixins() {
        let src = r#"require "json"
require_relative "money"
module Shop
  class Order < Base
    include Pricing
    extend Finders
    attr_reader :lines, :total
    MAX = 10
    def initialize(total)
      @total = Money.new(total)
    end
    def self.empty = new(0)
    class << self
      def build; empty; end
    end
    def add(line)
      count = 1
      @total.plus(line.amount)
      log "added", count
      self.log("x")
      Shop::Money.new(1).plus(2)
      send(:log, "dynamic")
    end
  end
end
"#;
        let f = rb(src);
        use SymbolKind::*;
        let got: Vec<(&str, SymbolKind, Option<u32>)> =
            f.symbols.iter().map(|s| (s.name.as_str(), s.kind, s.container)).collect();
        assert_eq!(
            got,
            vec![
                ("Shop", Module, None),
                ("Order", Class, Some(0)),
                ("lines", Field, Some(1)),
                ("total", Field, Some(1)),
                ("MAX", Constant, Some(1)),
                ("initialize", Method, Some(1)),
                ("@total", Field, Some(1)),
                ("empty", Method, Some(1)),
                ("build", Method, Some(1)),
                ("add", Method, Some(1)),
            ]
        );
        // `new(…)` as the last expression returns an instance of the class.
        assert_eq!(f.symbols[7].returns.as_deref(), Some(&["Order".to_string()][..]));
        assert_eq!(
            f.symbols[6].init.as_ref().map(|i| i.origin.clone()),
            Some(LocalOrigin::Constructed(vec!["Money".into()]))
        );
        let imports: Vec<(&str, ImportKind)> = f.imports.iter().map(|i| (i.module.as_str(), i.kind)).collect();
        assert_eq!(imports, vec![("json", ImportKind::SideEffect), ("./money", ImportKind::SideEffect)]);
        let rels: Vec<(u32, TypeRelKind, Vec<String>)> =
            f.relations.iter().map(|r| (r.symbol, r.kind, r.target.clone())).collect();
        assert_eq!(
            rels,
            vec![
                (1, TypeRelKind::Extends, vec!["Base".into()]),
                (1, TypeRelKind::Implements, vec!["Pricing".into()]),
                (1, TypeRelKind::Implements, vec!["Finders".into()]),
            ]
        );
        let r = refs(&f);
        // A bare name that is no local is a call of a method of `self`; a local is not.
        assert!(r.contains(&(vec!["empty"], true)));
        assert!(r.contains(&(vec!["log"], true)));
        assert!(r.contains(&(vec!["count"], false)));
        assert!(r.contains(&(vec!["Shop", "Money"], true)));
        assert!(r.contains(&(vec!["plus"], true)));
        assert!(r.contains(&(vec!["line", "amount"], true)));
        assert!(r.contains(&(vec!["send"], true)));
        // `@total.plus(…)`: the instance variable is read, its method called.
        let ivar = f.refs.iter().find(|c| c.segments[0].0 == "@total" && c.segments.len() == 2).expect("@total.plus");
        assert_eq!((ivar.call, ivar.calls_at.clone()), (true, vec![]));
    }

    #[test]
    fn hostile_ruby_is_bounded() {
        let parens = format!("x = {}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(rb(&parens).truncated_depth);
        let chain = format!("a{}", ".b".repeat(10_000));
        assert_eq!(rb(&chain).refs.iter().map(|r| r.segments.len()).max(), Some(10_001));
        let f = rb("s = <<~EOS\n  never closed #{a.b} \"#{c \"#{d}\"}\"\n");
        assert!(f.error_nodes > 0 || !f.refs.is_empty());
        let big = "def f\n  g(1)\nend\n".repeat(70_000);
        assert!(big.len() > 1 << 20);
        assert_eq!(rb(&big).symbols.len(), 70_000);
    }
}
