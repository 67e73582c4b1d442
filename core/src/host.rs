//! The file-system boundary. The core never touches the disk itself on the wasm path: it asks a
//! `Host` to list directories, read files and resolve real paths. Native uses `StdHost` (`std::fs`,
//! reading in parallel with rayon); the wasm adapter implements `Host` with Node's `fs` callbacks.
//! The *decisions* (what to include, what is too large, what escapes the root) stay in the core, so
//! both engines see the same file set.

/// What a directory entry is, without following symlinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    Other,
}

/// One directory entry as the host reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct HostEntry {
    pub name: String,
    pub kind: EntryKind,
    /// Size in bytes. A host may leave size and mtime 0 for files the core never indexes (no
    /// supported language by name): they are only counted.
    pub size: u64,
    /// Modification time in milliseconds since the epoch (0 when unknown).
    pub mtime_ms: f64,
}

/// A file opened for reads of parts of it (the persisted index: a warm query reads the few records
/// it needs). The file stays the one opened: a writer that replaces it (temp + rename) meanwhile
/// changes nothing for this reader.
pub trait ReadAt: Send + Sync {
    /// The file's size when opened.
    fn size(&self) -> u64;
    /// `len` bytes from `offset`, all of them or an error.
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, String>;
}

/// A file read whole: what a host without ranged reads (the wasm engine's) gives.
impl ReadAt for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, String> {
        let start = usize::try_from(offset).map_err(|_| "offset out of range".to_string())?;
        start
            .checked_add(len)
            .and_then(|end| self.get(start..end))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| format!("read past the end ({len} bytes at {offset} of {})", self.len()))
    }
}

/// File access for the core. Paths are root-relative with `/` separators; `""` is the root.
pub trait Host {
    /// The entries of a directory (any order; the core sorts them).
    fn read_dir(&self, rel: &str) -> Result<Vec<HostEntry>, String>;
    /// The entries of many directories; native hosts read them in parallel.
    fn read_dirs(&self, rels: &[String]) -> Vec<Result<Vec<HostEntry>, String>> {
        rels.iter().map(|r| self.read_dir(r)).collect()
    }
    /// The whole content of a regular file of at most `limit` bytes. A symlink (as the last part
    /// of the path) is not followed, a FIFO, device or directory is refused without blocking, and a
    /// larger file is refused before it is read (and never read past `limit` if it grows meanwhile):
    /// a repository can't make the core hang or fill memory through a file it reads.
    fn read_file(&self, rel: &str, limit: u64) -> Result<Vec<u8>, String>;
    /// Opens a regular file of at most `limit` bytes (the rules of `read_file`) for ranged reads.
    /// By default it is read whole, once; the native host reads only the ranges asked for.
    fn open_file(&self, rel: &str, limit: u64) -> Result<Box<dyn ReadAt>, String> {
        Ok(Box::new(self.read_file(rel, limit)?))
    }
    /// Reads many files under the same rules; native hosts do it in parallel.
    fn read_files(&self, rels: &[String], limit: u64) -> Vec<Result<Vec<u8>, String>> {
        rels.iter().map(|r| self.read_file(r, limit)).collect()
    }
    /// Size and kind of a path after following symlinks.
    fn stat(&self, rel: &str) -> Result<HostEntry, String>;
    /// `stat` of many paths (a change check's thousands); native hosts do it in parallel.
    fn stat_many(&self, rels: &[&str]) -> Vec<Result<HostEntry, String>> {
        rels.iter().map(|r| self.stat(r)).collect()
    }
    /// Size and kind of a path itself: a symlink is reported as one.
    fn lstat(&self, rel: &str) -> Result<HostEntry, String>;
    /// The canonical absolute path of a root-relative path (symlinks resolved).
    fn realpath(&self, rel: &str) -> Result<String, String>;
    /// Writes a whole file atomically: a temp file in the same directory, then a rename, so a reader
    /// sees the old content or the new, never half. Creates missing parent directories.
    fn write_file_atomic(&self, rel: &str, bytes: &[u8]) -> Result<(), String> {
        let _ = (rel, bytes);
        Err("this host cannot write files".into())
    }
    /// Writes a file the core can make again (the persisted index) as `write_file_atomic` does, but
    /// without waiting for the disk: a file torn by a crash fails its checksum and is rebuilt.
    fn write_cache_file(&self, rel: &str, bytes: &[u8]) -> Result<(), String> {
        self.write_file_atomic(rel, bytes)
    }
    /// Creates a file only if it does not exist (the writer lock); `Ok(false)` when it exists.
    fn create_exclusive(&self, rel: &str, bytes: &[u8]) -> Result<bool, String> {
        let _ = (rel, bytes);
        Err("this host cannot write files".into())
    }
    /// Removes a file (a missing file is not an error).
    fn remove_file(&self, rel: &str) -> Result<(), String> {
        let _ = rel;
        Err("this host cannot write files".into())
    }
    /// Milliseconds since the epoch (the wasm core has no clock of its own).
    fn now_ms(&self) -> f64 {
        0.0
    }
    /// This process's id, which the writer lock records (`None` when the host can't tell).
    fn pid(&self) -> Option<u32> {
        None
    }
    /// Whether a process with this id is running (`None` when the host can't tell): a lock whose
    /// writer is gone is broken at once instead of after its expiry.
    fn process_alive(&self, pid: u32) -> Option<bool> {
        let _ = pid;
        None
    }
    /// Runs `git` with `args` in the root and returns its standard output; an error carries git's
    /// message. Used to read change sets, never to change anything. The core passes the options
    /// that keep the repository's config from running commands (`crate::git`); the host runs git
    /// directly (no shell) in an environment of exactly `env` plus the caller's `keep_env`
    /// variables.
    fn git(&self, args: &[String], env: &[(&str, &str)], keep_env: &[&str]) -> Result<String, String> {
        let _ = (args, env, keep_env);
        Err("this host cannot run git".into())
    }
}

#[cfg(not(target_family = "wasm"))]
pub use std_host::StdHost;

#[cfg(not(target_family = "wasm"))]
mod std_host {
    use std::path::{Path, PathBuf};
    use std::time::UNIX_EPOCH;

    use super::{EntryKind, Host, HostEntry};

    /// The native host: `std::fs` under a root directory.
    pub struct StdHost {
        root: PathBuf,
    }

    impl StdHost {
        pub fn new(root: impl Into<PathBuf>) -> StdHost {
            StdHost { root: root.into() }
        }

        fn abs(&self, rel: &str) -> PathBuf {
            if rel.is_empty() {
                self.root.clone()
            } else {
                self.root.join(rel)
            }
        }
    }

    fn entry(name: String, meta: &std::fs::Metadata, kind: EntryKind) -> HostEntry {
        let mtime_ms =
            meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0.0, |d| d.as_millis() as f64);
        HostEntry { name, kind, size: meta.len(), mtime_ms }
    }

    /// Opens a file for reading without following a symlink at its end and without blocking on a
    /// FIFO (the caller checks what was opened).
    #[cfg(unix)]
    fn open_no_follow(path: &Path) -> Result<std::fs::File, String> {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path).map_err(
            |e| match e.raw_os_error() {
                Some(libc::ELOOP) => "a symlink (not followed)".to_string(),
                _ => e.to_string(),
            },
        )
    }

    #[cfg(not(unix))]
    fn open_no_follow(path: &Path) -> Result<std::fs::File, String> {
        let meta = std::fs::symlink_metadata(path).map_err(|e| e.to_string())?;
        if meta.file_type().is_symlink() {
            return Err("a symlink (not followed)".into());
        }
        if !meta.is_file() {
            return Err("not a regular file".into());
        }
        std::fs::File::open(path).map_err(|e| e.to_string())
    }

    /// A regular file of at most `limit` bytes opened for reading (the rules of `Host::read_file`),
    /// with its size.
    fn open_checked(path: &Path, limit: u64) -> Result<(std::fs::File, u64), String> {
        let file = open_no_follow(path)?;
        let meta = file.metadata().map_err(|e| e.to_string())?;
        if !meta.is_file() {
            return Err("not a regular file".into());
        }
        if meta.len() > limit {
            return Err(format!("larger than the read limit ({} > {limit} bytes)", meta.len()));
        }
        Ok((file, meta.len()))
    }

    /// A file open for `pread`s: the inode opened, whatever is renamed over its path later.
    #[cfg(unix)]
    struct OpenFile {
        file: std::fs::File,
        len: u64,
    }

    #[cfg(unix)]
    impl super::ReadAt for OpenFile {
        fn size(&self) -> u64 {
            self.len
        }

        fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, String> {
            use std::os::unix::fs::FileExt;
            if offset.checked_add(len as u64).is_none_or(|end| end > self.len) {
                return Err(format!("read past the end ({len} bytes at {offset} of {})", self.len));
            }
            let mut bytes = vec![0; len];
            self.file.read_exact_at(&mut bytes, offset).map_err(|e| e.to_string())?;
            Ok(bytes)
        }
    }

    fn kind_of(ft: std::fs::FileType) -> EntryKind {
        if ft.is_symlink() {
            EntryKind::Symlink
        } else if ft.is_dir() {
            EntryKind::Dir
        } else if ft.is_file() {
            EntryKind::File
        } else {
            EntryKind::Other
        }
    }

    impl StdHost {
        /// Temp file in the same directory, then a rename: readers see the old content or the new.
        /// `sync`: the content is on disk before the rename (a config); else the rename may reach
        /// the disk first (a cache, checked when read).
        fn replace(&self, rel: &str, bytes: &[u8], sync: bool) -> Result<(), String> {
            use std::io::Write;
            let path = self.abs(rel);
            let dir = path.parent().ok_or("no parent directory")?;
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            let name = path.file_name().ok_or("no file name")?.to_string_lossy().into_owned();
            let nonce = std::time::SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
            let tmp = dir.join(format!(".{name}.tmp-{}-{nonce}", std::process::id()));
            let written = std::fs::File::create(&tmp).and_then(|mut f| {
                f.write_all(bytes)?;
                if sync {
                    f.sync_all()?;
                }
                Ok(())
            });
            match written.and_then(|()| std::fs::rename(&tmp, &path)) {
                Ok(()) => Ok(()),
                Err(e) => {
                    let _ = std::fs::remove_file(&tmp);
                    Err(e.to_string())
                }
            }
        }
    }

    impl Host for StdHost {
        fn read_dir(&self, rel: &str) -> Result<Vec<HostEntry>, String> {
            let dir = std::fs::read_dir(self.abs(rel)).map_err(|e| e.to_string())?;
            let mut out = Vec::new();
            for item in dir {
                let item = item.map_err(|e| e.to_string())?;
                let Ok(name) = item.file_name().into_string() else {
                    // A name that is not UTF-8 can't be a root-relative path string; the walker reports it.
                    out.push(HostEntry {
                        name: item.file_name().to_string_lossy().into_owned(),
                        kind: EntryKind::Other,
                        size: 0,
                        mtime_ms: 0.0,
                    });
                    continue;
                };
                // The entry's type comes with the listing (no syscall); size and mtime need a stat,
                // paid only for files the core may index (Django's tree is 4 in 5 other files).
                let kind = kind_of(item.file_type().map_err(|e| e.to_string())?);
                if kind == EntryKind::File && crate::lang::Language::from_path(&name).is_none() {
                    out.push(HostEntry { name, kind, size: 0, mtime_ms: 0.0 });
                    continue;
                }
                let meta = item.metadata().map_err(|e| e.to_string())?;
                out.push(entry(name, &meta, kind_of(meta.file_type())));
            }
            Ok(out)
        }

        fn read_file(&self, rel: &str, limit: u64) -> Result<Vec<u8>, String> {
            use std::io::Read;
            let (file, len) = open_checked(&self.abs(rel), limit)?;
            let mut bytes = Vec::with_capacity(len as usize);
            file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
            if bytes.len() as u64 > limit {
                return Err(format!("grew past the read limit ({limit} bytes) while read"));
            }
            Ok(bytes)
        }

        #[cfg(unix)]
        fn open_file(&self, rel: &str, limit: u64) -> Result<Box<dyn super::ReadAt>, String> {
            let (file, len) = open_checked(&self.abs(rel), limit)?;
            Ok(Box::new(OpenFile { file, len }))
        }

        #[cfg(feature = "parallel")]
        fn read_dirs(&self, rels: &[String]) -> Vec<Result<Vec<HostEntry>, String>> {
            use rayon::prelude::*;
            rels.par_iter().map(|r| self.read_dir(r)).collect()
        }

        #[cfg(feature = "parallel")]
        fn read_files(&self, rels: &[String], limit: u64) -> Vec<Result<Vec<u8>, String>> {
            use rayon::prelude::*;
            rels.par_iter().map(|r| self.read_file(r, limit)).collect()
        }

        #[cfg(feature = "parallel")]
        fn stat_many(&self, rels: &[&str]) -> Vec<Result<HostEntry, String>> {
            use rayon::prelude::*;
            rels.par_iter().map(|r| self.stat(r)).collect()
        }

        fn stat(&self, rel: &str) -> Result<HostEntry, String> {
            let path = self.abs(rel);
            let meta = std::fs::metadata(&path).map_err(|e| e.to_string())?;
            let name = Path::new(rel).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            Ok(entry(name, &meta, kind_of(meta.file_type())))
        }

        fn lstat(&self, rel: &str) -> Result<HostEntry, String> {
            let path = self.abs(rel);
            let meta = std::fs::symlink_metadata(&path).map_err(|e| e.to_string())?;
            let name = Path::new(rel).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            Ok(entry(name, &meta, kind_of(meta.file_type())))
        }

        fn realpath(&self, rel: &str) -> Result<String, String> {
            let path = std::fs::canonicalize(self.abs(rel)).map_err(|e| e.to_string())?;
            Ok(path.to_string_lossy().replace('\\', "/"))
        }

        fn write_file_atomic(&self, rel: &str, bytes: &[u8]) -> Result<(), String> {
            self.replace(rel, bytes, true)
        }

        fn write_cache_file(&self, rel: &str, bytes: &[u8]) -> Result<(), String> {
            self.replace(rel, bytes, false)
        }

        fn create_exclusive(&self, rel: &str, bytes: &[u8]) -> Result<bool, String> {
            use std::io::Write;
            let path = self.abs(rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => f.write_all(bytes).map(|()| true).map_err(|e| e.to_string()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                Err(e) => Err(e.to_string()),
            }
        }

        fn git(&self, args: &[String], env: &[(&str, &str)], keep_env: &[&str]) -> Result<String, String> {
            let mut command = std::process::Command::new("git");
            command.env_clear();
            for key in keep_env {
                if let Some(value) = std::env::var_os(key) {
                    command.env(key, value);
                }
            }
            let out = command
                .envs(env.iter().copied())
                .args(args)
                .current_dir(&self.root)
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| format!("cannot run git: {e}"))?;
            if !out.status.success() {
                return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
            }
            String::from_utf8(out.stdout).map_err(|_| "git printed a path that is not UTF-8".to_string())
        }

        fn now_ms(&self) -> f64 {
            std::time::SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        }

        fn pid(&self) -> Option<u32> {
            Some(std::process::id())
        }

        #[cfg(unix)]
        #[allow(unsafe_code)] // one libc call; see SAFETY below
        fn process_alive(&self, pid: u32) -> Option<bool> {
            let pid = libc::pid_t::try_from(pid).ok()?;
            // SAFETY: kill with signal 0 sends nothing; it only asks whether the process exists.
            let sent = unsafe { libc::kill(pid, 0) };
            match sent {
                0 => Some(true),
                _ => match std::io::Error::last_os_error().raw_os_error() {
                    Some(libc::ESRCH) => Some(false),
                    // EPERM: it exists, under another user.
                    Some(libc::EPERM) => Some(true),
                    _ => None,
                },
            }
        }

        fn remove_file(&self, rel: &str) -> Result<(), String> {
            match std::fs::remove_file(self.abs(rel)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.to_string()),
                _ => Ok(()),
            }
        }
    }
}
