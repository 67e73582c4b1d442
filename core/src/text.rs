//! The lexical index behind `search` and `explore`: words in plain language matched against code.
//!
//! Every indexed file is cut into chunks — one per function, method, type or inline module (from its
//! doc comment to its last line, minus the chunks nested in it) and one for the rest of the file
//! (imports, top-level statements, its path). Text is split into words the way identifiers are
//! written (`spawnBlocking`, `spawn_blocking`, `spawn-blocking`, `utf8Decode` → spawn, blocking, utf, 8,
//! decode), lower-cased, stripped of English stop words and stemmed (Snowball English, from
//! `rust-stemmers`), so "retries scheduled" meets `schedule_retry`. Each word occurrence counts with
//! the weight of where it stands: a declaration's name over its signature and doc comment over its
//! body. Chunks are scored with BM25 over those weighted counts.
//!
//! The index depends only on the files' bytes and the symbols already extracted; it is built on the
//! first search after the index changes and dropped with it. Arithmetic that feeds the order uses
//! `libm`, so native and wasm rank identically.

use std::cell::RefCell;

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

use crate::facts::SymbolKind;
use crate::index::{FileId, Index, SymId};
use crate::lang::Language;

/// Where a word stands in a chunk; a posting keeps the set as bits.
pub(crate) const NAME: u8 = 1;
pub(crate) const SIGNATURE: u8 = 2;
pub(crate) const DOC: u8 = 4;
pub(crate) const BODY: u8 = 8;
pub(crate) const PATH: u8 = 16;

/// The names of the bits, for "what matched" in answers.
pub(crate) fn field_name(fields: u8) -> &'static str {
    // The strongest field wins the label.
    for (bit, name) in [(NAME, "name"), (PATH, "path"), (SIGNATURE, "signature"), (DOC, "doc"), (BODY, "body")] {
        if fields & bit != 0 {
            return name;
        }
    }
    "body"
}

fn weight(field: u8) -> f32 {
    match field {
        NAME => 3.0,
        SIGNATURE | DOC | PATH => 2.0,
        _ => 1.0,
    }
}

/// Words that carry no meaning in a question about code.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "actually",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "another",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "down",
    "during",
    "each",
    "either",
    "else",
    "ever",
    "every",
    "exactly",
    "few",
    "for",
    "from",
    "further",
    "had",
    "happen",
    "happens",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "let",
    "may",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "my",
    "myself",
    "neither",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "often",
    "on",
    "once",
    "only",
    "onto",
    "or",
    "other",
    "others",
    "otherwise",
    "our",
    "ours",
    "out",
    "over",
    "own",
    "per",
    "perhaps",
    "rather",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "somewhere",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "therefore",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "though",
    "through",
    "thus",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "very",
    "via",
    "was",
    "way",
    "ways",
    "we",
    "well",
    "were",
    "what",
    "whatever",
    "when",
    "whenever",
    "where",
    "wherever",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "yet",
    "you",
    "your",
    "yours",
];

fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

/// Splits text into lower-cased identifier parts: runs of letters and digits, cut at camelCase humps,
/// acronym ends (`HTTPServer` → http, server), letter/digit changes, `_`, `-` and everything else
/// that is not alphanumeric.
pub(crate) fn for_each_part(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_alphanumeric() {
            if !buf.is_empty() {
                f(&buf);
                buf.clear();
            }
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let boundary = (c.is_uppercase() && p.is_lowercase())
                || (c.is_uppercase() && p.is_uppercase() && chars.peek().is_some_and(|n| n.is_lowercase()))
                || (c.is_ascii_digit() != p.is_ascii_digit());
            if boundary && !buf.is_empty() {
                f(&buf);
                buf.clear();
            }
        }
        buf.extend(c.to_lowercase());
        prev = Some(c);
    }
    if !buf.is_empty() {
        f(&buf);
    }
}

/// The parts of one identifier, as a list.
pub(crate) fn identifier_tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_part(s, |p| out.push(p.to_string()));
    out
}

thread_local! {
    static STEMS: RefCell<(Stemmer, HashMap<String, String>)> =
        RefCell::new((Stemmer::create(Algorithm::English), HashMap::default()));
}

/// The index term of a lower-cased word part: None for stop words, single characters and numbers.
pub(crate) fn term(part: &str) -> Option<String> {
    if part.chars().count() < 2 || part.chars().all(|c| c.is_ascii_digit()) || is_stopword(part) {
        return None;
    }
    Some(STEMS.with(|s| {
        let (stemmer, cache) = &mut *s.borrow_mut();
        if let Some(t) = cache.get(part) {
            return t.clone();
        }
        let t = stemmer.stem(part).into_owned();
        if cache.len() < 200_000 {
            cache.insert(part.to_string(), t.clone());
        }
        t
    }))
}

/// A piece of a file that is scored on its own.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Chunk {
    pub file: FileId,
    /// The declaration; None for the file's own chunk (what lies outside every declaration).
    pub sym: Option<SymId>,
    /// Weighted word count, for length normalisation.
    len: f32,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Posting {
    chunk: u32,
    tf: f32,
    fields: u8,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct TextIndex {
    pub chunks: Vec<Chunk>,
    terms: HashMap<String, u32>,
    postings: Vec<Vec<Posting>>,
    /// The chunks of each file. A file updated in place gets new chunks; its old ones stay in
    /// `chunks` but leave every posting list.
    file_chunks: Vec<Vec<u32>>,
    /// Chunks in posting lists, and their total length.
    live: u64,
    total_len: f64,
    /// Files whose bytes on disk no longer match the index: only their path and names are searched.
    stale: Vec<bool>,
    /// Why this index could not be stored in `.codegraph/text.bin`, until the session reports it.
    #[serde(skip)]
    pub save_failure: Option<String>,
}

/// One chunk's words while a file is being cut: term → (weighted count, fields).
#[derive(Default)]
struct Draft {
    sym: Option<SymId>,
    words: HashMap<String, (f32, u8)>,
    len: f32,
}

impl Draft {
    fn add(&mut self, text: &str, field: u8) {
        let w = weight(field);
        for_each_part(text, |part| {
            if let Some(t) = term(part) {
                let e = self.words.entry(t).or_insert((0.0, 0));
                e.0 += w;
                e.1 |= field;
                self.len += w;
            }
        });
    }
}

/// Kinds that get a chunk of their own.
fn chunked(kind: SymbolKind) -> bool {
    kind.is_type() || kind.is_callable() || kind == SymbolKind::Module
}

/// Whether a trimmed line is a comment line in the file's language (docstrings count for Python).
fn comment_line(language: Language, line: &str, in_docstring: &mut bool) -> bool {
    if language == Language::Python {
        let quotes = line.matches("\"\"\"").count() + line.matches("'''").count();
        let was = *in_docstring;
        if quotes % 2 == 1 {
            *in_docstring = !*in_docstring;
        }
        return was || quotes > 0 || line.starts_with('#');
    }
    line.starts_with("//") || line.starts_with("/*") || line.starts_with('*')
}

/// Cuts one file into chunks and counts their words. `text` is None when the file can't be read as
/// indexed: then only its path and declaration names are counted.
fn cut_file(index: &Index, fid: FileId, text: Option<&str>) -> Vec<Draft> {
    let file = &index.files[fid as usize];
    // The words of a secrets file must not be findable: only its path and declarations are indexed.
    let text = text.filter(|_| crate::sensitive::classify(&file.path).is_none());
    let facts = &file.facts;
    let mut drafts = vec![Draft::default()];
    drafts[0].add(&file.path, PATH);
    // chunk of each symbol (by local index), and the owner chunk of every line.
    let mut chunk_of: Vec<usize> = vec![0; facts.symbols.len()];
    let lines = file.lines as usize + 1;
    let mut owner: Vec<u32> = vec![0; lines + 1];
    for (i, s) in facts.symbols.iter().enumerate() {
        if chunked(s.kind) {
            drafts.push(Draft { sym: Some(index.global(fid, i as u32)), ..Draft::default() });
            let c = drafts.len() - 1;
            chunk_of[i] = c;
            let from = s.doc_line.unwrap_or(s.start.line).min(s.start.line) as usize;
            let end = (s.end.line as usize).min(lines);
            if from <= end {
                owner[from..=end].fill(c as u32);
            }
        } else {
            chunk_of[i] = s.container.map_or(0, |c| chunk_of[c as usize]);
        }
    }
    for (i, s) in facts.symbols.iter().enumerate() {
        let c = if chunked(s.kind) { chunk_of[i] } else { owner[(s.name_pos.line as usize).min(lines)] as usize };
        drafts[c].add(&s.name, NAME);
    }
    if let Some(text) = text {
        let starts: rustc_hash::FxHashSet<u32> =
            facts.symbols.iter().filter(|s| chunked(s.kind)).map(|s| s.start.line).collect();
        let mut in_docstring = false;
        let mut in_example = false;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let c = owner.get(n).copied().unwrap_or(0) as usize;
            let trimmed = line.trim_start();
            let comment = comment_line(file.language, trimmed, &mut in_docstring);
            // Code examples fenced in doc comments use the API rather than describe it.
            let fence = comment && trimmed.trim_start_matches(['/', '*', '!', '#', ' ']).starts_with("```");
            if fence {
                in_example = !in_example;
            }
            in_example &= comment;
            let field = if comment && !in_example && !fence {
                DOC
            } else if in_example || fence {
                BODY
            } else if starts.contains(&(n as u32)) {
                SIGNATURE
            } else {
                BODY
            };
            drafts[c].add(line, field);
        }
    }
    drafts
}

impl TextIndex {
    /// Builds the index from the files' current bytes (`contents[f]` for file `f`; None when it could
    /// not be read or no longer matches the indexed hash).
    pub(crate) fn build(index: &Index, contents: Vec<Option<String>>) -> TextIndex {
        let mut text = TextIndex {
            chunks: Vec::new(),
            terms: HashMap::default(),
            postings: Vec::new(),
            file_chunks: vec![Vec::new(); index.files.len()],
            live: 0,
            total_len: 0.0,
            stale: contents.iter().map(Option::is_none).collect(),
            save_failure: None,
        };
        let work: Vec<(FileId, Option<String>)> =
            contents.into_iter().enumerate().map(|(i, c)| (i as FileId, c)).collect();
        for (fid, drafts) in crate::map_maybe_parallel(work, |(fid, text)| (fid, cut_file(index, fid, text.as_deref())))
        {
            text.add_file(fid, drafts);
        }
        text
    }

    /// Takes in new versions of some files (the index already holds their new facts): their old
    /// chunks leave the posting lists and their new ones join. Answers are then those of a fresh
    /// build: lengths are sums of whole weights and scores don't depend on chunk numbering.
    pub(crate) fn update(&mut self, index: &Index, files: Vec<(FileId, Option<String>)>) {
        let mut dead = vec![false; self.chunks.len()];
        for (fid, _) in &files {
            for c in std::mem::take(&mut self.file_chunks[*fid as usize]) {
                dead[c as usize] = true;
                self.live -= 1;
                self.total_len -= f64::from(self.chunks[c as usize].len);
            }
        }
        for list in &mut self.postings {
            list.retain(|p| !dead[p.chunk as usize]);
        }
        for (fid, content) in files {
            self.stale[fid as usize] = content.is_none();
            let drafts = cut_file(index, fid, content.as_deref());
            self.add_file(fid, drafts);
        }
    }

    fn add_file(&mut self, fid: FileId, drafts: Vec<Draft>) {
        for d in drafts {
            let chunk = self.chunks.len() as u32;
            // Sorted, so that posting lists are built in the same order everywhere.
            let mut words: Vec<(String, (f32, u8))> = d.words.into_iter().collect();
            words.sort_by(|a, b| a.0.cmp(&b.0));
            for (word, (tf, fields)) in words {
                let next = self.postings.len() as u32;
                let id = *self.terms.entry(word).or_insert(next);
                if id == next {
                    self.postings.push(Vec::new());
                }
                self.postings[id as usize].push(Posting { chunk, tf, fields });
            }
            self.live += 1;
            self.total_len += f64::from(d.len);
            self.chunks.push(Chunk { file: fid, sym: d.sym, len: d.len });
            self.file_chunks[fid as usize].push(chunk);
        }
    }

    fn avg_len(&self) -> f64 {
        if self.live == 0 {
            1.0
        } else {
            (self.total_len / self.live as f64).max(1.0)
        }
    }

    /// Files searched by path and names only (their bytes changed since they were indexed).
    pub(crate) fn stale_files(&self) -> u64 {
        self.stale.iter().filter(|s| **s).count() as u64
    }

    /// A term some live chunk holds.
    fn known(&self, term: &str) -> Option<u32> {
        self.terms.get(term).copied().filter(|&id| !self.postings[id as usize].is_empty())
    }

    /// The index terms of a question: its words split like identifiers, without stop words, stemmed,
    /// once each. A word the index doesn't know is retried without a `re`/`un`/`de` prefix
    /// ("resubscribed" finds `subscribe`); words that find nothing are reported as unknown.
    pub(crate) fn query(&self, text: &str) -> Query {
        let mut q = Query::default();
        for_each_part(text, |part| {
            if matches!(part, "test" | "tests" | "testing" | "spec" | "specs") {
                q.wants_tests = true;
            }
            let Some(t) = term(part) else { return };
            // Coverage is a 64-bit set of the query's words; a longer query keeps its first 64.
            if q.slots.len() == 64 || q.slots.iter().any(|s| s.word == t) || q.unknown.contains(&t) {
                return;
            }
            let mut found: Vec<(u32, f64, String)> = Vec::new();
            if let Some(id) = self.known(&t) {
                found.push((id, 1.0, t.clone()));
            } else if let Some((id, rest)) = ["re", "un", "de"].iter().find_map(|p| {
                let rest = t.strip_prefix(p).filter(|r| r.len() >= 4)?;
                self.known(rest).map(|id| (id, rest.to_string()))
            }) {
                found.push((id, 0.7, rest));
            }
            found.retain(|(id, _, _)| !q.terms.iter().any(|x| x.id == *id));
            if found.is_empty() {
                q.unknown.push(t);
                return;
            }
            let slot = q.slots.len() as u8;
            let idf = found.iter().map(|(id, w, _)| w * self.idf(*id)).fold(0.0, f64::max);
            q.slots.push(Slot { word: t, idf });
            for (id, weight, term) in found {
                let credit = weight * self.idf(id);
                q.terms.push(QueryTerm { term, id, weight, slot, credit });
            }
        });
        q
    }

    fn idf(&self, term: u32) -> f64 {
        let n = self.live as f64;
        let df = self.postings[term as usize].len() as f64;
        libm::log(1.0 + (n - df + 0.5) / (df + 0.5))
    }

    /// BM25 of every chunk that holds at least one query term, with the terms it holds (as
    /// `(query term index, fields)`), in chunk order.
    pub(crate) fn score(&self, q: &Query) -> Vec<ChunkScore> {
        const K1: f64 = 1.2;
        const B: f64 = 0.75;
        let avg_len = self.avg_len();
        let mut by_chunk: HashMap<u32, usize> = HashMap::default();
        let mut out: Vec<ChunkScore> = Vec::new();
        for (qi, qt) in q.terms.iter().enumerate() {
            let list = &self.postings[qt.id as usize];
            let idf = self.idf(qt.id);
            for p in list {
                let len = f64::from(self.chunks[p.chunk as usize].len);
                let tf = f64::from(p.tf);
                let s = qt.weight * idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg_len));
                let slot = *by_chunk.entry(p.chunk).or_insert_with(|| {
                    out.push(ChunkScore { chunk: p.chunk, bm25: 0.0, matched: Vec::new() });
                    out.len() - 1
                });
                out[slot].bm25 += s;
                out[slot].matched.push((qi as u8, p.fields));
            }
        }
        out.sort_by_key(|c| c.chunk);
        out
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Query {
    /// The query's words (stemmed), each with the rarity of its best match.
    pub slots: Vec<Slot>,
    /// The index terms searched for: each word and the synonyms the index holds.
    pub terms: Vec<QueryTerm>,
    /// Terms no chunk holds.
    pub unknown: Vec<String>,
    /// The question mentions tests (then test files are not down-weighted).
    pub wants_tests: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct QueryTerm {
    pub term: String,
    id: u32,
    weight: f64,
    /// The query word it stands for.
    pub slot: u8,
    /// Its weight times its rarity: what matching it is worth toward covering the query.
    pub credit: f64,
}

#[derive(Clone, Debug)]
pub(crate) struct Slot {
    pub word: String,
    /// How rare the word is: matching a rare word says more than matching a common one.
    pub idf: f64,
}

#[derive(Clone, Debug)]
pub(crate) struct ChunkScore {
    pub chunk: u32,
    pub bm25: f64,
    pub matched: Vec<(u8, u8)>,
}

/// The lexical index of `index`: built on first use, or read from `.codegraph/text.bin` when
/// persisting and it was built from exactly these files (then it is written there after a build).
pub(crate) fn text_index<'i>(host: &dyn crate::host::Host, index: &'i Index, persist: bool) -> &'i TextIndex {
    index.text.get_or_init(|| {
        let key = persist.then(|| key(index));
        if let Some(stored) = key.as_deref().and_then(|k| load(host, index, k)) {
            return stored;
        }
        let paths: Vec<String> = index.files.iter().map(|f| f.path.clone()).collect();
        // A file larger than it was indexed has changed: it is not read past its indexed size.
        let cap = index.files.iter().map(|f| f.size).max().unwrap_or(0);
        let contents = host
            .read_files(&paths, cap)
            .into_iter()
            .zip(&index.files)
            .map(|(bytes, f)| f.as_indexed(bytes.ok()?))
            .collect();
        let mut text = TextIndex::build(index, contents);
        // An index built while files were changing describes neither version: not kept. A failed
        // write only means the next process builds it again; the session reports why.
        if let (Some(k), 0) = (key.as_deref(), text.stale_files()) {
            if let Err(e) = save(host, k, &text) {
                text.save_failure = Some(format!("cannot write .codegraph/{STORE_NAME}: {e}"));
            }
        }
        text
    })
}

/// Where a persisting session keeps the lexical index, beside the snapshot (in `.codegraph/`).
pub(crate) const STORE_NAME: &str = "text.bin";
const MAGIC: [u8; 8] = *b"CGTEXT\0\0";
/// Bumped whenever chunking, weights, stemming or the layout change.
const FORMAT_VERSION: u32 = 1;

/// What a lexical index was built from: every file's path, language and content hash, in order.
pub(crate) fn key(index: &Index) -> String {
    let mut h = blake3::Hasher::new();
    h.update(crate::VERSION.as_bytes());
    for f in &index.files {
        for part in [f.path.as_str(), f.language.name(), f.hash.as_str()] {
            h.update(part.as_bytes());
            h.update(b"\0");
        }
    }
    h.finalize().to_hex().to_string()
}

/// The stored lexical index when it was built from exactly these files.
pub(crate) fn load(host: &dyn crate::host::Host, index: &Index, key: &str) -> Option<TextIndex> {
    let source_bytes = index.files.iter().map(|f| f.size).sum();
    let bytes = crate::store::read(host, STORE_NAME, crate::store::index_cap(source_bytes)).ok()??;
    let payload = crate::snapshot::unframe(&bytes, MAGIC, FORMAT_VERSION).ok()?;
    let (stored_key, text): (String, TextIndex) = postcard::from_bytes(payload).ok()?;
    (stored_key == key).then_some(text)
}

/// Stores a lexical index (best effort: a failed write only means the next process builds it).
pub(crate) fn save(host: &dyn crate::host::Host, key: &str, text: &TextIndex) -> Result<(), String> {
    let payload = postcard::to_allocvec(&(key, text)).map_err(|e| e.to_string())?;
    crate::store::write_cache(host, STORE_NAME, &crate::snapshot::frame(MAGIC, FORMAT_VERSION, &payload))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn parts_split_like_identifiers() {
        assert_eq!(identifier_tokens("HTTPServer_v2-retryCount"), ["http", "server", "v", "2", "retry", "count"]);
        assert_eq!(identifier_tokens("spawn_blocking"), ["spawn", "blocking"]);
        assert_eq!(identifier_tokens("parseHTTPRequest2"), ["parse", "http", "request", "2"]);
        assert_eq!(identifier_tokens("kebab-case"), ["kebab", "case"]);
    }

    #[test]
    fn terms_are_stemmed_and_stopwords_dropped() {
        assert_eq!(term("retries"), term("retry"));
        assert_eq!(term("scheduled"), term("scheduling"));
        assert_eq!(term("where"), None);
        assert_eq!(term("42"), None);
    }
}
