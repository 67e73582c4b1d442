//! The type hierarchy: `supertypes` and `subtypes` of a type to a depth, and `implementations` of a
//! type (the concrete types below it) or of an interface/trait member (the members that implement
//! or override it). Only proven relations are walked — `extends`, `implements`, `impl Trait for
//! Type`, Python base classes, Go embedding — never a same-named guess: a Go type satisfies an
//! interface structurally, which the index does not claim, and the answer says so.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{bounded, Ctx, Error, Freshness, Omitted, SymbolInfo};
use crate::facts::{SymbolKind, TypeRelKind};
use crate::index::{Index, SymId};
use crate::lang::Language;

pub const HIERARCHY_DEPTH_DEFAULT: u32 = 1;
pub const HIERARCHY_DEPTH_CAP: u32 = 10;
pub const HIERARCHY_LIMIT_DEFAULT: u32 = 100;
pub const HIERARCHY_LIMIT_CAP: u32 = 500;

/// Supertypes or subtypes of a type, to a depth.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HierarchyRequest {
    /// A class, interface, struct, trait, enum or type alias.
    pub handle: String,
    /// Levels of the hierarchy (default 1, cap 10).
    #[serde(default)]
    pub depth: Option<u32>,
    /// Maximum types (default 100, cap 500).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Implementations of a type or of an interface/trait member.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImplementationsRequest {
    /// A type, or a member (method, field) of a type.
    pub handle: String,
    /// Maximum results (default 100, cap 500).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One related type (or member).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HierarchyEntry {
    pub symbol: SymbolInfo,
    /// 1 for a direct supertype or subtype.
    pub depth: u32,
    /// `extends` or `implements`: the relation that proves it (the one nearest the asked type).
    pub relation: String,
    /// The type one level nearer the asked type that the relation connects it to.
    pub via: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HierarchyResponse {
    pub symbol: SymbolInfo,
    /// Nearest first, then by handle; each type once.
    pub types: Vec<HierarchyEntry>,
    pub total: u64,
    /// How the relations were proven, and what is not claimed.
    pub provenance: Vec<String>,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImplementationsResponse {
    pub symbol: SymbolInfo,
    /// Concrete types below a type, or the members that implement a member; by handle.
    pub implementations: Vec<HierarchyEntry>,
    pub total: u64,
    pub provenance: Vec<String>,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Up,
    Down,
}

pub(crate) fn supertypes(ctx: &Ctx, req: HierarchyRequest) -> Result<HierarchyResponse, Error> {
    hierarchy(ctx, req, Direction::Up)
}

pub(crate) fn subtypes(ctx: &Ctx, req: HierarchyRequest) -> Result<HierarchyResponse, Error> {
    hierarchy(ctx, req, Direction::Down)
}

fn hierarchy(ctx: &Ctx, req: HierarchyRequest, direction: Direction) -> Result<HierarchyResponse, Error> {
    let depth = bounded(req.depth, HIERARCHY_DEPTH_DEFAULT, HIERARCHY_DEPTH_CAP, "depth")? as u32;
    let limit = bounded(req.limit, HIERARCHY_LIMIT_DEFAULT, HIERARCHY_LIMIT_CAP, "limit")?;
    let index = ctx.index();
    let id = type_handle(index, &req.handle)?;
    let entries: Vec<HierarchyEntry> =
        walk(index, id, direction, depth).into_iter().map(|step| step.entry(index)).collect();
    let total = entries.len();
    let mut omitted = Omitted::default();
    let types = omitted.cut(entries, limit, "types");
    Ok(HierarchyResponse {
        symbol: SymbolInfo::of(index, id),
        types,
        total: total as u64,
        provenance: provenance(index, id),
        omitted,
        freshness: ctx.freshness(),
    })
}

pub(crate) fn implementations(ctx: &Ctx, req: ImplementationsRequest) -> Result<ImplementationsResponse, Error> {
    let limit = bounded(req.limit, HIERARCHY_LIMIT_DEFAULT, HIERARCHY_LIMIT_CAP, "limit")?;
    let index = ctx.index();
    let id = index.handle_id(&req.handle)?;
    let sym = index.symbol(id);
    let (owner, list) = if sym.kind.is_type() {
        // Every type below it that is not itself abstract (an interface or trait).
        let below = walk(index, id, Direction::Down, HIERARCHY_DEPTH_CAP);
        let concrete = below
            .into_iter()
            .filter(|s| !matches!(index.symbol(s.id).kind, SymbolKind::Interface | SymbolKind::Trait))
            .map(|s| s.entry(index))
            .collect::<Vec<_>>();
        (id, concrete)
    } else {
        let owner = owner_type(index, id).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "`{}` is a {} outside any type; implementations take a type, or a member of a class, interface or trait",
                req.handle,
                sym.kind.as_str()
            ))
        })?;
        let below = walk(index, owner, Direction::Down, HIERARCHY_DEPTH_CAP);
        let mut members = Vec::new();
        for step in below {
            for m in members_named(index, step.id, &sym.name, owner) {
                members.push(HierarchyEntry { symbol: SymbolInfo::of(index, m), ..step.entry(index) });
            }
        }
        (owner, members)
    };
    let mut list = list;
    list.sort_by(|a, b| (a.depth, &a.symbol.handle).cmp(&(b.depth, &b.symbol.handle)));
    let total = list.len();
    let mut omitted = Omitted::default();
    let implementations = omitted.cut(list, limit, "implementations");
    Ok(ImplementationsResponse {
        symbol: SymbolInfo::of(index, id),
        implementations,
        total: total as u64,
        provenance: provenance(index, owner),
        omitted,
        freshness: ctx.freshness(),
    })
}

/// The type a handle names, or an error that says what to give instead.
fn type_handle(index: &Index, handle: &str) -> Result<SymId, Error> {
    let id = index.handle_id(handle)?;
    let kind = index.symbol(id).kind;
    if kind.is_type() {
        return Ok(id);
    }
    let hint = match owner_type(index, id) {
        Some(owner) => format!("; its type is `{}`", &index.handle(owner)),
        None => String::new(),
    };
    Err(Error::InvalidArgument(format!(
        "`{handle}` is a {}, not a type: supertypes and subtypes take a class, interface, struct, trait, enum or type alias{hint}",
        kind.as_str()
    )))
}

/// The type a member belongs to: its container, or the type of its Rust impl block / Go receiver.
pub(crate) fn owner_type(index: &Index, id: SymId) -> Option<SymId> {
    let file = index.file_of(id);
    let sym = index.symbol(id);
    if let Some(c) = sym.container {
        let c = index.global(file, c);
        return index.symbol(c).kind.is_type().then_some(c);
    }
    sym.impl_of.as_ref()?;
    index.relations().owner_of(id)
}

/// One type reached by the walk.
#[derive(Clone, Copy)]
pub(crate) struct Step {
    pub id: SymId,
    pub depth: u32,
    pub kind: TypeRelKind,
    pub via: SymId,
}

impl Step {
    fn entry(&self, index: &Index) -> HierarchyEntry {
        HierarchyEntry {
            symbol: SymbolInfo::of(index, self.id),
            depth: self.depth,
            relation: match self.kind {
                TypeRelKind::Extends => "extends",
                TypeRelKind::Implements => "implements",
            }
            .into(),
            via: index.handle(self.via),
        }
    }
}

/// The types above or below `id`, breadth-first to `depth`, each once at its nearest level; by
/// (depth, handle).
pub(crate) fn walk(index: &Index, id: SymId, direction: Direction, depth: u32) -> Vec<Step> {
    let mut up: BTreeMap<SymId, Vec<(TypeRelKind, SymId)>> = BTreeMap::new();
    for &(sub, kind, sup) in &index.relations().supertypes {
        let (from, to) = if direction == Direction::Up { (sub, sup) } else { (sup, sub) };
        up.entry(from).or_default().push((kind, to));
    }
    let mut seen: BTreeMap<SymId, Step> = BTreeMap::new();
    let mut frontier = vec![id];
    for level in 1..=depth {
        let mut next = Vec::new();
        for &current in &frontier {
            for &(kind, other) in up.get(&current).into_iter().flatten() {
                if other == id || seen.contains_key(&other) {
                    continue;
                }
                seen.insert(other, Step { id: other, depth: level, kind, via: current });
                next.push(other);
            }
        }
        if next.is_empty() {
            break;
        }
        next.sort_unstable();
        frontier = next;
    }
    let mut steps: Vec<Step> = seen.into_values().collect();
    steps.sort_by_cached_key(|s| (s.depth, index.handle(s.id)));
    steps
}

/// Members of type `ty` named `name` that implement a member of `owner`: declared in it, or in an
/// impl block of it — for a trait `owner`, only in `impl owner for ty` (an inherent method of the
/// same name does not implement the trait's).
pub(crate) fn members_named(index: &Index, ty: SymId, name: &str, owner: SymId) -> Vec<SymId> {
    let owner_is_trait = index.symbol(owner).kind == SymbolKind::Trait;
    let owner_name = &index.symbol(owner).name;
    members(index, ty)
        .into_iter()
        .filter(|&m| {
            let sym = index.symbol(m);
            sym.name == name
                && (!owner_is_trait
                    || sym.impl_trait.as_ref().and_then(|t| t.last()).is_some_and(|t| t == owner_name)
                    || sym.container.is_some())
        })
        .collect()
}

/// The direct members of a type: declared in it, and in impl blocks / receivers of it.
pub(crate) fn members(index: &Index, id: SymId) -> Vec<SymId> {
    let file = index.file_of(id);
    let local = index.syms[id as usize].1;
    let mut members: Vec<SymId> = index.files[file as usize]
        .facts
        .symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| s.container == Some(local))
        .map(|(i, _)| index.global(file, i as u32))
        .collect();
    members.extend(index.relations().members_of(id));
    members.sort_unstable();
    members.dedup();
    members
}

/// What the relations of a type's language are proven from.
fn provenance(index: &Index, id: SymId) -> Vec<String> {
    let language = index.files[index.file_of(id) as usize].language;
    let mut out = vec!["declared relations only (extends, implements, impl Trait for Type, base classes), resolved to their declarations; never same-name matches".to_string()];
    if language == Language::Go {
        out.push("Go: struct and interface embedding are proven; a type satisfying an interface structurally (by its method set) is not claimed".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::{HierarchyRequest, ImplementationsRequest};

    fn req(handle: &str, depth: u32) -> HierarchyRequest {
        HierarchyRequest { handle: handle.into(), depth: Some(depth), limit: None }
    }

    #[test]
    fn supertypes_subtypes_and_implementations_follow_declared_relations() {
        let (_dir, mut s) = repo(&[
            (
                "shapes.ts",
                "export interface Shape { area(): number }\nexport interface Solid extends Shape {}\nexport abstract class Base implements Solid { area() { return 0; } }\nexport class Cube extends Base { area() { return 6; } }\nexport class Other { area() { return 1; } }\n",
            ),
        ]);
        let up: Vec<(String, u32, String)> = s
            .supertypes(req("shapes.ts::Cube", 3))
            .unwrap()
            .types
            .into_iter()
            .map(|t| (t.symbol.handle, t.depth, t.relation))
            .collect();
        assert_eq!(
            up,
            [
                ("shapes.ts::Base".to_string(), 1, "extends".to_string()),
                ("shapes.ts::Solid".to_string(), 2, "implements".to_string()),
                ("shapes.ts::Shape".to_string(), 3, "extends".to_string()),
            ]
        );
        let down = s.subtypes(req("shapes.ts::Shape", 1)).unwrap();
        assert_eq!(down.types.len(), 1);
        assert_eq!(down.types[0].symbol.handle, "shapes.ts::Solid");
        let impls =
            s.implementations(ImplementationsRequest { handle: "shapes.ts::Shape".into(), limit: None }).unwrap();
        let names: Vec<&str> = impls.implementations.iter().map(|e| e.symbol.handle.as_str()).collect();
        assert_eq!(names, ["shapes.ts::Base", "shapes.ts::Cube"]);
        // A member's implementations: the same-named members below its type, never `Other::area`.
        let members =
            s.implementations(ImplementationsRequest { handle: "shapes.ts::Shape::area".into(), limit: None }).unwrap();
        let names: Vec<&str> = members.implementations.iter().map(|e| e.symbol.handle.as_str()).collect();
        assert_eq!(names, ["shapes.ts::Base::area", "shapes.ts::Cube::area"]);
        // Not a type, over the cap, unknown.
        let err = s.supertypes(req("shapes.ts::Cube::area", 1)).unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        assert!(err.to_string().contains("its type is `shapes.ts::Cube`"), "{err}");
        assert_eq!(s.subtypes(req("shapes.ts::Shape", 11)).unwrap_err().code(), "INVALID_ARGUMENT");
        assert_eq!(s.subtypes(req("shapes.ts::Nope", 1)).unwrap_err().code(), "NOT_FOUND");
    }

    #[test]
    fn go_embedding_is_proven_and_structural_satisfaction_is_not_claimed() {
        let (_dir, mut s) = repo(&[(
            "shapes.go",
            "package shapes\n\ntype Named interface { Name() string }\n\ntype Shape interface {\n\tNamed\n\tArea() float64\n}\n\ntype Base struct{}\n\nfunc (Base) Name() string { return \"b\" }\n\ntype Circle struct {\n\tBase\n\tR float64\n}\n\nfunc (c Circle) Area() float64 { return c.R }\n",
        )]);
        let up = s.supertypes(req("shapes.go::Shape", 1)).unwrap();
        assert_eq!(up.types[0].symbol.handle, "shapes.go::Named");
        let embedded = s.supertypes(req("shapes.go::Circle", 1)).unwrap();
        assert_eq!(embedded.types[0].symbol.handle, "shapes.go::Base");
        // Circle satisfies Shape by its method set: not a proven relation, and said so.
        let down = s.subtypes(req("shapes.go::Shape", 1)).unwrap();
        assert!(down.types.is_empty());
        assert!(down.provenance.iter().any(|p| p.contains("structurally")), "{:?}", down.provenance);
    }

    #[test]
    fn a_rust_trait_method_is_implemented_only_in_impl_trait_blocks() {
        let (_dir, mut s) = repo(&[(
            "lib.rs",
            "pub trait Shape { fn area(&self) -> f64; }\npub struct Circle;\nimpl Circle { pub fn area(&self) -> f64 { 0.0 } }\npub struct Square;\nimpl Shape for Square { fn area(&self) -> f64 { 1.0 } }\n",
        )]);
        let impls =
            s.implementations(ImplementationsRequest { handle: "lib.rs::Shape::area".into(), limit: None }).unwrap();
        let names: Vec<&str> = impls.implementations.iter().map(|e| e.symbol.handle.as_str()).collect();
        assert_eq!(names, ["lib.rs::Square::area"]);
        let types = s.subtypes(req("lib.rs::Shape", 1)).unwrap();
        assert_eq!(types.types[0].relation, "implements");
    }
}
