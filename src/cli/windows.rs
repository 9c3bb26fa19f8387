//! Records read on a thread of their own and taken in windows of what has been read: a
//! full window while the input is ahead (a file), one record at a time when the input is
//! slower than the work (a pipe fed by hand, a crawler's stream), so that nothing waits for
//! a window to fill.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use crate::cli::input::Record;

/// Runs `read` on a thread of its own and gives what it reads to `take`, in order, in
/// windows of at most `window` records: every record read by the time `take` is ready for
/// more, at least one. Reading runs ahead by up to one more window.
///
/// `take` returns false to stop: `stop` is then set, for `read` to check, and the records
/// it reads after are dropped. What `read` returns is returned.
pub fn read_in_windows<R>(
    window: usize,
    stop: &AtomicBool,
    read: impl FnOnce(&mut dyn FnMut(Record)) -> R + Send,
    mut take: impl FnMut(Vec<Record>) -> bool,
) -> R
where
    R: Send,
{
    let window = window.max(1);
    let (sender, receiver) = mpsc::sync_channel::<Record>(window);
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            read(&mut |record| {
                // Fails once the taker stopped: the record is dropped.
                if !stop.load(Ordering::SeqCst) {
                    let _ = sender.send(record);
                }
            })
        });
        while let Ok(first) = receiver.recv() {
            let mut records = Vec::with_capacity(window);
            records.push(first);
            records.extend(receiver.try_iter().take(window - 1));
            if !take(records) {
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
