//! Running the `tantivy-dedup` binary in tests (included with `mod support;`).

#![allow(dead_code)] // Each test file uses its own part.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// Starts the binary with `args` in `dir` (the crate root for `None`), its standard
/// input, output and error as `streams` say.
pub fn spawn(dir: Option<&Path>, args: &[&str], [stdin, stdout, stderr]: [Stdio; 3]) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tantivy-dedup"));
    command
        .args(args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    command.spawn().expect("the binary starts")
}

/// Runs the binary with `args`, `stdin` on its standard input, in `dir` (the crate root for
/// `None`).
pub fn run_in(dir: Option<&Path>, args: &[&str], stdin: &[u8]) -> Output {
    let piped = [Stdio::piped(), Stdio::piped(), Stdio::piped()];
    let mut child = spawn(dir, args, piped);
    // A run refused before it reads its input (an unusable index, a bad option) closes
    // standard input unread: the write then fails with a broken pipe, which is the run's
    // answer, not the test's failure.
    if let Err(error) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
    }
    child.wait_with_output().unwrap()
}

/// Runs the binary in the crate root.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_in(None, args, stdin)
}

/// Standard output, one JSON value per line.
pub fn lines(output: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every output line is JSON"))
        .collect()
}

/// Standard error, for messages.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs the binary with `args` in `dir`, its standard output written to `stdout`, and
/// returns its peak resident memory in bytes as the kernel measured it (`wait4`'s
/// `ru_maxrss`), after asserting that it succeeded. A test measuring this should be the
/// only one of its test binary: children of other tests would share nothing, but their
/// load would.
#[cfg(target_os = "linux")]
pub fn peak_memory(dir: &Path, args: &[&str], stdout: std::fs::File) -> u64 {
    let child = spawn(
        Some(dir),
        args,
        [Stdio::null(), stdout.into(), Stdio::null()],
    );
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed `rusage` is a valid value; `wait4` writes it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is a child of this process not waited for yet (`child` is not waited).
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{args:?} failed"
    );
    std::mem::forget(child);
    // Linux reports kilobytes.
    usage.ru_maxrss as u64 * 1024
}

/// Asserts that a command's peak memory on `large` copies of a page grew from its peak on
/// `small` by at most `per_document` bytes a document plus `slack` (allocator noise).
pub fn assert_linear_peak(
    command: &str,
    (small, small_peak): (u64, u64),
    (large, large_peak): (u64, u64),
    (per_document, slack): (u64, u64),
) {
    let bound = small_peak + per_document * (large - small) + slack;
    eprintln!(
        "{command} peak resident memory: {} MiB for {small} copies, {} MiB for {large} (bound {} MiB)",
        small_peak >> 20,
        large_peak >> 20,
        bound >> 20
    );
    assert!(
        large_peak <= bound,
        "{large} copies peaked at {large_peak} bytes, over {bound}"
    );
}
