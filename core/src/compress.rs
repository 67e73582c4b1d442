//! Compressing source for context packs, from the syntax tree (never by pattern-matching text):
//!
//! - `skeleton` keeps the file as it is but replaces the body of every function and method with a
//!   placeholder (`{ /* … */ }`; Python keeps the docstring and puts `...`);
//! - `signatures` does the same, and also drops comments other than doc comments and top-level
//!   statements that declare nothing (calls, loops, `if __name__ == "__main__":` blocks).
//!
//! Both stay valid source in their language: a context pack can be parsed back.

use crate::extract::{Field, Kind};
use tree_sitter::{Node, Parser};

use crate::lang::Language;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compress {
    None,
    Signatures,
    Skeleton,
}

impl Compress {
    pub(crate) fn parse(s: &str) -> Option<Compress> {
        match s {
            "none" => Some(Compress::None),
            "signatures" => Some(Compress::Signatures),
            "skeleton" => Some(Compress::Skeleton),
            _ => None,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Compress::None => "none",
            Compress::Signatures => "signatures",
            Compress::Skeleton => "skeleton",
        }
    }
}

/// How a language writes what compression touches.
struct Shape {
    /// Kinds whose `body` field is a function body.
    functions: &'static [&'static str],
    /// Top-level kinds `signatures` keeps; None keeps every top-level node.
    declarations: Option<&'static [&'static str]>,
}

fn shape(language: Language) -> Shape {
    match language {
        Language::TypeScript | Language::Tsx | Language::JavaScript => Shape {
            functions: &[
                "function_declaration",
                "generator_function_declaration",
                "function_expression",
                "function",
                "generator_function",
                "arrow_function",
                "method_definition",
            ],
            declarations: Some(&[
                "import_statement",
                "export_statement",
                "function_declaration",
                "generator_function_declaration",
                "function_signature",
                "class_declaration",
                "abstract_class_declaration",
                "interface_declaration",
                "type_alias_declaration",
                "enum_declaration",
                "lexical_declaration",
                "variable_declaration",
                "ambient_declaration",
                "module",
                "internal_module",
                "comment",
            ]),
        },
        Language::Python => Shape {
            functions: &["function_definition"],
            declarations: Some(&[
                "import_statement",
                "import_from_statement",
                "future_import_statement",
                "function_definition",
                "class_definition",
                "decorated_definition",
                "type_alias_statement",
                "expression_statement",
                "comment",
            ]),
        },
        Language::Rust => Shape { functions: &["function_item"], declarations: None },
        Language::Go => {
            Shape { functions: &["function_declaration", "method_declaration", "func_literal"], declarations: None }
        }
        Language::Java => Shape {
            functions: &["method_declaration", "constructor_declaration", "compact_constructor_declaration"],
            declarations: None,
        },
        Language::C | Language::Cpp => {
            Shape { functions: &["function_definition", "lambda_expression"], declarations: None }
        }
        Language::CSharp => Shape {
            functions: &[
                "method_declaration",
                "constructor_declaration",
                "destructor_declaration",
                "operator_declaration",
                "conversion_operator_declaration",
                "local_function_statement",
                "accessor_declaration",
                "lambda_expression",
            ],
            declarations: None,
        },
        Language::Php => Shape {
            functions: &["function_definition", "method_declaration", "anonymous_function"],
            declarations: None,
        },
        // Ruby's bodies end with `end`, which skeletons keep: the statements are elided alone.
        Language::Ruby => Shape { functions: &["method", "singleton_method"], declarations: None },
        Language::Zig => Shape { functions: &["function_declaration"], declarations: None },
        Language::Kotlin => Shape { functions: &["function_declaration", "secondary_constructor"], declarations: None },
        Language::Swift => Shape { functions: &["function_declaration", "init_declaration"], declarations: None },
        // SQL has no function bodies to elide that still parse as SQL without them.
        Language::Sql => Shape { functions: &[], declarations: None },
    }
}

/// A doc comment (kept by `signatures`): `///`, `//!`, `/** */`, `/*! */`.
fn is_doc_comment(text: &str) -> bool {
    text.starts_with("///") || text.starts_with("//!") || text.starts_with("/**") || text.starts_with("/*!")
}

/// A Python expression statement worth keeping at top level: an assignment or the module docstring.
fn python_declares(node: Node) -> bool {
    node.named_child(0).is_some_and(|c| matches!(c.kind_str(), "assignment" | "augmented_assignment" | "string"))
}

/// Compresses one file. Files that don't parse are returned unchanged.
pub(crate) fn compress(language: Language, src: &str, mode: Compress) -> String {
    if mode == Compress::None {
        return src.to_string();
    }
    let mut parser = Parser::new();
    if parser.set_language(&language.grammar()).is_err() {
        return src.to_string();
    }
    let Some(tree) = parser.parse(src, None) else { return src.to_string() };
    let shape = shape(language);
    let signatures = mode == Compress::Signatures;
    // Edits as (start byte, end byte, replacement), collected in source order, never overlapping.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let root = tree.root_node();
    let mut stack: Vec<(Node, usize)> = Vec::new();
    for child in crate::extract::children(root).into_iter().rev() {
        stack.push((child, 1));
    }
    while let Some((node, depth)) = stack.pop() {
        let kind = node.kind_str();
        if signatures && depth == 1 {
            let keep = match shape.declarations {
                None => true,
                Some(kinds) => kinds.contains(&kind) && (kind != "expression_statement" || python_declares(node)),
            };
            if !keep {
                edits.push((node.start_byte(), line_end(src, node.end_byte()), String::new()));
                continue;
            }
        }
        if signatures && kind.contains("comment") {
            let text = &src[node.byte_range()];
            if !is_doc_comment(text) {
                edits.push((node.start_byte(), node.end_byte(), String::new()));
            }
            continue;
        }
        if shape.functions.contains(&kind) {
            // (Kotlin writes a block body inside a `function_body`, with no field.)
            let body = node.field("body").or_else(|| {
                let wrapper =
                    crate::extract::named_children(node).into_iter().find(|c| c.kind_str() == "function_body")?;
                wrapper.named_child(0).filter(|b| b.kind_str() == "block")
            });
            if let Some(body) = body {
                if let Some(edit) = elide(language, body) {
                    edits.push(edit);
                    continue;
                }
            }
        }
        if depth < 512 {
            for child in crate::extract::children(node).into_iter().rev() {
                stack.push((child, depth + 1));
            }
        }
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(src.len() / 2);
    let mut at = 0;
    for (start, end, replacement) in edits {
        if start < at {
            continue;
        }
        out.push_str(&src[at..start]);
        out.push_str(&replacement);
        at = end;
    }
    out.push_str(&src[at..]);
    collapse_blank_lines(&out)
}

/// The edit that replaces a function body, or None when there is nothing to elide (an expression
/// body, an empty block, a Python body that is only its docstring).
fn elide(language: Language, body: Node) -> Option<(usize, usize, String)> {
    if language == Language::Python {
        let first = body.named_child(0)?;
        let docstring = first.kind_str() == "expression_statement"
            && first.named_child(0).is_some_and(|c| c.kind_str() == "string");
        if !docstring {
            return Some((body.start_byte(), body.end_byte(), "...".into()));
        }
        if body.named_child_count() == 1 {
            return None;
        }
        let indent = " ".repeat(first.start_position().column);
        return Some((first.end_byte(), body.end_byte(), format!("\n{indent}...")));
    }
    // Ruby: the statements between `def …` and `end` become `nil` (a comment could swallow a
    // one-line method's `; end`).
    if language == Language::Ruby {
        return (body.kind_str() == "body_statement" && body.named_child_count() > 0)
            .then(|| (body.start_byte(), body.end_byte(), "nil".into()));
    }
    // Brace languages: only a block body; arrow functions with an expression keep it.
    if !matches!(
        body.kind_str(),
        "statement_block" | "block" | "constructor_body" | "compound_statement" | "function_body"
    ) || body.named_child_count() == 0
    {
        return None;
    }
    // Zig has line comments only.
    let placeholder = if language == Language::Zig { "{} // …" } else { "{ /* … */ }" };
    Some((body.start_byte(), body.end_byte(), placeholder.into()))
}

/// The byte after the end of the line `byte` is on (past its newline), for removing whole lines.
fn line_end(src: &str, byte: usize) -> usize {
    match src[byte..].find('\n') {
        Some(n) if src[byte..byte + n].trim().is_empty() => byte + n + 1,
        _ => byte,
    }
}

/// At most one blank line in a row, and no trailing spaces left by removals.
fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end();
        if content.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(content);
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parses(language: Language, src: &str) -> bool {
        let mut parser = Parser::new();
        parser.set_language(&language.grammar()).unwrap();
        !parser.parse(src, None).unwrap().root_node().has_error()
    }

    #[test]
    fn python_keeps_docstrings_and_stays_valid() {
        let src = "import os\n\n# helper\ndef f(x):\n    \"\"\"Doubles x.\"\"\"\n    y = x * 2\n    return y\n\nclass A:\n    def m(self):\n        return 1\n\nprint(f(2))\n";
        let skeleton = compress(Language::Python, src, Compress::Skeleton);
        assert!(skeleton.contains("\"\"\"Doubles x.\"\"\"\n    ...") && !skeleton.contains("y = x * 2"), "{skeleton}");
        assert!(skeleton.contains("print(f(2))"));
        let signatures = compress(Language::Python, src, Compress::Signatures);
        assert!(!signatures.contains("print(") && !signatures.contains("# helper"), "{signatures}");
        for out in [skeleton, signatures] {
            assert!(parses(Language::Python, &out), "{out}");
        }
    }

    #[test]
    fn brace_languages_elide_bodies() {
        let ts = "// note\n/** Adds. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\nconst f = (x: number) => x + 1;\nclass C { m(): void { console.log(1); } }\nconsole.log(add(1, 2));\n";
        let out = compress(Language::TypeScript, ts, Compress::Signatures);
        assert!(out.contains("/** Adds. */") && !out.contains("// note") && !out.contains("console.log"), "{out}");
        assert!(out.contains("(x: number) => x + 1"), "{out}");
        assert!(parses(Language::TypeScript, &out), "{out}");
        let rs =
            "/// Doc.\npub fn f(x: u32) -> u32 {\n    // inner\n    x + 1\n}\nimpl A { fn g(&self) { todo!() } }\n";
        let out = compress(Language::Rust, rs, Compress::Skeleton);
        assert!(
            out.contains("pub fn f(x: u32) -> u32 { /* … */ }") && out.contains("fn g(&self) { /* … */ }"),
            "{out}"
        );
        assert!(parses(Language::Rust, &out), "{out}");
    }

    #[test]
    fn c_family_and_csharp_elide_bodies_and_still_parse() {
        let c = "/* Adds. */\nint add(int a, int b) {\n    return a + b;\n}\nstruct P { int x; };\n";
        let cpp =
            "namespace n {\nclass A {\npublic:\n  int f() const { return 1; }\n};\nint A::g() { return f(); }\n}\n";
        let cs = "namespace N;\npublic class A {\n  public int P { get { return 1; } }\n  public void M() { System.Console.WriteLine(1); }\n}\n";
        for (language, src, kept, gone) in [
            (Language::C, c, "int add(int a, int b) { /* … */ }", "return a + b"),
            (Language::Cpp, cpp, "int A::g() { /* … */ }", "return f()"),
            (Language::CSharp, cs, "public void M() { /* … */ }", "WriteLine"),
            (
                Language::Php,
                "<?php\nclass A {\n  public function m() { return f(1); }\n}\nfunction g() { echo 1; }\n",
                "function g() { /* … */ }",
                "return f(1)",
            ),
            (
                Language::Ruby,
                "class A\n  def m(x)\n    f(x)\n  end\n  def one; g(1); end\nend\n",
                "def one; nil end",
                "f(x)",
            ),
            (
                Language::Zig,
                "const A = struct {\n    pub fn m(self: A) u32 {\n        return f(1);\n    }\n};\n",
                "pub fn m(self: A) u32 {} // …",
                "return f(1)",
            ),
            (
                Language::Kotlin,
                "class A {\n    fun m(): Int {\n        return f(1)\n    }\n}\n",
                "fun m(): Int { /* … */ }",
                "return f(1)",
            ),
            (
                Language::Swift,
                "class A {\n    func m() -> Int {\n        return f(1)\n    }\n}\n",
                "func m() -> Int { /* … */ }",
                "return f(1)",
            ),
        ] {
            for mode in [Compress::Skeleton, Compress::Signatures] {
                let out = compress(language, src, mode);
                assert!(out.contains(kept) && !out.contains(gone), "{language:?} {mode:?}: {out}");
                assert!(parses(language, &out), "{out}");
            }
        }
    }
}
