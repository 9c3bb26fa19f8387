//! The index the command-line tool works on: its schema, and opening or creating it with
//! messages a person can act on.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;
use tantivy::Index;
use tantivy_dedup::corpus::{self, corpus_settings, CorpusIndex};
use tantivy_dedup::fingerprint::KeptBits;
use tantivy_dedup::matching::{MatchingSettings, PairScore};
use tantivy_dedup::plugin::DedupSettings;
use tantivy_dedup::Error;

use crate::cli::messages::in_cli_terms;
use crate::cli::options::{FingerprintOptions, VerifyOptions};
use crate::cli::weights;

/// The default index folder.
pub const DEFAULT_INDEX: &str = "tantivy-dedup-index";

/// `--index DIR`, shared by the commands that use an index.
#[derive(Args, Debug, Clone)]
pub struct IndexArg {
    /// The index folder.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_INDEX)]
    pub index: PathBuf,
}

/// An opened index with the tool's fields.
pub type CliIndex = CorpusIndex;

/// The settings of a new index: the corpus defaults, with the command line's options.
fn new_settings(
    options: &FingerprintOptions,
    distance: Option<u32>,
    verify: &VerifyOptions,
    file: Option<&MatchingSettings>,
) -> anyhow::Result<DedupSettings> {
    let mut settings = verify.apply(corpus_settings(), file);
    if let Some(verification) = settings.get_matching().get_verification() {
        if verification.get_score() == PairScore::Containment {
            // Containment estimates the sets' sizes from the minima's high bits, which the
            // index must keep from its creation on.
            let kept = verification.clone().kept_bits(KeptBits::High);
            let matching = settings.get_matching().clone().verification(kept);
            settings = settings.matching(matching);
        }
    }
    let mut matching = settings.get_matching().clone();
    let config = options.config_over(matching.get_fingerprint().clone());
    matching = matching.fingerprint(config);
    if let Some(k) = distance {
        matching = matching.distance(k);
    }
    let settings = settings.matching(matching);
    Ok(match verify.idf_from() {
        Some(sample) => {
            let weights = weights::learn(sample, &settings)?;
            settings.shingle_weights(weights)
        }
        None => settings,
    })
}

/// Opens the index in `dir`, or creates it there when the folder is missing or empty, with
/// `planned` (what [`planned_settings`] gave) where there are such settings.
/// Fingerprint options given on the command line must agree with an existing index's.
///
/// Creation is safe against any number of runs creating the same index at once, and
/// against a run killed while creating: see [`create`].
pub fn open_or_create(
    dir: &Path,
    options: &FingerprintOptions,
    distance: Option<u32>,
    verify: &VerifyOptions,
    planned: Option<DedupSettings>,
) -> anyhow::Result<CliIndex> {
    // The --settings file is read once, for the creation and the opening alike.
    let file = verify.settings_file()?;
    if !CorpusIndex::exists(dir) {
        // Checked whole before anything is created. The settings [`planned_settings`] made
        // are taken as they are: their shingle weights are not learned twice.
        let settings = match planned {
            Some(settings) => settings,
            None => new_settings(options, distance, verify, file.as_ref())?,
        };
        settings.validate().map_err(|e| {
            anyhow::Error::new(e).context(format!(
                "cannot create an index in {} with these settings",
                dir.display()
            ))
        })?;
        CorpusIndex::create(dir, || settings).map_err(|e| explain(e, dir))?;
    } else if let Some(sample) = verify.idf_from() {
        let index = open_with_file(dir, options, distance, verify, file.as_ref())?;
        let verification = index.dedup.settings().get_matching().get_verification();
        if verification.and_then(|v| v.get_weights()).is_none() {
            bail!(
                "--idf-from {}: the index in {} was created without shingle weights, and \
                 an index keeps the signatures it was created with; create a new index with \
                 --idf-from, and ingest into it",
                sample.display(),
                dir.display()
            );
        }
        eprintln!(
            "--idf-from {}: the index in {} keeps the shingle weights it was created with",
            sample.display(),
            dir.display()
        );
        return Ok(index);
    }
    open_with_file(dir, options, distance, verify, file.as_ref())
}

/// The settings [`open_or_create`] would create the index in `dir` with; `None` when
/// there is an index there already. For a check that must pass before anything is
/// created (a shared space's).
#[cfg(feature = "cluster")]
pub fn planned_settings(
    dir: &Path,
    options: &FingerprintOptions,
    distance: Option<u32>,
    verify: &VerifyOptions,
) -> anyhow::Result<Option<DedupSettings>> {
    if CorpusIndex::exists(dir) {
        return Ok(None);
    }
    let file = verify.settings_file()?;
    Ok(Some(new_settings(
        options,
        distance,
        verify,
        file.as_ref(),
    )?))
}

/// Opens the existing index in `dir`; fingerprint options given on the command line must
/// agree with the index's (they are accepted by every command, and change nothing here),
/// and the distance and two-stage matching options apply to this run.
pub fn open_existing(
    dir: &Path,
    options: &FingerprintOptions,
    distance: Option<u32>,
    verify: &VerifyOptions,
) -> anyhow::Result<CliIndex> {
    open_with_file(
        dir,
        options,
        distance,
        verify,
        verify.settings_file()?.as_ref(),
    )
}

/// [`open_existing`], with the --settings file already read.
fn open_with_file(
    dir: &Path,
    options: &FingerprintOptions,
    distance: Option<u32>,
    verify: &VerifyOptions,
    file: Option<&MatchingSettings>,
) -> anyhow::Result<CliIndex> {
    if !dir.is_dir() {
        bail!(
            "no index at {}: create one with `tantivy-dedup ingest --index {}`",
            dir.display(),
            dir.display()
        );
    }
    if !dir.join("meta.json").is_file() {
        let empty = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none());
        if empty {
            bail!(
                "no index in {}: the folder is empty; create one with `tantivy-dedup ingest \
                 --index {}`",
                dir.display(),
                dir.display()
            );
        }
        bail!(
            "{} is not a tantivy index (it has no meta.json): name an index folder with \
             --index, or an empty or new folder for `tantivy-dedup ingest` to create one in",
            dir.display()
        );
    }
    let stored = CorpusIndex::open(dir).map_err(|e| explain(e, dir))?;
    if options.is_empty() && distance.is_none() && verify.is_empty() {
        return Ok(stored);
    }
    let mut wanted = verify.apply(stored.dedup.settings().clone(), file);
    let mut matching = wanted.get_matching().clone();
    if !options.is_empty() {
        let config = options.config_over(matching.get_fingerprint().clone());
        matching = matching.fingerprint(config);
    }
    if let Some(k) = distance {
        matching = matching.distance(k);
    }
    wanted = wanted.matching(matching);
    stored
        .with_settings(&wanted)
        .map_err(|e| match (&e, verify.settings_path()) {
            // The two-stage options came from the --settings file, not from flags.
            (Error::SettingsMismatch { differences }, Some(path))
                if differences.iter().any(|d| d.field == "verification") =>
            {
                anyhow::Error::new(e).context(format!(
                    "the index in {} keeps the two-stage matching it was created with, and the \
                 settings file {} asks for another: drop --settings, or use another --index",
                    dir.display(),
                    path.display()
                ))
            }
            _ => explain(e, dir),
        })
}

/// The tantivy index in `dir`, also on storage this process cannot write (see
/// [`tantivy_dedup::plugin::ReadOnlyTolerantDirectory`]).
pub fn open_tantivy(dir: &Path) -> anyhow::Result<Index> {
    corpus::open_tantivy(dir)
        .with_context(|| format!("cannot open the tantivy index in {}", dir.display()))
}

/// The library error, with what to do about it in the tool's terms.
fn explain(error: Error, dir: &Path) -> anyhow::Error {
    if let Some(message) = in_cli_terms(&error, dir) {
        return anyhow::Error::msg(message);
    }
    let hint = match &error {
        Error::SettingsMismatch { differences }
            if differences.iter().any(|d| d.field == "verification") =>
        {
            format!(
                "the index in {} keeps the two-stage matching it was created with (with \
                 --no-verify it has no signatures; without, it has them): drop --verify or \
                 --no-verify and the two-stage options, or use another --index",
                dir.display()
            )
        }
        Error::SettingsMismatch { .. } => format!(
            "the index in {} keeps the fingerprint options it was created with: drop the \
             options, or use another --index",
            dir.display()
        ),
        Error::Schema { .. } => format!(
            "{} is a tantivy index but not one made by tantivy-dedup (ingest its stored \
             documents into a new index with `tantivy-dedup ingest --from-index {} --index \
             NEW_DIR`)",
            dir.display(),
            dir.display()
        ),
        Error::Io { path, .. } => format!("cannot create the index in {}", path.display()),
        _ => format!("cannot open the index in {}", dir.display()),
    };
    anyhow::Error::new(error).context(hint)
}
