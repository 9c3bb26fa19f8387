//! A document's record in the shared space: one value, a field of its group's records hash
//! ([`slots`](super::slots)), packed so that the scripts read its state, time, number and
//! writer at fixed places, and so that it takes few bytes (the signature at the bits the
//! index keeps: a byte a value by default).
//!
//! The layout, by byte (from 0): `0` the layout ([`LAYOUT`] as a digit); `1` the state;
//! `2..15` the time it was registered (13 decimal digits, milliseconds by the clock of the
//! Redis server that holds it); `15..35` its number (20 decimal digits, zeros until it has
//! one); `35..43` the fingerprint (little-endian); `43..45` the writer's name's length
//! (big-endian), then the name; the signature (a tag, then its values); then, once
//! rejected, who rejected it (length, id, fingerprint), the distance and the score.

use super::space::LAYOUT;
use crate::error::{Error, Result};
use crate::fingerprint::EMPTY;
use crate::Fingerprint;

/// Where the number starts, and its digits.
const SEQ_AT: usize = 15;
const SEQ_DIGITS: usize = 20;
/// Where the fingerprint, then the writer's name, start.
const FINGERPRINT_AT: usize = SEQ_AT + SEQ_DIGITS;
const NODE_AT: usize = FINGERPRINT_AT + 8;
// The scripts read the writer's name's length at bytes 44 and 45 (1-based).
const _: () = assert!(NODE_AT == 43);

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
    /// The writer that registered it.
    pub(super) node: String,
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

/// A new registration's record from its number on (the claim script puts the layout, the
/// state and the Redis server's time before it).
pub(super) fn registration(
    node: &str,
    fingerprint: Fingerprint,
    signature: Option<&[u32]>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + node.len() + signature.map_or(0, <[u32]>::len));
    out.extend_from_slice(&[b'0'; SEQ_DIGITS]);
    out.extend_from_slice(&fingerprint.bits().to_le_bytes());
    let name = &node.as_bytes()[..node.len().min(u16::MAX as usize)];
    out.extend_from_slice(&(name.len() as u16).to_be_bytes());
    out.extend_from_slice(name);
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

/// `record` (a pending one, as written) with the number `seq`.
pub(super) fn numbered(record: &[u8], seq: u64) -> Vec<u8> {
    let mut out = record.to_vec();
    if out.len() >= SEQ_AT + SEQ_DIGITS {
        out[SEQ_AT..SEQ_AT + SEQ_DIGITS].copy_from_slice(format!("{seq:020}").as_bytes());
    }
    out
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
    let at = std::str::from_utf8(reader.take(13)?).ok()?.parse().ok()?;
    let seq: u64 = std::str::from_utf8(reader.take(SEQ_DIGITS)?)
        .ok()?
        .parse()
        .ok()?;
    let fingerprint = Fingerprint(u64::from_le_bytes(reader.take(8)?.try_into().ok()?));
    let length = reader.u16()?;
    let node = String::from_utf8(reader.take(usize::from(length))?.to_vec()).ok()?;
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
}

/// The bytes of a record as the claim script writes them, at the time `at`: for tests.
#[cfg(test)]
pub(super) fn stamped(registration: &[u8], at: u64) -> Vec<u8> {
    let mut out = format!("{LAYOUT}p{at:013}").into_bytes();
    out.extend_from_slice(registration);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registration_reads_back() {
        let fields = registration("n1", Fingerprint(0xABC), Some(&[1, 0xFF, 0]));
        let bytes = stamped(&fields, 42);
        assert_eq!(bytes.len(), NODE_AT + 2 + 2 + 1 + 2 + 3);
        let record = parse(&bytes).unwrap();
        assert_eq!(
            (record.node.as_str(), record.fingerprint),
            ("n1", Fingerprint(0xABC))
        );
        assert_eq!(record.signature.as_deref(), Some(&[1, 0xFF, 0][..]));
        assert_eq!(
            (record.seq, record.state, record.at),
            (None, State::Pending, 42)
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
            let bytes = stamped(&registration("w", Fingerprint(1), Some(&signature)), 1);
            assert_eq!(parse(&bytes).unwrap().signature, Some(signature));
        }
        let bytes = stamped(&registration("w", Fingerprint(1), None), 1);
        assert_eq!(parse(&bytes).unwrap().signature, None);
        // A byte a value: 128 bytes, not 512.
        let values: Vec<u32> = (0..128).collect();
        assert!(registration("w", Fingerprint(1), Some(&values)).len() < 128 + 40);
    }
}
