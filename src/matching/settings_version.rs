//! [`SETTINGS_VERSION`]: the format of the settings files (an index's, and
//! [`MatchingSettings`](super::MatchingSettings)), and the check that a file can be read.

use serde::Deserialize;

use crate::error::{Error, Result};

/// Version of the settings file format this crate writes. Files of every version up to this
/// one are read; a later version is refused with an error that names both, read before the
/// rest of the file, so that a field added since does not show as an "unknown field". A
/// field added with a serde default (`verification.candidates`) reads in files without it
/// and needs no new version; one that older versions would misread does.
///
/// Format 2: indexes keep signatures in a u64 field ([`SIGNATURE_FIELD`](crate::plugin::SIGNATURE_FIELD)); indexes of
/// format 1 keep theirs in a bytes field, which this crate still reads and writes. The
/// schema says which, so both open; the version tells an older crate to upgrade.
///
/// Format 3: signatures hash a shingle of several words from its words' hashes
/// ([`ShingleHashing::Words`](crate::fingerprint::ShingleHashing::Words), the default);
/// files of format 2 and earlier read as hashing a shingle's text
/// ([`ShingleHashing::Text`](crate::fingerprint::ShingleHashing::Text)), as those indexes
/// did, and keep doing so.
///
/// Format 4: signatures keep the high 32 bits of each bin's minimum
/// ([`KeptBits::High`](crate::fingerprint::KeptBits::High), the default), from which they
/// also estimate their set's size and so containment; files of format 3 and earlier read as
/// keeping the low bits ([`KeptBits::Low`](crate::fingerprint::KeptBits::Low)).
///
/// Format 5: indexes keep two signature values in each value of their u64 signature field,
/// half as many values for tantivy to record; indexes of formats 2 to 4 keep one a value,
/// and keep doing so. A read tells the two apart document by document.
///
/// Format 6: the signatures decide every pair
/// ([`VerifyRule::signatures_decide`](super::VerifyRule::signatures_decide)), those within
/// the distance too; files of format 5 and earlier read as calling every pair within the
/// distance near, as those indexes did, and keep doing so until their rule is changed.
///
/// Format 7: signatures keep a byte a value
/// ([`KeptBits::LowByte`](crate::fingerprint::KeptBits::LowByte), the default), eight to a
/// value of the u64 signature field: a quarter of the space. Files of earlier formats name
/// the bits their signatures keep, and those indexes keep them.
///
/// Format 8: signatures may weight their shingles by a table frozen with the index
/// ([`Verification::weights`](super::Verification::weights)); files of format 7 and
/// earlier weight every shingle alike, as they always did.
///
/// Format 9: the tokenizer may fold Taiwan vocabulary in either script
/// ([`ScriptFolding::RegionalAnyScript`](crate::text::ScriptFolding::RegionalAnyScript), the
/// default); files of earlier formats name the folding their indexes use, and keep it.
///
/// Format 10: indexes keep each document's fingerprint and signature in a segment
/// component of the plugin's own (`.dedup` files, written, merged and committed with the
/// segments, and required to write the index), fed by a custom field
/// ([`VALUES_FIELD`](crate::plugin::VALUES_FIELD)) in place of the signature field.
/// Indexes of earlier formats keep their columns and open without the component.
pub const SETTINGS_VERSION: u32 = 10;

/// Checks that a settings file of format `version` can be read by this crate.
///
/// # Errors
/// [`Error::InvalidSetting`] for version 0, or a version above [`SETTINGS_VERSION`] (a file
/// written by a later tantivy-dedup).
pub(crate) fn check_version(version: u32) -> Result<()> {
    if (1..=SETTINGS_VERSION).contains(&version) {
        return Ok(());
    }
    let reason = if version == 0 {
        "settings version 0 does not exist".to_owned()
    } else {
        format!(
            "the settings were written in format {version} by a later tantivy-dedup; this one \
             reads formats 1 to {SETTINGS_VERSION}"
        )
    };
    Err(Error::InvalidSetting {
        name: "version",
        reason,
    })
}

/// Checks the `version` of a settings file's JSON before the rest is decoded: a later
/// format may hold fields this crate does not know of, which would otherwise show as an
/// "unknown field". JSON without a version is left for the decoding to refuse.
///
/// # Errors
/// Those of [`check_version`].
pub(crate) fn check_version_of(json: &[u8]) -> Result<()> {
    #[derive(Deserialize)]
    struct Version {
        version: u32,
    }
    match serde_json::from_slice::<Version>(json) {
        Ok(Version { version }) => check_version(version),
        Err(_) => Ok(()),
    }
}
