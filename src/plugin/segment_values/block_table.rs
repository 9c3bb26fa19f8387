//! One pigeonhole block table of a segment's file, its long runs re-bucketed.
//!
//! ```text
//! directory   (2^bits + 1) × u32 LE: entry s is the first entry whose top bits are s or more
//! entries     references × (u64 rotated fingerprint, u32 document), sorted
//! children    u64 LE: their bytes (this word included), then u32 count, u32 0, then a header a child
//!             (u32 block value, u32 first entry, u32 entries, u32 0, u64 offset),
//!             by block value, then each child: a sub-table a sub-block, each
//!             (2^bits + 1) × u32 directory, then entries × (u32 window, u32 entry index)
//! ```
//!
//! A fingerprint is rotated so that the table's block is its top bits. SimHash bits are far
//! from uniform (on news text a bit is 0.24 from even on average), so a block value can
//! hold thousands of a segment's references, which every query of that value would scan.
//! A run of more than [`CHILD_MIN`] entries gets a *child*: its entries agree with the
//! query on the block, so the query's differing bits all lie in the other bits, split into
//! `distance + 1` sub-blocks, and a sub-table a sub-block finds each match in a short run
//! (the re-bucketing of the in-memory tables, one level deep). A child's entry is the top
//! 32 bits of the value rotated so that its sub-block leads (whose distance to the query's
//! bounds the full one from below) and the index of the full entry in the run.

use std::io::{self, Write};

use tantivy::DocId;

use crate::error::{Error, Result};
use crate::lookup::split_bits;

/// Runs longer than this get a child.
#[cfg(not(test))]
const CHILD_MIN: usize = 64;
#[cfg(test)]
const CHILD_MIN: usize = 4;

/// Directories have at most 2^24 slots (64 MiB), whatever the segment's size.
const MAX_DIRECTORY_BITS: u32 = 24;

/// Bytes of an entry, of a child's entry, and of a child's header.
const ENTRY: usize = 12;
const CHILD_ENTRY: usize = 8;
const CHILD_HEADER: usize = 24;

/// The slots of a directory over `entries` keys of up to `width` bits: about two entries a
/// slot.
pub(super) fn directory_bits(entries: usize, width: u32) -> u32 {
    (usize::BITS - entries.leading_zeros())
        .saturating_sub(1)
        .min(width)
        .min(MAX_DIRECTORY_BITS)
}

/// The directory of sorted `keys` (each below `2^bits`): entry `s` is the first key's index
/// at or above `s`.
pub(super) fn write_directory(
    keys: impl Iterator<Item = u64>,
    bits: u32,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut slot = 0u64;
    let mut at = 0u32;
    for key in keys {
        while slot <= key {
            out.write_all(&at.to_le_bytes())?;
            slot += 1;
        }
        at += 1;
    }
    while slot <= 1 << bits {
        out.write_all(&at.to_le_bytes())?;
        slot += 1;
    }
    Ok(())
}

/// The bytes of a directory of `2^bits` slots: a `u32` a slot and one past the last.
#[inline]
pub(super) fn directory_len(bits: u32) -> usize {
    4 * ((1 << bits) + 1)
}

/// The entries of directory slot `slot` of the directory at `at`.
#[inline]
pub(super) fn directory_range(bytes: &[u8], at: usize, slot: u64) -> (usize, usize) {
    (
        word(bytes, at + 4 * slot as usize),
        word(bytes, at + 4 * slot as usize + 4),
    )
}

#[inline]
fn word(bytes: &[u8], at: usize) -> usize {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize
}

#[inline]
fn long(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// The top `bits` of `value`.
#[inline]
pub(super) fn top(value: u64, bits: u32) -> u64 {
    if bits == 0 {
        0
    } else {
        value >> (64 - bits)
    }
}

/// The bits of a block of `(lowest bit, width)`.
pub(super) fn block_mask((low, width): (u32, u32)) -> u64 {
    if width == 64 {
        u64::MAX
    } else {
        ((1u64 << width) - 1) << low
    }
}

/// The rotation that makes a block of `(lowest bit, width)` the top bits.
fn rotation((low, width): (u32, u32)) -> u32 {
    (low + width) % 64
}

/// A table's block, and the sub-blocks of its children: the bits of a rotated value below
/// the block, in `distance + 1` contiguous parts.
#[derive(Clone, Debug)]
struct Layout {
    block: (u32, u32),
    rotate: u32,
    subs: Vec<(u32, u32)>,
}

impl Layout {
    fn new(block: (u32, u32), distance: u32) -> Layout {
        let below = block_mask((0, 64 - block.1));
        let subs = split_bits(below, distance + 1)
            .into_iter()
            .filter(|&mask| mask != 0)
            .map(|mask| (mask.trailing_zeros(), mask.count_ones()))
            .collect();
        Layout {
            block,
            rotate: rotation(block),
            subs,
        }
    }
}

/// Writes the block table of `block` over `references` (fingerprint, document) for
/// queries within `distance`; `entries` is scratch space.
pub(super) fn write_block_table(
    (block, distance): ((u32, u32), u32),
    references: &[(u64, DocId)],
    entries: &mut Vec<(u64, DocId)>,
    out: &mut impl Write,
) -> io::Result<()> {
    let layout = Layout::new(block, distance);
    entries.clear();
    entries.extend(
        (references.iter())
            .map(|&(fingerprint, doc)| (fingerprint.rotate_right(layout.rotate), doc)),
    );
    entries.sort_unstable();
    let bits = directory_bits(entries.len(), block.1);
    write_directory(entries.iter().map(|e| top(e.0, bits)), bits, out)?;
    for &(rotated, doc) in entries.iter() {
        out.write_all(&rotated.to_le_bytes())?;
        out.write_all(&doc.to_le_bytes())?;
    }
    // The runs of one block value longer than CHILD_MIN.
    let mut runs: Vec<(u64, usize, usize)> = Vec::new();
    let mut start = 0;
    while start < entries.len() {
        let value = top(entries[start].0, block.1);
        let end = start + entries[start..].partition_point(|e| top(e.0, block.1) == value);
        // A block of more than 32 bits (distance 0 or 1) has few long runs but of exact
        // copies, which no sub-block separates.
        if end - start > CHILD_MIN && block.1 <= 32 && !layout.subs.is_empty() {
            runs.push((value, start, end - start));
        }
        start = end;
    }
    let child_bytes = |len: usize| -> usize {
        (layout.subs.iter())
            .map(|&(_, width)| 4 * ((1 << directory_bits(len, width)) + 1) + CHILD_ENTRY * len)
            .sum()
    };
    let payload: usize = runs.iter().map(|&(_, _, len)| child_bytes(len)).sum();
    let total = 16 + CHILD_HEADER * runs.len() + payload;
    out.write_all(&(total as u64).to_le_bytes())?;
    out.write_all(&(runs.len() as u32).to_le_bytes())?;
    out.write_all(&0u32.to_le_bytes())?;
    let mut offset = 0usize;
    for &(value, first, len) in &runs {
        for word in [value as u32, first as u32, len as u32, 0] {
            out.write_all(&word.to_le_bytes())?;
        }
        out.write_all(&(offset as u64).to_le_bytes())?;
        offset += child_bytes(len);
    }
    let mut windows: Vec<(u32, u32)> = Vec::new();
    for &(_, first, len) in &runs {
        for &(low, width) in &layout.subs {
            let rotate = rotation((low, width));
            windows.clear();
            windows.extend(
                (entries[first..first + len].iter().enumerate())
                    .map(|(i, e)| ((e.0.rotate_right(rotate) >> 32) as u32, i as u32)),
            );
            windows.sort_unstable();
            let bits = directory_bits(len, width);
            write_directory(
                windows.iter().map(|w| top(u64::from(w.0) << 32, bits)),
                bits,
                out,
            )?;
            for &(window, index) in &windows {
                out.write_all(&window.to_le_bytes())?;
                out.write_all(&index.to_le_bytes())?;
            }
        }
    }
    Ok(())
}

/// A block table in a file.
#[derive(Clone, Debug)]
pub(super) struct BlockTable {
    layout: Layout,
    bits: u32,
    directory: usize,
    entries: usize,
    /// The block value of each child, sorted: searched apart from the children, in one
    /// run of memory.
    values: Vec<u32>,
    /// Each child's first entry, entries, and where each sub-table's directory starts.
    children: Vec<Child>,
}

#[derive(Clone, Debug)]
struct Child {
    first: usize,
    len: usize,
    subs: Vec<(u32, usize)>,
}

/// The entries of one table that a query reads: a run of the table's, or of a sub-table of
/// a child (byte offsets in the file).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockRun {
    table: usize,
    /// The child and sub-block, for a child's run.
    child: Option<(usize, usize)>,
    start: usize,
    end: usize,
}

impl BlockRun {
    /// The number of its table in the file.
    pub(super) fn table(self) -> usize {
        self.table
    }
}

impl BlockTable {
    /// The table of `block` starting at `at` in `bytes`, of `references` entries, and where
    /// it ends.
    ///
    /// # Errors
    /// [`Error::Decode`] when its children do not fit in the file.
    pub(super) fn read(
        bytes: &[u8],
        (block, distance): ((u32, u32), u32),
        references: usize,
        at: usize,
    ) -> Result<(BlockTable, usize)> {
        let layout = Layout::new(block, distance);
        let bits = directory_bits(references, block.1);
        let entries = at + directory_len(bits);
        let children_at = entries + ENTRY * references;
        let damaged = |what: &str| Error::Decode {
            what: "a segment's .dedup file",
            source: format!("its block table's {what} do not fit in the file").into(),
        };
        if bytes.len() < children_at + 16 {
            return Err(damaged("entries"));
        }
        let total = long(bytes, children_at) as usize;
        let count = word(bytes, children_at + 8);
        let end = children_at
            .checked_add(total)
            .ok_or_else(|| damaged("children"))?;
        let payload = children_at + 16 + CHILD_HEADER * count;
        if end > bytes.len() || payload > end {
            return Err(damaged("children"));
        }
        let mut children = Vec::with_capacity(count);
        let mut values = Vec::with_capacity(count);
        for i in 0..count {
            let header = children_at + 16 + CHILD_HEADER * i;
            let (value, first, len) = (
                word(bytes, header) as u32,
                word(bytes, header + 4),
                word(bytes, header + 8),
            );
            let mut sub_at = payload + long(bytes, header + 16) as usize;
            let mut subs = Vec::with_capacity(layout.subs.len());
            for &(_, width) in &layout.subs {
                let sub_bits = directory_bits(len, width);
                subs.push((sub_bits, sub_at));
                sub_at += 4 * ((1 << sub_bits) + 1) + CHILD_ENTRY * len;
            }
            if first + len > references || sub_at > end {
                return Err(damaged("children"));
            }
            if values.last().is_some_and(|&last| last >= value) {
                return Err(damaged("children's values"));
            }
            values.push(value);
            children.push(Child { first, len, subs });
        }
        let table = BlockTable {
            layout,
            bits,
            directory: at,
            entries,
            values,
            children,
        };
        Ok((table, end))
    }

    /// The block's bits.
    pub(super) fn mask(&self) -> u64 {
        block_mask(self.layout.block)
    }

    /// Appends the runs of this table (number `table` of its file) that `query` reads.
    pub(super) fn runs(&self, bytes: &[u8], table: usize, query: u64, out: &mut Vec<BlockRun>) {
        let rotated = query.rotate_right(self.layout.rotate);
        let value = top(rotated, self.layout.block.1) as u32;
        if let Ok(child) = self.values.binary_search(&value) {
            let found = &self.children[child];
            for (sub, (&(low, width), &(bits, at))) in
                self.layout.subs.iter().zip(&found.subs).enumerate()
            {
                let window = rotated.rotate_right(rotation((low, width))) >> 32;
                let (start, end) = directory_range(bytes, at, top(window << 32, bits));
                let entries = at + directory_len(bits);
                out.push(BlockRun {
                    table,
                    child: Some((child, sub)),
                    start: entries + start * CHILD_ENTRY,
                    end: entries + end * CHILD_ENTRY,
                });
            }
            return;
        }
        let (start, end) = directory_range(bytes, self.directory, top(rotated, self.bits));
        out.push(BlockRun {
            table,
            child: None,
            start: self.entries + start * ENTRY,
            end: self.entries + end * ENTRY,
        });
    }

    /// Calls `found(document, distance)` for each entry of `run` within `distance` of
    /// `query` that agrees with it on no block of `earlier` (the blocks of the file's
    /// tables before this one) nor, in a child, on no earlier sub-block.
    pub(super) fn scan(
        &self,
        bytes: &[u8],
        run: BlockRun,
        (query, distance): (u64, u32),
        earlier: &[u64],
        mut found: impl FnMut(DocId, u32),
    ) {
        let rotated = query.rotate_right(self.layout.rotate);
        let width = self.layout.block.1;
        // Reported by the table of the first block it agrees on only.
        let first = |differ: u64| {
            let original = differ.rotate_left(self.layout.rotate);
            earlier.iter().all(|&mask| original & mask != 0)
        };
        let Some((child, sub)) = run.child else {
            for e in (run.start..run.end).step_by(ENTRY) {
                let differ = long(bytes, e) ^ rotated;
                // The run of a directory slot may hold other values of the block.
                if top(differ, width) != 0 {
                    continue;
                }
                let d = differ.count_ones();
                if d <= distance && first(differ) {
                    found(word(bytes, e + 8) as DocId, d);
                }
            }
            return;
        };
        let child = &self.children[child];
        let (low, sub_width) = self.layout.subs[sub];
        let window = (rotated.rotate_right(rotation((low, sub_width))) >> 32) as u32;
        let earlier_subs = &self.layout.subs[..sub];
        for e in (run.start..run.end).step_by(CHILD_ENTRY) {
            let window_differ = word(bytes, e) as u32 ^ window;
            if window_differ >> (32 - sub_width) != 0 || window_differ.count_ones() > distance {
                continue;
            }
            let index = word(bytes, e + 4);
            if index >= child.len {
                continue;
            }
            let entry = self.entries + (child.first + index) * ENTRY;
            let differ = long(bytes, entry) ^ rotated;
            let d = differ.count_ones();
            let first_sub = (earlier_subs.iter()).all(|&sub| differ & block_mask(sub) != 0);
            if d <= distance && first_sub && first(differ) {
                found(word(bytes, entry + 8) as DocId, d);
            }
        }
    }

    /// The first word of `run` (none for an empty one): read ahead of a scan.
    #[inline]
    pub(super) fn first_word(bytes: &[u8], run: BlockRun) -> u64 {
        match run.start < run.end {
            true => u64::from(word(bytes, run.start) as u32),
            false => 0,
        }
    }

    /// The number of children.
    #[cfg(test)]
    pub(super) fn children(&self) -> usize {
        self.children.len()
    }
}
