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
