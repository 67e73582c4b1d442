//! Running git on a repository that may be hostile. Reading a change set must never run a command
//! the repository chose: a `.git/config` can name an fsmonitor, a pager, an external diff, a
//! textconv or a clean/smudge filter, and a partial clone can fetch (through `core.sshCommand`).
//! Every git call of the core goes through `run`, which turns all of those off on the command
//! line (where the repository's config can't override them), asks for plain output, and tells the
//! host which environment git gets.

use crate::host::Host;

/// Environment variables git runs with (on top of `KEEP_ENV`; everything else is cleared).
pub(crate) const ENV: [(&str, &str); 9] = [
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_ATTR_NOSYSTEM", "1"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_NO_LAZY_FETCH", "1"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_ASKPASS", ""),
    ("LC_ALL", "C"),
];

/// Variables of the caller's environment git keeps: where programs are and where the user's own
/// (global) git config lives.
pub(crate) const KEEP_ENV: [&str; 9] =
    ["PATH", "HOME", "XDG_CONFIG_HOME", "SYSTEMROOT", "USERPROFILE", "HOMEDRIVE", "HOMEPATH", "TEMP", "TMP"];

/// Config given on the command line, which outranks every config file.
const SAFE_CONFIG: [&str; 16] = [
    "core.fsmonitor=false",
    "core.pager=cat",
    "core.hooksPath=/dev/null",
    "core.sshCommand=false",
    "core.askPass=",
    "core.quotepath=off",
    "credential.helper=",
    "diff.external=",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "color.ui=never",
    "log.showSignature=false",
    "protocol.allow=never",
    "safe.bareRepository=explicit",
    "maintenance.auto=false",
    "gc.auto=0",
];

/// The `-c` options every call carries.
fn safe_options() -> Vec<String> {
    SAFE_CONFIG.iter().flat_map(|c| ["-c".to_string(), (*c).to_string()]).collect()
}

/// `-c` options that switch off every clean/smudge filter driver the repository's config defines
/// (a filter runs on worktree files when git compares them); empty commands run nothing.
fn filter_off_options(host: &dyn Host) -> Vec<String> {
    let mut args = safe_options();
    args.extend(
        ["config", "-z", "--name-only", "--get-regexp", r"^filter\..*\.(clean|smudge|process)$"].map(String::from),
    );
    // No filters defined: `git config` exits 1 and there is nothing to switch off.
    let Ok(listed) = host.git(&args, &ENV, &KEEP_ENV) else { return Vec::new() };
    // Names end with NUL (a driver's name may hold spaces and dots: `filter.a b.c.clean`).
    let mut drivers: Vec<&str> = listed
        .split('\0')
        .filter_map(|key| key.strip_prefix("filter.")?.rsplit_once('.').map(|(name, _)| name))
        .collect();
    drivers.sort_unstable();
    drivers.dedup();
    drivers
        .into_iter()
        .flat_map(|d| {
            ["clean", "smudge", "process"]
                .into_iter()
                .map(move |k| format!("filter.{d}.{k}="))
                .chain([format!("filter.{d}.required=false")])
        })
        .flat_map(|c| ["-c".to_string(), c])
        .collect()
}

/// Runs `git args…` in the root through the host, with the repository's commands switched off.
pub(crate) fn run(host: &dyn Host, args: &[&str]) -> Result<String, String> {
    let mut full = safe_options();
    full.extend(filter_off_options(host));
    full.extend(args.iter().map(std::string::ToString::to_string));
    host.git(&full, &ENV, &KEEP_ENV)
}

/// Runs `git args…` that read only objects (`cat-file`, `rev-parse`): no worktree file is compared,
/// so no filter can run, and the call that lists filter drivers is skipped.
pub(crate) fn run_plain(host: &dyn Host, args: &[&str]) -> Result<String, String> {
    let mut full = safe_options();
    full.extend(args.iter().map(std::string::ToString::to_string));
    host.git(&full, &ENV, &KEEP_ENV)
}

/// Whether `spec` can be given to git as a revision: never an option, only the characters refs,
/// hashes and revision suffixes use.
pub(crate) fn is_revision(spec: &str) -> bool {
    !spec.is_empty()
        && !spec.starts_with('-')
        && spec.len() <= 256
        && spec.chars().all(|c| c.is_ascii_alphanumeric() || "._/@{}~^:-".contains(c))
}
