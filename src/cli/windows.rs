//! Records read on a thread of their own and taken in windows of what has been read: a
//! full window while the input is ahead (a file), one record at a time when the input is
//! slower than the work (a pipe fed by hand, a crawler's stream), so that nothing waits for
//! a window to fill.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Condvar, Mutex};
use std::time::Duration;

use crate::cli::input::Record;

/// The most bytes of records in one window: 64 MiB. A window always holds at least one
/// record, however large (up to `--max-record-mb`); with the window read ahead, the
/// records held at once come to twice this, or one record beyond it.
pub const WINDOW_BYTES: usize = 64 << 20;

/// The most records in one window of `ingest --cluster`: the shared space decides a window
/// in a fixed number of steps, with one call a group of keys and list hash, so that a
/// larger window takes fewer Redis commands and round trips a document (docs/BENCHMARKS.md,
/// "Shared index in Redis Cluster").
pub const SHARED_WINDOW: usize = 512;

/// Runs `read` on a thread of its own and gives what it reads to `take`, in order, in
/// windows of at most `window` records and [`WINDOW_BYTES`] bytes (at least one record):
/// every record read by the time `take` is ready for more. Reading runs ahead by up to one
/// more window.
///
/// `take` returns false to stop: `stop` is then set, for `read` to check, and the records
/// it reads after are dropped. What `read` returns is returned.
pub fn read_in_windows<R>(
    window: usize,
    stop: &AtomicBool,
    read: impl FnOnce(&mut dyn FnMut(Record)) -> R + Send,
    take: impl FnMut(Vec<Record>) -> bool,
) -> R
where
    R: Send,
{
    read_in_windows_of(window, WINDOW_BYTES, stop, read, take)
}

/// [`read_in_windows`] with windows of at most `window_bytes` bytes.
fn read_in_windows_of<R>(
    window: usize,
    window_bytes: usize,
    stop: &AtomicBool,
    read: impl FnOnce(&mut dyn FnMut(Record)) -> R + Send,
    mut take: impl FnMut(Vec<Record>) -> bool,
) -> R
where
    R: Send,
{
    let window = window.max(1);
    let budget = Budget::new(window_bytes.saturating_mul(2));
    let (sender, receiver) = mpsc::sync_channel::<(Record, usize)>(window);
    std::thread::scope(|scope| {
        let budget = &budget;
        let reader = scope.spawn(move || {
            read(&mut |record| {
                let size = size_of(&record);
                budget.acquire(size, stop);
                // Fails once the taker stopped: the record is dropped.
                if !stop.load(Ordering::SeqCst) {
                    let _ = sender.send((record, size));
                }
            })
        });
        // A record that would have made the last window too large: the next one's first.
        let mut next: Option<(Record, usize)> = None;
        while let Some((first, size)) = next.take().or_else(|| receiver.recv().ok()) {
            let mut records = Vec::with_capacity(window.min(1024));
            records.push(first);
            let mut bytes = size;
            while records.len() < window {
                let Ok((record, size)) = receiver.try_recv() else {
                    break;
                };
                if bytes.saturating_add(size) > window_bytes {
                    next = Some((record, size));
                    break;
                }
                bytes += size;
                records.push(record);
            }
            let go_on = take(records);
            budget.release(bytes);
            if !go_on {
                stop.store(true, Ordering::SeqCst);
                break;
            }
        }
        // Unblocks a reader waiting to send.
        drop(receiver);
        match reader.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// The bytes a record holds: its text and fields, or its error's.
fn size_of(record: &Record) -> usize {
    match record {
        Ok(doc) => {
            let tags: usize = doc.tags.iter().map(String::len).sum();
            let replaced: usize = (doc.replaced.iter().map(String::len)).sum::<usize>()
                + (doc.replaced_texts.iter())
                    .map(|(record, text)| record.len() + text.text.len())
                    .sum::<usize>();
            (doc.id.len() + doc.place.len() + doc.text.len() + tags + replaced)
                + doc.title.as_ref().map_or(0, String::len)
                + doc.url.as_ref().map_or(0, String::len)
        }
        Err(e) => e.place.len() + e.reason.len(),
    }
}

/// Bytes of records read and not yet taken: the reader waits while a record would take
/// them past the limit (unless none are held: a record larger than the limit goes alone).
struct Budget {
    held: Mutex<usize>,
    freed: Condvar,
    limit: usize,
}

/// How often a reader waiting for room looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);

impl Budget {
    fn new(limit: usize) -> Budget {
        Budget {
            held: Mutex::new(0),
            freed: Condvar::new(),
            limit,
        }
    }

    /// Waits until `size` more bytes fit (or the run stops), and holds them.
    fn acquire(&self, size: usize, stop: &AtomicBool) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        while *held > 0 && held.saturating_add(size) > self.limit && !stop.load(Ordering::SeqCst) {
            held = (self.freed.wait_timeout(held, STOP_POLL))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *held = held.saturating_add(size);
    }

    /// Gives `size` bytes back.
    fn release(&self, size: usize) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        *held = held.saturating_sub(size);
        self.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::input::RecordError;

    fn record(n: usize) -> Record {
        Err(RecordError {
            place: n.to_string(),
            reason: String::new(),
        })
    }

    fn place(record: &Record) -> String {
        match record {
            Ok(document) => document.place.clone(),
            Err(error) => error.place.clone(),
        }
    }

    #[test]
    fn every_record_comes_in_order_in_windows_at_most_full() {
        let stop = AtomicBool::new(false);
        let mut taken = Vec::new();
        let read = |emit: &mut dyn FnMut(Record)| (0..1_000).for_each(|n| emit(record(n)));
        read_in_windows(64, &stop, read, |records| {
            assert!(!records.is_empty() && records.len() <= 64);
            taken.extend(records.iter().map(place));
            true
        });
        let expected: Vec<String> = (0..1_000).map(|n| n.to_string()).collect();
        assert_eq!(taken, expected);
    }

    fn document(bytes: usize) -> Record {
        Ok(crate::cli::input::Document {
            id: String::new(),
            place: String::new(),
            text: "x".repeat(bytes),
            title: None,
            url: None,
            tags: Vec::new(),
            from_stdin: false,
            replaced: Vec::new(),
            replaced_texts: Vec::new(),
        })
    }

    #[test]
    fn windows_and_the_reading_ahead_are_bounded_by_bytes() {
        use std::sync::atomic::AtomicUsize;
        let stop = AtomicBool::new(false);
        let read_bytes = AtomicUsize::new(0);
        let mut taken_bytes = 0;
        let mut windows = Vec::new();
        // Records of 10 bytes, and one of 100 (beyond the window's 25).
        let sizes: Vec<usize> = (0..50).map(|n| if n == 20 { 100 } else { 10 }).collect();
        let read = |emit: &mut dyn FnMut(Record)| {
            for &size in &sizes {
                emit(document(size));
                read_bytes.fetch_add(size, Ordering::SeqCst);
            }
        };
        read_in_windows_of(1_000, 25, &stop, read, |records| {
            let bytes: usize = records.iter().map(size_of).sum();
            // Read and not yet given back: this window and what was read ahead, at most
            // twice the window's bytes, or the one large record beyond them.
            let ahead = read_bytes.load(Ordering::SeqCst) - taken_bytes;
            assert!(ahead <= 2 * 25 + 100, "{ahead} bytes held");
            taken_bytes += bytes;
            windows.push(records.len());
            std::thread::sleep(Duration::from_millis(2));
            true
        });
        assert_eq!(windows.iter().sum::<usize>(), 50, "every record, once");
        assert!(windows.iter().all(|&n| (1..=2).contains(&n)), "{windows:?}");
    }

    #[test]
    fn a_stop_ends_the_reading() {
        let stop = AtomicBool::new(false);
        let mut windows = 0;
        let read = |emit: &mut dyn FnMut(Record)| {
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                emit(record(n));
                n += 1;
            }
            n
        };
        let read_count = read_in_windows(8, &stop, read, |_| {
            windows += 1;
            windows < 3
        });
        assert_eq!(windows, 3);
        assert!(read_count >= 3, "{read_count}");
    }
}
