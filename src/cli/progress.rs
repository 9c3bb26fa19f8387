//! A progress spinner on standard error, drawn only when it is a terminal.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Counts documents as they go, with the rate; invisible when standard error is not a
/// terminal (indicatif checks), so logs and pipes get the summary only.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A spinner labelled `what`.
    pub fn new(what: &'static str) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {msg} {human_pos} documents, {per_sec}, {elapsed}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(what);
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress { bar }
    }

    /// One more document.
    pub fn inc(&self) {
        self.bar.inc(1);
    }

    /// Prints a line above the spinner.
    pub fn println(&self, line: &str) {
        if self.bar.is_hidden() {
            note!("{line}");
        } else {
            self.bar.println(line);
        }
    }

    /// Removes the spinner.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
