//! Extraction for SQL (tree-sitter-sequel 0.3): SQL objects as symbols — tables (with their columns
//! as fields), views and materialized views, indexes, triggers, functions, types, schemas — and
//! their uses: relations in `FROM`/`JOIN`/`INSERT INTO`/`UPDATE`/`DELETE FROM`, `REFERENCES`,
//! `ON` of an index or trigger, `ALTER`/`DROP`, function calls (`EXECUTE FUNCTION f()` too), and
//! columns: `alias.column` where the alias names a relation of the query, an unqualified column
//! when the query reads exactly one relation, the columns of an `INSERT` list, an index, a foreign
//! key. Names are folded to lower case unless quoted, as `PostgreSQL` does; a schema qualifier is not
//! part of the name (`public.orders` is `orders`). Names a query defines itself (`WITH w AS …`, a
//! function's parameters) are not references to objects.
//!
//! `CREATE PROCEDURE`, which the grammar does not parse, is read from the tokens of the statement it
//! could not parse: its name only.

use super::{Field, Kind};
use tree_sitter::Node;

use super::{children, named_children, Builder, Segment};
use crate::facts::{LocalOrigin, Receiver, ReceiverBase, SymbolKind};

pub(crate) fn extract(b: &mut Builder, root: Node) {
    let mut w = Walker { b, scopes: Vec::new(), params: Vec::new() };
    for c in named_children(root) {
        w.top(c);
    }
}

struct Walker<'a, 's> {
    b: &'a mut Builder<'s>,
    /// The queries being walked, innermost last: the relations each reads, by the name (alias or
    /// table name) that qualifies its columns, and the names its `WITH` defines.
    scopes: Vec<Query>,
    /// The enclosing function's parameter names.
    params: Vec<String>,
}

#[derive(Default)]
struct Query {
    /// (qualifier, table name) of each relation read; the table name is None for a CTE or a
    /// subquery (its columns are not an object's).
    relations: Vec<(String, Option<String>)>,
    ctes: Vec<String>,
}

/// An identifier's name as SQL compares it: unquoted names fold to lower case.
fn fold(text: &str) -> String {
    match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(quoted) => quoted.replace("\"\"", "\""),
        None => text.to_lowercase(),
    }
}

/// The nodes that open a query of their own (whose relations qualify the columns inside).
fn is_query(kind: &str) -> bool {
    matches!(kind, "statement" | "subquery" | "create_query")
}

impl Walker<'_, '_> {
    /// An identifier, or a quoted one (which the grammar reads as a literal in some places).
    fn is_name(&self, node: Node) -> bool {
        node.kind_str() == "identifier" || (node.kind_str() == "literal" && self.b.text(node).starts_with('"'))
    }

    fn seg(&self, node: Node) -> Segment {
        (fold(self.b.text(node)), self.b.pos(node))
    }

    /// The name node of an `object_reference` (its last part: `schema.name` → `name`).
    fn object_name(node: Node<'_>) -> Option<Node<'_>> {
        node.field("name").or_else(|| named_children(node).into_iter().rfind(|c| c.kind_str() == "identifier"))
    }

    fn top(&mut self, node: Node) {
        match node.kind_str() {
            "ERROR" => self.unparsed(node),
            _ => self.walk(node),
        }
    }

    /// A statement the grammar could not parse: `CREATE [OR REPLACE] PROCEDURE name …` is read from
    /// its first tokens; the statements inside are walked.
    fn unparsed(&mut self, node: Node) {
        let text = self.b.text(node);
        let mut words = text.split_whitespace().map(|w| w.split('(').next().unwrap_or(w).to_lowercase());
        let create = words.next().as_deref() == Some("create");
        let mut next = words.next();
        if create && next.as_deref() == Some("or") {
            words.next();
            next = words.next();
        }
        if create && next.as_deref() == Some("procedure") {
            if let Some(name) = words.next().filter(|n| !n.is_empty()) {
                let start = node.start_byte();
                let Some(at) = text.to_lowercase().find(" procedure ").map(|i| i + " procedure ".len()) else {
                    return;
                };
                let rest = &text[at..];
                let skip = rest.len() - rest.trim_start().len();
                let name_pos = self.b.pos_of_byte(start + at + skip);
                let name = name.rsplit('.').next().unwrap_or(&name).to_string();
                self.b.add_symbol_named(node, fold(&name), name_pos, SymbolKind::Procedure, true);
            }
        }
        for c in named_children(node) {
            if c.kind_str() != "ERROR" {
                self.walk(c);
            }
        }
    }

    fn walk(&mut self, node: Node) {
        if !self.b.descend() {
            return;
        }
        let kind = node.kind_str();
        let opens = is_query(kind);
        if opens {
            let query = self.query_of(node);
            self.scopes.push(query);
        }
        match kind {
            "comment" | "marginalia" | "literal" | "all_fields" => {}
            "create_table" => self.create(node, SymbolKind::Table),
            "create_view" | "create_materialized_view" => self.create(node, SymbolKind::View),
            "create_type" => self.create(node, SymbolKind::Type),
            "create_function" => self.function(node),
            "create_index" => {
                // The grammar gives the index's name the field `column`.
                let idx = node.field("column").map(|name| {
                    let seg = self.seg(name);
                    self.b.add_symbol_named(node, seg.0, seg.1, SymbolKind::Index, true)
                });
                self.inside(idx, |w| {
                    let table = named_children(node).into_iter().find(|c| c.kind_str() == "object_reference");
                    let table_name = table.and_then(Self::object_name).map(|n| fold(w.b.text(n)));
                    if let Some(t) = table {
                        w.relation_ref(t, false);
                    }
                    for c in named_children(node) {
                        if c.kind_str() == "index_fields" {
                            w.columns_of(c, table_name.as_deref());
                        }
                    }
                });
            }
            "create_trigger" => {
                let refs: Vec<Node> =
                    named_children(node).into_iter().filter(|c| c.kind_str() == "object_reference").collect();
                let idx = refs.first().and_then(|r| Self::object_name(*r)).map(|name| {
                    let seg = self.seg(name);
                    self.b.add_symbol_named(node, seg.0, seg.1, SymbolKind::Trigger, true)
                });
                self.inside(idx, |w| {
                    // `ON table … EXECUTE FUNCTION f()`.
                    if let Some(t) = refs.get(1) {
                        w.relation_ref(*t, false);
                    }
                    if let Some(f) = refs.get(2) {
                        w.relation_ref(*f, true);
                    }
                    for c in named_children(node) {
                        if c.kind_str() != "object_reference" {
                            w.walk(c);
                        }
                    }
                });
            }
            "create_schema" => {
                if let Some(name) = named_children(node).into_iter().find(|c| c.kind_str() == "identifier") {
                    let seg = self.seg(name);
                    self.b.add_symbol_named(node, seg.0, seg.1, SymbolKind::Module, true);
                }
            }
            "cte" => {
                // `w AS (…)`: the name is the query's own; the body is walked.
                for c in named_children(node) {
                    if c.kind_str() != "identifier" {
                        self.walk(c);
                    }
                }
            }
            "relation" => {
                for c in named_children(node) {
                    match c.kind_str() {
                        "object_reference" => self.relation_ref(c, false),
                        "identifier" => {}
                        _ => self.walk(c),
                    }
                }
            }
            "invocation" => {
                for c in named_children(node) {
                    match c.kind_str() {
                        "object_reference" => self.relation_ref(c, true),
                        _ => self.walk(c),
                    }
                }
            }
            "insert" => {
                let table = named_children(node).into_iter().find(|c| c.kind_str() == "object_reference");
                let table_name = table.and_then(Self::object_name).map(|n| fold(self.b.text(n)));
                for c in named_children(node) {
                    match c.kind_str() {
                        "object_reference" if Some(c) == table => self.relation_ref(c, false),
                        // `INSERT INTO t (a, b)`: the columns of `t`.
                        "list" if named_children(c).iter().any(|x| x.kind_str() == "column") => {
                            for col in named_children(c) {
                                if let Some(id) = named_children(col).into_iter().find(|x| x.kind_str() == "identifier")
                                {
                                    self.column_ref(id, table_name.as_deref());
                                }
                            }
                        }
                        _ => self.walk(c),
                    }
                }
            }
            "column_definition" => {
                // A column of the table being created: declared in `create`; here its type and
                // constraints (`REFERENCES t (c)`).
                let refs: Vec<Node> =
                    named_children(node).into_iter().filter(|c| c.kind_str() == "object_reference").collect();
                for r in &refs {
                    self.relation_ref(*r, false);
                }
                let target = refs.first().and_then(|r| Self::object_name(*r)).map(|n| fold(self.b.text(n)));
                for c in named_children(node) {
                    if c.kind_str() == "identifier" && Some(c) != node.field("name") {
                        self.column_ref(c, target.as_deref());
                    }
                }
            }
            "field" => self.field(node),
            "object_reference" => self.relation_ref(node, false),
            "assignment" => {
                // `SET total = 0`: a column of the updated relation.
                if let Some(left) = node.field("left") {
                    self.field(left);
                }
                if let Some(right) = node.field("right") {
                    self.walk(right);
                }
            }
            _ => {
                for c in named_children(node) {
                    if c.kind_str() == "ERROR" {
                        self.unparsed(c);
                    } else {
                        self.walk(c);
                    }
                }
            }
        }
        if opens {
            self.scopes.pop();
        }
        self.b.ascend();
    }

    /// The relations a query reads directly (not inside nested queries) and the names its `WITH`
    /// defines.
    fn query_of(&self, node: Node) -> Query {
        let mut q = Query::default();
        let mut stack: Vec<Node> = named_children(node);
        let mut steps = 0;
        while let Some(n) = stack.pop() {
            steps += 1;
            if steps > 10_000 {
                break;
            }
            match n.kind_str() {
                k if is_query(k) => {}
                "cte" => {
                    if let Some(name) = named_children(n).into_iter().find(|c| c.kind_str() == "identifier") {
                        q.ctes.push(fold(self.b.text(name)));
                    }
                }
                "relation" => {
                    let object = named_children(n).into_iter().find(|c| c.kind_str() == "object_reference");
                    let table = object.and_then(Self::object_name).map(|t| fold(self.b.text(t)));
                    let alias = n.field("alias").map(|a| fold(self.b.text(a)));
                    if let Some(t) = &table {
                        q.relations.push((alias.unwrap_or_else(|| t.clone()), Some(t.clone())));
                    } else if let Some(a) = alias {
                        q.relations.push((a, None));
                    }
                }
                // `UPDATE t SET …`, `DELETE FROM t`: the relation is written without a `relation`.
                "object_reference" if matches!(n.parent().map(|p| p.kind_str()), Some("from" | "delete")) => {
                    if let Some(t) = Self::object_name(n).map(|t| fold(self.b.text(t))) {
                        q.relations.push((t.clone(), Some(t)));
                    }
                }
                "from" | "join" | "update" | "delete" | "select" | "where" | "keyword_from" | "cross_join"
                | "lateral_join" => stack.extend(named_children(n)),
                _ => {}
            }
        }
        for (_, table) in &mut q.relations {
            if table.as_ref().is_some_and(|t| q.ctes.contains(t)) {
                *table = None;
            }
        }
        q
    }

    /// Whether `name` is defined by an enclosing query's `WITH`.
    fn is_cte(&self, name: &str) -> bool {
        self.scopes.iter().any(|q| q.ctes.iter().any(|c| c == name))
    }

    /// A use of a table, view or function (`call`): its name, the schema dropped.
    fn relation_ref(&mut self, node: Node, call: bool) {
        let Some(name) = Self::object_name(node) else { return };
        let seg = self.seg(name);
        if !call && self.is_cte(&seg.0) {
            return;
        }
        self.b.add_ref(vec![seg], call, false);
    }

    /// `alias.column`, `table.column`, or a bare column.
    fn field(&mut self, node: Node) {
        let Some(name) = node.field("name") else { return };
        let qualifier = named_children(node).into_iter().find(|c| c.kind_str() == "object_reference");
        let Some(q) = qualifier.and_then(Self::object_name) else {
            let column = fold(self.b.text(name));
            if self.params.contains(&column) {
                return;
            }
            // A bare column is proven only when the innermost query reads one relation.
            let table =
                self.scopes.iter().rev().find(|s| !s.relations.is_empty()).and_then(|s| match s.relations.as_slice() {
                    [(_, t)] => t.clone(),
                    _ => None,
                });
            if let Some(t) = table {
                self.column_ref(name, Some(&t));
            }
            return;
        };
        let q = fold(self.b.text(q));
        let table = self
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.relations.iter().find(|(alias, _)| *alias == q).map(|(_, t)| t.clone()));
        match table {
            Some(t) => self.column_ref(name, t.as_deref()),
            // Not a relation of the query: a table named directly (`orders.total`).
            None if !self.is_cte(&q) => self.column_ref(name, Some(&q)),
            None => {}
        }
    }

    /// A column of `table` (nothing when the table is not known).
    fn column_ref(&mut self, name: Node, table: Option<&str>) {
        let Some(table) = table else { return };
        let receiver =
            Receiver { base: ReceiverBase::Value(LocalOrigin::Declared(vec![table.to_string()])), members: Vec::new() };
        let seg = self.seg(name);
        self.b.add_member_ref(seg, false, receiver);
    }

    /// The columns of an index (`(a, lower(b))`).
    fn columns_of(&mut self, fields: Node, table: Option<&str>) {
        for f in named_children(fields) {
            match f.field("column") {
                Some(c) if self.is_name(c) => self.column_ref(c, table),
                _ => self.walk(f),
            }
        }
    }

    /// `CREATE TABLE`/`VIEW`/`TYPE`: the object, its columns as fields, and the query of a view.
    fn create(&mut self, node: Node, kind: SymbolKind) {
        let Some(object) = named_children(node).into_iter().find(|c| c.kind_str() == "object_reference") else {
            return self.walk_rest(node, None);
        };
        let Some(name) = Self::object_name(object) else { return };
        let seg = self.seg(name);
        let idx = self.b.add_symbol_named(node, seg.0, seg.1, kind, true);
        let mut scopes = std::mem::take(&mut self.scopes);
        self.b.within(idx, |b| {
            let mut w = Walker { b, scopes: std::mem::take(&mut scopes), params: Vec::new() };
            for c in named_children(node) {
                if c.kind_str() != "column_definitions" {
                    continue;
                }
                for col in named_children(c) {
                    if col.kind_str() == "column_definition" {
                        if let Some(n) = col.field("name") {
                            let s = w.seg(n);
                            w.b.add_symbol_named(col, s.0, s.1, SymbolKind::Field, true);
                        }
                    }
                }
            }
            w.walk_rest(node, Some(object));
            scopes = w.scopes;
        });
        self.scopes = scopes;
    }

    /// Runs `f` inside the symbol `idx` (when there is one), the queries in scope kept.
    fn inside(&mut self, idx: Option<u32>, f: impl FnOnce(&mut Walker<'_, '_>)) {
        let Some(idx) = idx else { return f(self) };
        let mut scopes = std::mem::take(&mut self.scopes);
        let params = std::mem::take(&mut self.params);
        self.b.within(idx, |b| {
            let mut w = Walker { b, scopes: std::mem::take(&mut scopes), params };
            f(&mut w);
            scopes = w.scopes;
        });
        self.scopes = scopes;
    }

    /// The children of a statement besides the object it creates.
    fn walk_rest(&mut self, node: Node, object: Option<Node>) {
        for c in named_children(node) {
            if Some(c) != object && !c.kind_str().starts_with("keyword_") {
                self.walk(c);
            }
        }
    }

    fn function(&mut self, node: Node) {
        let object = named_children(node).into_iter().find(|c| c.kind_str() == "object_reference");
        let Some(name) = object.and_then(Self::object_name) else { return self.walk_rest(node, None) };
        let seg = self.seg(name);
        let idx = self.b.add_symbol_named(node, seg.0, seg.1, SymbolKind::Function, true);
        let params: Vec<String> = named_children(node)
            .into_iter()
            .filter(|c| c.kind_str() == "function_arguments")
            .flat_map(named_children)
            .filter_map(|a| children(a).into_iter().find(|c| c.kind_str() == "identifier"))
            .map(|n| fold(self.b.text(n)))
            .collect();
        self.b.within(idx, |b| {
            let mut w = Walker { b, scopes: Vec::new(), params };
            w.walk_rest(node, object);
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::facts::{FileFacts, LocalOrigin, ReceiverBase, SymbolKind};
    use crate::lang::Language;

    fn sql(src: &str) -> FileFacts {
        extract(Language::Sql, src)
    }

    /// Plain references as names; column references as (table, column).
    type Uses = (Vec<(String, bool)>, Vec<(String, String)>);

    fn uses(f: &FileFacts) -> Uses {
        let mut plain = Vec::new();
        let mut columns = Vec::new();
        for r in &f.refs {
            match r.receiver.as_deref().map(|x| &x.base) {
                Some(ReceiverBase::Value(LocalOrigin::Declared(t))) => {
                    columns.push((t[0].clone(), r.segments[0].0.clone()));
                }
                _ => plain.push((r.segments[0].0.clone(), r.call)),
            }
        }
        (plain, columns)
    }

    #[test]
    fn objects_and_columns() {
        let src = r#"CREATE TABLE Public.Orders (Id int, "Total" numeric);
CREATE INDEX by_total ON orders ("Total");
CREATE VIEW v AS SELECT o.id FROM orders o;
CREATE FUNCTION f(n int) RETURNS int AS $$ SELECT n + id FROM orders; $$ LANGUAGE sql;
CREATE TRIGGER t AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION f();
CREATE OR REPLACE PROCEDURE archive(n int) LANGUAGE sql AS $$ DELETE FROM orders; $$;
"#;
        let f = sql(src);
        use SymbolKind::*;
        let got: Vec<(&str, SymbolKind, Option<u32>)> =
            f.symbols.iter().map(|s| (s.name.as_str(), s.kind, s.container)).collect();
        assert_eq!(
            got,
            vec![
                ("orders", Table, None),
                ("id", Field, Some(0)),
                ("Total", Field, Some(0)),
                ("by_total", Index, None),
                ("v", View, None),
                ("f", Function, None),
                ("t", Trigger, None),
                ("archive", Procedure, None),
            ]
        );
        let (plain, columns) = uses(&f);
        assert_eq!(plain.iter().filter(|(n, c)| n == "orders" && !c).count(), 5, "{plain:?}");
        assert!(plain.contains(&("f".into(), true)));
        assert!(columns.contains(&("orders".into(), "Total".into())));
        assert!(columns.contains(&("orders".into(), "id".into())));
        // `n` is the function's parameter, not a column.
        assert!(!columns.iter().any(|(_, c)| c == "n"));
    }

    #[test]
    fn aliases_ctes_and_ambiguous_columns() {
        let src = "WITH w AS (SELECT 1 AS k) SELECT k FROM w;\nSELECT a.x, y FROM t1 a JOIN t2 b ON a.id = b.id;\nINSERT INTO t1 (x, z) VALUES (1, 2);\nUPDATE t2 SET q = 1 WHERE r = 2;\n";
        let f = sql(src);
        let (plain, columns) = uses(&f);
        // A CTE is the query's own name.
        assert!(!plain.iter().any(|(n, _)| n == "w"), "{plain:?}");
        assert!(columns.contains(&("t1".into(), "x".into())));
        assert!(columns.contains(&("t2".into(), "id".into())));
        // `y` with two relations in scope is not proven to be either's.
        assert!(!columns.iter().any(|(_, c)| c == "y"));
        assert!(columns.contains(&("t1".into(), "z".into())));
        assert!(columns.contains(&("t2".into(), "q".into())));
        assert!(columns.contains(&("t2".into(), "r".into())));
    }

    #[test]
    fn hostile_sql_is_bounded() {
        let parens = format!("SELECT {}1{};", "(".repeat(10_000), ")".repeat(10_000));
        assert!(sql(&parens).truncated_depth);
        let f = sql("CREATE TABLE t (a int; SELECT 'unterminated");
        assert!(f.error_nodes > 0);
        let f = sql("CREATE PROCEDURE");
        assert!(f.symbols.is_empty());
    }
}
