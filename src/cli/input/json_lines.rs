//! JSON lines: one record a line (`id`, `text` or `body`, `title`, `url`, `tags`), each line
//! a document or an error that names it.

use std::io::BufRead;

use serde::Deserialize;

use super::bounded::{read_line, size, Line};
use super::encoding::{decode_borrowed, strip_bom};
use super::{error, Document, RawRecord, ReadOptions, Record};

#[derive(Deserialize)]
pub(super) struct JsonLine {
    id: Option<serde_json::Value>,
    text: Option<String>,
    body: Option<String>,
    title: Option<String>,
    url: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
}

impl JsonLine {
    /// True when the line is a record: it has a text.
    pub(super) fn has_text(&self) -> bool {
        self.text.is_some() || self.body.is_some()
    }
}

/// Calls `emit` with every non-blank line of `reader` as a record, `place:LINE`: a line
/// longer than the record size limit is an error line, read to its end but never held
/// whole. Stops early, without a record, when `options` says the run is stopping.
pub fn read_json_lines(
    reader: impl BufRead,
    place: &str,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Record),
) {
    read_raw_json_lines(reader, place, options, &mut |raw| emit(raw.parse()));
}

/// [`read_json_lines`] with each line handed over unparsed, to be parsed by whoever takes
/// it ([`RawRecord::parse`]): parsing costs more than splitting the lines, and can be done
/// on other threads.
pub(super) fn read_raw_json_lines(
    mut reader: impl BufRead,
    place: &str,
    options: &ReadOptions,
    emit: &mut dyn FnMut(RawRecord),
) {
    let mut number = 0usize;
    let mut bytes = Vec::new();
    loop {
        if options.stopped() {
            return;
        }
        let line = read_line(&mut reader, options.max_record_bytes, &mut bytes);
        if options.stopped() {
            return;
        }
        let here = format!("{place}:{}", number + 1);
        match line {
            Ok(Line::End) => return,
            Ok(Line::Read) => {}
            Ok(Line::TooLong(length)) => {
                number += 1;
                emit(
                    error(
                        &here,
                        format!(
                            "a line of {length} bytes, more than a record may have ({}): not \
                             read (--max-record-mb sets the limit)",
                            size(options.max_record_bytes)
                        ),
                    )
                    .into(),
                );
                continue;
            }
            Err(e) => return emit(error(&here, format!("cannot read: {e}")).into()),
        }
        number += 1;
        let mut line = std::mem::take(&mut bytes);
        if number == 1 {
            strip_bom(&mut line);
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            bytes = line;
            continue;
        }
        emit(RawRecord::json_line(line, here, options.lossy));
    }
}

/// One line as a record of id `here` when it has none.
pub(super) fn json_line(bytes: &[u8], here: &str, lossy: bool) -> Result<Document, String> {
    let line = decode_borrowed(bytes, lossy)?;
    // Without its line break, so that a syntax error's column is one of this line.
    let line = line.trim_end_matches(['\n', '\r']);
    let record: JsonLine = match serde_json::from_str(line) {
        Ok(record) => record,
        Err(e) => match lone_surrogate(line) {
            // serde_json's message for it is "unexpected end of hex escape" or about
            // surrogates, without saying how to get past it.
            Some((column, unit)) if !lossy => {
                return Err(format!(
                    "a lone surrogate escape \\u{unit:04X} at column {column}: half of a \
                     UTF-16 pair, not a character (use --lossy-utf8 to replace it with \
                     U+FFFD)"
                ))
            }
            Some(_) => serde_json::from_str(&replace_lone_surrogates(line))
                .map_err(|e| malformed(line, &e))?,
            None => return Err(malformed(line, &e)),
        },
    };
    let id = match record.id {
        None | Some(serde_json::Value::Null) => here.to_owned(),
        // An empty key would make every later empty-id line look "already indexed"
        // (the resume rule) and be dropped: refuse it (found by fuzzing).
        Some(serde_json::Value::String(id)) if id.is_empty() => {
            return Err("`id` is empty (leave it out to get FILE:LINE)".to_owned())
        }
        Some(serde_json::Value::String(id)) => id,
        // Integers only, and only those of 64 bits, which serde reads exactly: a larger one
        // or a fraction goes through a float, and two ids would become one.
        Some(serde_json::Value::Number(id)) if id.is_u64() || id.is_i64() => id.to_string(),
        Some(serde_json::Value::Number(id)) => {
            return Err(format!(
                "`id` {id} is not an integer of 64 bits, which cannot be kept exactly: write \
                 it as a string"
            ))
        }
        Some(other) => return Err(format!("`id` must be a string, not {other}")),
    };
    let text = record
        .text
        .or(record.body)
        .ok_or_else(|| "no `text` or `body` field".to_owned())?;
    Ok(Document {
        id,
        place: here.to_owned(),
        text,
        title: record.title,
        url: record.url,
        tags: record.tags,
        from_stdin: false,
        replaced: Vec::new(),
        replaced_texts: Vec::new(),
    })
}

/// The `\uXXXX` escapes of `line`, each with its byte offset: `(offset, unit)`. An escaped
/// backslash (`\\`) is not the start of one.
fn unicode_escapes(line: &str) -> Vec<(usize, u16)> {
    let bytes = line.as_bytes();
    let mut escapes = Vec::new();
    let mut at = 0;
    while at + 1 < bytes.len() {
        if bytes[at] != b'\\' {
            at += 1;
            continue;
        }
        if bytes[at + 1] == b'u' {
            let unit = line
                .get(at + 2..at + 6)
                .and_then(|hex| u16::from_str_radix(hex, 16).ok());
            if let Some(unit) = unit {
                escapes.push((at, unit));
                at += 6;
                continue;
            }
        }
        at += 2;
    }
    escapes
}

/// The escapes of `line` that are lone surrogates: a high one not followed at once by a low
/// one, or a low one not preceded by a high one.
fn lone_surrogates(line: &str) -> Vec<(usize, u16)> {
    let escapes = unicode_escapes(line);
    let high = |unit: u16| (0xD800..0xDC00).contains(&unit);
    let low = |unit: u16| (0xDC00..0xE000).contains(&unit);
    let mut lone = Vec::new();
    let mut at = 0;
    while at < escapes.len() {
        let (offset, unit) = escapes[at];
        let paired = high(unit)
            && escapes
                .get(at + 1)
                .is_some_and(|&(next, next_unit)| next == offset + 6 && low(next_unit));
        if paired {
            at += 2;
            continue;
        }
        if high(unit) || low(unit) {
            lone.push((offset, unit));
        }
        at += 1;
    }
    lone
}

/// The first lone surrogate escape of `line`: its column (1-based, in characters, as
/// serde_json counts) and its code unit.
fn lone_surrogate(line: &str) -> Option<(usize, u16)> {
    let &(offset, unit) = lone_surrogates(line).first()?;
    Some((line[..offset].chars().count() + 1, unit))
}

/// `line` with every lone surrogate escape replaced by `\uFFFD`.
fn replace_lone_surrogates(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut from = 0;
    for (offset, _) in lone_surrogates(line) {
        out.push_str(&line[from..offset]);
        out.push_str("\\uFFFD");
        from = offset + 6;
    }
    out.push_str(&line[from..]);
    out
}

/// What is wrong with a line that is not a record: for valid JSON of the wrong shape, which
/// field has which type (serde's own message names the type it expected, not the field).
fn malformed(line: &str, error: &serde_json::Error) -> String {
    use serde_json::Value;
    let Ok(value) = serde_json::from_str::<Value>(line) else {
        // serde_json's "expected value at line 1 column 1" does not say what is there.
        if line.starts_with('\u{feff}') {
            return "a byte order mark (U+FEFF) starts the line: only the first line of a \
                    file may have one (it is skipped there); remove it (a file joined from \
                    several, each with its own?)"
                .to_owned();
        }
        return format!("malformed JSON line: {error}");
    };
    let Value::Object(fields) = &value else {
        return format!("not a JSON object: {}", abridged(&value));
    };
    let strings = ["text", "body", "title", "url"];
    for (name, value) in fields {
        let fits = match name.as_str() {
            name if strings.contains(&name) => value.is_string() || value.is_null(),
            "tags" => value
                .as_array()
                .is_some_and(|tags| tags.iter().all(Value::is_string)),
            _ => true,
        };
        if !fits {
            let expected = if name == "tags" {
                "a list of strings"
            } else {
                "a string"
            };
            return format!("`{name}` must be {expected}, not {}", abridged(value));
        }
    }
    format!("malformed JSON line: {error}")
}

/// `value` as JSON, cut after 40 characters.
fn abridged(value: &serde_json::Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;

    fn lines(input: &[u8]) -> Vec<Result<(String, String), String>> {
        lines_with(input, false)
    }

    fn lines_with(input: &[u8], lossy: bool) -> Vec<Result<(String, String), String>> {
        let mut out = Vec::new();
        let options = ReadOptions {
            lossy,
            ..ReadOptions::default()
        };
        read_json_lines(
            io::Cursor::new(input.to_vec()),
            "f.jsonl",
            &options,
            &mut |r| out.push(crate::cli::input::outline(r)),
        );
        out
    }

    #[test]
    fn json_lines_with_and_without_ids() {
        let got =
            lines(b"{\"id\":\"a\",\"text\":\"x\"}\n\n{\"body\":\"y\"}\n{\"id\":7,\"text\":\"z\"}");
        assert_eq!(
            got,
            vec![
                Ok(("a".into(), "x".into())),
                Ok(("f.jsonl:3".into(), "y".into())),
                Ok(("7".into(), "z".into()))
            ]
        );
    }

    /// Numbers beyond 64 bits go through a float in serde: 2^64 and 2^64 + 1 read the same.
    /// They, and fractions, are error lines; integers of 64 bits keep every digit.
    #[test]
    fn numeric_ids_are_exact_or_errors() {
        let got = lines(
            b"{\"id\":18446744073709551615,\"text\":\"a\"}\n\
              {\"id\":-9223372036854775808,\"text\":\"b\"}\n\
              {\"id\":18446744073709551616,\"text\":\"c\"}\n\
              {\"id\":18446744073709551617,\"text\":\"d\"}\n\
              {\"id\":7.5,\"text\":\"e\"}\n",
        );
        assert_eq!(got[0], Ok(("18446744073709551615".into(), "a".into())));
        assert_eq!(got[1], Ok(("-9223372036854775808".into(), "b".into())));
        for (at, line) in got.iter().enumerate().skip(2) {
            let error = line.as_ref().unwrap_err();
            assert!(error.contains("not an integer of 64 bits"), "{at}: {error}");
            assert!(error.starts_with(&format!("f.jsonl:{}", at + 1)), "{error}");
        }
    }

    #[test]
    fn bad_lines_are_reported_with_their_place_and_do_not_stop_the_file() {
        let got = lines(b"{\"id\":\"a\",\"text\":\"x\"\n[1,2]\n{\"id\":\"b\"}\n{\"id\":\"c\",\"text\":\"\xff\"}\n{\"id\":\"d\",\"text\":\"ok\"}\n");
        assert!(got[0]
            .as_ref()
            .unwrap_err()
            .starts_with("f.jsonl:1: malformed JSON line"));
        assert!(got[1]
            .as_ref()
            .unwrap_err()
            .starts_with("f.jsonl:2: not a JSON object"));
        assert!(got[2].as_ref().unwrap_err().contains("no `text` or `body`"));
        assert!(got[3].as_ref().unwrap_err().contains("invalid UTF-8"));
        assert_eq!(got[4], Ok(("d".into(), "ok".into())));
    }

    #[test]
    fn a_field_of_the_wrong_type_is_named() {
        let got = lines(b"{\"id\":\"a\",\"text\":\"x\",\"tags\":\"en\"}\n{\"id\":\"b\",\"text\":\"y\",\"title\":5}\n[1,2,3]\n{\"id\":\"c\",\"text\":\"unterminated\n");
        assert_eq!(
            got[0],
            Err("f.jsonl:1: `tags` must be a list of strings, not \"en\"".to_owned())
        );
        assert_eq!(
            got[1],
            Err("f.jsonl:2: `title` must be a string, not 5".to_owned())
        );
        assert_eq!(
            got[2],
            Err("f.jsonl:3: not a JSON object: [1,2,3]".to_owned())
        );
        let unterminated = got[3].as_ref().unwrap_err();
        assert!(unterminated.contains("line 1 column"), "{unterminated}");
    }

    #[test]
    fn a_byte_order_mark_does_not_cost_the_first_record() {
        let got =
            lines(b"\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"text\":\"y\"}\n");
        assert_eq!(got[0], Ok(("a".into(), "x".into())));
        assert_eq!(got[1], Ok(("b".into(), "y".into())));
    }

    /// Fuzzing regression (fuzz/seeds/json_lines/empty-id): an empty `id` was accepted, and
    /// every later empty-id line of a run was then skipped as "already indexed".
    #[test]
    fn an_empty_id_is_an_error_not_a_key() {
        let got = lines(b"{\"id\":\"\",\"text\":\"x\"}\n{\"id\":\"\",\"text\":\"y\"}\n");
        assert_eq!(got.len(), 2);
        for (line, record) in got.iter().enumerate() {
            let reason = record.as_ref().unwrap_err();
            assert!(
                reason.starts_with(&format!("f.jsonl:{}: `id` is empty", line + 1)),
                "{reason}"
            );
        }
    }

    #[test]
    fn a_lone_surrogate_escape_is_named_or_replaced() {
        let input = b"{\"id\":\"a\",\"text\":\"x\\ud800y\"}\n{\"id\":\"b\",\"text\":\"\\ud83d\\ude00 \\\\ud800\"}\n";
        let got = lines(input);
        let reason = got[0].as_ref().unwrap_err();
        assert!(
            reason.contains("lone surrogate escape \\uD800 at column 20"),
            "{reason}"
        );
        assert!(reason.contains("--lossy-utf8"), "{reason}");
        // A pair, and an escaped backslash before `ud800`, are no lone surrogate.
        assert_eq!(got[1], Ok(("b".into(), "\u{1F600} \\ud800".into())));
        let got = lines_with(input, true);
        assert_eq!(got[0], Ok(("a".into(), "x\u{FFFD}y".into())));
    }
}
