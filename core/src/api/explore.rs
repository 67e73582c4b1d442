//! From words to places: `search`, `explore` and `packet_get`. One ranking serves all three — the
//! lexical index (`text.rs`) scores chunks, the graph adds what words can't see (exported or not,
//! how many places use a declaration or import a file, whether it is a test), and an identifier
//! query puts its definition first.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rustc_hash::FxHashMap as HashMap;

use super::queries::{capped, clean_path, SymbolQuery};
use super::types::*;
use super::{Error, Session};
use crate::host::Host;
use crate::index::{FileId, Index, IndexedFile, SymId};
use crate::lang::Language;
use crate::text::{field_name, is_test_path, is_vendored_path, TextIndex};

/// A ranked place: a file, or a declaration in it.
#[derive(Clone, Debug)]
pub(crate) struct Hit {
    pub file: FileId,
    pub sym: Option<SymId>,
    pub score: f64,
    pub matched: Vec<String>,
}

pub(crate) struct Ranking {
    /// Files and declarations merged, best first, at most `PER_FILE` declarations per file.
    pub hits: Vec<Hit>,
    /// Declarations left out by the per-file cap.
    pub capped: u64,
    pub unknown: Vec<String>,
    pub stale_files: u64,
}

/// Declarations of one file among the hits, so that one long file can't fill the list.
const PER_FILE: usize = 3;
/// A file scores its best `FILE_CHUNKS` chunks, each weighing `FILE_CHUNK_DECAY` times the one before.
const FILE_CHUNKS: usize = 5;
const FILE_CHUNK_DECAY: f64 = 0.7;
/// Test files weigh this much unless the question is about tests.
const TEST_WEIGHT: f64 = 0.3;
/// Vendored libraries and minified bundles weigh this much.
const VENDORED_WEIGHT: f64 = 0.2;

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Natural log through `libm`, identical on every engine.
fn ln1p(x: f64) -> f64 {
    libm::log(1.0 + x)
}

/// The bonus of a declaration whose name is the query (or a word of it that reads as an identifier).
fn identifier_bonus(tier: u8) -> f64 {
    match tier {
        0 | 1 => 120.0,
        2 => 100.0,
        3 => 80.0,
        4 => 6.0,
        5 => 4.0,
        _ => 0.0,
    }
}

/// Words of the query that read as identifiers: the whole query when it is one word, and words with
/// `_`, `::`, `.`, `/` or a capital after a lower-case letter.
fn identifier_words(query: &str) -> Vec<&str> {
    let words: Vec<&str> =
        query.split_whitespace().map(|w| w.trim_matches(|c: char| "?,;:!()\"'`".contains(c))).collect();
    if words.len() == 1 {
        return words.into_iter().filter(|w| !w.is_empty()).collect();
    }
    words
        .into_iter()
        .filter(|w| {
            w.contains('_')
                || w.contains("::")
                || w.trim_end_matches('.').contains('.')
                || w.chars().zip(w.chars().skip(1)).any(|(a, b)| a.is_lowercase() && b.is_uppercase())
        })
        .collect()
}

/// How much the graph says a declaration matters: exported, and used from many places.
fn symbol_weight(index: &Index, id: SymId) -> f64 {
    let exported = if index.symbol(id).exported { 1.1 } else { 1.0 };
    exported * (1.0 + 0.1 * ln1p(index.uses(id) as f64))
}

impl Index {
    /// Use sites of a declaration.
    pub(crate) fn uses(&self, id: SymId) -> usize {
        self.sites_of(id).len()
    }
}

/// What matched, one `<where>:<word>` per query word by the strongest place it stands.
fn matched(labels: &BTreeMap<String, u8>) -> Vec<String> {
    labels.iter().map(|(t, f)| format!("{}:{t}", field_name(*f))).collect()
}

/// Ranks files and declarations for a query.
pub(crate) fn rank(index: &Index, text: &TextIndex, query: &str) -> Ranking {
    let q = text.query(query);
    // Coverage counts the query's words by rarity: holding the rare ones matters most.
    let total_idf: f64 = q.slots.iter().map(|s| s.idf).sum::<f64>().max(1e-9);
    // A word found only without its prefix (`resubscribe` → `subscribe`) is credited at that weight.
    let coverage_of = |credit: &[f64]| -> f64 { credit.iter().sum::<f64>() / total_idf };
    let test_weight = |file: FileId| {
        let path = &index.files[file as usize].path;
        if is_vendored_path(path) {
            VENDORED_WEIGHT
        } else if !q.wants_tests && is_test_path(path) {
            TEST_WEIGHT
        } else {
            1.0
        }
    };
    // Per file: its chunk scores, the credit of each query word seen anywhere, the labels, and the
    // bonus of a declaration named like the query.
    #[derive(Default)]
    struct FileAcc {
        chunks: Vec<f64>,
        credit: Vec<f64>,
        labels: BTreeMap<String, u8>,
        ident: f64,
    }
    let mut files: HashMap<FileId, FileAcc> = HashMap::default();
    let mut syms: HashMap<SymId, (f64, Vec<String>)> = HashMap::default();
    for cs in text.score(&q) {
        let chunk = &text.chunks[cs.chunk as usize];
        let mut credit = vec![0.0f64; q.slots.len()];
        let mut labels: BTreeMap<String, u8> = BTreeMap::new();
        for &(qi, fields) in &cs.matched {
            let qt = &q.terms[qi as usize];
            let c = &mut credit[qt.slot as usize];
            *c = c.max(qt.credit.min(q.slots[qt.slot as usize].idf));
            *labels.entry(q.terms[qi as usize].term.clone()).or_default() |= fields;
        }
        let coverage = coverage_of(&credit);
        let base = cs.bm25 * (0.4 + 0.6 * coverage);
        let acc = files.entry(chunk.file).or_default();
        acc.chunks.push(base);
        acc.credit.resize(credit.len(), 0.0);
        for (a, c) in acc.credit.iter_mut().zip(&credit) {
            *a = a.max(*c);
        }
        for (t, f) in &labels {
            *acc.labels.entry(t.clone()).or_default() |= f;
        }
        if let Some(sym) = chunk.sym {
            syms.insert(sym, (base * symbol_weight(index, sym), matched(&labels)));
        }
    }
    // Declarations named like the query (its first eight identifier-like words: pasted code stays cheap).
    for word in identifier_words(query).into_iter().take(8) {
        let sq = SymbolQuery::new(word);
        for id in 0..index.syms.len() as SymId {
            let Some((tier, how)) = sq.tier(index, id) else { continue };
            let bonus = identifier_bonus(tier);
            if bonus == 0.0 {
                continue;
            }
            let weighted = bonus * symbol_weight(index, id);
            let entry = syms.entry(id).or_insert_with(|| (0.0, Vec::new()));
            entry.0 += weighted;
            entry.1.insert(0, if tier <= 3 { "definition".to_string() } else { how.to_string() });
            // The file of a definition ranks high too, but below the definition itself.
            let acc = files.entry(index.file_of(id)).or_default();
            acc.ident = acc.ident.max(0.5 * weighted);
        }
    }
    let mut hits: Vec<Hit> = Vec::with_capacity(files.len() + syms.len());
    for (&file, acc) in &files {
        let coverage = coverage_of(&acc.credit);
        // The file's best chunks, each counting less than the one before: a file about the question
        // holds several matching pieces, not one.
        let mut chunks = acc.chunks.clone();
        chunks.sort_by(|a, b| b.total_cmp(a));
        let (mut agg, mut w) = (0.0, 1.0);
        for c in chunks.iter().take(FILE_CHUNKS) {
            agg += w * c;
            w *= FILE_CHUNK_DECAY;
        }
        let lexical = agg * (0.4 + 0.6 * coverage);
        let importers = index.graph.rdeps[file as usize].len() as f64;
        let score = (lexical * (1.0 + 0.05 * ln1p(importers)) + acc.ident) * test_weight(file);
        hits.push(Hit { file, sym: None, score: round(score), matched: matched(&acc.labels) });
    }
    for (sym, (score, matched)) in syms {
        let file = index.file_of(sym);
        let score = score * test_weight(file);
        hits.push(Hit { file, sym: Some(sym), score: round(score), matched });
    }
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| index.files[a.file as usize].path.cmp(&index.files[b.file as usize].path))
            .then_with(|| a.sym.is_some().cmp(&b.sym.is_some()))
            .then_with(|| a.sym.map(|s| index.symbol(s).start).cmp(&b.sym.map(|s| index.symbol(s).start)))
            .then_with(|| a.sym.cmp(&b.sym))
    });
    let mut per_file: HashMap<FileId, usize> = HashMap::default();
    let before = hits.len();
    hits.retain(|h| {
        if h.sym.is_none() {
            return true;
        }
        let n = per_file.entry(h.file).or_default();
        *n += 1;
        *n <= PER_FILE
    });
    Ranking { capped: (before - hits.len()) as u64, hits, unknown: q.unknown, stale_files: text.stale_files() }
}

/// The file's bytes as indexed, or None when it changed on disk (or can't be read) since.
pub(crate) fn indexed_text(host: &dyn Host, file: &IndexedFile) -> Option<String> {
    as_indexed(host.read_file(&file.path, file.size).ok()?, file)
}

/// Bytes read from disk as text, when they are still the file's indexed content.
fn as_indexed(bytes: Vec<u8>, file: &IndexedFile) -> Option<String> {
    (blake3::hash(&bytes).to_hex().as_str() == file.hash).then(|| String::from_utf8(bytes).ok())?
}

/// A packet's source: the file's indexed text, and the omission to report when it changed since
/// (or is a secrets file, whose text never leaves the core this way).
fn packet_source(host: &dyn Host, file: &IndexedFile) -> (Option<String>, BTreeMap<String, u64>) {
    let mut omitted = BTreeMap::new();
    if crate::sensitive::classify(&file.path).is_some() {
        omitted.insert("sensitiveSource".to_string(), 1);
        return (None, omitted);
    }
    let text = indexed_text(host, file);
    if text.is_none() {
        omitted.insert("changedSinceIndexed".to_string(), 1);
    }
    (text, omitted)
}

/// The lexical index of `index`: built on first use, or read from `.codegraph/text.bin` when
/// persisting and it was built from exactly these files (then it is written there after a build).
pub(crate) fn text_index<'i>(host: &dyn Host, index: &'i Index, persist: bool) -> &'i TextIndex {
    index.text.get_or_init(|| {
        let key = persist.then(|| crate::text::key(index));
        if let Some(stored) = key.as_deref().and_then(|k| crate::text::load(host, index, k)) {
            return stored;
        }
        let paths: Vec<String> = index.files.iter().map(|f| f.path.clone()).collect();
        // A file larger than it was indexed has changed: it is not read past its indexed size.
        let cap = index.files.iter().map(|f| f.size).max().unwrap_or(0);
        let contents = host
            .read_files(&paths, cap)
            .into_iter()
            .zip(&index.files)
            .map(|(bytes, f)| as_indexed(bytes.ok()?, f))
            .collect();
        let text = TextIndex::build(index, contents);
        // An index built while files were changing describes neither version: not kept.
        if let (Some(k), 0) = (key.as_deref(), text.stale_files()) {
            crate::text::save(host, k, &text);
        }
        text
    })
}

/// Comment or docstring lines cleaned of their markers, cut to a few lines.
fn clean_doc<'a>(raw: impl Iterator<Item = &'a str>) -> Option<String> {
    const MAX_DOC_LINES: usize = 6;
    let mut out: Vec<&str> = Vec::new();
    for line in raw {
        let t = line
            .trim()
            .trim_start_matches("///")
            .trim_start_matches("//!")
            .trim_start_matches("//")
            .trim_start_matches("/**")
            .trim_start_matches("/*")
            .trim_end_matches("*/")
            .trim_start_matches('*')
            .trim_start_matches('#')
            .trim_start_matches('r')
            .trim_matches(|c| c == '"' || c == '\'')
            .trim();
        if !t.is_empty() && !t.starts_with('[') && !t.starts_with('@') {
            out.push(t);
        }
    }
    if out.is_empty() {
        return None;
    }
    let more = out.len() > MAX_DOC_LINES;
    out.truncate(MAX_DOC_LINES);
    let mut doc = out.join("\n");
    if more {
        doc.push_str(" …");
    }
    Some(doc)
}

/// A Python docstring that starts on line `i` (0-based), if one does.
fn docstring_at(lines: &[&str], i: usize) -> Option<String> {
    let first = lines.get(i)?.trim().trim_start_matches(['r', 'u', 'b']);
    let quote = ["\"\"\"", "'''", "\"", "'"].into_iter().find(|q| first.starts_with(q))?;
    let closes_on_first = first.len() >= 2 * quote.len() && first[quote.len()..].contains(quote);
    let end = if closes_on_first {
        i
    } else {
        (i + 1..lines.len().min(i + 60)).find(|&k| lines[k].contains(quote)).unwrap_or(i)
    };
    clean_doc(lines[i..=end].iter().copied())
}

/// The doc comment above a declaration (lines `doc..start`), or a Python docstring opening its body.
fn doc_of(lines: &[&str], language: Language, doc_line: Option<u32>, start: u32) -> Option<String> {
    if let Some(d) = doc_line.filter(|&d| d >= 1 && d < start) {
        return clean_doc(lines.get(d as usize - 1..start as usize - 1)?.iter().copied());
    }
    if language != Language::Python {
        return None;
    }
    // The header may run over several lines; the body starts after the line ending with `:`.
    let header_end =
        (start as usize - 1..lines.len().min(start as usize + 12)).find(|&k| lines[k].trim_end().ends_with(':'))?;
    docstring_at(lines, header_end + 1)
}

/// The leading comment (or module docstring) of a file.
fn file_doc(lines: &[&str], language: Language) -> Option<String> {
    let first = lines.iter().position(|l| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with("#!") && !t.starts_with("# -*-")
    })?;
    if language == Language::Python {
        if let Some(doc) = docstring_at(lines, first) {
            return Some(doc);
        }
    }
    let comment = |t: &str| {
        if language == Language::Python {
            t.starts_with('#')
        } else {
            t.starts_with("//") || t.starts_with("/*") || t.starts_with('*')
        }
    };
    let end = lines[first..].iter().position(|l| !comment(l.trim())).map_or(lines.len(), |n| first + n);
    clean_doc(lines[first..end].iter().copied())
}

fn excerpt(lines: &[&str], start: u32, end: u32) -> Excerpt {
    let last = end.min(start + EXCERPT_LINES - 1).min(lines.len() as u32).max(start);
    let text = lines[(start as usize - 1).min(lines.len())..(last as usize).min(lines.len())].join("\n");
    Excerpt { start_line: start, end_line: last, text, truncated: last < end }
}

fn brief(index: &Index, id: SymId) -> String {
    let s = index.symbol(id);
    format!("{} {} ({})", s.kind.as_str(), s.name, s.start.line)
}

/// The evidence packet of a declaration.
pub(crate) fn symbol_packet(host: &dyn Host, index: &Index, id: SymId, source: bool, limit: usize) -> Packet {
    let s = index.symbol(id);
    let fid = index.file_of(id);
    let file = &index.files[fid as usize];
    let (text, mut omitted) = packet_source(host, file);
    let lines: Vec<&str> = text.as_deref().map(|t| t.lines().collect()).unwrap_or_default();
    // Users: enclosing declarations by number of uses, and files.
    let sites = index.sites_of(id);
    let mut by_symbol: HashMap<SymId, u64> = HashMap::default();
    let mut by_file: HashMap<FileId, u64> = HashMap::default();
    for r in sites {
        *by_file.entry(r.file).or_default() += 1;
        if let (Some(e), false) = (r.enclosing, r.import) {
            *by_symbol.entry(e).or_default() += 1;
        }
    }
    let mut symbols: Vec<(u64, &str)> =
        by_symbol.iter().map(|(&e, &n)| (n, index.handles[e as usize].as_str())).collect();
    symbols.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let mut files: Vec<(u64, &str)> =
        by_file.iter().map(|(&f, &n)| (n, index.files[f as usize].path.as_str())).collect();
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let used_by = UsedBy {
        symbols: capped(
            symbols.into_iter().map(|(_, h)| h.to_string()).collect(),
            limit,
            "usedBy.symbols",
            &mut omitted,
        ),
        files: capped(files.into_iter().map(|(_, p)| p.to_string()).collect(), limit, "usedBy.files", &mut omitted),
        total: sites.len() as u64,
    };
    let local = id - file.sym_base;
    let members: Vec<String> = (0..file.facts.symbols.len() as u32)
        .filter(|&i| file.facts.symbols[i as usize].container == Some(local))
        .map(|i| brief(index, file.sym_base + i))
        .collect();
    Packet {
        kind: "symbol".into(),
        target: index.handles[id as usize].clone(),
        path: file.path.clone(),
        symbol_kind: Some(s.kind.as_str().into()),
        start_line: s.start.line,
        end_line: s.end.line,
        signature: Some(index.signature(id).to_string()),
        doc: doc_of(&lines, file.language, s.doc_line, s.start.line),
        declarations: capped(members, limit, "declarations", &mut omitted),
        imports: Vec::new(),
        used_by,
        excerpt: (source && !lines.is_empty()).then(|| excerpt(&lines, s.start.line, s.end.line)),
        omitted,
    }
}

/// The evidence packet of a file.
pub(crate) fn file_packet(host: &dyn Host, index: &Index, fid: FileId, source: bool, limit: usize) -> Packet {
    let file = &index.files[fid as usize];
    let (text, mut omitted) = packet_source(host, file);
    let lines: Vec<&str> = text.as_deref().map(|t| t.lines().collect()).unwrap_or_default();
    let top: Vec<String> = (0..file.facts.symbols.len() as u32)
        .filter(|&i| file.facts.symbols[i as usize].container.is_none())
        .map(|i| brief(index, file.sym_base + i))
        .collect();
    let path_of = |f: &FileId| index.files[*f as usize].path.clone();
    let rdeps = &index.graph.rdeps[fid as usize];
    Packet {
        kind: "file".into(),
        target: file.path.clone(),
        path: file.path.clone(),
        symbol_kind: None,
        start_line: 1,
        end_line: file.lines,
        signature: None,
        doc: file_doc(&lines, file.language),
        declarations: capped(top, limit, "declarations", &mut omitted),
        imports: capped(index.graph.deps[fid as usize].iter().map(path_of).collect(), limit, "imports", &mut omitted),
        used_by: UsedBy {
            symbols: Vec::new(),
            files: capped(rdeps.iter().map(path_of).collect(), limit, "usedBy.files", &mut omitted),
            total: rdeps.len() as u64,
        },
        excerpt: (source && !lines.is_empty()).then(|| excerpt(&lines, 1, file.lines)),
        omitted,
    }
}

/// A shortest import chain from one file to another (breadth-first, neighbours in path order).
pub(crate) fn import_path(index: &Index, from: FileId, to: FileId) -> Option<Vec<FileId>> {
    let mut prev: HashMap<FileId, FileId> = HashMap::default();
    let mut queue = VecDeque::from([from]);
    let mut visited = BTreeSet::from([from]);
    while let Some(f) = queue.pop_front() {
        if f == to {
            break;
        }
        for &n in &index.graph.deps[f as usize] {
            if visited.insert(n) {
                prev.insert(n, f);
                queue.push_back(n);
            }
        }
    }
    visited.contains(&to).then(|| {
        let mut chain = vec![to];
        let mut cur = to;
        while let Some(&p) = prev.get(&cur) {
            chain.push(p);
            cur = p;
        }
        chain.reverse();
        chain
    })
}

/// Files that import `roots` within two steps, with their distance.
fn dependents(index: &Index, roots: &[FileId]) -> Vec<(u32, FileId)> {
    let mut seen: BTreeMap<FileId, u32> = roots.iter().map(|&f| (f, 0)).collect();
    let mut frontier: Vec<FileId> = roots.to_vec();
    for distance in 1..=2 {
        let mut next = Vec::new();
        for f in frontier {
            for &r in &index.graph.rdeps[f as usize] {
                if let std::collections::btree_map::Entry::Vacant(e) = seen.entry(r) {
                    e.insert(distance);
                    next.push(r);
                }
            }
        }
        frontier = next;
    }
    let mut out: Vec<(u32, FileId)> = seen.into_iter().filter(|(_, d)| *d > 0).map(|(f, d)| (d, f)).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| index.files[a.1 as usize].path.cmp(&index.files[b.1 as usize].path)));
    out
}

/// Test files for the anchors: those that use an anchor declaration, then those that import an
/// anchor file (within two steps), then those named after one.
fn candidate_tests(index: &Index, files: &[FileId], syms: &[SymId], near: &[(u32, FileId)]) -> Vec<CandidateTest> {
    let mut found: BTreeMap<FileId, (u8, u64, String)> = BTreeMap::new();
    let mut note = |f: FileId, rank: u8, count: u64, reason: String| {
        if !is_test_path(&index.files[f as usize].path) {
            return;
        }
        let e = found.entry(f).or_insert((rank, 0, reason.clone()));
        if rank < e.0 {
            *e = (rank, 0, reason);
        }
        if rank == e.0 {
            e.1 += count;
        }
    };
    for &id in syms {
        for r in index.sites_of(id) {
            note(r.file, 0, 1, format!("uses {}", index.handles[id as usize]));
        }
    }
    for &(d, f) in near {
        let via = files.iter().find(|&&a| index.graph.deps[f as usize].contains(&a)).or(files.first());
        if let Some(&a) = via {
            note(f, d as u8, 1, format!("imports {}", index.files[a as usize].path));
        }
    }
    for &a in files {
        let path = &index.files[a as usize].path;
        let base = path.rsplit('/').next().unwrap_or(path);
        let stem = base.split('.').next().unwrap_or(base).to_lowercase();
        if stem.len() < 3 || matches!(stem.as_str(), "mod" | "lib" | "index" | "main" | "__init__") {
            continue;
        }
        for (f, file) in index.files.iter().enumerate() {
            let b = file.path.rsplit('/').next().unwrap_or(&file.path).to_lowercase();
            let b_stem = b.split('.').next().unwrap_or(&b);
            if b_stem == stem
                || b_stem == format!("test_{stem}")
                || b_stem == format!("{stem}_test")
                || b_stem == format!("{stem}_tests")
            {
                note(f as FileId, 3, 1, format!("named after {path}"));
            }
        }
    }
    let mut list: Vec<(u8, u64, FileId, String)> = found.into_iter().map(|(f, (r, n, why))| (r, n, f, why)).collect();
    list.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| b.1.cmp(&a.1))
            .then_with(|| index.files[a.2 as usize].path.cmp(&index.files[b.2 as usize].path))
    });
    list.into_iter()
        .map(|(_, _, f, reason)| CandidateTest { path: index.files[f as usize].path.clone(), reason })
        .collect()
}

fn anchor(index: &Index, h: &Hit) -> Anchor {
    let path = index.files[h.file as usize].path.clone();
    match h.sym {
        Some(id) => Anchor {
            kind: "symbol".into(),
            path,
            handle: Some(index.handles[id as usize].clone()),
            symbol_kind: Some(index.symbol(id).kind.as_str().into()),
            line: Some(index.symbol(id).name_pos.line),
            score: h.score,
            matched: h.matched.clone(),
        },
        None => Anchor {
            kind: "file".into(),
            path,
            handle: None,
            symbol_kind: None,
            line: None,
            score: h.score,
            matched: h.matched.clone(),
        },
    }
}

fn follow_ups(index: &Index, hits: &[Hit], packets: usize, tests: &[CandidateTest]) -> Vec<FollowUp> {
    let mut out = Vec::new();
    if let Some(id) = hits.iter().find_map(|h| h.sym) {
        let s = index.symbol(id);
        let handle = index.handles[id as usize].clone();
        let (tool, why) = if s.kind.is_callable() {
            ("callers", "who calls the top declaration")
        } else {
            ("refs", "where the top declaration is used")
        };
        out.push(FollowUp { tool: tool.into(), arguments: serde_json::json!({ "handle": handle }), why: why.into() });
        out.push(FollowUp {
            tool: "get_file".into(),
            arguments: serde_json::json!({
                "file": index.files[index.file_of(id) as usize].path,
                "offset": s.start.line,
                "limit": (s.end.line - s.start.line + 1).min(200),
            }),
            why: "read the top declaration".into(),
        });
    }
    if let Some(h) = hits.get(packets) {
        let target =
            h.sym.map_or_else(|| index.files[h.file as usize].path.clone(), |id| index.handles[id as usize].clone());
        out.push(FollowUp {
            tool: "packet_get".into(),
            arguments: serde_json::json!({ "target": target }),
            why: "evidence for the next anchor".into(),
        });
    }
    if let Some(h) = hits.first() {
        out.push(FollowUp {
            tool: "rdeps".into(),
            arguments: serde_json::json!({ "file": index.files[h.file as usize].path }),
            why: "every file that imports the top file".into(),
        });
    }
    if let Some(t) = tests.first() {
        out.push(FollowUp {
            tool: "get_file".into(),
            arguments: serde_json::json!({ "file": t.path, "limit": 200 }),
            why: "the test most likely to cover it".into(),
        });
    }
    out
}

/// A query without surrounding blanks; an empty one is an error.
pub(crate) fn nonempty_query(raw: &str) -> Result<String, Error> {
    let query = raw.trim();
    if query.is_empty() {
        return Err(Error::InvalidArgument("`query` must not be empty".into()));
    }
    Ok(query.to_string())
}

/// The indexed file a query names: its exact root-relative path, or a basename only one file has.
fn named_file(index: &Index, query: &str) -> Option<String> {
    let q = clean_path(query.trim());
    if index.by_path.contains_key(&q) {
        return Some(q);
    }
    if q.contains('/') || q.contains(char::is_whitespace) {
        return None;
    }
    let mut found = index.files.iter().filter(|f| f.path.rsplit('/').next() == Some(q.as_str()));
    let first = found.next()?;
    found.next().is_none().then(|| first.path.clone())
}

impl Session {
    /// Validates a query and ranks it, noting in `omitted` what `limit` leaves of the list `list`.
    fn ranked(&mut self, raw: &str, list: &str, limit: usize) -> Result<(String, Ranking, Omitted), Error> {
        let query = nonempty_query(raw)?;
        self.index()?;
        let index = self.index.as_ref().expect("built above");
        let ranking = rank(index, text_index(self.host.as_ref(), index, self.options.persist), &query);
        let mut omitted = super::queries::omitted_limit(list, ranking.hits.len().saturating_sub(limit));
        if ranking.capped > 0 {
            omitted.other.insert("declarationsBeyondThreePerFile".into(), ranking.capped);
        }
        if ranking.stale_files > 0 {
            omitted.other.insert("filesChangedSinceIndexed".into(), ranking.stale_files);
        }
        Ok((query, ranking, omitted))
    }

    pub fn search(&mut self, req: SearchRequest) -> Result<SearchResponse, Error> {
        let limit = bounded(req.limit, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_CAP, "limit")?;
        let (query, ranking, omitted) = self.ranked(&req.query, "hits", limit)?;
        let index = self.index.as_ref().expect("ranked above");
        let total = ranking.hits.len() as u64;
        let hits = ranking
            .hits
            .into_iter()
            .take(limit)
            .map(|h| SearchHit {
                kind: if h.sym.is_some() { "symbol" } else { "file" }.into(),
                path: index.files[h.file as usize].path.clone(),
                symbol: h.sym.map(|id| index.info(id)),
                score: h.score,
                matched: h.matched,
            })
            .collect();
        Ok(SearchResponse {
            query,
            hits,
            total,
            unknown_words: ranking.unknown,
            omitted,
            freshness: Freshness::fresh(),
        })
    }

    pub fn explore(&mut self, req: ExploreRequest) -> Result<ExploreResponse, Error> {
        let limit = bounded(req.limit, EXPLORE_LIMIT_DEFAULT, EXPLORE_LIMIT_CAP, "limit")?;
        let packet_count = match req.packets {
            Some(0) => 0,
            n => bounded(n, EXPLORE_PACKETS_DEFAULT, EXPLORE_PACKETS_CAP, "packets")?,
        };
        let list = bounded(req.list_limit, PACKET_LIST_DEFAULT, PACKET_LIST_CAP, "listLimit")?;
        let (query, ranking, mut omitted) = self.ranked(&req.query, "anchors", limit)?;
        let index = self.index.as_ref().expect("ranked above");
        let host = self.host.as_ref();
        let hits: Vec<Hit> = ranking.hits.into_iter().take(limit).collect();
        let source = req.include_source == Some(true);
        let packets: Vec<Packet> = hits
            .iter()
            .take(packet_count)
            .map(|h| match h.sym {
                Some(id) => symbol_packet(host, index, id, source, list),
                None => file_packet(host, index, h.file, source, list),
            })
            .collect();
        let mut top_files: Vec<FileId> = Vec::new();
        for h in &hits {
            if !top_files.contains(&h.file) && top_files.len() < 3 {
                top_files.push(h.file);
            }
        }
        let mut paths = Vec::new();
        for &a in &top_files {
            for &b in &top_files {
                if a == b {
                    continue;
                }
                if let Some(chain) = import_path(index, a, b) {
                    let files: Vec<String> = chain.iter().map(|&f| index.files[f as usize].path.clone()).collect();
                    paths.push(AnchorPath { from: files[0].clone(), to: files[files.len() - 1].clone(), files });
                }
            }
        }
        let paths = omitted.cut(paths, list, "paths");
        let near = dependents(index, &top_files);
        let blast_radius = BlastRadius {
            total: near.len() as u64,
            files: omitted.cut(
                near.iter()
                    .map(|&(distance, f)| Dependent { path: index.files[f as usize].path.clone(), distance })
                    .collect(),
                list,
                "blastRadius",
            ),
        };
        let top_syms: Vec<SymId> = hits.iter().filter_map(|h| h.sym).take(5).collect();
        let candidate_tests = omitted.cut(candidate_tests(index, &top_files, &top_syms, &near), list, "candidateTests");
        let follow_ups = follow_ups(index, &hits, packet_count, &candidate_tests);
        let anchors = hits.iter().map(|h| anchor(index, h)).collect();
        let named = (req.include_source != Some(false)).then(|| named_file(index, &query)).flatten();
        let file_view = match named {
            Some(file) => Some(self.get_file(GetFileRequest { file, ..GetFileRequest::default() })?),
            None => None,
        };
        Ok(ExploreResponse {
            query,
            anchors,
            packets,
            paths,
            blast_radius,
            candidate_tests,
            follow_ups,
            unknown_words: ranking.unknown,
            file_view,
            omitted,
            freshness: Freshness::fresh(),
        })
    }

    pub fn packet_get(&mut self, req: PacketGetRequest) -> Result<PacketGetResponse, Error> {
        let limit = bounded(req.limit, PACKET_LIST_DEFAULT, PACKET_LIST_CAP, "limit")?;
        let target = req.target.trim().to_string();
        if target.is_empty() {
            return Err(Error::InvalidArgument("`target` must not be empty".into()));
        }
        let source = req.include_source != Some(false);
        self.index()?;
        let index = self.index.as_ref().expect("built above");
        let host = self.host.as_ref();
        if let Some(&id) = index.by_handle.get(&target) {
            return Ok(PacketGetResponse {
                packet: symbol_packet(host, index, id, source, limit),
                alternatives: Vec::new(),
                freshness: Freshness::fresh(),
            });
        }
        if let Some(path) = named_file(index, &target) {
            let fid = index.by_path[&path];
            return Ok(PacketGetResponse {
                packet: file_packet(host, index, fid, source, limit),
                alternatives: Vec::new(),
                freshness: Freshness::fresh(),
            });
        }
        // A name: the best of the declarations called so (qualified, exact, then ignoring case);
        // outside tests, exported, most used.
        let sq = SymbolQuery::new(&target);
        let mut found: Vec<(u8, SymId)> = (0..index.syms.len() as SymId)
            .filter_map(|id| sq.tier(index, id).map(|(tier, _)| (tier, id)))
            .filter(|(tier, _)| (1..=3).contains(tier))
            .collect();
        found.sort_by_key(|&(tier, id)| {
            (
                tier,
                is_test_path(&index.files[index.file_of(id) as usize].path),
                std::cmp::Reverse(index.symbol(id).exported),
                std::cmp::Reverse(index.uses(id)),
                index.handles[id as usize].as_str(),
            )
        });
        let Some(best) = found.first() else {
            return Err(Error::NotFound(format!(
                "`{target}` is not a handle, an indexed file or a declaration name; try search or explore"
            )));
        };
        let alternatives =
            found.iter().skip(1).take(limit).map(|&(_, id)| index.handles[id as usize].clone()).collect();
        Ok(PacketGetResponse {
            packet: symbol_packet(host, index, best.1, source, limit),
            alternatives,
            freshness: Freshness::fresh(),
        })
    }
}
