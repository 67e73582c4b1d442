//! Chains of names — `a.b.c`, `a::b::c`, `A.B`, `a.b().c()?` — read from the syntax tree for every
//! grammar by one loop over a per-grammar table (`ChainSyntax`), and recorded by one driver
//! (`reference`). The loop never recurses, so a chain of 100,000 segments costs 100,000 steps and
//! no stack: a crafted file can't overflow the stack through a long chain.

use super::{Field, Kind};
use tree_sitter::Node;

use super::{texts, Builder, Segment, Walk};
use crate::facts::{projection_segment, LocalOrigin, Receiver, ReceiverBase};

/// A member access or a qualified name in one grammar: `a.b` (`member_expression`), `a::b`
/// (`scoped_identifier`), `pkg.Name` (`qualified_type`).
pub(crate) struct Member {
    pub kind: &'static str,
    /// Fields that may hold the object (the first one present is used).
    pub object: &'static [&'static str],
    /// Fields that may hold the member's name.
    pub name: &'static [&'static str],
    /// A missing object means the path starts at the root (Rust's `::std::x`), not a broken node.
    pub rooted: bool,
    /// A path's `::` (Rust): its object names a crate, module or type, never a value.
    pub path: bool,
}

/// How one grammar writes chains of names: the node kinds the chain reader walks through.
pub(crate) struct ChainSyntax {
    /// Kinds that are one name: a chain's head.
    pub names: &'static [&'static str],
    pub members: &'static [Member],
    /// Member accesses that are calls at once (Java's `a.m()`, `method_invocation`); one without an
    /// object (`m()`) starts the chain at its name.
    pub member_calls: &'static [Member],
    /// Kinds of member names that qualify a chain without being a segment (Java's `Outer.this.x`
    /// is `[Outer, x]`).
    pub silent_names: &'static [&'static str],
    /// Call kinds; the callee is their `function` field. The chain goes on from what they return.
    pub calls: &'static [&'static str],
    /// Postfix operators a chain goes through as a segment of their own (Rust's `x?` is `?`,
    /// `x[i]` is `[]`): node kind and segment name; the operand is the first named child.
    pub operators: &'static [(&'static str, &'static str)],
    /// Operators that slice a sequence when their last named child is of the kind given (Rust's
    /// `x[a..]`, Python's `x[1:]`): the chain goes on from the same sequence.
    pub slices: &'static [(&'static str, &'static str)],
    /// Wrappers looked through: kind and the field of the inner node (`None`: the first named child).
    pub through: &'static [(&'static str, Option<&'static str>)],
    /// Fields of looked-through wrappers that hold references of their own (`foo::<T>`'s `T`).
    pub extras: &'static [(&'static str, &'static str)],
    /// Where the value of an expression that heads a chain comes from, when that is known — the
    /// type a cast declares (`(x as Observable<T>).pipe`), the class a construction makes
    /// (`new Order().total()`), the value a wrapper holds (Rust's `Pin::new(&mut x).poll()`): the
    /// chain goes on from that value. Asked of every node of a chain before its other kinds.
    pub typed_head: Option<HeadType>,
    /// Walks a call's arguments knowing the call (its callee types a callback's parameters); the
    /// grammar's expression walker otherwise. Given the call so that no walker has to climb to it
    /// (`Node::parent` walks down from the root: once per call of a long chain is quadratic).
    pub arguments: Option<WalkArguments>,
    /// A call's one closure argument, its parameter and its body (`|h| h.item()`, `h => h.item`):
    /// a body that is a chain of the parameter makes a projection segment after the call
    /// (`facts::PROJECTION`).
    pub closure: Option<ClosureOf>,
}

/// Reads a call's one closure argument: the closure, its one parameter's name and its expression
/// body.
pub(crate) type ClosureOf = for<'t> fn(&Builder, Node<'t>) -> Option<(Node<'t>, Node<'t>, Node<'t>)>;

/// Reads where the value of an expression comes from (a cast, a construction, a wrapper).
pub(crate) type HeadType = fn(&Builder, Node) -> Option<LocalOrigin>;

/// Walks the arguments node of a call: `(builder, call, arguments)`.
pub(crate) type WalkArguments = fn(&mut Builder, Node, Node);

/// One step from the outside of a chain in: a member's name, a call, or a wrapper.
enum Frame<'t> {
    Name(Node<'t>),
    Call(Node<'t>),
    Through(Node<'t>),
    /// An operator segment (its name) written by this node.
    Op(&'static str, Node<'t>),
    /// A slice of a sequence (`x[a..]`): the same sequence, no segment.
    Slice(Node<'t>),
}

/// Where a chain starts.
enum Head<'t> {
    /// A name (`a` in `a.b`).
    Name(Node<'t>),
    /// The root of a path (`::std::x`).
    Root,
    /// An expression that is not a name (`f()[0]` in `f()[0].b`): the chain can't be followed.
    Opaque(Node<'t>),
    /// An expression whose value's origin `ChainSyntax::typed_head` knows: the chain goes on
    /// from that value.
    Typed(Node<'t>, LocalOrigin),
}

/// A chain as read: its steps from the outside in, and its head.
struct Read<'t> {
    frames: Vec<Frame<'t>>,
    head: Head<'t>,
    /// The step right after the head is a path's `::` (`Member::path`).
    path_head: bool,
}

fn field<'t>(node: Node<'t>, fields: &[&'static str]) -> Option<Node<'t>> {
    fields.iter().find_map(|f| node.field(f))
}

impl ChainSyntax {
    /// Reads the chain ending at `node`, from the outside in, in one loop.
    fn read<'t>(&self, b: &Builder, node: Node<'t>) -> Read<'t> {
        let mut frames = Vec::new();
        let mut cur = node;
        // Whether the step read last (the one nearest the head, so far) is a path's `::`.
        let mut path_head = false;
        let head = loop {
            let kind = cur.kind_str();
            if let Some(origin) = self.typed_head.filter(|_| !frames.is_empty()).and_then(|typed| typed(b, cur)) {
                break Head::Typed(cur, origin);
            }
            if self.names.contains(&kind) {
                break Head::Name(cur);
            }
            if let Some(m) = self.members.iter().find(|m| m.kind == kind) {
                let Some(name) = field(cur, m.name) else { break Head::Opaque(cur) };
                let Some(object) = field(cur, m.object) else {
                    if m.rooted {
                        frames.push(Frame::Name(name));
                        break Head::Root;
                    }
                    break Head::Opaque(cur);
                };
                if !self.silent_names.contains(&name.kind_str()) {
                    frames.push(Frame::Name(name));
                }
                path_head = m.path;
                cur = object;
                continue;
            }
            if let Some(m) = self.member_calls.iter().find(|m| m.kind == kind) {
                let Some(name) = field(cur, m.name) else { break Head::Opaque(cur) };
                path_head = false;
                frames.push(Frame::Call(cur));
                let Some(object) = field(cur, m.object) else { break Head::Name(name) };
                frames.push(Frame::Name(name));
                cur = object;
                continue;
            }
            if self.calls.contains(&kind) {
                let Some(function) = cur.field("function") else { break Head::Opaque(cur) };
                path_head = false;
                frames.push(Frame::Call(cur));
                cur = function;
                continue;
            }
            if let Some(&(_, name)) = self.operators.iter().find(|(k, _)| *k == kind) {
                let Some(operand) = cur.named_child(0) else { break Head::Opaque(cur) };
                path_head = false;
                let index = cur.named_child(cur.named_child_count().saturating_sub(1) as u32);
                if index.is_some_and(|i| self.slices.contains(&(kind, i.kind_str()))) {
                    frames.push(Frame::Slice(cur));
                } else {
                    frames.push(Frame::Op(name, cur));
                }
                cur = operand;
                continue;
            }
            if let Some(&(_, inner)) = self.through.iter().find(|(k, _)| *k == kind) {
                let Some(next) = inner.map_or_else(|| cur.named_child(0), |f| cur.field(f)) else {
                    break Head::Opaque(cur);
                };
                frames.push(Frame::Through(cur));
                cur = next;
                continue;
            }
            break Head::Opaque(cur);
        };
        Read { frames, head, path_head }
    }

    /// The segments of a chain of names only (`a`, `a.b.c`, `a::b::C`): no calls, a name (or the
    /// root) at its head. Wrappers are looked through.
    pub fn names(&self, b: &Builder, node: Node) -> Option<Vec<Segment>> {
        let read = self.read(b, node);
        let mut segments = match read.head {
            Head::Name(n) => vec![b.seg(n)],
            Head::Root => Vec::new(),
            Head::Opaque(_) | Head::Typed(..) => return None,
        };
        for frame in read.frames.iter().rev() {
            match frame {
                Frame::Name(n) => segments.push(b.seg(*n)),
                Frame::Call(_) | Frame::Op(..) | Frame::Slice(_) => return None,
                Frame::Through(_) => {}
            }
        }
        (!segments.is_empty()).then_some(segments)
    }

    /// The segments of a chain through calls (`rt.handle().clone()`) and the indices of the called
    /// segments (ascending); `None` when the head is not a name.
    pub fn called_names(&self, b: &Builder, node: Node) -> Option<(Vec<Segment>, Vec<u32>)> {
        self.called_names_with(b, node, true)
    }

    /// What a value a chain through calls gives comes from (`LocalOrigin::CallChain`): `a.b().c()`,
    /// `this.items[i]`.
    pub fn called_origin(&self, b: &Builder, node: Node) -> Option<LocalOrigin> {
        let (segments, calls_at) = self.called_names(b, node)?;
        Some(LocalOrigin::CallChain(texts(&segments), calls_at))
    }

    /// `called_names`, with the projection segments of mapping closures when `projections`.
    fn called_names_with(&self, b: &Builder, node: Node, projections: bool) -> Option<(Vec<Segment>, Vec<u32>)> {
        let read = self.read(b, node);
        let mut segments = match read.head {
            Head::Name(n) => vec![b.seg(n)],
            Head::Root => Vec::new(),
            Head::Opaque(_) | Head::Typed(..) => return None,
        };
        let mut calls_at = Vec::new();
        for frame in read.frames.iter().rev() {
            match frame {
                Frame::Name(n) => segments.push(b.seg(*n)),
                Frame::Op(name, node) => segments.push(((*name).to_string(), b.pos(*node))),
                Frame::Call(call) if !segments.is_empty() => {
                    calls_at.push((segments.len() - 1) as u32);
                    if projections {
                        segments.extend(self.projection(b, *call, &segments));
                    }
                }
                Frame::Call(_) => return None,
                Frame::Through(_) | Frame::Slice(_) => {}
            }
        }
        (!segments.is_empty()).then_some((segments, calls_at))
    }

    /// The projection segment (`facts::PROJECTION`) after a method call (`segments` so far: a
    /// receiver and the method) whose one closure gives a chain of its parameter, at the closure.
    /// The closure's own chain is read without projections: one level, so closures nested in
    /// closures cost no recursion and a segment never holds another.
    fn projection(&self, b: &Builder, call: Node, segments: &[Segment]) -> Option<Segment> {
        if segments.len() < 2 {
            return None;
        }
        let (closure, param, body) = (self.closure?)(b, call)?;
        let (body, calls_at) = self.called_names_with(b, body, false)?;
        let (head, names) = body.split_first()?;
        if head.0 != b.text(param) || names.is_empty() || calls_at.first() == Some(&0) {
            return None;
        }
        let names: Vec<String> = names.iter().map(|s| s.0.clone()).collect();
        let calls_at: Vec<u32> = calls_at.iter().map(|c| c - 1).collect();
        Some((projection_segment(&names, &calls_at), b.pos(closure)))
    }

    /// The parts of a call or wrapper that are walked for their own references: a call's children
    /// besides the chain itself (arguments, generic arguments), a wrapper's `extras` fields.
    fn walk_inner<'s>(&self, w: &mut impl ChainWalker<'s>, frame: &Frame) {
        match frame {
            Frame::Call(call) => {
                let mut parts = Vec::new();
                let mut cursor = call.walk();
                if cursor.goto_first_child() {
                    loop {
                        let part = cursor.node();
                        if part.is_named() && !matches!(cursor.field_name(), Some("function" | "object" | "name")) {
                            parts.push((part, cursor.field_name() == Some("arguments")));
                        }
                        if !cursor.goto_next_sibling() {
                            break;
                        }
                    }
                }
                for (part, arguments) in parts {
                    match self.arguments.filter(|_| arguments) {
                        Some(walk) => walk(w.builder(), *call, part),
                        None => w.walk(part),
                    }
                }
            }
            Frame::Through(node) => {
                for &(kind, f) in self.extras {
                    if node.kind_str() == kind {
                        if let Some(part) = node.field(f) {
                            w.walk(part);
                        }
                    }
                }
            }
            Frame::Op(_, node) | Frame::Slice(node) => {
                for part in super::named_children(*node).into_iter().skip(1) {
                    w.walk(part);
                }
            }
            Frame::Name(_) => {}
        }
    }
}

/// What the chain driver needs of a grammar's walker: the builder that records, and (`Walk`) the walk
/// of the expressions inside a chain (call arguments, a head that is not a name).
pub(crate) trait ChainWalker<'s>: Walk {
    fn builder(&mut self) -> &mut Builder<'s>;
}

/// The walker of a grammar whose expression walk is a plain function of the builder.
struct FnWalker<'b, 's> {
    b: &'b mut Builder<'s>,
    walk: fn(&mut Builder, Node),
}

impl Walk for FnWalker<'_, '_> {
    fn walk(&mut self, node: Node) {
        (self.walk)(self.b, node);
    }
}

impl<'s> ChainWalker<'s> for FnWalker<'_, 's> {
    fn builder(&mut self) -> &mut Builder<'s> {
        self.b
    }
}

/// Records the reference a name, member chain or path is, with `call` when the whole of it is
/// called. A chain through calls becomes one chain whose called segments are marked (the resolver
/// goes on from what they return); a chain whose head is not a name is recorded as opaque tails —
/// the names after each call, which can't be resolved without types — and its head is walked.
/// Call arguments and the head are walked with `walk`, the grammar's expression walker.
pub(crate) fn reference(b: &mut Builder, node: Node, call: bool, syntax: &ChainSyntax, walk: fn(&mut Builder, Node)) {
    drive(&mut FnWalker { b, walk }, node, call, syntax);
}

/// The segments of a chain followed from its head (`head` holds its first, if it has one) and the
/// indices of the segments called on the way, the frames' inner parts walked; and whether the
/// outermost step is a call of the whole (Java's `a.m()` read from the invocation).
fn named_steps<'s>(
    w: &mut impl ChainWalker<'s>,
    syntax: &ChainSyntax,
    frames: &[Frame],
    head: Vec<Segment>,
) -> (Vec<Segment>, Vec<u32>, bool) {
    let mut segments = head;
    let mut calls_at = Vec::new();
    let outer_call = matches!(frames.first(), Some(Frame::Call(_)));
    let last = frames.len().saturating_sub(1);
    for (i, frame) in frames.iter().rev().enumerate() {
        syntax.walk_inner(w, frame);
        match frame {
            Frame::Name(n) => segments.push(w.builder().seg(*n)),
            Frame::Op(name, node) => segments.push(((*name).to_string(), w.builder().pos(*node))),
            Frame::Call(_) if outer_call && i == last => {}
            Frame::Call(call) if !segments.is_empty() => {
                calls_at.push((segments.len() - 1) as u32);
                let projection = syntax.projection(w.builder(), *call, &segments);
                segments.extend(projection);
            }
            _ => {}
        }
    }
    (segments, calls_at, outer_call)
}

/// `reference` for a grammar whose walker carries state of its own (Java's).
pub(crate) fn drive<'s>(w: &mut impl ChainWalker<'s>, node: Node, call: bool, syntax: &ChainSyntax) {
    let read = syntax.read(w.builder(), node);
    match read.head {
        Head::Name(_) | Head::Root => {
            let head = match read.head {
                Head::Name(n) => vec![w.builder().seg(n)],
                _ => Vec::new(),
            };
            let (segments, calls_at, outer_call) = named_steps(w, syntax, &read.frames, head);
            w.builder().add_call_chain(segments, calls_at, call || outer_call, read.path_head);
        }
        Head::Typed(head, origin) => {
            // A cast, a construction, a wrapper: the members of that value.
            let (segments, calls_at, outer_call) = named_steps(w, syntax, &read.frames, Vec::new());
            w.walk(head);
            let receiver = Receiver { base: ReceiverBase::Value(origin), members: Vec::new() };
            w.builder().add_receiver_chain(segments, calls_at, call || outer_call, receiver);
        }
        Head::Opaque(head) => {
            // From the outside in: the names up to each call are one opaque tail; the callee of a
            // call is itself called.
            let mut tail: Vec<Segment> = Vec::new();
            let mut called = call;
            for frame in &read.frames {
                syntax.walk_inner(w, frame);
                match frame {
                    Frame::Name(n) => tail.push(w.builder().seg(*n)),
                    Frame::Op(name, node) => tail.push(((*name).to_string(), w.builder().pos(*node))),
                    Frame::Call(_) => {
                        tail.reverse();
                        w.builder().add_ref(std::mem::take(&mut tail), called, true);
                        called = true;
                    }
                    Frame::Through(_) | Frame::Slice(_) => {}
                }
            }
            tail.reverse();
            w.builder().add_ref(tail, called, true);
            w.walk(head);
        }
    }
}
