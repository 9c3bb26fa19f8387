//! Lines read with a bound on their length: a report or an input given as `/dev/zero`, or
//! a file of one huge line, must not be read into memory whole.

#[cfg(test)]
use std::io::Read as _;
use std::io::{self, BufRead};

/// The longest line read: an ingest report's or input's line is far shorter (`ingest`
/// refuses records over 16 MiB by default).
pub(crate) const MAX_LINE_BYTES: usize = 16 << 20;

/// What one read gave.
pub(crate) enum Line {
    /// The end of the input.
    End,
    /// A line (in the caller's buffer), and the bytes it took with its newline.
    Read(u64),
    /// A line over the bound: read no further (an endless one, `/dev/zero`, has no end to
    /// skip to), nothing of it kept; the reader is left inside it.
    TooLong,
}

/// Reads the next line of `reader` into `line` (cleared first, the newline kept), holding
/// at most `max` bytes of it.
pub(crate) fn read_line(
    reader: &mut impl BufRead,
    max: usize,
    line: &mut Vec<u8>,
) -> io::Result<Line> {
    line.clear();
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            break;
        }
        let (chunk, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (&buffer[..=at], true),
            None => (buffer, false),
        };
        if line.len() + chunk.len() > max {
            line.clear();
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(chunk);
        let length = chunk.len();
        reader.consume(length);
        if done {
            break;
        }
    }
    Ok(match line.len() {
        0 => Line::End,
        n => Line::Read(n as u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_over_the_bound_stops_the_reading_and_keeps_nothing() {
        let input = b"short\nlast".to_vec();
        let mut reader = io::BufReader::with_capacity(4, &input[..]);
        let mut line = Vec::new();
        assert!(matches!(
            read_line(&mut reader, 10, &mut line).unwrap(),
            Line::Read(6)
        ));
        assert_eq!(line, b"short\n");
        assert!(matches!(
            read_line(&mut reader, 10, &mut line).unwrap(),
            Line::Read(4)
        ));
        assert!(matches!(
            read_line(&mut reader, 10, &mut line).unwrap(),
            Line::End
        ));
        let endless = std::io::repeat(0).take(1 << 30);
        let mut reader = io::BufReader::new(endless);
        assert!(matches!(
            read_line(&mut reader, 1 << 20, &mut line).unwrap(),
            Line::TooLong
        ));
        assert!(line.is_empty());
    }
}
