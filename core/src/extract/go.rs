//! Extraction for go (being written).

use tree_sitter::Node;

use super::Builder;

pub(crate) fn extract(_b: &mut Builder, _root: Node) {}
