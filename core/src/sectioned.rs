//! Files of checked sections, read a piece at a time: a header (magic, format version, a table of
//! every section's offset, length and blake3, and the blake3 of all that), then the sections back
//! to back. A reader opens the header and reads a section, a part of one with its own checksum, or
//! a block of fixed-width records, only when a question needs it. The snapshot (`index.bin`) and
//! the lexical index (`text.bin`) are such files.

use serde::Serialize;

use crate::host::ReadAt;

/// What kind of sectioned file a file is, and what its sections are called in errors.
pub(crate) struct Format {
    pub magic: [u8; 8],
    pub version: u32,
    /// What the file is, in errors about its header ("snapshot").
    pub noun: &'static str,
    /// The sections' names, in file order.
    pub sections: &'static [&'static str],
}

const ENTRY_LEN: usize = 8 + 8 + 32;

impl Format {
    /// The header's length: magic, version, count, the section table and its blake3.
    pub(crate) const fn header_len(&self) -> usize {
        8 + 4 + 4 + ENTRY_LEN * self.sections.len() + 32
    }

    /// The header of a file whose sections are these (offset in the file, bytes).
    pub(crate) fn header<'b>(&self, sections: impl ExactSizeIterator<Item = (usize, &'b [u8])>) -> Vec<u8> {
        let mut header = Vec::with_capacity(self.header_len());
        header.extend_from_slice(&self.magic);
        header.extend_from_slice(&self.version.to_le_bytes());
        header.extend_from_slice(&(sections.len() as u32).to_le_bytes());
        for (offset, bytes) in sections {
            header.extend_from_slice(&(offset as u64).to_le_bytes());
            header.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            header.extend_from_slice(blake3::hash(bytes).as_bytes());
        }
        let hash = blake3::hash(&header);
        header.extend_from_slice(hash.as_bytes());
        header
    }
}

/// A file's bytes as they are written: room for the header, then each section appended in order;
/// `finish` fills in the header.
pub(crate) struct Writer {
    format: &'static Format,
    pub out: Vec<u8>,
    bounds: Vec<(usize, usize)>,
}

impl Writer {
    /// A writer with room for `room` bytes of sections, reserved once.
    pub(crate) fn new(format: &'static Format, room: usize) -> Writer {
        let mut out = Vec::with_capacity(format.header_len() + room);
        out.resize(format.header_len(), 0);
        Writer { format, out, bounds: Vec::new() }
    }

    /// The next section, as `write` appends it.
    pub(crate) fn section(&mut self, write: impl FnOnce(&mut Vec<u8>) -> Result<(), String>) -> Result<(), String> {
        let start = self.out.len();
        write(&mut self.out)?;
        self.bounds.push((start, self.out.len()));
        Ok(())
    }

    /// The next section: `value` in postcard.
    pub(crate) fn postcard<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), String> {
        self.section(|out| {
            *out = postcard::to_extend(value, std::mem::take(out)).map_err(|e| e.to_string())?;
            Ok(())
        })
    }

    /// The next section: these bytes.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.section(|out| {
            out.extend_from_slice(bytes);
            Ok(())
        })
    }

    /// The file: every section written, and the header that names them.
    pub(crate) fn finish(self) -> Vec<u8> {
        let Writer { format, mut out, bounds } = self;
        debug_assert_eq!(bounds.len(), format.sections.len());
        let header = format.header(bounds.iter().map(|&(start, end)| (start, &out[start..end])));
        out[..format.header_len()].copy_from_slice(&header);
        out
    }
}

/// Why a header was not trusted; `outdated` when it is sound but of another format version.
#[derive(Debug)]
pub(crate) struct HeaderError {
    pub why: String,
    pub outdated: bool,
}

/// Where a section lies in its file, and its blake3.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub offset: u64,
    pub len: u64,
    pub hash: [u8; 32],
}

/// Reads and checks a file's header: its magic, version and checksum, and that its sections follow
/// one another to the end of the file.
pub(crate) fn read_header(file: &dyn ReadAt, format: &Format) -> Result<Vec<Entry>, HeaderError> {
    let noun = format.noun;
    let damaged = |why: String| HeaderError { why, outdated: false };
    let len = file.size();
    let header_len = format.header_len();
    if len < header_len as u64 {
        return Err(damaged(format!("not a codegraph {noun} (bad header)")));
    }
    let header = file.read_at(0, header_len).map_err(|e| damaged(format!("cannot read the {noun}: {e}")))?;
    if header[..8] != format.magic {
        return Err(damaged(format!("not a codegraph {noun} (bad header)")));
    }
    let version = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
    if version != format.version {
        return Err(HeaderError {
            why: format!("{noun} format {version}, this codegraph reads format {}", format.version),
            outdated: true,
        });
    }
    let body = header_len - 32;
    if blake3::hash(&header[..body]).as_bytes() != &header[body..] {
        return Err(damaged(format!("{noun} header checksum mismatch (corrupt file)")));
    }
    let count = u32::from_le_bytes(header[12..16].try_into().expect("4 bytes")) as usize;
    if count != format.sections.len() {
        return Err(damaged(format!("{noun} header names other sections")));
    }
    let mut entries = Vec::with_capacity(count);
    let mut next = header_len as u64;
    for i in 0..count {
        let at = 16 + i * ENTRY_LEN;
        let field = |from: usize| u64::from_le_bytes(header[at + from..at + from + 8].try_into().expect("8 bytes"));
        let e = Entry { offset: field(0), len: field(8), hash: header[at + 16..at + 48].try_into().expect("32 bytes") };
        if e.offset != next {
            return Err(damaged(format!("{noun} sections out of place (corrupt file)")));
        }
        next = e.offset.checked_add(e.len).ok_or_else(|| damaged(format!("{noun} sections out of place")))?;
        entries.push(e);
    }
    if next != len {
        return Err(damaged(format!("truncated {noun} ({len} of {next} bytes)")));
    }
    Ok(entries)
}

/// An open sectioned file whose header was checked; every section and part is checked when read.
pub(crate) struct SectionFile {
    file: Box<dyn ReadAt>,
    format: &'static Format,
    entries: Vec<Entry>,
}

impl SectionFile {
    pub(crate) fn open(file: Box<dyn ReadAt>, format: &'static Format) -> Result<SectionFile, HeaderError> {
        let entries = read_header(file.as_ref(), format)?;
        Ok(SectionFile { file, format, entries })
    }

    /// The file's size when opened.
    pub(crate) fn size(&self) -> u64 {
        self.file.size()
    }

    /// Where section `i` lies.
    pub(crate) fn entry(&self, i: usize) -> Entry {
        self.entries[i]
    }

    fn read(&self, i: usize, offset: u64, len: u64) -> Result<Vec<u8>, String> {
        let len = usize::try_from(len).map_err(|_| "section too large".to_string())?;
        let name = self.format.sections[i];
        self.file.read_at(offset, len).map_err(|why| format!("cannot read its {name}: {why}"))
    }

    /// Section `i` whole, checked.
    pub(crate) fn section(&self, i: usize) -> Result<Vec<u8>, String> {
        let e = self.entries[i];
        let bytes = self.read(i, e.offset, e.len)?;
        if blake3::hash(&bytes).as_bytes() != &e.hash {
            return Err(format!("its {} fail their checksum (corrupt file)", self.format.sections[i]));
        }
        Ok(bytes)
    }

    /// A part of section `i` with its own checksum.
    pub(crate) fn part(&self, i: usize, offset: u64, len: u64, hash: &[u8; 32]) -> Result<Vec<u8>, String> {
        let e = self.entries[i];
        let name = self.format.sections[i];
        if offset.checked_add(len).is_none_or(|end| end > e.len) {
            return Err(format!("a part of its {name} lies outside it"));
        }
        let bytes = self.read(i, e.offset + offset, len)?;
        if blake3::hash(&bytes).as_bytes() != hash {
            return Err(format!("a part of its {name} fails its checksum (corrupt file)"));
        }
        Ok(bytes)
    }

    /// Block `b` of section `i`, a section of fixed-width records kept in blocks (see `Blocks`).
    pub(crate) fn block(&self, i: usize, blocks: Blocks, b: usize, hash: &[u8; 32]) -> Result<Vec<u8>, String> {
        let at = (b * blocks.bytes()) as u64;
        let len = self.entries[i].len.saturating_sub(at).min(blocks.bytes() as u64);
        self.part(i, at, len, hash)
    }
}

/// The shape of a section of fixed-width records read in blocks, each block with its own blake3.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blocks {
    pub record: usize,
    pub per_block: usize,
}

impl Blocks {
    /// The bytes of a whole block.
    pub(crate) fn bytes(self) -> usize {
        self.record * self.per_block
    }

    /// The block that holds record `n`.
    pub(crate) fn of(self, n: u64) -> usize {
        (n / self.per_block as u64) as usize
    }

    /// The blake3 of each block of `records` (whole records, back to back).
    pub(crate) fn hashes(self, records: &[u8]) -> Vec<[u8; 32]> {
        records.chunks(self.bytes()).map(|b| *blake3::hash(b).as_bytes()).collect()
    }

    /// Whether a section of `len` bytes is whole records in exactly `blocks` blocks.
    pub(crate) fn fit(self, len: u64, blocks: usize) -> bool {
        len.is_multiple_of(self.record as u64)
            && (len / self.record as u64).div_ceil(self.per_block as u64) == blocks as u64
    }
}
