//! `tantivy-dedup`: near-duplicate detection from the command line.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Near-duplicate detection for Chinese and Latin text with 64-bit SimHash fingerprints.
///
/// Exit codes: 0 when every record was processed, 1 when some record was an error (each is
/// reported with its file and line), 2 for a usage or setup error.
#[derive(Parser, Debug)]
#[command(name = "tantivy-dedup", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    // Boxed: its options are most of the enum's size.
    Ingest(Box<cli::ingest::IngestCommand>),
    Search(cli::search::SearchCommand),
    Clusters(cli::clusters::ClustersCommand),
    Stats(cli::stats::StatsCommand),
    Fingerprint(cli::fingerprint::FingerprintCommand),
    Eval(cli::eval::EvalCommand),
    Review(cli::review::ReviewCommand),
    #[cfg(feature = "cluster")]
    Repair(cli::repair::RepairCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = cli::panics::caught(|| match &cli.command {
        Command::Ingest(command) => command.run(),
        Command::Search(command) => command.run(),
        Command::Clusters(command) => command.run(),
        Command::Stats(command) => command.run(),
        Command::Fingerprint(command) => command.run(),
        Command::Eval(command) => command.run(),
        Command::Review(command) => command.run(),
        #[cfg(feature = "cluster")]
        Command::Repair(command) => command.run(),
    });
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            cli::note!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
