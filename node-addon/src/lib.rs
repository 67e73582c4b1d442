//! codegraph's N-API adapter. Each export decodes its JS argument, calls the core, and encodes the
//! answer; errors become JS `Error`s whose `.code` is `core::Error::code()`. No tool semantics here.

use std::sync::Mutex;

/// Parsing and resolution allocate many small objects from two threads; glibc's allocator spends a
/// fifth of a cold build in malloc/free (perf on the corpora), mimalloc much less.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// tree-sitter's C code allocates through libc unless told otherwise: parse trees get mimalloc too
/// (libc malloc/free were still ~8 % of a cold build). Done once, before the first parser exists.
#[allow(unsafe_code)] // the one unsafe call of the crate; see SAFETY below
fn use_mimalloc_for_tree_sitter() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use libmimalloc_sys as mi;
        // SAFETY: one allocator family (mimalloc) for all four functions, installed before any
        // tree-sitter object exists in this process (sessions are the only users and this runs
        // before the first one is created); mimalloc returns libc-compatible alignment.
        unsafe {
            tree_sitter::set_allocator(Some(tree_sitter::Allocator {
                malloc: mi::mi_malloc,
                calloc: mi::mi_calloc,
                realloc: mi::mi_realloc,
                free: mi::mi_free,
            }));
        }
    });
}

use codegraph_core as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

fn js_error(e: core::Error) -> Error<String> {
    Error::new(e.code().to_string(), e.to_string())
}

/// `progress(phase, done, total)`, called synchronously on the JS thread during a build.
type ProgressFn<'a> = Function<'a, FnArgs<(String, f64, f64)>, ()>;

/// A session on one root, with the native host (`std::fs`, parallel reads and parsing).
#[napi]
pub struct Session {
    inner: Mutex<core::Session>,
}

#[napi]
impl Session {
    #[napi(constructor)]
    pub fn new(root: String, options: Option<Value>) -> Result<Self, String> {
        use_mimalloc_for_tree_sitter();
        let host = Box::new(core::StdHost::new(root));
        let session = core::Session::open_json(host, options.unwrap_or(Value::Null)).map_err(js_error)?;
        Ok(Session { inner: Mutex::new(session) })
    }

    /// Answers one request of the core's method table (`apiMethods()`): JSON in, JSON out.
    #[napi]
    pub fn call(&self, method: String, request: Option<Value>) -> Result<Value, String> {
        let mut session = self.lock()?;
        session.call(&method, request.unwrap_or(Value::Null)).map_err(js_error)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, core::Session>, String> {
        self.inner.lock().map_err(|_| Error::new("INTERNAL".to_string(), "session lock poisoned".to_string()))
    }

    /// Builds the index now unless it is built; `progress(phase, done, total)` is called on this thread
    /// after every batch of parsed files and when resolution starts.
    #[napi]
    pub fn prepare(&self, progress: Option<ProgressFn>) -> Result<(), String> {
        let mut session = self.lock()?;
        let mut report = |p: core::Progress| {
            if let Some(f) = &progress {
                // A throwing callback must not abort the build: progress is advisory.
                let _ = f.call((p.phase.to_string(), p.done as f64, p.total as f64).into());
            }
        };
        session.prepare(&mut report).map_err(js_error)
    }

    /// Builds the index and the lexical index of search and explore now (a server's warm-up).
    #[napi]
    pub fn prepare_search(&self) -> Result<(), String> {
        let mut session = self.lock()?;
        session.prepare_search().map_err(js_error)
    }

    /// Benchmark floor: walk, read and tree-sitter-parse the files this session would index; nothing
    /// else. Returns `{ files, bytes, nodes, walkMs, readMs, parseMs, totalMs }`.
    #[napi]
    pub fn parse_only(&self) -> Result<Value, String> {
        let session = self.lock()?;
        let stats = session.parse_only().map_err(js_error)?;
        Ok(serde_json::to_value(stats).expect("stats encode"))
    }

    /// What went wrong with the persisted index since the last call (each reported once).
    #[napi]
    pub fn take_notes(&self) -> Result<Vec<String>, String> {
        Ok(self.lock()?.take_notes())
    }

    /// Drops the index; the next request rebuilds it, parsing only changed content.
    #[napi]
    pub fn invalidate(&self) -> Result<(), String> {
        let mut session = self.lock()?;
        session.invalidate();
        Ok(())
    }
}

/// The request methods of the core's table, in order (what `Session.call` answers).
#[napi]
pub fn api_methods() -> Vec<String> {
    core::METHODS.iter().map(std::string::ToString::to_string).collect()
}

#[napi]
pub fn version() -> String {
    core::VERSION.to_string()
}

#[napi]
pub fn supported_languages() -> Vec<String> {
    core::supported_languages().into_iter().map(str::to_string).collect()
}

/// Which engine this is.
#[napi]
pub fn engine() -> String {
    "native".to_string()
}

/// How this addon was compiled: `release` or `debug` (3–4× slower; what the test command builds).
#[napi]
pub fn build_profile() -> String {
    if cfg!(debug_assertions) { "debug" } else { "release" }.to_string()
}
