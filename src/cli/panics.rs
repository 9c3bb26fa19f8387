//! A panic as an error: the commands run under [`caught`], so that a panic (tantivy's,
//! reading a damaged index file; or a bug of ours) ends the run with one clear line and
//! exit code 2, never a backtrace dump.

use std::sync::Mutex;

/// The message and place of the last panic, kept by the hook for [`caught`] to report.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// The message and place of the last panic, taken: for a caller that caught the panic
/// itself and goes on.
pub fn take_last_panic() -> Option<String> {
    LAST_PANIC.lock().ok().and_then(|mut last| last.take())
}

/// Runs `command`; a panic in it (in any of its threads) becomes an error naming it. With
/// `RUST_BACKTRACE` set, the panic is also printed as Rust prints it, for a bug report.
pub fn caught(command: impl FnOnce() -> anyhow::Result<bool>) -> anyhow::Result<bool> {
    if std::env::var_os("RUST_BACKTRACE").is_none() {
        std::panic::set_hook(Box::new(|info| {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".to_owned());
            let place = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            if let Ok(mut last) = LAST_PANIC.lock() {
                last.get_or_insert(format!("{message}{place}"));
            }
        }));
    }
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(command)) {
        Ok(outcome) => outcome,
        Err(_) => {
            let what = LAST_PANIC
                .lock()
                .ok()
                .and_then(|mut last| last.take())
                .unwrap_or_else(|| "see the message above".to_owned());
            anyhow::bail!(
                "stopped by an internal error ({what}). Most often a damaged index file: \
                 what was committed before stays; restore the index from a copy or build it \
                 again. Run with RUST_BACKTRACE=1 for a report"
            )
        }
    }
}
