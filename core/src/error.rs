//! The one error type of the API. Every front maps it the same way: `code()` is stable and becomes
//! the JS error's `.code`; the message says what to do next.

/// An error answering a request. Expected findings (a file that didn't parse, an unresolved import,
/// a stale index) are data in responses, never errors.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum Error {
    /// A request field is missing, malformed or out of range.
    #[error("{0}")]
    InvalidArgument(String),
    /// The file, symbol or position asked about does not exist.
    #[error("{0}")]
    NotFound(String),
    /// A path resolves outside the root.
    #[error("{0}")]
    OutsideRoot(String),
    /// The file is binary, not UTF-8, or too large to read.
    #[error("{0}")]
    Unreadable(String),
    /// The host failed (I/O).
    #[error("{0}")]
    Io(String),
    /// The request needs write access the session was not given (`--allow-build`).
    #[error("{0}")]
    Forbidden(String),
    /// The index behind the request is stale and the request would write from it.
    #[error("{0}")]
    StaleIndex(String),
    /// The SQLite artifact describes an older index and can't be refreshed here.
    #[error("{0}")]
    StaleArtifact(String),
    /// A query ran past its budget (SQLite steps) before it could answer anything.
    #[error("{0}")]
    LimitExceeded(String),
}

impl Error {
    /// The stable code of this error, shared by the addon, the wasm module, the CLI and MCP.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidArgument(_) => "INVALID_ARGUMENT",
            Error::NotFound(_) => "NOT_FOUND",
            Error::OutsideRoot(_) => "OUTSIDE_ROOT",
            Error::Unreadable(_) => "UNREADABLE",
            Error::Io(_) => "IO",
            Error::Forbidden(_) => "FORBIDDEN",
            Error::StaleIndex(_) => "STALE_INDEX",
            Error::StaleArtifact(_) => "STALE_ARTIFACT",
            Error::LimitExceeded(_) => "LIMIT_EXCEEDED",
        }
    }
}

/// Decodes a JSON request; the message names the offending field by its path (`handle: invalid
/// type: integer `5`, expected a string`).
pub fn decode<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, Error> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            Error::InvalidArgument(format!("invalid request: {inner}"))
        } else {
            Error::InvalidArgument(format!("invalid request: {path}: {inner}"))
        }
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Req {
        handle: String,
        limit: Option<u32>,
    }

    #[test]
    fn a_decode_error_names_the_field() {
        let e = super::decode::<Req>(json!({ "handle": 5 })).unwrap_err().to_string();
        assert_eq!(e, "invalid request: handle: invalid type: integer `5`, expected a string");
        let e = super::decode::<Req>(json!({ "handle": "x", "limit": -1 })).unwrap_err().to_string();
        assert!(e.starts_with("invalid request: limit: invalid value"), "{e}");
        let e = super::decode::<Req>(json!({ "handle": "x", "bogus": 1 })).unwrap_err().to_string();
        assert!(e.starts_with("invalid request: bogus: unknown field `bogus`"), "{e}");
    }
}
