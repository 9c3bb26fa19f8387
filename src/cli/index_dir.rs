//! The index the command-line tool works on: its schema, and opening or creating it with
//! messages a person can act on.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;
use tantivy::schema::{Field, Schema, TantivyDocument, STORED, STRING};
use tantivy::Index;
use tantivy_dedup::plugin::{
    text_field_options, DedupIndex, DedupSettings, MatchingSettings, ReadOnlyTolerantDirectory,
    SETTINGS_FILE,
};
use tantivy_dedup::Error;

use crate::cli::input::Document;
use crate::cli::options::{FingerprintOptions, VerifyOptions};

/// The default index folder.
pub const DEFAULT_INDEX: &str = "tantivy-dedup-index";

/// `--index DIR`, shared by the commands that use an index.
#[derive(Args, Debug, Clone)]
pub struct IndexArg {
    /// The index folder.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_INDEX)]
    pub index: PathBuf,
}

/// The fields of the tool's schema.
pub struct CliFields {
    /// The document id: the key the writer recognizes re-ingested documents by.
    pub id: Field,
    /// The title (searched, stored; not fingerprinted: copies often retitle).
    pub title: Field,
    /// The text (searched, stored, fingerprinted).
    pub body: Field,
    /// The URL (stored).
    pub url: Field,
    /// The tags (stored, exact match).
    pub tags: Field,
}

impl CliFields {
    fn of(schema: &Schema) -> anyhow::Result<CliFields> {
        let get = |name: &str| {
            schema.get_field(name).with_context(|| {
                format!("the index has no {name:?} field: it was not made by tantivy-dedup ingest")
            })
        };
        Ok(CliFields {
            id: get("id")?,
            title: get("title")?,
            body: get("body")?,
            url: get("url")?,
            tags: get("tags")?,
        })
    }

    /// The tantivy document of an input document.
    pub fn document(&self, input: &Document) -> TantivyDocument {
        let mut doc = TantivyDocument::new();
        doc.add_text(self.id, &input.id);
        doc.add_text(self.body, &input.text);
        if let Some(title) = &input.title {
            doc.add_text(self.title, title);
        }
        if let Some(url) = &input.url {
            doc.add_text(self.url, url);
        }
        for tag in &input.tags {
            doc.add_text(self.tags, tag);
        }
        doc
    }
}

/// An opened index with the tool's fields.
pub struct CliIndex {
    /// The index, set up for deduplication.
    pub dedup: DedupIndex,
    /// The tool's fields.
    pub fields: CliFields,
}

/// The settings of a new index: `body` fingerprinted, `id` as the key, flagging on so that
/// every policy works.
fn new_settings(
    options: &FingerprintOptions,
    distance: Option<u32>,
    verify: &VerifyOptions,
    file: Option<&MatchingSettings>,
) -> DedupSettings {
    let settings = DedupSettings::new(["body"]).key_field("id").flagging(true);
    let settings = verify.apply(settings, file);
    let config = options.config_over(settings.get_fingerprint().clone());
    let settings = settings.fingerprint(config);
    match distance {
        Some(k) => settings.distance(k),
        None => settings,
    }
}

fn schema(settings: &DedupSettings) -> Schema {
    let mut schema = Schema::builder();
    schema.add_text_field("title", text_field_options());
    schema.add_text_field("body", text_field_options());
    schema.add_text_field("url", STRING | STORED);
    schema.add_text_field("tags", STRING | STORED);
    (settings.add_fields(&mut schema)).expect("the CLI's own fields leave room for the plugin's");
    schema.build()
}

/// Opens the index in `dir`, or creates it there when the folder is missing or empty.
/// Fingerprint options given on the command line must agree with an existing index's.
///
/// Creation is safe against any number of runs creating the same index at once, and
/// against a run killed while creating: see [`create`].
pub fn open_or_create(
    dir: &Path,
    options: &FingerprintOptions,
    distance: Option<u32>,
    verify: &VerifyOptions,
) -> anyhow::Result<CliIndex> {
    // A whole index opens without the creation lock (which a read-only index could not
    // take).
    // The --settings file is read once, for the creation and the opening alike.
    let file = verify.settings_file()?;
    if !is_complete(dir) {
        create(dir, || {
            new_settings(options, distance, verify, file.as_ref())
        })?;
    }
    open_with_file(dir, options, distance, verify, file.as_ref())
}

/// The lock creators of an index in a folder take, in the folder itself.
const CREATION_LOCK: &str = ".tantivy-dedup-create.lock";

/// Present while an index is being created in its folder: a folder holding it holds a
/// creation that did not finish, whose files are all the creator's.
const CREATING_MARKER: &str = ".tantivy-dedup-creating";

/// True when `dir` holds an index whose creation finished.
fn is_complete(dir: &Path) -> bool {
    dir.join("meta.json").is_file()
        && dir.join(SETTINGS_FILE).is_file()
        && !dir.join(CREATING_MARKER).exists()
}

/// Creates the index in `dir` (made if missing) unless another run has, or the folder holds
/// files of its own, under an exclusive lock on a file in `dir`: concurrent creators wait for each other, and the later ones
/// find the index made. The index is made in place, so nothing outside `dir` is touched
/// and `dir` keeps its owner and permissions (a mount point, `.`). A marker file says a
/// creation is under way: a run that finds it (its creator was killed) removes what that
/// creator left, every file of the folder but the lock, and creates again.
fn create(dir: &Path, settings: impl FnOnce() -> DedupSettings) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the index folder {}", dir.display()))?;
    let lock_path = dir.join(CREATION_LOCK);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .with_context(|| format!("cannot create {}", lock_path.display()))?;
    lock.lock()
        .with_context(|| format!("cannot lock {}", lock_path.display()))?;
    if is_complete(dir) {
        return Ok(());
    }
    let marker = dir.join(CREATING_MARKER);
    let entries = || -> anyhow::Result<Vec<PathBuf>> {
        let listed = std::fs::read_dir(dir)
            .with_context(|| format!("cannot read the index folder {}", dir.display()))?;
        let mut paths = Vec::new();
        for entry in listed {
            let path = entry
                .with_context(|| format!("cannot read the index folder {}", dir.display()))?
                .path();
            if path != lock_path {
                paths.push(path);
            }
        }
        Ok(paths)
    };
    if marker.exists() {
        // A creator killed half-way: everything here is its.
        for path in entries()? {
            let removed = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            removed.with_context(|| format!("cannot remove {}", path.display()))?;
        }
    } else if !entries()?.is_empty() {
        // Files of someone else's (another tantivy index, documents): left as they are,
        // for `open_existing` to say what the folder is.
        return Ok(());
    }
    std::fs::write(&marker, b"").with_context(|| format!("cannot write {}", marker.display()))?;
    {
        let settings = settings();
        let index = Index::create_in_dir(dir, schema(&settings))
            .with_context(|| format!("cannot create an index in {}", dir.display()))?;
        DedupIndex::create(index, settings).map_err(|e| explain(e, dir))?;
    }
    std::fs::remove_file(&marker).with_context(|| format!("cannot remove {}", marker.display()))?;
    Ok(())
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
        bail!(
            "{} is not a tantivy index (it has no meta.json): choose an empty or new folder with --index",
            dir.display()
        );
    }
    let index = open_tantivy(dir)?;
    let fields = CliFields::of(&index.schema())?;
    let stored = DedupIndex::open(index.clone()).map_err(|e| explain(e, dir))?;
    if options.is_empty() && distance.is_none() && verify.is_empty() {
        return Ok(CliIndex {
            dedup: stored,
            fields,
        });
    }
    let mut wanted = verify.apply(stored.settings().clone(), file);
    if !options.is_empty() {
        let config = options.config_over(wanted.get_fingerprint().clone());
        wanted = wanted.fingerprint(config);
    }
    if let Some(k) = distance {
        wanted = wanted.distance(k);
    }
    let dedup = DedupIndex::open_with(index, &wanted).map_err(|e| explain(e, dir))?;
    Ok(CliIndex { dedup, fields })
}

/// The tantivy index in `dir`, also on storage this process cannot write (see
/// [`ReadOnlyTolerantDirectory`]).
pub fn open_tantivy(dir: &Path) -> anyhow::Result<Index> {
    let directory = ReadOnlyTolerantDirectory::open(dir)
        .with_context(|| format!("cannot open the folder {}", dir.display()))?;
    Index::open(directory)
        .with_context(|| format!("cannot open the tantivy index in {}", dir.display()))
}

/// The library error, with what to do about it in the tool's terms.
fn explain(error: Error, dir: &Path) -> anyhow::Error {
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
        Error::MissingSettings { .. } => format!(
            "{} is a tantivy index but not one made by tantivy-dedup",
            dir.display()
        ),
        _ => format!("cannot open the index in {}", dir.display()),
    };
    anyhow::Error::new(error).context(hint)
}
