//! Bytes to text: UTF-16 with a byte order mark transcoded, a UTF-8 byte order mark dropped,
//! invalid UTF-8 an error or replaced.

use std::borrow::Cow;

/// Whether `head` starts with a UTF-16 byte order mark, and which: `Some(true)` for little
/// endian (what Windows editors call "Unicode"), `Some(false)` for big endian.
pub(super) fn utf16_order(head: &[u8]) -> Option<bool> {
    match head {
        [0xFF, 0xFE, ..] => Some(true),
        [0xFE, 0xFF, ..] => Some(false),
        _ => None,
    }
}

/// `bytes` as UTF-8 when they start with a UTF-16 byte order mark (which is dropped); an
/// error naming the first unpaired surrogate, unless `lossy` replaces it with U+FFFD.
pub(super) fn utf16_to_utf8(bytes: &[u8], lossy: bool) -> Option<Result<Vec<u8>, String>> {
    let little = utf16_order(bytes)?;
    let body = &bytes[2..];
    if body.len() % 2 == 1 && !lossy {
        return Some(Err(format!(
            "UTF-16 text of an odd number of bytes ({}): the last one is half a character",
            bytes.len()
        )));
    }
    let units = body.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    let mut text = String::with_capacity(body.len());
    for (at, decoded) in char::decode_utf16(units).enumerate() {
        match decoded {
            Ok(c) => text.push(c),
            Err(_) if lossy => text.push(char::REPLACEMENT_CHARACTER),
            Err(e) => {
                return Some(Err(format!(
                    "invalid UTF-16: unpaired surrogate {:04X} at byte {} (use --lossy-utf8 \
                     to replace it)",
                    e.unpaired_surrogate(),
                    2 + 2 * at
                )))
            }
        }
    }
    Some(Ok(text.into_bytes()))
}

/// The UTF-8 byte order mark that editors on Windows put at the start of a file: not part of
/// the first record (it would make its JSON line malformed).
pub(super) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Drops a UTF-8 byte order mark at the start of `bytes`.
pub(super) fn strip_bom(bytes: &mut Vec<u8>) {
    if bytes.starts_with(UTF8_BOM) {
        bytes.drain(..UTF8_BOM.len());
    }
}

/// `bytes` as text: an error naming the first invalid byte, unless `lossy` replaces invalid
/// bytes with U+FFFD.
pub(super) fn decode(bytes: Vec<u8>, lossy: bool) -> Result<String, String> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) if lossy => Ok(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        Err(e) => Err(invalid_utf8(e.utf8_error())),
    }
}

/// [`decode`] without taking the bytes: borrowed when they are valid UTF-8.
///
/// Every record is checked so: `simdutf8` checks Chinese text several times faster than the
/// standard library (whose check was a tenth of `fingerprint`'s time on Chinese), and the
/// standard library finds where invalid bytes start only when there are some.
pub(super) fn decode_borrowed(bytes: &[u8], lossy: bool) -> Result<Cow<'_, str>, String> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Ok(Cow::Borrowed(text)),
        Err(_) if lossy => Ok(String::from_utf8_lossy(bytes)),
        Err(_) => Err(invalid_utf8(
            std::str::from_utf8(bytes).expect_err("simdutf8 found invalid UTF-8"),
        )),
    }
}

fn invalid_utf8(error: std::str::Utf8Error) -> String {
    format!(
        "invalid UTF-8 at byte {} (use --lossy-utf8 to replace invalid bytes)",
        error.valid_up_to()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_with_a_byte_order_mark_is_transcoded() {
        let text = "héllo 世界 \u{1F600}";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        for bytes in [le, be] {
            assert_eq!(
                utf16_to_utf8(&bytes, false),
                Some(Ok(text.as_bytes().to_vec()))
            );
        }
        assert_eq!(utf16_to_utf8(b"plain", false), None);
        // An unpaired surrogate: an error, or U+FFFD when lossy.
        let broken = [0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0];
        let error = utf16_to_utf8(&broken, false).unwrap().unwrap_err();
        assert!(
            error.contains("unpaired surrogate D800 at byte 4"),
            "{error}"
        );
        let lossy = utf16_to_utf8(&broken, true).unwrap().unwrap();
        assert_eq!(String::from_utf8(lossy).unwrap(), "a\u{FFFD}b");
        assert!(utf16_to_utf8(&[0xFF, 0xFE, b'a'], false).unwrap().is_err());
    }
}
