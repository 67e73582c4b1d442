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
use crate::sectioned::{self, Blocks, Format, SectionFile};

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
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Chunk {
    pub file: FileId,
    /// The declaration; None for the file's own chunk (what lies outside every declaration).
    pub sym: Option<SymId>,
    /// Weighted word count, for length normalisation.
    len: f32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Posting {
    chunk: u32,
    tf: f32,
    fields: u8,
}

/// A term the index holds: where its postings are (a term number in memory, the first posting
/// record in a stored index) and how many chunks hold it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TermRef {
    at: u64,
    df: u32,
}

/// The lexical index: built in this process, or stored in `.codegraph/text.bin` and read a piece at
/// a time (a question reads the terms it asks, their postings and the chunks those name).
pub(crate) struct TextIndex {
    repr: Repr,
    /// Why this index could not be stored in `.codegraph/text.bin`, until the session reports it.
    pub save_failure: Option<String>,
}

enum Repr {
    Built(Built),
    Stored(Stored),
}

struct Built {
    chunks: Vec<Chunk>,
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

/// Files read and cut into chunks at once while the index is built.
const BUILD_BATCH: usize = 512;

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
    // Looked at once: an index built over every file keeps none of their facts.
    let facts = file.facts.passing();
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

impl Built {
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
}

impl TextIndex {
    /// Builds the index from the files' current bytes, asked of `contents` a batch of files at a
    /// time (`contents(range)[i]` for file `range.start + i`; None when it could not be read or no
    /// longer matches the indexed hash): a batch's texts and counts are held, not every file's.
    pub(crate) fn build(
        index: &Index,
        mut contents: impl FnMut(std::ops::Range<usize>) -> Vec<Option<String>>,
    ) -> TextIndex {
        let files = index.files.len();
        let mut built = Built {
            chunks: Vec::new(),
            terms: HashMap::default(),
            postings: Vec::new(),
            file_chunks: vec![Vec::new(); files],
            live: 0,
            total_len: 0.0,
            stale: vec![false; files],
        };
        for start in (0..files).step_by(BUILD_BATCH) {
            let range = start..(start + BUILD_BATCH).min(files);
            let work: Vec<(FileId, Option<String>)> =
                range.clone().zip(contents(range)).map(|(i, c)| (i as FileId, c)).collect();
            for (fid, content) in &work {
                built.stale[*fid as usize] = content.is_none();
            }
            let cut = crate::map_maybe_parallel(work, |(fid, text)| (fid, cut_file(index, fid, text.as_deref())));
            for (fid, drafts) in cut {
                built.add_file(fid, drafts);
            }
        }
        TextIndex { repr: Repr::Built(built), save_failure: None }
    }

    /// Takes in new versions of some files (the index already holds their new facts): their old
    /// chunks leave the posting lists and their new ones join. Answers are then those of a fresh
    /// build: lengths are sums of whole weights and scores don't depend on chunk numbering. A stored
    /// index is read whole first; None when a part of it fails its check (the next search builds
    /// the index again).
    pub(crate) fn update(self, index: &Index, files: Vec<(FileId, Option<String>)>) -> Option<TextIndex> {
        let mut built = match self.repr {
            Repr::Built(built) => built,
            Repr::Stored(stored) => stored.read_whole().ok()?,
        };
        let mut dead = vec![false; built.chunks.len()];
        for (fid, _) in &files {
            for c in std::mem::take(&mut built.file_chunks[*fid as usize]) {
                dead[c as usize] = true;
                built.live -= 1;
                built.total_len -= f64::from(built.chunks[c as usize].len);
            }
        }
        for list in &mut built.postings {
            list.retain(|p| !dead[p.chunk as usize]);
        }
        for (fid, content) in files {
            built.stale[fid as usize] = content.is_none();
            let drafts = cut_file(index, fid, content.as_deref());
            built.add_file(fid, drafts);
        }
        Some(TextIndex { repr: Repr::Built(built), save_failure: None })
    }

    fn live(&self) -> u64 {
        match &self.repr {
            Repr::Built(b) => b.live,
            Repr::Stored(s) => s.meta.live,
        }
    }

    fn avg_len(&self) -> f64 {
        let (live, total_len) = match &self.repr {
            Repr::Built(b) => (b.live, b.total_len),
            Repr::Stored(s) => (s.meta.live, s.meta.total_len),
        };
        if live == 0 {
            1.0
        } else {
            (total_len / live as f64).max(1.0)
        }
    }

    /// Files searched by path and names only (their bytes changed since they were indexed).
    pub(crate) fn stale_files(&self) -> u64 {
        match &self.repr {
            Repr::Built(b) => b.stale.iter().filter(|s| **s).count() as u64,
            // Only an index built from files that all matched is stored.
            Repr::Stored(_) => 0,
        }
    }

    /// Why a part of the stored index read so far failed its check (then the answer read from it
    /// is not given: the session builds the index again and asks again).
    pub(crate) fn damage(&self) -> Option<String> {
        match &self.repr {
            Repr::Built(_) => None,
            Repr::Stored(s) => s.damage.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone(),
        }
    }

    /// A term some live chunk holds.
    fn known(&self, term: &str) -> Option<TermRef> {
        match &self.repr {
            Repr::Built(b) => {
                b.terms.get(term).map(|&id| TermRef { at: u64::from(id), df: b.postings[id as usize].len() as u32 })
            }
            Repr::Stored(s) => s.checked(s.term(term)).flatten(),
        }
        .filter(|t| t.df > 0)
    }

    /// The postings of a term, in chunk order.
    fn postings(&self, term: TermRef) -> std::borrow::Cow<'_, [Posting]> {
        match &self.repr {
            Repr::Built(b) => std::borrow::Cow::Borrowed(&b.postings[term.at as usize]),
            Repr::Stored(s) => std::borrow::Cow::Owned(s.checked(s.postings(term)).unwrap_or_default()),
        }
    }

    /// The chunks numbered `ids` (sorted, once each), in that order.
    fn chunks(&self, ids: &[u32]) -> Vec<Chunk> {
        match &self.repr {
            Repr::Built(b) => ids.iter().map(|&c| b.chunks[c as usize]).collect(),
            Repr::Stored(s) => s.checked(s.chunks(ids)).unwrap_or_default(),
        }
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
            let mut found: Vec<(TermRef, f64, String)> = Vec::new();
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

    fn idf(&self, term: TermRef) -> f64 {
        let n = self.live() as f64;
        let df = f64::from(term.df);
        libm::log(1.0 + (n - df + 0.5) / (df + 0.5))
    }

    /// BM25 of every chunk that holds at least one query term, with the terms it holds (as
    /// `(query term index, fields)`), in chunk order.
    pub(crate) fn score(&self, q: &Query) -> Vec<ChunkScore> {
        const K1: f64 = 1.2;
        const B: f64 = 0.75;
        let avg_len = self.avg_len();
        let lists: Vec<_> = q.terms.iter().map(|qt| self.postings(qt.id)).collect();
        let mut ids: Vec<u32> = lists.iter().flat_map(|l| l.iter().map(|p| p.chunk)).collect();
        ids.sort_unstable();
        ids.dedup();
        let chunks = self.chunks(&ids);
        let mut by_chunk: HashMap<u32, usize> = HashMap::default();
        let mut out: Vec<ChunkScore> = Vec::new();
        for (qi, (qt, list)) in q.terms.iter().zip(&lists).enumerate() {
            let idf = self.idf(qt.id);
            for p in list.iter() {
                // A stored index whose chunks failed their check answers nothing (and is rebuilt).
                let Some(&chunk) = ids.binary_search(&p.chunk).ok().and_then(|i| chunks.get(i)) else { continue };
                let len = f64::from(chunk.len);
                let tf = f64::from(p.tf);
                let s = qt.weight * idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg_len));
                let slot = *by_chunk.entry(p.chunk).or_insert_with(|| {
                    out.push(ChunkScore {
                        chunk: p.chunk,
                        file: chunk.file,
                        sym: chunk.sym,
                        bm25: 0.0,
                        matched: Vec::new(),
                    });
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
    id: TermRef,
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
    pub file: FileId,
    pub sym: Option<SymId>,
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
        let contents = |range: std::ops::Range<usize>| {
            let read = host.read_files(&paths[range.clone()], cap);
            read.into_iter().zip(&index.files[range]).map(|(bytes, f)| f.as_indexed(bytes.ok()?)).collect()
        };
        let mut text = TextIndex::build(index, contents);
        // An index built while files were changing describes neither version: not kept. A failed
        // write only means the next process builds it again; the session reports why.
        if let (Some(k), Repr::Built(built), 0) = (key.as_deref(), &text.repr, text.stale_files()) {
            if let Err(e) = save(host, k, built) {
                text.save_failure = Some(format!("cannot write .codegraph/{STORE_NAME}: {e}"));
            }
        }
        text
    })
}

/// Where a persisting session keeps the lexical index, beside the snapshot (in `.codegraph/`).
pub(crate) const STORE_NAME: &str = "text.bin";

// ---- the stored index ----------------------------------------------------------------------------
//
// `text.bin` is a sectioned file (see `sectioned`). Its live chunks are numbered again from 0 in
// order, its terms sorted; a question reads the block of terms that can hold each of its words, the
// blocks of postings of the terms found, and the blocks of chunk records those postings name.

/// The sections of `text.bin`, in file order.
#[derive(Clone, Copy)]
enum Part {
    /// The key, and the counts BM25 needs (`StoredMeta`).
    Meta,
    /// Per chunk, a record: file, declaration (`u32::MAX`: none), length.
    Chunks,
    /// The blake3 of each block of chunk records.
    ChunkBlocks,
    /// Blocks of sorted terms (`Vec<(String, u64, u32)>`: term, first posting, postings).
    Terms,
    /// Each block of terms: its first term, where it lies and its blake3 (`Vec<TermBlock>`).
    TermBlocks,
    /// Per term in term order, its postings' records: chunk, weighted count, fields.
    Postings,
    /// The blake3 of each block of posting records.
    PostingBlocks,
}

static FORMAT: Format = Format {
    magic: *b"CGTEXT\0\0",
    // Bumped whenever chunking, weights, stemming or the layout change.
    version: 2,
    noun: "lexical index",
    sections: &["meta", "chunks", "chunk blocks", "terms", "term blocks", "postings", "posting blocks"],
};

const CHUNK_BLOCKS: Blocks = Blocks { record: 12, per_block: 1024 };
const POSTING_BLOCKS: Blocks = Blocks { record: 9, per_block: 4096 };
const TERMS_PER_BLOCK: usize = 128;

#[derive(Serialize, Deserialize)]
struct StoredMeta {
    key: String,
    live: u64,
    total_len: f64,
    postings: u64,
}

/// A block of terms: its first term, its offset and length in `Terms`, its blake3.
type TermBlock = (String, u64, u64, [u8; 32]);

/// What a term entry of a block holds: the term, its first posting and how many.
type TermEntry = (String, u64, u32);

/// A stored index, open: what every question reads is read when it is opened (the counts and the
/// tables of blocks); the rest a block at a time, each checked against its blake3.
struct Stored {
    file: SectionFile,
    meta: StoredMeta,
    term_blocks: Vec<TermBlock>,
    chunk_hashes: Vec<[u8; 32]>,
    posting_hashes: Vec<[u8; 32]>,
    /// The index's files and symbols, which every chunk record must fit.
    files: usize,
    symbols: usize,
    damage: std::sync::Mutex<Option<String>>,
}

fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8], what: &str) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|e| format!("its {what} are undecodable: {e}"))
}

impl Stored {
    /// Opens a stored index and reads its meta and block tables, all checked; None unless it was
    /// built from exactly the files of `key` and its tables fit.
    fn open(file: SectionFile, index: &Index, key: &str) -> Option<Stored> {
        let meta: StoredMeta = postcard::from_bytes(&file.section(Part::Meta as usize).ok()?).ok()?;
        if meta.key != key {
            return None;
        }
        let table =
            |part: Part| -> Option<Vec<[u8; 32]>> { postcard::from_bytes(&file.section(part as usize).ok()?).ok() };
        let (chunk_hashes, posting_hashes) = (table(Part::ChunkBlocks)?, table(Part::PostingBlocks)?);
        let term_blocks: Vec<TermBlock> = postcard::from_bytes(&file.section(Part::TermBlocks as usize).ok()?).ok()?;
        let chunks = file.entry(Part::Chunks as usize).len;
        let fits = CHUNK_BLOCKS.fit(chunks, chunk_hashes.len())
            && chunks / CHUNK_BLOCKS.record as u64 == meta.live
            && POSTING_BLOCKS.fit(file.entry(Part::Postings as usize).len, posting_hashes.len())
            && file.entry(Part::Postings as usize).len / POSTING_BLOCKS.record as u64 == meta.postings
            && term_blocks.windows(2).all(|w| w[0].0 < w[1].0)
            && meta.total_len.is_finite();
        fits.then(|| Stored {
            file,
            meta,
            term_blocks,
            chunk_hashes,
            posting_hashes,
            files: index.files.len(),
            symbols: index.syms.len(),
            damage: std::sync::Mutex::new(None),
        })
    }

    /// The answer of a read, or None with the reason kept as the index's damage.
    fn checked<T>(&self, read: Result<T, String>) -> Option<T> {
        read.map_err(|why| {
            self.damage.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(why);
        })
        .ok()
    }

    /// Block `b` of terms, checked: sorted, from its first term to the next block's, every list
    /// within the postings.
    fn term_block(&self, b: usize) -> Result<Vec<TermEntry>, String> {
        let (first, offset, len, hash) = &self.term_blocks[b];
        let entries: Vec<TermEntry> = decode(&self.file.part(Part::Terms as usize, *offset, *len, hash)?, "terms")?;
        let next = self.term_blocks.get(b + 1).map(|t| t.0.as_str());
        let fits = entries.first().is_some_and(|e| &e.0 == first)
            && entries.windows(2).all(|w| w[0].0 < w[1].0)
            && entries.last().is_some_and(|e| next.is_none_or(|n| e.0.as_str() < n))
            && entries.iter().all(|e| e.1.checked_add(u64::from(e.2)).is_some_and(|end| end <= self.meta.postings));
        fits.then_some(entries).ok_or_else(|| "its terms do not fit their blocks".into())
    }

    fn term(&self, term: &str) -> Result<Option<TermRef>, String> {
        let Some(b) = self.term_blocks.partition_point(|t| t.0.as_str() <= term).checked_sub(1) else {
            return Ok(None);
        };
        let entries = self.term_block(b)?;
        Ok(entries
            .binary_search_by(|e| e.0.as_str().cmp(term))
            .ok()
            .map(|i| TermRef { at: entries[i].1, df: entries[i].2 }))
    }

    /// Records `from..from + count` of a section of blocks, each block read checked.
    fn records(
        &self,
        part: Part,
        blocks: Blocks,
        hashes: &[[u8; 32]],
        from: u64,
        count: u64,
    ) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(count as usize * blocks.record);
        if count == 0 {
            return Ok(out);
        }
        let (first, last) = (blocks.of(from), blocks.of(from + count - 1));
        for b in first..=last {
            let hash = hashes.get(b).ok_or("records outside their blocks")?;
            let bytes = self.file.block(part as usize, blocks, b, hash)?;
            let start = if b == first { (from as usize % blocks.per_block) * blocks.record } else { 0 };
            let end = if b == last {
                ((from + count - 1) as usize % blocks.per_block + 1) * blocks.record
            } else {
                bytes.len()
            };
            out.extend_from_slice(bytes.get(start..end).ok_or("a block shorter than its records")?);
        }
        Ok(out)
    }

    fn postings(&self, term: TermRef) -> Result<Vec<Posting>, String> {
        let bytes = self.records(Part::Postings, POSTING_BLOCKS, &self.posting_hashes, term.at, u64::from(term.df))?;
        let postings: Vec<Posting> = bytes.chunks_exact(POSTING_BLOCKS.record).map(read_posting).collect();
        let fits = postings.windows(2).all(|w| w[0].chunk < w[1].chunk)
            && postings.iter().all(|p| u64::from(p.chunk) < self.meta.live && p.tf.is_finite() && p.tf > 0.0);
        fits.then_some(postings).ok_or_else(|| "its postings do not fit its chunks".into())
    }

    fn chunks(&self, ids: &[u32]) -> Result<Vec<Chunk>, String> {
        let mut out = Vec::with_capacity(ids.len());
        let mut block: Option<(usize, Vec<u8>)> = None;
        for &c in ids {
            let b = CHUNK_BLOCKS.of(u64::from(c));
            if block.as_ref().is_none_or(|(at, _)| *at != b) {
                let hash = self.chunk_hashes.get(b).ok_or("a chunk outside its blocks")?;
                block = Some((b, self.file.block(Part::Chunks as usize, CHUNK_BLOCKS, b, hash)?));
            }
            let bytes = &block.as_ref().expect("read above").1;
            let at = (c as usize % CHUNK_BLOCKS.per_block) * CHUNK_BLOCKS.record;
            let chunk = read_chunk(bytes.get(at..at + CHUNK_BLOCKS.record).ok_or("a chunk outside its blocks")?);
            let fits = (chunk.file as usize) < self.files
                && chunk.sym.is_none_or(|s| (s as usize) < self.symbols)
                && chunk.len.is_finite()
                && chunk.len >= 0.0;
            if !fits {
                return Err("its chunks do not fit the index".into());
            }
            out.push(chunk);
        }
        Ok(out)
    }

    /// Everything, read and checked, as an index built in this process holds it.
    fn read_whole(&self) -> Result<Built, String> {
        let ids: Vec<u32> = (0..self.meta.live as u32).collect();
        let chunks = self.chunks(&ids)?;
        let all = self.records(Part::Postings, POSTING_BLOCKS, &self.posting_hashes, 0, self.meta.postings)?;
        let all: Vec<Posting> = all.chunks_exact(POSTING_BLOCKS.record).map(read_posting).collect();
        let mut terms = HashMap::default();
        let mut postings = Vec::new();
        for b in 0..self.term_blocks.len() {
            for (term, at, df) in self.term_block(b)? {
                terms.insert(term, postings.len() as u32);
                // In range: checked with the block.
                let list = all[at as usize..(at + u64::from(df)) as usize].to_vec();
                if !list.iter().all(|p| u64::from(p.chunk) < self.meta.live) {
                    return Err("its postings do not fit its chunks".into());
                }
                postings.push(list);
            }
        }
        let mut file_chunks = vec![Vec::new(); self.files];
        for (c, chunk) in chunks.iter().enumerate() {
            file_chunks[chunk.file as usize].push(c as u32);
        }
        Ok(Built {
            chunks,
            terms,
            postings,
            file_chunks,
            live: self.meta.live,
            total_len: self.meta.total_len,
            stale: vec![false; self.files],
        })
    }
}

fn read_chunk(record: &[u8]) -> Chunk {
    let field = |i: usize| u32::from_le_bytes(record[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
    Chunk { file: field(0), sym: Some(field(1)).filter(|&s| s != u32::MAX), len: f32::from_bits(field(2)) }
}

fn read_posting(record: &[u8]) -> Posting {
    let field = |i: usize| u32::from_le_bytes(record[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
    Posting { chunk: field(0), tf: f32::from_bits(field(1)), fields: record[8] }
}

/// A built index as `text.bin`'s bytes: its live chunks numbered again in order, its terms sorted.
fn encode(key: &str, built: &Built) -> Result<Vec<u8>, String> {
    let mut number = vec![u32::MAX; built.chunks.len()];
    let mut live: Vec<u32> = built.file_chunks.iter().flatten().copied().collect();
    live.sort_unstable();
    let mut chunks = Vec::with_capacity(live.len() * CHUNK_BLOCKS.record);
    for (n, &c) in live.iter().enumerate() {
        number[c as usize] = n as u32;
        let chunk = built.chunks[c as usize];
        for v in [chunk.file, chunk.sym.unwrap_or(u32::MAX), chunk.len.to_bits()] {
            chunks.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut terms: Vec<(&str, u32)> = built
        .terms
        .iter()
        .filter(|(_, &id)| !built.postings[id as usize].is_empty())
        .map(|(t, &id)| (t.as_str(), id))
        .collect();
    terms.sort_unstable();
    let mut postings = Vec::new();
    let mut entries: Vec<(&str, u64, u32)> = Vec::with_capacity(terms.len());
    for (term, id) in terms {
        let list = &built.postings[id as usize];
        entries.push((term, (postings.len() / POSTING_BLOCKS.record) as u64, list.len() as u32));
        for p in list {
            postings.extend_from_slice(&number[p.chunk as usize].to_le_bytes());
            postings.extend_from_slice(&p.tf.to_bits().to_le_bytes());
            postings.push(p.fields);
        }
    }
    let mut term_bytes = Vec::new();
    let mut term_blocks: Vec<(&str, u64, u64, [u8; 32])> = Vec::new();
    for block in entries.chunks(TERMS_PER_BLOCK) {
        let at = term_bytes.len();
        term_bytes = postcard::to_extend(block, term_bytes).map_err(|e| e.to_string())?;
        let hash = *blake3::hash(&term_bytes[at..]).as_bytes();
        term_blocks.push((block[0].0, at as u64, (term_bytes.len() - at) as u64, hash));
    }
    let meta = StoredMeta {
        key: key.into(),
        live: live.len() as u64,
        total_len: built.total_len,
        postings: (postings.len() / POSTING_BLOCKS.record) as u64,
    };
    let mut w = sectioned::Writer::new(&FORMAT, chunks.len() + postings.len() + term_bytes.len() * 2);
    w.postcard(&meta)?;
    w.bytes(&chunks)?;
    w.postcard(&CHUNK_BLOCKS.hashes(&chunks))?;
    w.bytes(&term_bytes)?;
    w.postcard(&term_blocks)?;
    w.bytes(&postings)?;
    w.postcard(&POSTING_BLOCKS.hashes(&postings))?;
    Ok(w.finish())
}

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

/// The stored lexical index when it was built from exactly these files (opened: nothing but its
/// tables is read yet).
fn load(host: &dyn crate::host::Host, index: &Index, key: &str) -> Option<TextIndex> {
    crate::store::usable(host).ok()?;
    let path = crate::store::path(STORE_NAME);
    host.lstat(&path).ok()?;
    let source_bytes = index.files.iter().map(|f| f.size).sum();
    let file = host.open_file(&path, crate::store::index_cap(source_bytes)).ok()?;
    let stored = Stored::open(SectionFile::open(file, &FORMAT).ok()?, index, key)?;
    Some(TextIndex { repr: Repr::Stored(stored), save_failure: None })
}

/// Stores a lexical index (best effort: a failed write only means the next process builds it).
fn save(host: &dyn crate::host::Host, key: &str, built: &Built) -> Result<(), String> {
    crate::store::write_cache(host, STORE_NAME, &encode(key, built)?)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The section table of `text.bin`'s bytes, checked.
    pub(crate) fn sections(bytes: &[u8]) -> Vec<sectioned::Entry> {
        sectioned::read_header(&bytes.to_vec(), &FORMAT).expect("a sound header")
    }

    #[test]
    fn a_stored_index_reads_back_as_built_whole_and_a_term_at_a_time() {
        let files = [
            ("retry.py", "def schedule_retry(job):\n    \"\"\"Queue a failed job again after a backoff delay.\"\"\"\n    return job\n"),
            ("queue.ts", "export class JobQueue {\n  // Runs jobs in order.\n  push(job: string) { return job; }\n}\n"),
            ("lib.rs", "/// Spawns blocking work.\npub fn spawn_blocking() {}\n"),
        ];
        let (_dir, mut s) = crate::api::testing::repo(&files);
        let index = s.index().unwrap();
        let contents = files.iter().map(|(_, t)| Some(t.to_string()));
        let by_path: HashMap<&str, Option<String>> = files.iter().map(|f| f.0).zip(contents).collect();
        let built = TextIndex::build(index, |range| {
            index.files[range].iter().map(|f| by_path[f.path.as_str()].clone()).collect()
        });
        let Repr::Built(b) = &built.repr else { panic!("built") };
        let bytes = encode("key", b).unwrap();
        let file = SectionFile::open(Box::new(bytes), &FORMAT).unwrap();
        assert!(Stored::open(SectionFile::open(Box::new(encode("key", b).unwrap()), &FORMAT).unwrap(), index, "other")
            .is_none());
        let stored = TextIndex { repr: Repr::Stored(Stored::open(file, index, "key").unwrap()), save_failure: None };
        for q in ["failed job backoff", "spawn blocking", "jobs in order", "queue", "nothing here"] {
            let (a, b) = (built.query(q), stored.query(q));
            assert_eq!((&a.unknown, a.terms.len()), (&b.unknown, b.terms.len()), "{q}");
            let scores = |t: &TextIndex, q: &Query| {
                t.score(q)
                    .into_iter()
                    .map(|c| (c.chunk, c.file, c.sym, c.bm25.to_bits(), c.matched))
                    .collect::<Vec<_>>()
            };
            assert_eq!(scores(&built, &a), scores(&stored, &b), "{q}");
        }
        let Repr::Stored(st) = &stored.repr else { panic!("stored") };
        let whole = st.read_whole().unwrap();
        assert_eq!((&whole.chunks, &whole.file_chunks, whole.live), (&b.chunks, &b.file_chunks, b.live));
        assert_eq!(whole.total_len.to_bits(), b.total_len.to_bits());
        for (term, &id) in &b.terms {
            assert_eq!(whole.postings[whole.terms[term] as usize], b.postings[id as usize], "{term}");
        }
        assert_eq!(stored.damage(), None);
    }

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
