//! Byte offsets → 1-based lines and columns counted in Unicode characters, as an editor shows them,
//! in near-constant time per lookup: the start of every line, and the number of characters before
//! every 256-byte block (a character starts at every byte that is not a UTF-8 continuation byte), so
//! a column costs at most one block's scan. A 5 MB one-line bundle costs the same per position as a
//! short line, not the square of its length. A byte-order mark is not a character of line 1.

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
}

fn starts_char(b: u8) -> bool {
    b & 0xC0 != 0x80
}

impl<'a> Positions<'a> {
    pub fn new(src: &'a str) -> Positions<'a> {
        let bytes = src.as_bytes();
        let mut line_starts = vec![0];
        line_starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        let ascii = src.is_ascii();
        // Character counts serve only text with characters of more than one byte.
        let mut blocks = Vec::with_capacity(if ascii { 0 } else { bytes.len() / BLOCK + 1 });
        if !ascii {
            let mut chars = 0u32;
            for chunk in bytes.chunks(BLOCK) {
                blocks.push(chars);
                chars += chunk.iter().filter(|&&b| starts_char(b)).count() as u32;
            }
            blocks.push(chars);
        }
        Positions { src: bytes, line_starts, blocks, bom: src.starts_with('\u{feff}'), ascii }
    }

    /// Characters before `byte`.
    fn chars_before(&self, byte: usize) -> usize {
        let byte = byte.min(self.src.len());
        let block = byte / BLOCK;
        let from = block * BLOCK;
        self.blocks[block] as usize + self.src[from..byte].iter().filter(|&&b| starts_char(b)).count()
    }

    /// The line and column of a byte offset (1-based).
    pub fn pos(&self, byte: usize) -> Pos {
        let line = self.line_starts.partition_point(|&s| s <= byte).max(1) - 1;
        if self.ascii {
            return Pos { line: line as u32 + 1, col: (byte.min(self.src.len()) - self.line_starts[line]) as u32 + 1 };
        }
        let mut col = self.chars_before(byte) - self.chars_before(self.line_starts[line]);
        if line == 0 && self.bom && byte >= 3 {
            col -= 1;
        }
        Pos { line: line as u32 + 1, col: col as u32 + 1 }
    }
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
    fn a_byte_order_mark_is_not_a_character() {
        let p = Positions::new("\u{feff}let x = 1;\nlet y;");
        assert_eq!(p.pos(3), Pos { line: 1, col: 1 });
        assert_eq!(p.pos(7), Pos { line: 1, col: 5 });
        assert_eq!(p.pos(14), Pos { line: 2, col: 1 });
    }
}
