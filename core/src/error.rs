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
        }
    }
}

/// Decodes a JSON request; serde's message names the offending field.
pub fn decode<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|e| Error::InvalidArgument(format!("invalid request: {e}")))
}
