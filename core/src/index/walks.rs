//! Walks of the file dependency graph: a shortest import chain between two files, the files within
//! some imports of some files (their dependents), and the test files most likely to cover some
//! files and declarations.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rustc_hash::FxHashMap as HashMap;

use super::{FileId, Index, SymId};
use crate::paths::is_test_path;

/// A shortest import chain from one file to another (breadth-first, neighbours in path order).
pub(crate) fn import_path(index: &Index, from: FileId, to: FileId) -> Option<Vec<FileId>> {
    let mut prev: HashMap<FileId, FileId> = HashMap::default();
    let mut queue = VecDeque::from([from]);
    let mut visited = BTreeSet::from([from]);
    while let Some(f) = queue.pop_front() {
        if f == to {
            break;
        }
        for &n in &index.file_edges().imports[f as usize] {
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

/// Which way a walk follows imports.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Along {
    /// From a file to the files it imports.
    Imports,
    /// From a file to the files importing it.
    Importers,
}

/// The files within `depth` import steps of `roots` (the roots at 0) with their distance, and
/// whether files lie further on.
pub(crate) fn within(index: &Index, roots: &[FileId], depth: u32, along: Along) -> (BTreeMap<FileId, u32>, bool) {
    let edges = |f: FileId| match along {
        Along::Imports => &index.file_edges().imports[f as usize],
        Along::Importers => &index.file_edges().importers[f as usize],
    };
    let mut seen: BTreeMap<FileId, u32> = roots.iter().map(|&f| (f, 0)).collect();
    let mut frontier: Vec<FileId> = roots.to_vec();
    for distance in 1..=depth {
        let mut next = Vec::new();
        for f in frontier {
            for &r in edges(f) {
                if let std::collections::btree_map::Entry::Vacant(e) = seen.entry(r) {
                    e.insert(distance);
                    next.push(r);
                }
            }
        }
        frontier = next;
        if frontier.is_empty() {
            return (seen, false);
        }
    }
    let beyond = frontier.iter().any(|&f| edges(f).iter().any(|r| !seen.contains_key(r)));
    (seen, beyond)
}

/// Files that import `roots` within `depth` steps (1: direct importers), with their distance,
/// nearest first then by path. The one count of dependents: explore's blast radius, impact's
/// targets and its gate, graph's reverse question.
pub(crate) fn dependents(index: &Index, roots: &[FileId], depth: u32) -> Vec<(u32, FileId)> {
    let (seen, _) = within(index, roots, depth, Along::Importers);
    let mut out: Vec<(u32, FileId)> = seen.into_iter().filter(|(_, d)| *d > 0).map(|(f, d)| (d, f)).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| index.files[a.1 as usize].path.cmp(&index.files[b.1 as usize].path)));
    out
}

/// Test files for the anchors: those that use an anchor declaration, then those that import an
/// anchor file (within two steps), then those named after one.
pub(crate) fn candidate_tests(
    index: &Index,
    files: &[FileId],
    syms: &[SymId],
    near: &[(u32, FileId)],
) -> Vec<(FileId, String)> {
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
        for r in index.sites_of(id).iter() {
            note(r.file, 0, 1, format!("uses {}", &index.handle(id)));
        }
    }
    for &(d, f) in near {
        let via =
            files.iter().find(|&&a| index.file_edges().imports[f as usize].binary_search(&a).is_ok()).or(files.first());
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
    list.into_iter().map(|(_, _, f, reason)| (f, reason)).collect()
}
