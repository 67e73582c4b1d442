//! Integration tests of the core (one test binary): the polyglot fixture against its hand-checked
//! answers, bad input, and snapshots of real answers.

#[path = "suite/bad_input.rs"]
mod bad_input;
#[path = "suite/context.rs"]
mod context;
#[path = "suite/expected.rs"]
mod expected;
#[path = "suite/explore.rs"]
mod explore;
#[path = "suite/freshness.rs"]
mod freshness;
#[path = "suite/hostile.rs"]
mod hostile;
#[path = "suite/impact.rs"]
mod impact;
#[path = "suite/inference.rs"]
mod inference;
#[path = "suite/languages.rs"]
mod languages;
#[path = "suite/persistence.rs"]
mod persistence;
#[path = "suite/snapshots.rs"]
mod snapshots;
