//! The stored form of a MinHash [`Signature`] in the [`SIGNATURE_FIELD`] bytes fast field:
//! 4 bytes per value, little-endian.

use tantivy::columnar::BytesColumn;
use tantivy::DocId;

use super::SIGNATURE_FIELD;
use crate::error::{Error, Result};
use crate::fingerprint::Signature;

/// The bytes stored for `signature`.
pub(crate) fn encode(signature: &Signature) -> Vec<u8> {
    signature
        .values()
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

/// The signature of `hashes` values stored as `bytes`.
///
/// # Errors
/// [`Error::Decode`] when `bytes` is not `4 * hashes` long (a value not written by this
/// crate, or by an index of another signature length).
pub(crate) fn decode(bytes: &[u8], hashes: usize) -> Result<Signature> {
    if bytes.len() != 4 * hashes {
        return Err(Error::Decode {
            what: "signature",
            source: format!(
                "{} bytes in {SIGNATURE_FIELD}, not the {} of {hashes} values",
                bytes.len(),
                4 * hashes
            )
            .into(),
        });
    }
    Ok(Signature::from_values(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect::<Vec<u32>>(),
    ))
}

/// The signature of `doc` in a segment's column of signatures of `hashes` values, if it
/// has one.
///
/// # Errors
/// [`Error::Tantivy`] when the column cannot be read; [`Error::Decode`] when the value is
/// not `4 * hashes` bytes long.
pub(crate) fn read(column: &BytesColumn, doc: DocId, hashes: usize) -> Result<Option<Signature>> {
    read_bytes(column, doc)?
        .map(|bytes| decode(&bytes, hashes))
        .transpose()
}

/// The stored bytes of `doc`'s signature, if it has one.
///
/// # Errors
/// [`Error::Tantivy`] when the column cannot be read.
pub(crate) fn read_bytes(column: &BytesColumn, doc: DocId) -> Result<Option<Vec<u8>>> {
    let Some(ord) = column.ords().first(doc) else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    column
        .ord_to_bytes(ord, &mut bytes)
        .map_err(tantivy::TantivyError::from)?;
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_round_trip_and_lengths_are_checked() {
        let signature = Signature::from_values(vec![1, u32::MAX, 0x0102_0304]);
        let bytes = encode(&signature);
        assert_eq!(bytes[8..], [4, 3, 2, 1], "little-endian");
        assert_eq!(decode(&bytes, 3).unwrap(), signature);
        match decode(&bytes, 2) {
            Err(Error::Decode { what, source }) => {
                assert_eq!(what, "signature");
                assert!(source.to_string().contains("12 bytes"), "{source}");
            }
            other => panic!("{other:?}"),
        }
    }
}
