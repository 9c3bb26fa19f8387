//! What a command reads when no input is named: standard input, unless it is a terminal.
//!
//! A pipe, a file, `/dev/null` or a closed standard input is read (an empty one gives no
//! records), so that `cat mine.jsonl | tantivy-dedup ingest` or an empty `$(find ...)` in a
//! script never reads anything but what the script gave. Only a person at a terminal, who
//! typed the command without inputs, gets the command's fallback (`ingest`: the sample
//! corpus, said on standard error).

use std::io::IsTerminal;

/// What to read when no input is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unnamed {
    /// Standard input: it is not a terminal (a pipe, a file, `/dev/null`, closed).
    Stdin,
    /// Standard input is a terminal: a person typed the command.
    Terminal,
}

impl Unnamed {
    /// The decision for this process's standard input (a closed one is not a terminal).
    pub fn of_stdin() -> Unnamed {
        if std::io::stdin().is_terminal() {
            Unnamed::Terminal
        } else {
            Unnamed::Stdin
        }
    }
}
