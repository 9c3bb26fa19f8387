//! A prepared document's values as the bytes of [`VALUES_FIELD`](super::VALUES_FIELD):
//! a tag (bit 0: a fingerprint follows, bit 1: a signature follows), the fingerprint as
//! u64 LE, the signature in its segment shape.

use super::SignatureShape;
use crate::fingerprint::Fingerprint;

const HAS_FINGERPRINT: u8 = 1;
const HAS_SIGNATURE: u8 = 2;

/// The field bytes of a fingerprint and a signature's values.
pub(crate) fn encode_values(
    fingerprint: Option<Fingerprint>,
    signature: Option<&[u32]>,
    shape: SignatureShape,
) -> Vec<u8> {
    let signature = signature.filter(|values| shape.values > 0 && values.len() == shape.values);
    let mut bytes = Vec::with_capacity(9 + shape.values * shape.bytes);
    let mut tag = 0;
    if fingerprint.is_some() {
        tag |= HAS_FINGERPRINT;
    }
    if signature.is_some() {
        tag |= HAS_SIGNATURE;
    }
    bytes.push(tag);
    if let Some(fingerprint) = fingerprint {
        bytes.extend(fingerprint.bits().to_le_bytes());
    }
    if let Some(values) = signature {
        shape.encode(values, &mut bytes);
    }
    bytes
}

/// The fingerprint and the signature's stored bytes of field bytes; `None` when the bytes
/// are not of this shape.
pub(crate) fn decode_values(
    bytes: &[u8],
    shape: SignatureShape,
) -> Option<(Option<u64>, Option<&[u8]>)> {
    let (&tag, mut rest) = bytes.split_first()?;
    let fingerprint = if tag & HAS_FINGERPRINT != 0 {
        let (head, tail) = rest.split_first_chunk::<8>()?;
        rest = tail;
        Some(u64::from_le_bytes(*head))
    } else {
        None
    };
    // What follows the fingerprint is the whole signature, or nothing.
    let signed = tag & HAS_SIGNATURE != 0;
    let expected = if signed {
        shape.values * shape.bytes
    } else {
        0
    };
    if rest.len() != expected {
        return None;
    }
    Some((fingerprint, signed.then_some(rest)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        let shape = SignatureShape {
            values: 3,
            bytes: 1,
        };
        let bytes = encode_values(Some(Fingerprint(7)), Some(&[1, 2, 3]), shape);
        assert_eq!(
            decode_values(&bytes, shape),
            Some((Some(7), Some(&[1u8, 2, 3][..])))
        );
        let bytes = encode_values(None, None, shape);
        assert_eq!(decode_values(&bytes, shape), Some((None, None)));
        let bytes = encode_values(Some(Fingerprint(7)), None, shape);
        assert_eq!(decode_values(&bytes, shape), Some((Some(7), None)));
        assert_eq!(decode_values(&bytes[..5], shape), None);
        assert_eq!(decode_values(&[], shape), None);
    }
}
