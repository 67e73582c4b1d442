//! `loc`: lines of code per language — files, code, comment and blank lines, bytes — with the
//! declaration counts of each language (functions and methods, types, constants), over the
//! index's file set (so the same discovery options give the same files everywhere). Comments come
//! from the syntax tree's comment nodes, and a Python docstring (a string standing alone as a
//! statement) or triple-quoted string counts as comment, as cloc counts them; a line holding code
//! and a comment is code; a line of whitespace is blank. A keyword in a comment or a string declares nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tree_sitter::Parser;

use crate::extract::Kind;

use super::{bounded, Ctx, Error, Freshness, Omitted};
use crate::facts::SymbolKind;
use crate::lang::Language;

pub const LOC_DETAIL_LIMIT_DEFAULT: u32 = 1000;
pub const LOC_DETAIL_LIMIT_CAP: u32 = 20000;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LocRequest {
    /// List every declaration with its file and line.
    pub detail: bool,
    /// Maximum declarations listed with `detail` (default 1000, cap 20000).
    pub limit: Option<u32>,
}

/// The counts of one language (or of all: the total row).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LocRow {
    pub language: String,
    pub files: u64,
    pub code: u64,
    pub comment: u64,
    pub blank: u64,
    pub bytes: u64,
    /// Functions and methods.
    pub functions: u64,
    /// Classes, structs, interfaces, traits, enums and type aliases.
    pub types: u64,
    pub constants: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LocDeclaration {
    pub path: String,
    pub line: u32,
    pub kind: String,
    pub name: String,
    pub language: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LocResponse {
    /// Most code first.
    pub languages: Vec<LocRow>,
    pub total: LocRow,
    /// With `detail`: every declaration, by path and line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declarations: Option<Vec<LocDeclaration>>,
    /// Indexed files that changed since and were not counted.
    pub changed_since_indexed: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

/// Code, comment and blank lines of one file's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LineCounts {
    pub code: u64,
    pub comment: u64,
    pub blank: u64,
}

pub(crate) fn loc(ctx: &Ctx, req: LocRequest) -> Result<LocResponse, Error> {
    let limit = bounded(req.limit, LOC_DETAIL_LIMIT_DEFAULT, LOC_DETAIL_LIMIT_CAP, "limit")?;
    let index = ctx.index();
    // Read in order through the host, parsed in parallel where the build has threads.
    let texts: Vec<(usize, Option<String>)> =
        (0..index.files.len()).map(|i| (i, index.files[i].indexed_text(ctx.host))).collect();
    let counted: Vec<(usize, Option<LineCounts>)> =
        crate::map_maybe_parallel(texts, |(i, text)| (i, text.map(|t| count_lines(index.files[i].language, &t))));
    let mut rows: BTreeMap<Language, LocRow> = BTreeMap::new();
    let mut changed = 0;
    let mut declarations = Vec::new();
    for (i, counts) in counted {
        let f = &index.files[i];
        let Some(c) = counts else {
            changed += 1;
            continue;
        };
        let row = rows
            .entry(f.language)
            .or_insert_with(|| LocRow { language: f.language.name().into(), ..LocRow::default() });
        row.files += 1;
        row.code += c.code;
        row.comment += c.comment;
        row.blank += c.blank;
        row.bytes += f.size;
        for s in &f.facts.symbols {
            let kind = match s.kind {
                SymbolKind::Function | SymbolKind::Method => &mut row.functions,
                SymbolKind::Class
                | SymbolKind::Struct
                | SymbolKind::Interface
                | SymbolKind::Trait
                | SymbolKind::Enum
                | SymbolKind::Type => &mut row.types,
                SymbolKind::Constant => &mut row.constants,
                _ => continue,
            };
            *kind += 1;
            if req.detail {
                declarations.push(LocDeclaration {
                    path: f.path.clone(),
                    line: s.name_pos.line,
                    kind: s.kind.as_str().into(),
                    name: s.name.clone(),
                    language: f.language.name().into(),
                });
            }
        }
    }
    let mut languages: Vec<LocRow> = rows.into_values().collect();
    languages.sort_by(|a, b| b.code.cmp(&a.code).then_with(|| a.language.cmp(&b.language)));
    let mut total = LocRow { language: "total".into(), ..LocRow::default() };
    for r in &languages {
        total.files += r.files;
        total.code += r.code;
        total.comment += r.comment;
        total.blank += r.blank;
        total.bytes += r.bytes;
        total.functions += r.functions;
        total.types += r.types;
        total.constants += r.constants;
    }
    let mut omitted = Omitted::default();
    let declarations = req.detail.then(|| {
        declarations.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
        omitted.cut(declarations, limit, "declarations")
    });
    Ok(LocResponse {
        languages,
        total,
        declarations,
        changed_since_indexed: changed,
        omitted,
        freshness: ctx.freshness(),
    })
}

/// A Python string in triple quotes (after its prefix letters): counted as comment text, as cloc
/// counts it, docstring or not (a line that also holds code stays code).
fn triple_quoted(literal: &str) -> bool {
    let body = literal.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    body.starts_with("\"\"\"") || body.starts_with("\'\'\'")
}

/// Counts a text's lines: blank (whitespace only), comment (every other character inside a
/// comment, a Python docstring or triple-quoted string), code (the rest).
pub(crate) fn count_lines(language: Language, text: &str) -> LineCounts {
    let bytes = text.as_bytes();
    let mut comment = vec![false; bytes.len()];
    let mut parser = Parser::new();
    if let Some(tree) = parser.set_language(&language.grammar()).ok().and_then(|()| parser.parse(text, None)) {
        let mut cursor = tree.root_node().walk();
        'walk: loop {
            let node = cursor.node();
            // (`marginalia`: SQL's `/* … */`.)
            let is_comment = node.kind_str().contains("comment")
                || node.kind_str() == "marginalia"
                || (language == Language::Python
                    && ((node.kind_str() == "expression_statement"
                        && node.named_child_count() == 1
                        && node.named_child(0).is_some_and(|c| c.kind_str() == "string"))
                        || (node.kind_str() == "string" && triple_quoted(&text[node.byte_range()]))));
            if is_comment {
                comment[node.byte_range()].iter_mut().for_each(|b| *b = true);
            }
            if !is_comment && cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    continue 'walk;
                }
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
    }
    let mut counts = LineCounts::default();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        let (mut code, mut any) = (false, false);
        for (i, &b) in bytes[start..end].iter().enumerate() {
            if !b.is_ascii_whitespace() {
                any = true;
                if !comment[start + i] {
                    code = true;
                    break;
                }
            }
        }
        match (any, code) {
            (false, _) => counts.blank += 1,
            (true, true) => counts.code += 1,
            (true, false) => counts.comment += 1,
        }
        start = end;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::{count_lines, LineCounts};
    use crate::lang::Language;

    fn counts(language: Language, text: &str) -> (u64, u64, u64) {
        let LineCounts { code, comment, blank } = count_lines(language, text);
        (code, comment, blank)
    }

    #[test]
    fn lines_by_the_syntax_tree() {
        // code, comment, blank — hand counted.
        let ts = "// header\nconst a = \"// not a comment\";\n\n  \t\n/* block\n   still */\nlet b = 1; // trailing\n";
        assert_eq!(counts(Language::TypeScript, ts), (2, 3, 2));
        let py = "\"\"\"Module doc.\n\nMore.\n\"\"\"\nimport os  # why\n\n\ndef f():\n    \"\"\"Doc.\"\"\"\n    s = \"# not\"\n    return s\n";
        assert_eq!(counts(Language::Python, py), (4, 4, 3));
        let rs = "/// doc\nfn main() {\n    let s = \"/* no */\";\n}\n\n";
        assert_eq!(counts(Language::Rust, rs), (3, 1, 1));
        let go = "package main\n\n// Main runs.\nfunc main() {}\n";
        assert_eq!(counts(Language::Go, go), (2, 1, 1));
    }
}
