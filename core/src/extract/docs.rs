//! Doc comments: the comment block written right above a declaration (or a Python docstring opening
//! its body, or a file's leading comment), cleaned of comment markers and cut to a few lines. What
//! marks a comment is data per language (`syntax`); every grammar is cleaned by the same code.

use tree_sitter::Node;

use super::Kind;

use crate::lang::Language;

/// A doc keeps at most this many lines (then ` …`).
pub(crate) const MAX_DOC_LINES: usize = 6;

/// How a language writes comments.
struct CommentSyntax {
    /// Line-comment markers, longest first (`///` before `//`).
    line: &'static [&'static str],
    /// Block-comment delimiters, longest opening first (`/**` before `/*`).
    block: &'static [(&'static str, &'static str)],
}

const C_LIKE: CommentSyntax =
    CommentSyntax { line: &["///", "//!", "//"], block: &[("/**", "*/"), ("/*!", "*/"), ("/*", "*/")] };
const HASH: CommentSyntax = CommentSyntax { line: &["#"], block: &[] };
const PHP: CommentSyntax = CommentSyntax { line: &["///", "//", "#"], block: &[("/**", "*/"), ("/*", "*/")] };
const SQL: CommentSyntax = CommentSyntax { line: &["--"], block: &[("/*", "*/")] };

fn syntax(language: Language) -> &'static CommentSyntax {
    match language {
        Language::Python | Language::Ruby => &HASH,
        Language::TypeScript
        | Language::Tsx
        | Language::JavaScript
        | Language::Rust
        | Language::Go
        | Language::Java
        | Language::C
        | Language::Cpp
        | Language::CSharp
        | Language::Zig
        | Language::Kotlin
        | Language::Swift => &C_LIKE,
        Language::Sql => &SQL,
        Language::Php => &PHP,
    }
}

/// The text lines of one comment, without its markers (a block's leading `*` too).
fn comment_lines(language: Language, text: &str) -> impl Iterator<Item = &str> {
    let syntax = syntax(language);
    let text = text.trim();
    let block = syntax.block.iter().find(|(open, _)| text.starts_with(open));
    let body = block.map_or(text, |(open, close)| {
        let inner = &text[open.len()..];
        inner.strip_suffix(close).unwrap_or(inner)
    });
    body.lines().map(move |l| {
        let l = l.trim();
        if block.is_some() {
            return l.trim_start_matches('*').trim();
        }
        let marker = syntax.line.iter().find(|m| l.starts_with(**m)).map_or(0, |m| m.len());
        l[marker..].trim()
    })
}

/// A doc from cleaned lines: blank lines and tag lines (`@param`, `@returns`) dropped, at most
/// `MAX_DOC_LINES` kept (the rest are not read). None when nothing is left.
fn finish<'a>(lines: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut kept = lines.filter(|l| !l.is_empty() && !l.starts_with('@'));
    let out: Vec<&str> = kept.by_ref().take(MAX_DOC_LINES).collect();
    if out.is_empty() {
        return None;
    }
    let mut doc = out.join("\n");
    if kept.next().is_some() {
        doc.push_str(" …");
    }
    Some(doc)
}

/// The doc written by a run of comments (their texts, in order).
pub(crate) fn of_comments<'a>(language: Language, comments: impl Iterator<Item = &'a str>) -> Option<String> {
    finish(comments.flat_map(|c| comment_lines(language, c)))
}

/// The doc a Python docstring holds: the string's text without its prefix and quotes.
pub(crate) fn of_docstring(literal: &str) -> Option<String> {
    let body = literal.trim_start_matches(|c: char| "rRuUbBfF".contains(c));
    let quote = ["\"\"\"", "'''", "\"", "'"].into_iter().find(|q| body.starts_with(q))?;
    let inner = body[quote.len()..].strip_suffix(quote).unwrap_or(&body[quote.len()..]);
    finish(inner.lines().map(str::trim))
}

/// The docstring opening a Python block (a function's or class's body, or a module).
pub(crate) fn docstring_node(block: Node) -> Option<Node> {
    let first = block.named_child(0)?;
    let string = if first.kind_str() == "expression_statement" { first.named_child(0)? } else { first };
    (string.kind_str() == "string").then_some(string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_stripped_per_language() {
        let c = |t| of_comments(Language::Rust, [t].into_iter());
        assert_eq!(c("/// Sums the areas.").as_deref(), Some("Sums the areas."));
        assert_eq!(c("//! Module doc.").as_deref(), Some("Module doc."));
        assert_eq!(c("/**\n * Line one.\n * @param x ignored\n */").as_deref(), Some("Line one."));
        assert_eq!(
            of_comments(Language::Python, ["# a comment", "#  another"].into_iter()).as_deref(),
            Some("a comment\nanother")
        );
    }

    #[test]
    fn docstrings_lose_only_their_prefix_and_quotes() {
        // The words of the doc are kept whole: a leading `r` is a raw-string prefix only before the quote.
        assert_eq!(of_docstring("\"\"\"rate limited per second\"\"\"").as_deref(), Some("rate limited per second"));
        assert_eq!(of_docstring("r'''raw docstring'''").as_deref(), Some("raw docstring"));
        assert_eq!(
            of_docstring("\"\"\"\n    Returns the total.\n\n    ready to ship\n    \"\"\"").as_deref(),
            Some("Returns the total.\nready to ship")
        );
        assert_eq!(of_docstring("'short'").as_deref(), Some("short"));
        assert_eq!(of_docstring("\"\"\"\"\"\""), None);
    }

    #[test]
    fn long_docs_are_cut() {
        let lines: Vec<String> = (1..=9).map(|i| format!("/// line {i}")).collect();
        let doc = of_comments(Language::Go, lines.iter().map(String::as_str)).unwrap();
        assert_eq!(doc.lines().count(), MAX_DOC_LINES);
        assert!(doc.ends_with(" …"));
    }
}
