//! Standard input and pipes: streamed as they come (JSON lines are records as soon as their
//! line ends), their kind told by their first bytes or by `--stdin-format`.

use std::io::{self, BufRead, BufReader, Read};

use super::bounded::{read_whole, Piped, Whole};
use super::encoding::{utf16_order, utf16_to_utf8, UTF8_BOM};
use super::json_lines::{read_raw_json_lines, JsonLine};
use super::walk::{plain_text, too_large};
use super::{error, RawRecord, ReadOptions, StreamFormat};

/// Where standard input's records say they come from.
const STDIN: &str = "-";

/// Reads standard input, on a thread of its own (see [`Piped`]).
pub(super) fn read_stdin(options: &ReadOptions, emit: &mut dyn FnMut(RawRecord)) {
    let emit = &mut |record: RawRecord| emit(record.read_from_stdin());
    match Piped::spawn(io::stdin(), options.stop.clone()) {
        Ok(piped) => read_stream(
            BufReader::with_capacity(64 << 10, piped),
            STDIN,
            options,
            emit,
        ),
        Err(e) => emit(error(STDIN, format!("cannot read standard input: {e}")).into()),
    }
}

/// Reads a stream whose name says nothing of its kind: UTF-16 with a byte order mark is
/// transcoded (whole: its lines do not end at a byte), then read as
/// [`ReadOptions::stream_format`] says.
pub(super) fn read_stream(
    mut reader: impl BufRead,
    place: &str,
    options: &ReadOptions,
    emit: &mut dyn FnMut(RawRecord),
) {
    let utf16 = match reader.fill_buf() {
        Ok(head) => utf16_order(head).is_some(),
        Err(_) if options.stopped() => return,
        Err(e) => return emit(error(place, format!("cannot read: {e}")).into()),
    };
    if !utf16 {
        return read_utf8(reader, place, options, emit);
    }
    match read_whole(reader, options.max_record_bytes) {
        Ok(Whole::Read(bytes)) => match utf16_to_utf8(&bytes, options.lossy) {
            Some(Ok(utf8)) => read_utf8(io::Cursor::new(utf8), place, options, emit),
            Some(Err(reason)) => emit(error(place, reason).into()),
            None => unreachable!("a UTF-16 byte order mark was seen"),
        },
        Ok(Whole::TooLarge) => emit(too_large(place, None, options).into()),
        Err(_) if options.stopped() => {}
        Err(e) => emit(error(place, format!("cannot read: {e}")).into()),
    }
}

/// Reads a UTF-8 stream as JSON lines or as one document.
fn read_utf8(
    mut reader: impl BufRead,
    place: &str,
    options: &ReadOptions,
    emit: &mut dyn FnMut(RawRecord),
) {
    // The blank bytes before the first record, kept: JSON lines count them as lines, and a
    // plain text keeps them.
    let mut blank = Vec::new();
    let first = loop {
        let head = match reader.fill_buf() {
            Ok(head) => head,
            Err(_) if options.stopped() => return,
            Err(e) => return emit(error(place, format!("cannot read: {e}")).into()),
        };
        let start = if blank.is_empty() && head.starts_with(UTF8_BOM) {
            UTF8_BOM.len()
        } else {
            0
        };
        match head[start..].iter().position(|b| !b.is_ascii_whitespace()) {
            Some(at) => {
                let first = head[start + at];
                blank.extend_from_slice(&head[..start + at]);
                reader.consume(start + at);
                break Some(first);
            }
            None if head.is_empty() => break None,
            None => {
                let used = head.len();
                blank.extend_from_slice(head);
                reader.consume(used);
            }
        }
    };
    if first.is_none() && blank.is_empty() && options.stream_format == StreamFormat::Auto {
        // Not one byte (`/dev/null`, a closed standard input, an empty pipe): no record.
        return;
    }
    let format = match options.stream_format {
        StreamFormat::Auto if first == Some(b'{') => StreamFormat::JsonLines,
        StreamFormat::Auto | StreamFormat::Text => StreamFormat::Text,
        StreamFormat::JsonLines => StreamFormat::JsonLines,
    };
    let reader = io::Cursor::new(blank).chain(reader);
    if format == StreamFormat::JsonLines {
        return read_raw_json_lines(reader, place, options, emit);
    }
    match read_whole(reader, options.max_record_bytes) {
        Ok(Whole::Read(mut bytes)) => {
            if bytes.starts_with(UTF8_BOM) {
                bytes.drain(..UTF8_BOM.len());
            }
            let record_line = (options.stream_format == StreamFormat::Auto)
                .then(|| json_record_line(&bytes))
                .flatten();
            match record_line {
                Some(line) => emit(error(place, json_after_text(line)).into()),
                None => emit(plain_text(bytes, place, options.lossy).into()),
            }
        }
        Ok(Whole::TooLarge) => emit(too_large(place, None, options).into()),
        Err(_) if options.stopped() => {}
        Err(e) => emit(error(place, format!("cannot read: {e}")).into()),
    }
}

/// The number of the first line after the first that is a JSON record (an object with a
/// `text` or `body`), if any.
fn json_record_line(bytes: &[u8]) -> Option<usize> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .skip(1)
        .find(|(_, line)| {
            let line = line.trim_ascii();
            line.starts_with(b"{")
                && serde_json::from_slice::<JsonLine>(line).is_ok_and(|record| record.has_text())
        })
        .map(|(at, _)| at + 1)
}

/// Why a stream read as one document is refused when its line `line` is a JSON record.
fn json_after_text(line: usize) -> String {
    format!(
        "read as one plain-text document (its first non-blank byte is not `{{`), but its line \
         {line} is a JSON record: not indexed, so that its records are not lost inside one \
         document. --stdin-format jsonl reads it as JSON lines (a line that is not a record \
         is an error line); --stdin-format text keeps it one document"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: &[u8], format: StreamFormat) -> Vec<Result<(String, String), String>> {
        let options = ReadOptions {
            stream_format: format,
            max_record_bytes: 64,
            ..ReadOptions::default()
        };
        let mut out = Vec::new();
        read_stream(io::Cursor::new(input.to_vec()), "-", &options, &mut |r| {
            out.push(crate::cli::input::outline(r.parse()));
        });
        out
    }

    #[test]
    fn streams_are_json_lines_by_their_first_byte_or_as_asked() {
        let lines = b"\n  {\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"text\":\"y\"}\n";
        let got = read(lines, StreamFormat::Auto);
        assert_eq!(
            got,
            [Ok(("a".into(), "x".into())), Ok(("b".into(), "y".into()))]
        );
        // A byte order mark and blank lines before the first record.
        let got = read(b"\xEF\xBB\xBF\n{\"text\":\"x\"}\n", StreamFormat::Auto);
        assert_eq!(got, [Ok(("-:2".into(), "x".into()))]);
        let got = read(b"hello\nworld\n", StreamFormat::Auto);
        assert_eq!(got, [Ok(("-".into(), "hello\nworld\n".into()))]);
        // Asked for JSON lines: a first line that is not one is an error line, and the
        // records after it are read.
        let got = read(
            b"title\n{\"id\":\"a\",\"text\":\"x\"}\n",
            StreamFormat::JsonLines,
        );
        assert!(got[0].as_ref().unwrap_err().starts_with("-:1: malformed"));
        assert_eq!(got[1], Ok(("a".into(), "x".into())));
    }

    #[test]
    fn a_stream_without_a_byte_has_no_record() {
        assert!(read(b"", StreamFormat::Auto).is_empty());
        assert!(read(b"", StreamFormat::JsonLines).is_empty());
        // Some bytes, all blank: a document without text, which the reader reports.
        assert_eq!(read(b"\n", StreamFormat::Auto).len(), 1);
    }

    #[test]
    fn a_text_whose_later_lines_are_records_is_refused_not_swallowed() {
        let input = b"title\n{\"id\":\"a\",\"text\":\"x\"}\n";
        let got = read(input, StreamFormat::Auto);
        assert_eq!(got.len(), 1);
        let reason = got[0].as_ref().unwrap_err();
        assert!(reason.contains("line 2 is a JSON record"), "{reason}");
        assert!(reason.contains("--stdin-format jsonl"), "{reason}");
        // Asked for text, it is one document; braces that are no record are text.
        assert_eq!(read(input, StreamFormat::Text).len(), 1);
        assert!(read(input, StreamFormat::Text)[0].is_ok());
        assert!(read(b"fn main()\n{ }\n", StreamFormat::Auto)[0].is_ok());
    }

    #[test]
    fn a_stream_larger_than_a_record_is_an_error_line() {
        let got = read(&[b'a'; 100], StreamFormat::Auto);
        let reason = got[0].as_ref().unwrap_err();
        assert!(
            reason.contains("more than a record may have (64 bytes)"),
            "{reason}"
        );
        // As JSON lines, only the long line is.
        let mut lines = b"{\"text\":\"x\"}\n".to_vec();
        lines.extend(format!("{{\"text\":\"{}\"}}\n", "y".repeat(100)).bytes());
        lines.extend(b"{\"text\":\"z\"}\n");
        let got = read(&lines, StreamFormat::Auto);
        assert_eq!(got.len(), 3);
        assert!(got[1]
            .as_ref()
            .unwrap_err()
            .starts_with("-:2: a line of 111 bytes"));
        assert_eq!(got[2], Ok(("-:3".into(), "z".into())));
    }
}
