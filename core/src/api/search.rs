//! `search`: ranked files and declarations for words in plain language or identifiers. The lexical
//! index (`text.rs`) scores chunks; the graph adds what words can't see (exported or not, how many
//! places use a declaration or import a file, whether it is a test or vendored), and a query that
//! names a declaration puts its definition first. `explore` ranks through the same `rank`.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

use super::{bounded, nonempty_query, Ctx, Error, Freshness, Omitted, SymbolInfo};
use crate::index::{FileId, Index, SymId, SymbolQuery};
use crate::paths::{is_test_path, is_vendored_path};
use crate::text::{field_name, TextIndex};

pub const SEARCH_LIMIT_DEFAULT: u32 = 20;
pub const SEARCH_LIMIT_CAP: u32 = 100;

/// Ranked search over paths, declarations and their code (bodies with doc comments): words in
/// plain language or identifiers. Deterministic: the same query on the same index gives the same order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SearchRequest {
    pub query: String,
    /// Maximum hits (default 20, cap 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SearchHit {
    /// `symbol` or `file`.
    pub kind: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<SymbolInfo>,
    pub score: f64,
    /// What matched: `definition` (the query names this declaration), `prefix`, `token`, and
    /// `<where>:<word>` for each query word found, by the strongest place it stands — `name`, `path`,
    /// `signature`, `doc` or `body` (words are shown stemmed: `retri`, `schedul`).
    pub matched: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SearchResponse {
    pub query: String,
    pub hits: Vec<SearchHit>,
    pub total: u64,
    /// Query words that occur nowhere in the repository.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_words: Vec<String>,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

/// A ranked place: a file, or a declaration in it.
#[derive(Clone, Debug)]
pub(crate) struct Hit {
    pub file: FileId,
    pub sym: Option<SymId>,
    pub score: f64,
    pub matched: Vec<String>,
}

pub(crate) struct Ranking {
    /// Files and declarations merged, best first, at most `PER_FILE` declarations per file. The
    /// order is exact for the first `reach` hits asked for; after them, declarations of one file
    /// tied in score may stand in another order (only the count of them is used).
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
/// `_`, `::`, `.`, a capital after a lower-case letter, or letters and digits together.
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
                // `i18n`, `utf8`, `base64`: letters and digits in one word name something.
                || (w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(char::is_alphabetic))
        })
        .collect()
}

/// How much the graph says a declaration matters: exported, and used from many places.
fn symbol_weight(index: &Index, id: SymId) -> f64 {
    let exported = if index.traits()[id as usize].exported() { 1.1 } else { 1.0 };
    exported * (1.0 + 0.1 * ln1p(index.uses(id) as f64))
}

/// What matched, one `<where>:<word>` per query word by the strongest place it stands.
fn matched(labels: &BTreeMap<String, u8>) -> Vec<String> {
    labels.iter().map(|(t, f)| format!("{}:{t}", field_name(*f))).collect()
}

/// Ranks files and declarations for a query; the first `reach` hits are the answer.
pub(crate) fn rank(index: &Index, text: &TextIndex, query: &str, reach: usize) -> Ranking {
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
        let acc = files.entry(cs.file).or_default();
        acc.chunks.push(base);
        acc.credit.resize(credit.len(), 0.0);
        for (a, c) in acc.credit.iter_mut().zip(&credit) {
            *a = a.max(*c);
        }
        for (t, f) in &labels {
            *acc.labels.entry(t.clone()).or_default() |= f;
        }
        if let Some(sym) = cs.sym {
            syms.insert(sym, (base * symbol_weight(index, sym), matched(&labels)));
        }
    }
    // Declarations named like the query (its first eight identifier-like words: pasted code stays cheap).
    for word in identifier_words(query).into_iter().take(8) {
        let sq = SymbolQuery::new(word);
        for (id, tier, how) in sq.matches(index) {
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
        let importers = index.dependents(file) as f64;
        let score = (lexical * (1.0 + 0.05 * ln1p(importers)) + acc.ident) * test_weight(file);
        hits.push(Hit { file, sym: None, score: round(score), matched: matched(&acc.labels) });
    }
    for (sym, (score, matched)) in syms {
        let file = index.file_of(sym);
        let score = score * test_weight(file);
        hits.push(Hit { file, sym: Some(sym), score: round(score), matched });
    }
    // Best first, then by path, a file before its declarations; declarations of one file tied in
    // score by position, which only their facts hold: the order is settled without them, then each
    // run of such ties that reaches the answer is put in position order.
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| index.files[a.file as usize].path.cmp(&index.files[b.file as usize].path))
            .then_with(|| a.sym.is_some().cmp(&b.sym.is_some()))
            .then_with(|| a.sym.cmp(&b.sym))
    });
    let tied = |a: &Hit, b: &Hit| {
        a.sym.is_some() && b.sym.is_some() && a.file == b.file && a.score.total_cmp(&b.score).is_eq()
    };
    let mut per_file: HashMap<FileId, usize> = HashMap::default();
    let mut keep = Vec::with_capacity(hits.len());
    let (mut kept, mut at) = (0, 0);
    while at < hits.len() {
        let run = 1 + hits[at..].windows(2).take_while(|w| tied(&w[0], &w[1])).count();
        let ties = &mut hits[at..at + run];
        if run > 1 && kept < reach {
            ties.sort_by_cached_key(|h| (h.sym.map(|s| index.symbol(s).start), h.sym));
        }
        for h in ties.iter() {
            let n = per_file.entry(h.file).or_default();
            *n += usize::from(h.sym.is_some());
            let k = h.sym.is_none() || *n <= PER_FILE;
            kept += usize::from(k);
            keep.push(k);
        }
        at += run;
    }
    let capped = keep.iter().filter(|k| !**k).count() as u64;
    let mut keep = keep.into_iter();
    hits.retain(|_| keep.next().unwrap_or(false));
    Ranking { capped, hits, unknown: q.unknown, stale_files: text.stale_files() }
}

/// Validates a query and ranks it, noting in `omitted` what `limit` leaves of the list `list`.
pub(crate) fn ranked(ctx: &Ctx, raw: &str, list: &str, limit: usize) -> Result<(String, Ranking, Omitted), Error> {
    let query = nonempty_query(raw)?;
    let ranking = rank(ctx.index(), ctx.text(), &query, limit);
    let mut omitted = Omitted::by_limit(list, ranking.hits.len().saturating_sub(limit));
    if ranking.capped > 0 {
        omitted.other.insert("declarationsBeyondThreePerFile".into(), ranking.capped);
    }
    if ranking.stale_files > 0 {
        omitted.other.insert("filesChangedSinceIndexed".into(), ranking.stale_files);
    }
    Ok((query, ranking, omitted))
}

/// Ranked files and declarations for words or identifiers.
pub(crate) fn search(ctx: &Ctx, req: SearchRequest) -> Result<SearchResponse, Error> {
    let limit = bounded(req.limit, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_CAP, "limit")?;
    let (query, ranking, omitted) = ranked(ctx, &req.query, "hits", limit)?;
    let index = ctx.index();
    let total = ranking.hits.len() as u64;
    let hits = ranking
        .hits
        .into_iter()
        .take(limit)
        .map(|h| SearchHit {
            kind: if h.sym.is_some() { "symbol" } else { "file" }.into(),
            path: index.files[h.file as usize].path.clone(),
            symbol: h.sym.map(|id| SymbolInfo::of(index, id)),
            score: h.score,
            matched: h.matched,
        })
        .collect();
    Ok(SearchResponse { query, hits, total, unknown_words: ranking.unknown, omitted, freshness: ctx.freshness() })
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::SearchRequest;

    #[test]
    fn a_named_declaration_comes_first_and_words_find_their_code() {
        let (_dir, mut s) = repo(&[
            ("retry.py", "def schedule_retry(job):\n    \"\"\"Queue a failed job again after a backoff delay.\"\"\"\n    return job\n"),
            ("other.py", "def unrelated():\n    return 2\n"),
        ]);
        let by_name = s.search(SearchRequest { query: "schedule_retry".into(), limit: None }).unwrap();
        assert_eq!(by_name.hits[0].symbol.as_ref().unwrap().handle, "retry.py::schedule_retry");
        assert_eq!(by_name.hits[0].matched[0], "definition");
        let by_words =
            s.search(SearchRequest { query: "backoff delay for failed jobs".into(), limit: Some(1) }).unwrap();
        assert_eq!(by_words.hits[0].path, "retry.py");
        assert_eq!(by_words.hits.len(), 1);
        let unknown = s.search(SearchRequest { query: "zebra backoff".into(), limit: None }).unwrap();
        assert_eq!(unknown.unknown_words, ["zebra"]);
        assert!(s.search(SearchRequest { query: "  ".into(), limit: None }).is_err());
    }

    #[test]
    fn an_identifier_with_digits_in_a_sentence_is_looked_up() {
        let (_dir, mut s) = repo(&[
            (
                "i18n.ts",
                "export const i18n = { t: (key: string) => key };
",
            ),
            (
                "page.ts",
                "import { i18n } from './i18n';
export const title = i18n.t('home');
",
            ),
        ]);
        for query in ["i18n", "where is i18n used"] {
            let found = s.search(SearchRequest { query: query.into(), limit: None }).unwrap();
            assert_eq!(found.hits[0].symbol.as_ref().map(|s| s.handle.as_str()), Some("i18n.ts::i18n"), "{query}");
        }
    }
}
