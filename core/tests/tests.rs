//! Integration tests of the core: the polyglot fixture against its hand-checked answers, bad input,
//! and snapshots of real answers.

mod expected;
mod bad_input;
mod snapshots;
