//! [`MatchingSettings`]: what decides whether two documents are near-duplicates (the
//! fingerprint config, the distance, the two-stage matching), apart from an index's fields,
//! as a file a user keeps, `eval` recommends and `ingest --settings` reads.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::settings_version::{check_version, check_version_of, SETTINGS_VERSION};
use super::{check_distance, Verification};
use crate::error::{Error, Result};
use crate::fingerprint::FingerprintConfig;
use crate::lookup::DEFAULT_MAX_DISTANCE;

/// The largest settings file [`MatchingSettings::read`] reads: 1 MiB (one written by `eval
/// --recommend` is under 2 KiB).
pub const MAX_SETTINGS_FILE_BYTES: u64 = 1 << 20;

/// The matching half of an index's settings
/// ([`DedupSettings`](crate::plugin::DedupSettings)): the fingerprint config, the distance
/// *k* and the two-stage matching, without the fields they apply to. Its JSON holds the
/// same objects, under the same names, as an index's settings file.
///
/// ```
/// use tantivy_dedup::matching::{MatchingSettings, Verification};
/// use tantivy_dedup::plugin::DedupSettings;
///
/// let tuned = MatchingSettings::default()
///     .distance(4)
///     .verification(Verification::default().threshold(0.3));
/// let json = tuned.to_json();
/// let settings = DedupSettings::new(["text"]).matching(MatchingSettings::from_json(json.as_bytes())?);
/// assert_eq!(settings.get_matching().get_distance(), 4);
/// assert_eq!(settings.get_matching().get_verification().unwrap().get_threshold(), 0.3);
/// assert_eq!(settings.get_text_fields(), ["text"]);
/// # Ok::<(), tantivy_dedup::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchingSettings {
    version: u32,
    fingerprint: FingerprintConfig,
    distance: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    verification: Option<Verification>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    measured: Option<Measured>,
}

/// What a set of matching settings scored on a labeled sample (written by `eval
/// --recommend`; informative, never read back as a setting).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measured {
    /// The labeled set's name.
    pub sample: String,
    /// What the settings were chosen for, e.g. `best F1` or `precision >= 0.95`.
    pub goal: String,
    /// Pairs called near-duplicates that are.
    pub precision: f64,
    /// Near-duplicate pairs found.
    pub recall: f64,
    /// The harmonic mean of the two.
    pub f1: f64,
    /// Precision end to end: of the pairs in the groups an ingest and `clusters` make.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_to_end_precision: Option<f64>,
    /// Recall end to end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_to_end_recall: Option<f64>,
    /// F1 end to end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_to_end_f1: Option<f64>,
}

impl Default for MatchingSettings {
    /// Those of [`DedupSettings::new`](crate::plugin::DedupSettings::new): the default
    /// fingerprint config, distance and verification.
    fn default() -> Self {
        MatchingSettings {
            version: SETTINGS_VERSION,
            fingerprint: FingerprintConfig::default(),
            distance: DEFAULT_MAX_DISTANCE,
            verification: Some(Verification::default()),
            measured: None,
        }
    }
}

impl MatchingSettings {
    /// These settings with another fingerprint config.
    #[must_use]
    pub fn fingerprint(mut self, config: FingerprintConfig) -> Self {
        self.fingerprint = config;
        self
    }

    /// These settings with another distance.
    #[must_use]
    pub fn distance(mut self, k: u32) -> Self {
        self.distance = k;
        self
    }

    /// These settings with another two-stage matching, or none.
    #[must_use]
    pub fn verification(mut self, verification: impl Into<Option<Verification>>) -> Self {
        self.verification = verification.into();
        self
    }

    /// Two-stage matching of a [`Preset`](super::Preset).
    #[must_use]
    pub fn preset(self, preset: super::Preset) -> Self {
        self.verification(preset.verification())
    }

    /// These settings with what they scored on a sample.
    #[must_use]
    pub fn measured(mut self, measured: impl Into<Option<Measured>>) -> Self {
        self.measured = measured.into();
        self
    }

    /// The fingerprint config.
    pub fn get_fingerprint(&self) -> &FingerprintConfig {
        &self.fingerprint
    }

    /// The distance *k*.
    pub fn get_distance(&self) -> u32 {
        self.distance
    }

    /// The two-stage matching, if any.
    pub fn get_verification(&self) -> Option<&Verification> {
        self.verification.as_ref()
    }

    /// What the settings scored on a sample, when they were chosen on one.
    pub fn get_measured(&self) -> Option<&Measured> {
        self.measured.as_ref()
    }

    /// Checks that every setting is in range.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] naming the first one that is not.
    pub fn validate(&self) -> Result<()> {
        check_version(self.version)?;
        self.fingerprint.validate()?;
        check_distance("distance", self.distance)?;
        if let Some(verification) = &self.verification {
            verification.validate()?;
        }
        Ok(())
    }

    /// The settings as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("plain data serializes")
    }

    /// Settings read from JSON, checked.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for a format this build does not read or a value out of
    /// range, [`Error::Decode`] for anything else that is not such a file.
    pub fn from_json(json: &[u8]) -> Result<MatchingSettings> {
        check_version_of(json)?;
        let settings: MatchingSettings =
            serde_json::from_slice(json).map_err(|source| Error::Decode {
                what: "matching settings",
                source: Box::new(source),
            })?;
        settings.validate()?;
        Ok(settings)
    }

    /// Settings read from the file at `path`, checked as [`from_json`](Self::from_json) does.
    /// Only a regular file of at most [`MAX_SETTINGS_FILE_BYTES`] is read: a FIFO (which
    /// would wait for a writer), a device such as `/dev/zero` (which never ends) or a folder
    /// is refused without reading it.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read, [`Error::SettingsFile`] when it is no
    /// regular file or too large, else those of `from_json`.
    pub fn read(path: &Path) -> Result<MatchingSettings> {
        let io = |source| Error::Io {
            path: path.to_owned(),
            source,
        };
        let refused = |reason: String| Error::SettingsFile {
            path: path.to_owned(),
            reason,
        };
        // Looked at before it is opened: opening a FIFO waits for its writer.
        let metadata = std::fs::metadata(path).map_err(io)?;
        if !metadata.is_file() {
            return Err(refused(
                "it is not a regular file (a folder, FIFO, socket or device)".to_owned(),
            ));
        }
        let file = std::fs::File::open(path).map_err(io)?;
        let mut json = Vec::new();
        file.take(MAX_SETTINGS_FILE_BYTES + 1)
            .read_to_end(&mut json)
            .map_err(io)?;
        if json.len() as u64 > MAX_SETTINGS_FILE_BYTES {
            return Err(refused(format!(
                "it is larger than {MAX_SETTINGS_FILE_BYTES} bytes; settings files are a few \
                 hundred"
            )));
        }
        MatchingSettings::from_json(&json)
    }

    /// Writes the settings to `path` (replaced whole: a crash leaves the old file or the new
    /// one).
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be written.
    pub fn write(&self, path: &Path) -> Result<()> {
        let io = |source| Error::Io {
            path: path.to_owned(),
            source,
        };
        let mut temporary = PathBuf::from(path);
        temporary.as_mut_os_string().push(".partial");
        std::fs::write(&temporary, self.to_json() + "\n").map_err(io)?;
        std::fs::rename(&temporary, path).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::CandidateStage;

    #[test]
    fn only_small_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let refused = |path: &Path| match MatchingSettings::read(path) {
            Err(Error::SettingsFile { reason, .. }) => reason,
            other => panic!("{}: expected a refusal, got {other:?}", path.display()),
        };
        assert!(refused(dir.path()).contains("not a regular file"));
        #[cfg(unix)]
        {
            assert!(refused(Path::new("/dev/zero")).contains("not a regular file"));
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|status| status.success()) {
                // Refused at once, not waiting for a writer.
                assert!(refused(&fifo).contains("not a regular file"));
            }
        }
        let large = dir.path().join("large.json");
        std::fs::write(&large, vec![b' '; (MAX_SETTINGS_FILE_BYTES + 1) as usize]).unwrap();
        assert!(refused(&large).contains("larger than"));
        let good = dir.path().join("good.json");
        MatchingSettings::default().write(&good).unwrap();
        assert_eq!(
            MatchingSettings::read(&good).unwrap(),
            MatchingSettings::default()
        );
    }

    #[test]
    fn a_file_round_trips() {
        let tuned = MatchingSettings::default()
            .distance(5)
            .verification(
                Verification::default()
                    .candidates(CandidateStage::Bands { rows: 2 })
                    .candidate_distance(64)
                    .threshold(0.25),
            )
            .measured(Measured {
                sample: "rewrites-en".into(),
                goal: "best F1".into(),
                precision: 0.99,
                recall: 0.98,
                f1: 0.985,
                end_to_end_precision: Some(0.97),
                end_to_end_recall: Some(0.96),
                end_to_end_f1: Some(0.965),
            });
        let read = MatchingSettings::from_json(tuned.to_json().as_bytes()).unwrap();
        assert_eq!(read, tuned);
    }

    #[test]
    fn bad_files_are_refused_with_what_is_wrong() {
        let json = MatchingSettings::default().to_json();
        let out_of_range = json.replace("\"distance\": 3", "\"distance\": 65");
        assert!(matches!(
            MatchingSettings::from_json(out_of_range.as_bytes()),
            Err(Error::InvalidSetting {
                name: "distance",
                ..
            })
        ));
        let later = json.replace(
            &format!("\"version\": {SETTINGS_VERSION}"),
            &format!("\"version\": {}", SETTINGS_VERSION + 1),
        );
        assert!(matches!(
            MatchingSettings::from_json(later.as_bytes()),
            Err(Error::InvalidSetting {
                name: "version",
                ..
            })
        ));
        let unknown = json.replacen('{', "{\"text_fields\": [\"body\"],", 1);
        assert!(matches!(
            MatchingSettings::from_json(unknown.as_bytes()),
            Err(Error::Decode { .. })
        ));
    }
}
