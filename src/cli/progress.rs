//! A progress spinner on standard error, drawn only when it is a terminal.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

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
                "{spinner} {msg} {human_pos} documents, {rate}, {elapsed}",
            )
            .map(|style| {
                // indicatif's `{per_sec}` prints `323.8029/s`; the summary's whole numbers.
                style.with_key(
                    "rate",
                    |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                        let _ = out.write_str(&rate(state.per_sec()));
                    },
                )
            })
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

/// A rate of documents a second as the summary writes it: a whole number.
fn rate(per_second: f64) -> String {
    format!("{per_second:.0}/s")
}

#[cfg(test)]
mod tests {
    #[test]
    fn rates_are_whole_numbers() {
        assert_eq!(super::rate(323.8029), "324/s");
        assert_eq!(super::rate(0.2), "0/s");
    }
}
