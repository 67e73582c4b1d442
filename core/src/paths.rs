//! Root-relative paths as people and agents write them, and what a path says about a file: a
//! test, or code vendored in from elsewhere. Decided here once for every feature.

/// Paths a user or agent may write: `./a/b`, `a\\b`.
pub(crate) fn clean_path(path: &str) -> String {
    path.replace('\\', "/").trim_start_matches("./").to_string()
}

/// Whether a path is code copied in from elsewhere (a vendored library, a minified bundle): it
/// matches every question and answers none about this repository.
pub(crate) fn is_vendored_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.split('/').any(|d| {
        matches!(
            d,
            "vendor" | "vendored" | "third_party" | "third-party" | "thirdparty" | "node_modules" | "bower_components"
        )
    }) || lower.ends_with(".min.js")
        || lower.ends_with(".bundle.js")
}

/// Whether a path is a test file or lives under a test directory.
pub(crate) fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let base = lower.rsplit('/').next().unwrap_or(&lower);
    lower.split('/').rev().skip(1).any(|d| matches!(d, "test" | "tests" | "__tests__" | "spec" | "specs" | "testing"))
        || base.starts_with("test_")
        || base.starts_with("tests.")
        || base.starts_with("test.")
        || base.contains("_test.")
        || base.contains(".test.")
        || base.contains(".spec.")
        || base.contains("_spec.")
        || base == "conftest.py"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_paths() {
        for p in ["tests/a.rs", "src/foo_test.go", "spec/x.spec.ts", "django/test/utils.py", "a/test_x.py"] {
            assert!(is_test_path(p), "{p}");
        }
        for p in ["src/testament.rs", "src/latest.ts", "src/contest/x.py"] {
            assert!(!is_test_path(p), "{p}");
        }
        for p in ["static/admin/js/vendor/jquery/jquery.js", "third_party/x.py", "dist/app.min.js"] {
            assert!(is_vendored_path(p), "{p}");
        }
        assert!(!is_vendored_path("src/vendors.ts"));
    }
}
