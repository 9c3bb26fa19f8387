//! A document's record in the shared space: one value, a field of its group's records hash
//! ([`slots`](super::slots)), packed so that the scripts read its state, time, number and
//! writer at fixed places, and so that it takes few bytes (the signature at the bits the
//! index keeps: a byte a value by default).
//!
//! The layout, by byte (from 0): `0` the layout ([`LAYOUT`] as a digit); `1` the state;
//! `2..8` the time it was registered (milliseconds by the clock of the Redis server that
//! holds it, 6 bytes big-endian); `8..14` its number (6 bytes big-endian, zeros until it
//! has one); `14..22` the fingerprint (little-endian); `22..24` the writer's number (its
//! name's in the space's table of writers, big-endian); the id's length (2 bytes), then
//! the id (lists name a
//! document by its [handle](super::slots::Handle), the record by its id); the signature (a
//! tag, then its values); then, once rejected, who rejected it (length, id, fingerprint),
//! the distance and the score.

use super::space::LAYOUT;
use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;
use crate::fingerprint::EMPTY;

/// Where the time and the number start, and their bytes.
const TIME_AT: usize = 2;
const SEQ_AT: usize = 8;
const WIDTH: usize = 6;
/// Where the fingerprint, then the writer's number, start.
const FINGERPRINT_AT: usize = SEQ_AT + WIDTH;
const NODE_AT: usize = FINGERPRINT_AT + 8;
// The scripts read the time at bytes 3 to 8, the number at 9 to 14 and the writer's
// number at 23 and 24 (1-based).
const _: () = assert!(TIME_AT + WIDTH == SEQ_AT && NODE_AT == 22);

/// The largest number or time a record holds (6 bytes).
const MAX_WIDE: u64 = (1 << 48) - 1;

/// A signature's tag: none; a byte a value (every value below 256, as the index keeps
/// them by default); every value [`EMPTY`] (an empty text's); four bytes a value.
const NO_SIGNATURE: u8 = 0;
const BYTES: u8 = 1;
const ALL_EMPTY: u8 = 2;
const WORDS: u8 = 4;

/// Where a document stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// Registered, not decided yet (or its writer died: see the lease).
    Pending,
    /// Admitted: near-duplicates numbered after it are rejected.
    Admitted,
    /// Rejected as a near-duplicate of an admitted document numbered before it.
    Rejected,
    /// Given up by its writer (the add failed): as if it had never come.
    Aborted,
}

impl State {
    /// The state's byte in a record (the scripts read it).
    pub(super) fn code(self) -> u8 {
        match self {
            State::Pending => b'p',
            State::Admitted => b'a',
            State::Rejected => b'r',
            State::Aborted => b'x',
        }
    }

    fn of_code(code: u8) -> Option<State> {
        Some(match code {
            b'p' => State::Pending,
            b'a' => State::Admitted,
            b'r' => State::Rejected,
            b'x' => State::Aborted,
            _ => return None,
        })
    }
}

/// A document's record as read back.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Record {
    /// The writer that registered it (its number in the space).
    pub(super) node: u16,
    /// The document's id.
    pub(super) id: String,
    pub(super) fingerprint: Fingerprint,
    pub(super) signature: Option<Vec<u32>>,
    /// Its number from the cluster-wide counter; `None` until its writer wrote it.
    pub(super) seq: Option<u64>,
    pub(super) state: State,
    /// When it was registered (milliseconds since the Unix epoch, by the clock of the Redis
    /// server that holds it: never a writer's).
    pub(super) at: u64,
    /// Who rejected it, with what fingerprint, at what distance and with what score.
    pub(super) by: Option<String>,
    pub(super) by_fingerprint: Option<Fingerprint>,
    pub(super) distance: Option<u32>,
    pub(super) similarity: Option<f64>,
}

/// A new registration's record of `id` from its number on (the claim script puts the
/// layout, the state and the Redis server's time before it).
pub(super) fn registration(
    id: &str,
    node: u16,
    fingerprint: Fingerprint,
    signature: Option<&[u32]>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 + id.len() + signature.map_or(0, <[u32]>::len));
    out.extend_from_slice(&[0; WIDTH]);
    out.extend_from_slice(&fingerprint.bits().to_le_bytes());
    out.extend_from_slice(&node.to_be_bytes());
    let id = &id.as_bytes()[..id.len().min(u16::MAX as usize)];
    out.extend_from_slice(&(id.len() as u16).to_be_bytes());
    out.extend_from_slice(id);
    match signature {
        None => out.push(NO_SIGNATURE),
        Some(values) => {
            let count = u16::try_from(values.len()).unwrap_or(u16::MAX);
            let values = &values[..usize::from(count)];
            if values.iter().all(|&v| v == EMPTY) {
                out.push(ALL_EMPTY);
                out.extend_from_slice(&count.to_be_bytes());
            } else if values.iter().all(|&v| v < 256) {
                out.push(BYTES);
                out.extend_from_slice(&count.to_be_bytes());
                out.extend(values.iter().map(|&v| v as u8));
            } else {
                out.push(WORDS);
                out.extend_from_slice(&count.to_be_bytes());
                out.extend(values.iter().flat_map(|v| v.to_le_bytes()));
            }
        }
    }
    out
}

/// `record` (a pending one, as written) with the number `seq` (at most 2^48 - 1: a
/// counter that reaches it is far beyond any space's size).
pub(super) fn numbered(record: &[u8], seq: u64) -> Vec<u8> {
    let mut out = record.to_vec();
    if out.len() >= SEQ_AT + WIDTH {
        out[SEQ_AT..SEQ_AT + WIDTH].copy_from_slice(&wide(seq.min(MAX_WIDE)));
    }
    out
}

/// `value` in 6 bytes, big-endian.
fn wide(value: u64) -> [u8; WIDTH] {
    let bytes = value.to_be_bytes();
    let mut out = [0; WIDTH];
    out.copy_from_slice(&bytes[8 - WIDTH..]);
    out
}

/// The id in the record `bytes`; `None` when they are too short to hold one.
pub(super) fn id_of(bytes: &[u8]) -> Option<&[u8]> {
    let mut reader = Reader { bytes, at: NODE_AT };
    reader.u16()?;
    let length = reader.u16()?;
    reader.take(usize::from(length))
}

/// `record` (a pending, numbered one) in `state`, with what rejected it when it was.
pub(super) fn decided(record: &[u8], by: Option<(&str, Fingerprint, u32, Option<f64>)>) -> Vec<u8> {
    let mut out = with_state(
        record,
        if by.is_some() {
            State::Rejected
        } else {
            State::Admitted
        },
    );
    if let Some((id, fingerprint, distance, similarity)) = by {
        let id = &id.as_bytes()[..id.len().min(u16::MAX as usize)];
        out.extend_from_slice(&(id.len() as u16).to_be_bytes());
        out.extend_from_slice(id);
        out.extend_from_slice(&fingerprint.bits().to_le_bytes());
        out.extend_from_slice(&(distance.min(u32::from(u16::MAX)) as u16).to_be_bytes());
        match similarity {
            Some(similarity) => {
                out.push(1);
                out.extend_from_slice(&similarity.to_le_bytes());
            }
            None => out.push(0),
        }
    }
    out
}

/// `record` with its state byte set to `state`, the rest as it is.
pub(super) fn with_state(record: &[u8], state: State) -> Vec<u8> {
    let mut out = record.to_vec();
    if out.len() > 1 {
        out[1] = state.code();
    }
    out
}

/// The record of `bytes`; `None` when they are not one of this layout.
pub(super) fn parse(bytes: &[u8]) -> Option<Record> {
    let mut reader = Reader { bytes, at: 0 };
    if reader.take(1)? != LAYOUT.to_string().as_bytes() {
        return None;
    }
    let state = State::of_code(reader.take(1)?[0])?;
    let at = reader.wide()?;
    let seq = reader.wide()?;
    let fingerprint = Fingerprint(u64::from_le_bytes(reader.take(8)?.try_into().ok()?));
    let node = reader.u16()?;
    let length = reader.u16()?;
    let id = String::from_utf8(reader.take(usize::from(length))?.to_vec()).ok()?;
    let signature = match reader.take(1)?[0] {
        NO_SIGNATURE => None,
        BYTES => {
            let count = reader.u16()?;
            Some(
                reader
                    .take(usize::from(count))?
                    .iter()
                    .map(|&v| u32::from(v))
                    .collect(),
            )
        }
        ALL_EMPTY => Some(vec![EMPTY; usize::from(reader.u16()?)]),
        WORDS => {
            let count = usize::from(reader.u16()?);
            let bytes = reader.take(4 * count)?;
            Some(
                (bytes.chunks_exact(4))
                    .map(|v| u32::from_le_bytes([v[0], v[1], v[2], v[3]]))
                    .collect(),
            )
        }
        _ => return None,
    };
    let mut record = Record {
        node,
        id,
        fingerprint,
        signature,
        seq: (seq > 0).then_some(seq),
        state,
        at,
        by: None,
        by_fingerprint: None,
        distance: None,
        similarity: None,
    };
    if reader.at < bytes.len() {
        let length = reader.u16()?;
        record.by = Some(String::from_utf8(reader.take(usize::from(length))?.to_vec()).ok()?);
        record.by_fingerprint = Some(Fingerprint(u64::from_le_bytes(
            reader.take(8)?.try_into().ok()?,
        )));
        record.distance = Some(u32::from(reader.u16()?));
        record.similarity = match reader.take(1)?[0] {
            0 => None,
            _ => Some(f64::from_le_bytes(reader.take(8)?.try_into().ok()?)),
        };
    }
    (reader.at == bytes.len()).then_some(record)
}

/// The record of `id` read as `bytes`.
///
/// # Errors
/// [`Error::Decode`] when they do not make a record of this layout.
pub(super) fn read(id: &str, bytes: &[u8]) -> Result<Record> {
    parse(bytes).ok_or_else(|| Error::Decode {
        what: "a record of the shared index",
        source: format!("{id}: {} bytes that do not make a record", bytes.len()).into(),
    })
}

/// Bytes read in order.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let taken = self.bytes.get(self.at..self.at + n)?;
        self.at += n;
        Some(taken)
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }

    /// 6 bytes, big-endian.
    fn wide(&mut self) -> Option<u64> {
        let mut bytes = [0; 8];
        bytes[8 - WIDTH..].copy_from_slice(self.take(WIDTH)?);
        Some(u64::from_be_bytes(bytes))
    }
}

/// The bytes of a record as the claim script writes them, at the time `at`: for tests.
#[cfg(test)]
pub(super) fn stamped(registration: &[u8], at: u64) -> Vec<u8> {
    let mut out = format!("{LAYOUT}p").into_bytes();
    out.extend_from_slice(&wide(at));
    out.extend_from_slice(registration);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registration_reads_back() {
        let fields = registration("doc", 258, Fingerprint(0xABC), Some(&[1, 0xFF, 0]));
        let bytes = stamped(&fields, 1_795_797_563_123);
        assert_eq!(bytes.len(), NODE_AT + 2 + 2 + 3 + 1 + 2 + 3);
        assert_eq!(id_of(&bytes), Some(&b"doc"[..]));
        let record = parse(&bytes).unwrap();
        assert_eq!(
            (record.node, record.id.as_str(), record.fingerprint),
            (258, "doc", Fingerprint(0xABC))
        );
        assert_eq!(record.signature.as_deref(), Some(&[1, 0xFF, 0][..]));
        assert_eq!(
            (record.seq, record.state, record.at),
            (None, State::Pending, 1_795_797_563_123)
        );
        let bytes = numbered(&bytes, 7);
        let admitted = parse(&decided(&bytes, None)).unwrap();
        assert_eq!((admitted.seq, admitted.state), (Some(7), State::Admitted));
        let rejected = decided(&bytes, Some(("other", Fingerprint(9), 2, Some(0.75))));
        let rejected = parse(&rejected).unwrap();
        assert_eq!(rejected.state, State::Rejected);
        assert_eq!(
            (
                rejected.by.as_deref(),
                rejected.by_fingerprint,
                rejected.distance,
                rejected.similarity
            ),
            (Some("other"), Some(Fingerprint(9)), Some(2), Some(0.75))
        );
        let aborted = parse(&with_state(&numbered(&bytes, 8), State::Aborted)).unwrap();
        assert_eq!((aborted.seq, aborted.state), (Some(8), State::Aborted));
        let far = parse(&numbered(&bytes, MAX_WIDE)).unwrap();
        assert_eq!(far.seq, Some(MAX_WIDE));
        assert_eq!(parse(&bytes[..bytes.len() - 1]), None);
        assert_eq!(parse(b""), None);
        assert_eq!(
            parse(&bytes.iter().skip(1).copied().collect::<Vec<_>>()),
            None
        );
    }

    #[test]
    fn signatures_keep_their_values() {
        for signature in [
            vec![EMPTY; 128],
            (0..128).collect(),
            vec![0x1234_5678, EMPTY, 3],
        ] {
            let bytes = stamped(&registration("d", 1, Fingerprint(1), Some(&signature)), 1);
            assert_eq!(parse(&bytes).unwrap().signature, Some(signature));
        }
        let bytes = stamped(&registration("d", 1, Fingerprint(1), None), 1);
        assert_eq!(parse(&bytes).unwrap().signature, None);
        // A byte a value: 128 bytes, not 512.
        let values: Vec<u32> = (0..128).collect();
        assert!(registration("d", 1, Fingerprint(1), Some(&values)).len() < 128 + 30);
    }
}
