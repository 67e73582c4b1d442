//! codegraph-core: the engine behind every front of codegraph (N-API addon, wasm module, CLI, MCP).
//!
//! Data flows one way: discover files → extract facts per file (tree-sitter) → resolve imports, calls
//! and references into proven edges → index → answer requests. `api` is the only public surface; the
//! rest is crate-private so that adapters can only translate, never re-implement.

pub mod api;
pub(crate) mod compress;
pub(crate) mod discover;
pub(crate) mod extract;
pub mod facts;
pub(crate) mod host;
pub(crate) mod index;
pub mod lang;
pub(crate) mod snapshot;
pub(crate) mod text;

pub use api::*;
