//! Byte offsets → 1-based lines and columns counted in Unicode characters, as an editor shows them,
//! in near-constant time per lookup: the start of every line, and the number of characters before
//! every 256-byte block (a character starts at every byte that is not a UTF-8 continuation byte), so
//! a column costs at most one block's scan. A 5 MB one-line bundle costs the same per position as a
//! short line, not the square of its length. A byte-order mark is not a character of line 1.
//! Positions are mostly asked for in the order of the text, so the line of the last one is tried
//! first.

use std::cell::Cell;

use crate::facts::Pos;

const BLOCK: usize = 256;

pub(crate) struct Positions<'a> {
    src: &'a [u8],
    line_starts: Vec<usize>,
    /// Characters before byte `k * BLOCK`.
    blocks: Vec<u32>,
    bom: bool,
    /// Every character is one byte: a column is a byte offset in its line.
    ascii: bool,
    /// The line of the last position (0-based).
    last_line: Cell<usize>,
}

fn starts_char(b: u8) -> bool {
    b & 0xC0 != 0x80
}

impl<'a> Positions<'a> {
    pub fn new(src: &'a str) -> Positions<'a> {
        let bytes = src.as_bytes();
        let line_starts = line_starts(src);
        let ascii = src.is_ascii();
        // Character counts serve only text with characters of more than one byte.
        let mut blocks = Vec::with_capacity(if ascii { 0 } else { bytes.len() / BLOCK + 1 });
        if !ascii {
            let mut chars = 0u32;
            for chunk in bytes.chunks(BLOCK) {
                blocks.push(chars);
                chars += chars_in(chunk) as u32;
            }
            blocks.push(chars);
        }
        Positions { src: bytes, line_starts, blocks, bom: src.starts_with('\u{feff}'), ascii, last_line: Cell::new(0) }
    }

    /// Characters before `byte`.
    fn chars_before(&self, byte: usize) -> usize {
        let byte = byte.min(self.src.len());
        let block = byte / BLOCK;
        let from = block * BLOCK;
        self.blocks[block] as usize + chars_in(&self.src[from..byte])
    }

    /// The line (0-based) holding `byte`: the last position's, the one after it, or found.
    fn line_of(&self, byte: usize) -> usize {
        let starts = &self.line_starts;
        let holds = |line: usize| {
            starts.get(line).is_some_and(|&s| s <= byte) && starts.get(line + 1).is_none_or(|&next| byte < next)
        };
        let last = self.last_line.get();
        let line = if holds(last) {
            last
        } else if holds(last + 1) {
            last + 1
        } else {
            starts.partition_point(|&s| s <= byte).max(1) - 1
        };
        self.last_line.set(line);
        line
    }

    /// The line and column of a byte offset (1-based).
    pub fn pos(&self, byte: usize) -> Pos {
        let line = self.line_of(byte);
        let start = self.line_starts[line];
        let byte_col = byte.min(self.src.len()) - start;
        if self.ascii {
            return Pos { line: line as u32 + 1, col: byte_col as u32 + 1 };
        }
        // A short way into its line, the characters are counted; further, the blocks' counts serve.
        let mut col = if byte_col <= BLOCK {
            chars_in(&self.src[start..start + byte_col])
        } else {
            self.chars_before(byte) - self.chars_before(start)
        };
        if line == 0 && self.bom && byte >= 3 {
            col -= 1;
        }
        Pos { line: line as u32 + 1, col: col as u32 + 1 }
    }
}

/// The byte offset at which each line of `text` starts (the first is 0).
pub(crate) fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1)).collect()
}

/// The characters `bytes` starts (UTF-8 text cut anywhere).
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| starts_char(b)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_across_blocks_and_lines() {
        let src = format!("{}é = 1;\nx = 2;", "a".repeat(300));
        let p = Positions::new(&src);
        assert_eq!(p.pos(0), Pos { line: 1, col: 1 });
        // "é" is two bytes: the `=` after it is character 303 of line 1.
        assert_eq!(p.pos(303), Pos { line: 1, col: 303 });
        let second = src.find('x').unwrap();
        assert_eq!(p.pos(second), Pos { line: 2, col: 1 });
        assert_eq!(p.pos(second + 2), Pos { line: 2, col: 3 });
    }

    #[test]
    fn positions_asked_in_any_order_are_those_counted_from_the_start() {
        // Short and long lines (a column past a block), two-byte and four-byte characters, a line
        // that is only a newline; every character boundary asked forwards, backwards and strided.
        let src = format!("é\n\nab 🦀 c\n{}é x\nlast", "ß".repeat(200));
        let counted = |byte: usize| {
            let before = &src[..byte];
            let line = before.matches('\n').count() as u32 + 1;
            let col = before.rsplit('\n').next().unwrap().chars().count() as u32 + 1;
            Pos { line, col }
        };
        let boundaries: Vec<usize> = (0..=src.len()).filter(|&i| src.is_char_boundary(i)).collect();
        let p = Positions::new(&src);
        let strided = (0..boundaries.len()).map(|i| boundaries[i * 7 % boundaries.len()]);
        for byte in boundaries.iter().copied().chain(boundaries.iter().rev().copied()).chain(strided) {
            assert_eq!(p.pos(byte), counted(byte), "at byte {byte}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_not_a_character() {
        let p = Positions::new("\u{feff}let x = 1;\nlet y;");
        assert_eq!(p.pos(3), Pos { line: 1, col: 1 });
        assert_eq!(p.pos(7), Pos { line: 1, col: 5 });
        assert_eq!(p.pos(14), Pos { line: 2, col: 1 });
    }
}
