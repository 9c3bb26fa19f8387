//! Mapping a stream of items on a thread pool while keeping their order: the items are
//! gathered in windows, each window is mapped in parallel while the next is being read, and
//! the results are handed back window by window, in the order the items came.
//!
//! Memory is bounded by the windows, never the whole stream: at most
//! [`Windows::in_flight`] are in the pool's hands, one more is being filled and one, handed
//! back, is kept empty for the next.

use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, TryRecvError};
use std::time::Duration;

use rayon::prelude::*;

/// How the items are cut into windows and how many windows may be in flight at once.
#[derive(Clone, Copy, Debug)]
pub struct Windows {
    /// The most items in one window.
    pub items: usize,
    /// A window is closed as soon as its items' sizes reach this many bytes (so it holds at
    /// most this much plus one item).
    pub bytes: usize,
    /// The most windows in the pool's hands once a window is full: beyond them, the thread
    /// that fills the windows maps items too until the oldest one is done, rather than
    /// read on.
    pub in_flight: usize,
}

impl Default for Windows {
    /// Windows of 1,024 items or 256 KiB, four in flight: large enough that handing one
    /// over costs little next to mapping it (tens of microseconds against milliseconds),
    /// small enough that the items in flight stay in a core's cache (some MiB) and that the
    /// first window, read before any mapping starts, and the last, mapped after reading
    /// ends, are short.
    fn default() -> Self {
        Windows {
            items: 1024,
            bytes: 256 << 10,
            in_flight: 4,
        }
    }
}

/// Calls `produce` with a function to push items through; maps every item pushed with
/// `map` on `pool`; and calls `consume` with the results, in the order the items were
/// pushed.
///
/// Everything runs on the pool's threads: `produce` and `consume` on one of them, which
/// between windows maps items as the others do, so that reading and writing take no core
/// of their own (a thread of their own would have to share the cores with the mapping
/// ones, and switching between them costs more than reading does). `map` takes an item by
/// reference, and the items are dropped where `produce` made them, once their results are
/// consumed: what an item holds is freed by the thread that allocated it, which spares the
/// allocator frees from other threads (contended, on every item). `size` measures an item
/// for [`Windows::bytes`]. A panic in `map` is a panic of this call (once the pool's work
/// in flight is over).
pub fn map_ordered<T, U>(
    pool: &rayon::ThreadPool,
    windows: Windows,
    produce: impl FnOnce(&mut dyn FnMut(T)) + Send,
    size: impl Fn(&T) -> usize + Send,
    map: impl Fn(&mut T) -> U + Sync,
    mut consume: impl FnMut(U) + Send,
) where
    T: Send,
    U: Send,
{
    let map = &map;
    // The scope's closure runs on one of the pool's threads, and the scope ends only once
    // every task it spawned has: the tasks may borrow `map` (and what it borrows).
    pool.scope(move |scope| {
        // The windows given to the pool, oldest first: each one's results come back on a
        // channel of its own, so that they are taken in order whatever order they end in.
        let mut pending: VecDeque<Receiver<Mapped<T, U>>> = VecDeque::new();
        let mut window: Vec<T> = Vec::new();
        let mut bytes = 0usize;
        let submit = |mut window: Vec<T>, pending: &mut VecDeque<Receiver<Mapped<T, U>>>| {
            let (sender, results) = sync_channel(1);
            scope.spawn(move |_| {
                // An indexed collect: the results in the window's order. A panic is sent
                // too, for the caller to raise as its own: left to the scope, it could lose
                // the race to the caller's noticing the window will never come.
                let mapped = panic::catch_unwind(AssertUnwindSafe(|| {
                    let results = window.par_iter_mut().map(map).collect::<Vec<U>>();
                    (window, results)
                }));
                // The receiver is gone only when the caller is unwinding: nothing to do.
                let _ = sender.send(mapped);
            });
            pending.push_back(results);
        };
        // A window handed back, emptied, for the next one to fill without growing.
        let mut spare: Vec<T> = Vec::new();
        // Hands back the results of the oldest windows: those done, and those it takes to
        // leave at most `keep`, mapping items of the windows in flight meanwhile.
        let mut hand_back =
            |pending: &mut VecDeque<Receiver<Mapped<T, U>>>, spare: &mut Vec<T>, keep: usize| {
                while let Some(oldest) = pending.front() {
                    let mapped = match oldest.try_recv() {
                        Ok(mapped) => mapped,
                        Err(TryRecvError::Empty) if pending.len() > keep => wait(oldest),
                        Err(TryRecvError::Empty) => return,
                        Err(TryRecvError::Disconnected) => {
                            unreachable!("a window's task sends its results")
                        }
                    };
                    pending.pop_front();
                    match mapped {
                        Ok((mut items, results)) => {
                            results.into_iter().for_each(&mut consume);
                            items.clear();
                            *spare = items;
                        }
                        // The scope waits for the windows still in flight, then goes on
                        // unwinding.
                        Err(payload) => panic::resume_unwind(payload),
                    }
                }
            };
        produce(&mut |item: T| {
            bytes = bytes.saturating_add(size(&item));
            window.push(item);
            if window.len() < windows.items && bytes < windows.bytes {
                return;
            }
            bytes = 0;
            let full = std::mem::replace(&mut window, std::mem::take(&mut spare));
            submit(full, &mut pending);
            hand_back(&mut pending, &mut spare, windows.in_flight.max(1));
        });
        if !window.is_empty() {
            submit(window, &mut pending);
        }
        hand_back(&mut pending, &mut spare, 0);
    });
}

/// Waits for a window's results, on a thread of the pool: mapping items meanwhile (of this
/// window or a later one), or, when every item in flight is being mapped, sleeping a little
/// at a time (rayon has no way to wait for a channel and for work to steal at once).
fn wait<T, U>(results: &Receiver<Mapped<T, U>>) -> Mapped<T, U> {
    loop {
        match results.try_recv() {
            Ok(mapped) => return mapped,
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => unreachable!("a window's task sends its results"),
        }
        if rayon::yield_now() == Some(rayon::Yield::Executed) {
            continue;
        }
        match results.recv_timeout(IDLE_POLL) {
            Ok(mapped) => return mapped,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                unreachable!("a window's task sends its results")
            }
        }
    }
}

/// How long a thread with nothing to map waits for a window before looking for work again:
/// short next to mapping a window (milliseconds), long next to looking (microseconds).
const IDLE_POLL: Duration = Duration::from_micros(200);

/// What a window's task sends back: its items and their results, or the panic that stopped
/// it.
type Mapped<T, U> = std::thread::Result<(Vec<T>, Vec<U>)>;

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// Items of uneven cost (later ones cheaper, so that later windows would end first),
    /// over windows cut by count and by size: every result, in order.
    #[test]
    fn results_come_in_input_order() {
        for (threads, items, bytes, in_flight) in [(1, 7, 1000, 1), (3, 5, 40, 2), (4, 64, 1, 8)] {
            let windows = Windows {
                items,
                bytes,
                in_flight,
            };
            let mut got = Vec::new();
            map_ordered(
                &pool(threads),
                windows,
                |push| (0..1000u64).for_each(push),
                |&n| (n % 13) as usize,
                |&mut n| {
                    // Work the optimizer cannot drop, more of it for earlier items.
                    for _ in 0..(1000 - n) * 50 {
                        std::hint::black_box(n);
                    }
                    n
                },
                |n| got.push(n),
            );
            assert_eq!(got, (0..1000).collect::<Vec<_>>(), "{windows:?}");
        }
    }

    /// Results are handed back while items are still being pushed, and on the thread that
    /// pushes them: no more windows than allowed are held.
    #[test]
    fn windows_in_flight_are_bounded() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pushed = AtomicUsize::new(0);
        let pusher = std::sync::Mutex::new(None);
        let mut most_behind = 0;
        let windows = Windows {
            items: 10,
            bytes: usize::MAX,
            in_flight: 2,
        };
        map_ordered(
            &pool(2),
            windows,
            |push| {
                *pusher.lock().unwrap() = Some(std::thread::current().id());
                for n in 0..1000 {
                    pushed.fetch_add(1, Ordering::SeqCst);
                    push(n);
                }
            },
            |_| 0,
            |&mut n: &mut usize| n,
            |n| {
                assert_eq!(Some(std::thread::current().id()), *pusher.lock().unwrap());
                most_behind = most_behind.max(pushed.load(Ordering::SeqCst) - n);
            },
        );
        // The window just filled, and two in flight before it.
        assert!(most_behind <= 30, "{most_behind}");
    }

    /// Mapped on any thread, the items are dropped on the one that pushed them.
    #[test]
    fn items_are_dropped_where_they_were_pushed() {
        use std::sync::Mutex;
        use std::thread::ThreadId;
        struct Item(Option<ThreadId>);
        impl Drop for Item {
            fn drop(&mut self) {
                assert_eq!(
                    self.0,
                    Some(std::thread::current().id()),
                    "dropped elsewhere"
                );
            }
        }
        let mapped_on = Mutex::new(std::collections::HashSet::new());
        map_ordered(
            &pool(2),
            Windows {
                items: 3,
                ..Windows::default()
            },
            |push| {
                for _ in 0..3000 {
                    push(Item(Some(std::thread::current().id())));
                }
            },
            |_| 1,
            |_: &mut Item| {
                mapped_on
                    .lock()
                    .unwrap()
                    .insert(std::thread::current().id());
                // Time enough for the other thread to take a share.
                std::thread::sleep(Duration::from_micros(20));
            },
            |()| {},
        );
        assert_eq!(
            mapped_on.lock().unwrap().len(),
            2,
            "both threads mapped items"
        );
    }

    #[test]
    fn nothing_pushed_is_nothing_handed_back() {
        let mut got = Vec::<u8>::new();
        map_ordered(
            &pool(2),
            Windows::default(),
            |_| {},
            |_: &u8| 1,
            |&mut n| n,
            |n| got.push(n),
        );
        assert!(got.is_empty());
    }

    #[test]
    #[should_panic(expected = "boom")]
    fn a_panic_while_mapping_is_the_callers() {
        map_ordered(
            &pool(2),
            Windows::default(),
            |push| (0..10_000u32).for_each(push),
            |_| 1,
            |&mut n| {
                assert_ne!(n, 5000, "boom");
                n
            },
            |_| {},
        );
    }
}
