//! The `tantivy-dedup` command-line tool: thin commands over the library.

/// `eprintln!` without its panic: a line for standard error that is dropped when standard
/// error is closed (its reader gone, as in `tantivy-dedup ... 2>&1 | head -1`). The line was
/// for a person who is no longer reading; the exit code still tells how the run went.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}
pub(crate) use note;

/// Writes `text` to standard output at once: a closed standard output (`| head`) is an
/// error that says so, not a panic as in `println!`.
pub fn print(text: &str) -> anyhow::Result<()> {
    use anyhow::Context as _;
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to standard output")
}

pub mod clusters;
pub mod created;
pub mod eval;
pub mod fingerprint;
pub mod index_dir;
pub mod ingest;
pub mod input;
pub mod messages;
pub mod opened;
pub mod options;
pub mod ordered;
pub mod panics;
pub mod progress;
#[cfg(feature = "cluster")]
pub mod repair;
pub mod report;
pub mod review;
pub mod same_file;
pub mod search;
#[cfg(feature = "cluster")]
pub mod shared;
pub mod source_index;
pub mod stats;
pub mod weights;
pub mod windows;
