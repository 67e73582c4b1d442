//! `loc`: lines of code per language — files, code, comment and blank lines, bytes — with the
//! declaration counts of each language (functions and methods, types, constants), over the
//! index's file set (so the same discovery options give the same files everywhere). Comments come
//! from the syntax tree's comment nodes, and a Python docstring (a string standing alone as a
//! statement) or triple-quoted string counts as comment, as cloc counts them; a line holding code
//! and a comment is code; a line of whitespace is blank. A keyword in a comment or a string declares nothing.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use tree_sitter::Parser;

use crate::extract::Kind;

use super::{bounded, Ctx, Error, Freshness, Omitted};
use crate::facts::SymbolKind;
use crate::lang::Language;
use crate::sectioned::{self, Format, SectionFile};

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
    let persist = ctx.options.persist;
    // Counts kept from an earlier answer, by content (they describe the indexed bytes): only files
    // never counted are read and parsed (in parallel where the build has threads), and of those a
    // file whose bytes no longer match the index is not counted.
    let mut stored = if persist { load(ctx.host, index.files.len()) } else { HashMap::default() };
    let hashes: Vec<Option<[u8; 32]>> =
        index.files.iter().map(|f| blake3::Hash::from_hex(&f.hash).ok().map(|h| *h.as_bytes())).collect();
    let missing: Vec<usize> =
        (0..index.files.len()).filter(|&i| hashes[i].is_none_or(|h| !stored.contains_key(&h))).collect();
    let counted = count_files(index, ctx.host, &missing);
    let mut new = false;
    for (i, counts) in counted {
        if let (Some(c), Some(h)) = (counts, hashes[i]) {
            new |= stored.insert(h, c).is_none();
        }
    }
    if persist && new {
        // Best effort: a failed write only means the next answer counts these files again.
        let _ = save(ctx.host, &hashes, &stored);
    }
    let traits = index.traits();
    let mut rows: BTreeMap<Language, LocRow> = BTreeMap::new();
    let mut changed = 0;
    let mut declarations = Vec::new();
    for (i, f) in index.files.iter().enumerate() {
        let Some(c) = hashes[i].and_then(|h| stored.get(&h)) else {
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
        // Kinds from the kinds column: a file's facts are read only to list its declarations.
        for (local, id) in f.ids().enumerate() {
            let kind = traits[id as usize].kind();
            let count = match kind {
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
            *count += 1;
            if req.detail {
                let s = &f.facts.symbols[local];
                declarations.push(LocDeclaration {
                    path: f.path.clone(),
                    line: s.name_pos.line,
                    kind: kind.as_str().into(),
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

/// The line counts of the files `files` as indexed (None for a file whose bytes no longer match),
/// a batch of texts at a time: read here (the host is this thread's), counted in parallel.
pub(crate) fn count_files(
    index: &crate::index::Index,
    host: &dyn crate::host::Host,
    files: &[usize],
) -> Vec<(usize, Option<LineCounts>)> {
    let mut out = Vec::with_capacity(files.len());
    for batch in files.chunks(COUNT_BATCH) {
        let texts: Vec<(usize, Option<String>)> =
            batch.iter().map(|&i| (i, index.files[i].indexed_text(host))).collect();
        out.extend(crate::map_maybe_parallel(texts, |(i, text)| {
            (i, text.map(|t| count_lines(index.files[i].language, &t)))
        }));
    }
    out
}

/// Files whose texts are read and held at once to be counted.
const COUNT_BATCH: usize = 256;

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

/// Where a persisting session keeps the line counts of the files it counted, by content hash,
/// beside the snapshot (in `.codegraph/`): a warm `loc` parses only files it never counted.
pub(crate) const STORE_NAME: &str = "loc.bin";

/// `loc.bin`: the core version, then one record per content hash (blake3, then code, comment and
/// blank lines as little-endian u32), sorted by hash. Bumped whenever `count_lines` changes.
static FORMAT: Format =
    Format { magic: *b"CGLOC\0\0\0", version: 1, noun: "line counts", sections: &["meta", "counts"] };
const RECORD: usize = 32 + 3 * 4;

/// The stored counts (of at most `files` files), when this version wrote them and they check.
fn load(host: &dyn crate::host::Host, files: usize) -> HashMap<[u8; 32], LineCounts> {
    let cap = FORMAT.header_len() as u64 + 1024 + (files * RECORD) as u64;
    let read = || -> Option<HashMap<[u8; 32], LineCounts>> {
        let bytes = crate::store::read(host, STORE_NAME, cap).ok()??;
        let file = SectionFile::open(Box::new(bytes), &FORMAT).ok()?;
        let version: String = postcard::from_bytes(&file.section(0).ok()?).ok()?;
        let records = file.section(1).ok()?;
        if version != crate::VERSION || !records.len().is_multiple_of(RECORD) {
            return None;
        }
        let field =
            |r: &[u8], i: usize| u64::from(u32::from_le_bytes(r[32 + i * 4..36 + i * 4].try_into().expect("4 bytes")));
        let counts = records.chunks_exact(RECORD).map(|r| {
            let hash: [u8; 32] = r[..32].try_into().expect("32 bytes");
            (hash, LineCounts { code: field(r, 0), comment: field(r, 1), blank: field(r, 2) })
        });
        Some(counts.collect())
    };
    read().unwrap_or_default()
}

/// Stores the counts of the files of the index (`hashes`), sorted by hash.
fn save(
    host: &dyn crate::host::Host,
    hashes: &[Option<[u8; 32]>],
    counts: &HashMap<[u8; 32], LineCounts>,
) -> Result<(), String> {
    let mut kept: Vec<([u8; 32], LineCounts)> =
        hashes.iter().flatten().filter_map(|h| counts.get(h).map(|c| (*h, *c))).collect();
    kept.sort_unstable_by_key(|(h, _)| *h);
    kept.dedup_by_key(|(h, _)| *h);
    let mut records = Vec::with_capacity(kept.len() * RECORD);
    for (hash, c) in kept {
        records.extend_from_slice(&hash);
        for n in [c.code, c.comment, c.blank] {
            records.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
        }
    }
    let mut w = sectioned::Writer::new(&FORMAT, records.len() + 64);
    w.postcard(crate::VERSION)?;
    w.bytes(&records)?;
    crate::store::write_cache(host, STORE_NAME, &w.finish())
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
