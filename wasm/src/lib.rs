//! codegraph's wasm-bindgen adapter: the same exports as the N-API addon. Node is the file host: the
//! session is given an object with `readDir`, `readFile`, `stat`, `lstat` and `realpath`
//! (synchronous `fs` calls), and the core decides everything else. Each export decodes, calls the core, encodes;
//! errors become JS `Error`s with the core's `.code`.

use std::cell::RefCell;

use codegraph_core as core;
use core::{EntryKind, Host, HostEntry, ReadAt};
use js_sys::{Array, Function, Reflect, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;

fn js_error(e: core::Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    let _ = Reflect::set(&err, &"code".into(), &e.code().into());
    err.into()
}

fn to_js(value: &serde_json::Value) -> Result<JsValue, JsValue> {
    // Maps become plain objects, numbers stay numbers: the same JSON the native addon returns.
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| js_error(core::Error::Io(format!("cannot encode the response: {e}"))))
}

fn from_js(value: JsValue) -> Result<serde_json::Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(serde_json::Value::Null);
    }
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| js_error(core::Error::InvalidArgument(format!("invalid request: {e}"))))
}

/// The file host implemented by JS callbacks.
struct JsHost {
    read_dir: Function,
    read_file: Function,
    stat: Function,
    lstat: Function,
    realpath: Function,
    /// Optional: without them the session works but does not persist its index.
    write_file_atomic: Option<Function>,
    create_exclusive: Option<Function>,
    remove_file: Option<Function>,
    /// Optional: runs git in the root (for the diff spec of context packs).
    git: Option<Function>,
    /// Optional: the process id and whether another process runs (for the writer lock).
    pid: Option<Function>,
    process_alive: Option<Function>,
    /// Optional: files kept open for ranged reads (`openFile`, `readAt`, `closeFile`), so a warm
    /// start reads the parts of the persisted index it needs instead of all of it.
    ranged: Option<(Function, Function, Function)>,
}

/// A file the JS host keeps open; what is read of it is read at offsets of the file opened.
struct JsFile {
    fd: JsValue,
    len: u64,
    read_at: Function,
    close: Function,
}

// SAFETY: wasm32-unknown-unknown runs on one thread: a JsFile (JS function handles and a file
// descriptor) is never reached from another thread; the core only needs the bounds on native, where
// it reads in parallel.
#[allow(unsafe_code)]
unsafe impl Send for JsFile {}
#[allow(unsafe_code)]
unsafe impl Sync for JsFile {}

impl ReadAt for JsFile {
    fn size(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, String> {
        let bytes = self
            .read_at
            .call3(&JsValue::NULL, &self.fd, &(offset as f64).into(), &(len as f64).into())
            .map_err(message)?;
        let bytes = Uint8Array::new(&bytes).to_vec();
        if bytes.len() == len {
            Ok(bytes)
        } else {
            Err(format!("read {} of {len} bytes at {offset}", bytes.len()))
        }
    }
}

impl Drop for JsFile {
    fn drop(&mut self) {
        let _ = self.close.call1(&JsValue::NULL, &self.fd);
    }
}

fn callback(host: &JsValue, name: &str) -> Result<Function, JsValue> {
    Reflect::get(host, &name.into())?
        .dyn_into::<Function>()
        .map_err(|_| js_error(core::Error::InvalidArgument(format!("the wasm host object needs a `{name}` function"))))
}

fn message(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

fn entry(value: &JsValue) -> Result<HostEntry, String> {
    let get = |k: &str| Reflect::get(value, &k.into()).map_err(message);
    let kind = match get("kind")?.as_string().as_deref() {
        Some("file") => EntryKind::File,
        Some("dir") => EntryKind::Dir,
        Some("symlink") => EntryKind::Symlink,
        _ => EntryKind::Other,
    };
    Ok(HostEntry {
        name: get("name")?.as_string().unwrap_or_default(),
        kind,
        size: get("size")?.as_f64().unwrap_or(0.0) as u64,
        mtime_ms: get("mtimeMs")?.as_f64().unwrap_or(0.0),
    })
}

impl Host for JsHost {
    fn read_dir(&self, rel: &str) -> Result<Vec<HostEntry>, String> {
        let list = self.read_dir.call1(&JsValue::NULL, &rel.into()).map_err(message)?;
        Array::from(&list).iter().map(|v| entry(&v)).collect()
    }

    fn read_file(&self, rel: &str, limit: u64) -> Result<Vec<u8>, String> {
        let bytes = self.read_file.call2(&JsValue::NULL, &rel.into(), &(limit as f64).into()).map_err(message)?;
        Ok(Uint8Array::new(&bytes).to_vec())
    }

    fn open_file(&self, rel: &str, limit: u64) -> Result<Box<dyn ReadAt>, String> {
        let Some((open, read_at, close)) = &self.ranged else {
            return Ok(Box::new(self.read_file(rel, limit)?));
        };
        let opened = open.call2(&JsValue::NULL, &rel.into(), &(limit as f64).into()).map_err(message)?;
        let get = |k: &str| Reflect::get(&opened, &k.into()).map_err(message);
        let len = get("size")?.as_f64().ok_or("openFile did not say the size")? as u64;
        Ok(Box::new(JsFile { fd: get("fd")?, len, read_at: read_at.clone(), close: close.clone() }))
    }

    fn stat(&self, rel: &str) -> Result<HostEntry, String> {
        entry(&self.stat.call1(&JsValue::NULL, &rel.into()).map_err(message)?)
    }

    fn lstat(&self, rel: &str) -> Result<HostEntry, String> {
        entry(&self.lstat.call1(&JsValue::NULL, &rel.into()).map_err(message)?)
    }

    fn realpath(&self, rel: &str) -> Result<String, String> {
        let path = self.realpath.call1(&JsValue::NULL, &rel.into()).map_err(message)?;
        path.as_string().ok_or_else(|| "realpath did not return a string".to_string())
    }

    fn write_file_atomic(&self, rel: &str, bytes: &[u8]) -> Result<(), String> {
        let f = self.write_file_atomic.as_ref().ok_or("the host cannot write files")?;
        f.call2(&JsValue::NULL, &rel.into(), &Uint8Array::from(bytes).into()).map_err(message)?;
        Ok(())
    }

    fn create_exclusive(&self, rel: &str, bytes: &[u8]) -> Result<bool, String> {
        let f = self.create_exclusive.as_ref().ok_or("the host cannot write files")?;
        let created = f.call2(&JsValue::NULL, &rel.into(), &Uint8Array::from(bytes).into()).map_err(message)?;
        Ok(created.as_bool().unwrap_or(false))
    }

    fn remove_file(&self, rel: &str) -> Result<(), String> {
        let f = self.remove_file.as_ref().ok_or("the host cannot write files")?;
        f.call1(&JsValue::NULL, &rel.into()).map_err(message)?;
        Ok(())
    }

    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn pid(&self) -> Option<u32> {
        let value = self.pid.as_ref()?.call0(&JsValue::NULL).ok()?;
        value.as_f64().map(|p| p as u32)
    }

    fn process_alive(&self, pid: u32) -> Option<bool> {
        let value = self.process_alive.as_ref()?.call1(&JsValue::NULL, &f64::from(pid).into()).ok()?;
        value.as_bool()
    }

    fn git(&self, args: &[String], env: &[(&str, &str)], keep_env: &[&str]) -> Result<String, String> {
        let f = self.git.as_ref().ok_or("this host cannot run git")?;
        let list: Array = args.iter().map(|a| JsValue::from_str(a)).collect();
        let vars = js_sys::Object::new();
        for (k, v) in env {
            Reflect::set(&vars, &(*k).into(), &(*v).into()).map_err(message)?;
        }
        let keep: Array = keep_env.iter().map(|k| JsValue::from_str(k)).collect();
        let out = f.call3(&JsValue::NULL, &list.into(), &vars.into(), &keep.into()).map_err(message)?;
        out.as_string().ok_or_else(|| "git did not return text".to_string())
    }
}

fn optional_callback(host: &JsValue, name: &str) -> Option<Function> {
    Reflect::get(host, &name.into()).ok().and_then(|f| f.dyn_into::<Function>().ok())
}

/// A session on one root, with Node as the file host.
#[wasm_bindgen]
pub struct Session {
    inner: RefCell<core::Session>,
}

#[wasm_bindgen]
impl Session {
    #[wasm_bindgen(constructor)]
    pub fn new(host: JsValue, options: JsValue) -> Result<Session, JsValue> {
        let js_host = JsHost {
            read_dir: callback(&host, "readDir")?,
            read_file: callback(&host, "readFile")?,
            stat: callback(&host, "stat")?,
            lstat: callback(&host, "lstat")?,
            realpath: callback(&host, "realpath")?,
            write_file_atomic: optional_callback(&host, "writeFileAtomic"),
            create_exclusive: optional_callback(&host, "createExclusive"),
            remove_file: optional_callback(&host, "removeFile"),
            git: optional_callback(&host, "git"),
            pid: optional_callback(&host, "pid"),
            process_alive: optional_callback(&host, "processAlive"),
            ranged: optional_callback(&host, "openFile").and_then(|open| {
                Some((open, optional_callback(&host, "readAt")?, optional_callback(&host, "closeFile")?))
            }),
        };
        let session = core::Session::open_json(Box::new(js_host), from_js(options)?).map_err(js_error)?;
        Ok(Session { inner: RefCell::new(session) })
    }

    /// Answers one request of the core's method table (`apiMethods()`): JSON in, JSON out.
    pub fn call(&self, method: &str, request: JsValue) -> Result<JsValue, JsValue> {
        let request = from_js(request)?;
        let answer = self.inner.borrow_mut().call(method, request).map_err(js_error)?;
        to_js(&answer)
    }

    /// Builds the index now unless it is built; `progress(phase, done, total)` is called after every
    /// batch of parsed files and when resolution starts.
    pub fn prepare(&self, progress: Option<Function>) -> Result<(), JsValue> {
        let mut report = |p: core::Progress| {
            if let Some(f) = &progress {
                // A throwing callback must not abort the build: progress is advisory.
                let _ = f.call3(&JsValue::NULL, &p.phase.into(), &(p.done as f64).into(), &(p.total as f64).into());
            }
        };
        self.inner.borrow_mut().prepare(&mut report).map_err(js_error)
    }

    /// Builds the index and the lexical index of search and explore now (a server's warm-up).
    #[wasm_bindgen(js_name = prepareSearch)]
    pub fn prepare_search(&self) -> Result<(), JsValue> {
        self.inner.borrow_mut().prepare_search().map_err(js_error)
    }

    /// Benchmark floor: walk, read and tree-sitter-parse the files this session would index; nothing
    /// else. Returns `{ files, bytes, nodes, walkMs, readMs, parseMs, totalMs }`.
    #[wasm_bindgen(js_name = parseOnly)]
    pub fn parse_only(&self) -> Result<JsValue, JsValue> {
        let stats = self.inner.borrow().parse_only().map_err(js_error)?;
        to_js(&serde_json::to_value(stats).expect("stats encode"))
    }

    /// What went wrong with the persisted index since the last call (each reported once).
    #[wasm_bindgen(js_name = takeNotes)]
    pub fn take_notes(&self) -> Vec<String> {
        self.inner.borrow_mut().take_notes()
    }

    /// Drops the index; the next request rebuilds it, parsing only changed content.
    pub fn invalidate(&self) {
        self.inner.borrow_mut().invalidate();
    }
}

/// The request methods of the core's table, in order (what `Session.call` answers).
#[wasm_bindgen(js_name = apiMethods)]
pub fn api_methods() -> Vec<String> {
    core::METHODS.iter().map(std::string::ToString::to_string).collect()
}

#[wasm_bindgen]
pub fn version() -> String {
    core::VERSION.to_string()
}

#[wasm_bindgen(js_name = supportedLanguages)]
pub fn supported_languages() -> Vec<String> {
    core::supported_languages().into_iter().map(str::to_string).collect()
}

/// Which engine this is.
#[wasm_bindgen]
pub fn engine() -> String {
    "wasm".to_string()
}

/// How this module was compiled: `release` or `debug`.
#[wasm_bindgen(js_name = buildProfile)]
pub fn build_profile() -> String {
    if cfg!(debug_assertions) { "debug" } else { "release" }.to_string()
}
