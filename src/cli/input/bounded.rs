//! Reading with bounded memory: a line or a whole input is read up to the record size limit
//! and no further, and a pipe is read on a thread of its own, so that an idle pipe does not
//! keep an interrupted run from stopping.

use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

/// How a line read by [`read_line`] ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line {
    /// The input had no byte left.
    End,
    /// A line within the limit, in the buffer with its line break (the last line may have
    /// none).
    Read,
    /// A line longer than the limit, of this many bytes (its line break left out): read to
    /// its end and dropped, the buffer holding its first bytes only.
    TooLong(u64),
}

/// Reads one line of at most `limit` bytes (its line break not counted) into `out`,
/// holding at most `limit + 1` bytes of it whatever its length.
pub(super) fn read_line(
    reader: &mut impl BufRead,
    limit: usize,
    out: &mut Vec<u8>,
) -> io::Result<Line> {
    out.clear();
    let mut total: u64 = 0;
    let mut ended = false;
    while !ended {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            break;
        }
        let used = match available.iter().position(|&b| b == b'\n') {
            Some(at) => {
                ended = true;
                at + 1
            }
            None => available.len(),
        };
        let room = (limit + 1).saturating_sub(out.len());
        out.extend_from_slice(&available[..used.min(room)]);
        total += used as u64;
        reader.consume(used);
    }
    let length = total - u64::from(ended);
    Ok(if total == 0 {
        Line::End
    } else if length > limit as u64 {
        Line::TooLong(length)
    } else {
        Line::Read
    })
}

/// What [`read_whole`] read.
pub(super) enum Whole {
    /// All of it, at most the limit.
    Read(Vec<u8>),
    /// More than the limit: not read further.
    TooLarge,
}

/// Reads `reader` to its end if it holds at most `limit` bytes.
pub(super) fn read_whole(reader: impl Read, limit: usize) -> io::Result<Whole> {
    let mut bytes = Vec::new();
    reader.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    Ok(if bytes.len() > limit {
        Whole::TooLarge
    } else {
        Whole::Read(bytes)
    })
}

/// A record size limit for people: "16 MiB", "512 KiB", "100 bytes".
pub(super) fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Bytes a pipe's thread reads at once, and how many such chunks wait for the reader at most:
/// the memory a pipe holds is bounded by their product (1 MiB).
const CHUNK: usize = 64 << 10;
const CHUNKS_WAITING: usize = 16;

/// How often a reader waiting on an idle pipe looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);

/// A pipe (standard input, a FIFO, `<(zcat ...)`) read by a thread of its own: reads from
/// it return what the thread read, and fail with "interrupted" once `stop` is set, even
/// while the pipe stays open and idle. The thread is left blocked on the pipe when the
/// reader goes; it ends with the process.
pub(super) struct Piped {
    chunks: Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
    stop: Option<Arc<AtomicBool>>,
}

impl Piped {
    /// Starts reading `source` on a thread.
    pub(super) fn spawn(
        mut source: impl Read + Send + 'static,
        stop: Option<Arc<AtomicBool>>,
    ) -> io::Result<Piped> {
        let (sender, chunks) = sync_channel(CHUNKS_WAITING);
        std::thread::Builder::new()
            .name("input pipe".to_owned())
            .spawn(move || loop {
                let mut chunk = vec![0; CHUNK];
                let sent = match source.read(&mut chunk) {
                    Ok(0) => return,
                    Ok(read) => {
                        chunk.truncate(read);
                        sender.send(Ok(chunk))
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        let _ = sender.send(Err(e));
                        return;
                    }
                };
                if sent.is_err() {
                    return; // the reader is gone
                }
            })?;
        Ok(Piped {
            chunks,
            chunk: Vec::new(),
            at: 0,
            stop,
        })
    }

    fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::SeqCst))
    }
}

impl Read for Piped {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.at < self.chunk.len() {
                let n = out.len().min(self.chunk.len() - self.at);
                out[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
                self.at += n;
                return Ok(n);
            }
            if self.stopped() {
                return Err(io::Error::other("interrupted"));
            }
            match self.chunks.recv_timeout(STOP_POLL) {
                Ok(Ok(chunk)) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                Ok(Err(e)) => return Err(e),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(0),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Vec<(Line, Vec<u8>)> {
        let mut reader = io::BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        let mut lines = Vec::new();
        loop {
            let line = read_line(&mut reader, limit, &mut out).unwrap();
            if line == Line::End {
                return lines;
            }
            lines.push((line, out.clone()));
        }
    }

    #[test]
    fn lines_beyond_the_limit_are_measured_and_skipped_with_bounded_memory() {
        let got = lines(b"abc\nabcdefghij\nxy\nabcd", 4);
        assert_eq!(got[0], (Line::Read, b"abc\n".to_vec()));
        assert_eq!(got[1].0, Line::TooLong(10));
        assert!(got[1].1.len() <= 5, "at most limit + 1 bytes held");
        assert_eq!(got[2], (Line::Read, b"xy\n".to_vec()));
        assert_eq!(got[3], (Line::Read, b"abcd".to_vec()), "exactly the limit");
        assert_eq!(got.len(), 4);
        // The line break does not count: a line of the limit with one is within it.
        assert_eq!(lines(b"abcd\n", 4), [(Line::Read, b"abcd\n".to_vec())]);
        assert_eq!(lines(b"abcde\n", 4)[0].0, Line::TooLong(5));
    }

    #[test]
    fn whole_inputs_beyond_the_limit_are_not_read() {
        assert!(matches!(read_whole(&b"abcd"[..], 4).unwrap(), Whole::Read(b) if b == b"abcd"));
        assert!(matches!(
            read_whole(&b"abcde"[..], 4).unwrap(),
            Whole::TooLarge
        ));
        assert!(matches!(
            read_whole(io::repeat(0), 1 << 10).unwrap(),
            Whole::TooLarge
        ));
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size(16 << 20), "16 MiB");
        assert_eq!(size(512 << 10), "512 KiB");
        assert_eq!(size(100), "100 bytes");
    }

    #[test]
    fn a_pipe_gives_its_bytes_then_its_end_and_stops_when_asked() {
        let mut piped = Piped::spawn(io::Cursor::new(vec![7u8; 200_000]), None).unwrap();
        let mut all = Vec::new();
        piped.read_to_end(&mut all).unwrap();
        assert_eq!(all, vec![7u8; 200_000]);
        // A pipe that never ends (a reader blocked forever) still stops.
        struct Idle;
        impl Read for Idle {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                std::thread::sleep(Duration::from_secs(3600));
                Ok(0)
            }
        }
        let stop = Arc::new(AtomicBool::new(false));
        let mut piped = Piped::spawn(Idle, Some(Arc::clone(&stop))).unwrap();
        stop.store(true, Ordering::SeqCst);
        let error = piped.read(&mut [0; 8]).unwrap_err();
        assert_eq!(error.to_string(), "interrupted");
    }
}
