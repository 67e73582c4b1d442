//! codegraph-core: the engine behind every front of codegraph (N-API addon, wasm module, CLI, MCP).
//!
//! Data flows one way: discover files → extract facts per file (tree-sitter) → resolve imports, calls
//! and references into proven edges → index → answer requests. `api` is the only public surface (a
//! method table and one module per feature); the session, the build pipeline, the index,
//! extraction and discovery sit below it and never import from it.

pub mod api;
pub(crate) mod artifact;
pub(crate) mod changes;
pub(crate) mod compress;
pub(crate) mod discover;
pub mod error;
pub(crate) mod extract;
pub mod facts;
pub(crate) mod git;
pub(crate) mod host;
pub(crate) mod index;
pub mod lang;
pub(crate) mod paths;
pub(crate) mod sectioned;
pub(crate) mod sensitive;
pub mod session;
pub(crate) mod snapshot;
pub(crate) mod sql;
pub(crate) mod store;
pub(crate) mod text;

pub use api::*;

/// The package version of the core, reported by every front.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Maps `f` over `items`, in parallel when the core is built with `parallel` (the native addon);
/// results in input order either way.
#[cfg(feature = "parallel")]
pub(crate) fn map_maybe_parallel<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync + Send) -> Vec<R> {
    use rayon::prelude::*;
    items.into_par_iter().map(f).collect()
}

#[cfg(not(feature = "parallel"))]
pub(crate) fn map_maybe_parallel<T, R>(items: Vec<T>, f: impl Fn(T) -> R) -> Vec<R> {
    items.into_iter().map(f).collect()
}

/// `map_maybe_parallel` that tells `report`, on the calling thread, how many items are done each
/// time another `every` are, and once all are (done only grows). In parallel no item waits for a
/// batch to end (where a core would idle behind the batch's slowest item): the workers count, and
/// the calling thread reports while they map.
#[cfg(feature = "parallel")]
pub(crate) fn map_maybe_parallel_reporting<T: Send, R: Send>(
    items: Vec<T>,
    every: usize,
    f: impl Fn(T) -> R + Sync + Send,
    report: &mut dyn FnMut(usize),
) -> Vec<R> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let total = items.len();
    // On one of the pool's threads, which must not wait on the reports while it maps, the items are
    // mapped without them.
    let out = if rayon::current_thread_index().is_some() {
        map_maybe_parallel(items, f)
    } else {
        let done = AtomicUsize::new(0);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            let (f, done) = (&f, &done);
            let mapping = scope.spawn(move || {
                let out: Vec<R> = items
                    .into_par_iter()
                    .map(|item| {
                        let r = f(item);
                        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                        if n % every.max(1) == 0 && n < total {
                            let _ = tx.send(n);
                        }
                        r
                    })
                    .collect();
                // `tx` goes here (or as a panic unwinds), which ends the reports below.
                out
            });
            let mut last = 0;
            for n in rx {
                if n > last {
                    report(n);
                    last = n;
                }
            }
            mapping.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    };
    if total > 0 {
        report(total);
    }
    out
}

#[cfg(not(feature = "parallel"))]
pub(crate) fn map_maybe_parallel_reporting<T, R>(
    items: Vec<T>,
    every: usize,
    f: impl Fn(T) -> R,
    report: &mut dyn FnMut(usize),
) -> Vec<R> {
    let total = items.len();
    let mut out = Vec::with_capacity(total);
    for item in items {
        out.push(f(item));
        if out.len() % every.max(1) == 0 || out.len() == total {
            report(out.len());
        }
    }
    out
}

/// Runs `f` on every item, in parallel when the core is built with `parallel`.
#[cfg(feature = "parallel")]
pub(crate) fn for_each_maybe_parallel<T: Send>(items: &mut [T], f: impl Fn(&mut T) + Sync + Send) {
    use rayon::prelude::*;
    items.par_iter_mut().for_each(f);
}

#[cfg(not(feature = "parallel"))]
pub(crate) fn for_each_maybe_parallel<T>(items: &mut [T], f: impl Fn(&mut T)) {
    items.iter_mut().for_each(f);
}

/// Runs `a` and `b`, at once when the core is built with `parallel`.
#[cfg(feature = "parallel")]
pub(crate) fn join_maybe_parallel<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    rayon::join(a, b)
}

#[cfg(not(feature = "parallel"))]
pub(crate) fn join_maybe_parallel<A, B>(a: impl FnOnce() -> A, b: impl FnOnce() -> B) -> (A, B) {
    (a(), b())
}

/// Sorts `items` (unstably: for a total order the result is the same), in parallel when the core is
/// built with `parallel`.
#[cfg(feature = "parallel")]
pub(crate) fn sort_maybe_parallel<T: Ord + Send>(items: &mut [T]) {
    use rayon::prelude::*;
    items.par_sort_unstable();
}

#[cfg(not(feature = "parallel"))]
pub(crate) fn sort_maybe_parallel<T: Ord>(items: &mut [T]) {
    items.sort_unstable();
}
