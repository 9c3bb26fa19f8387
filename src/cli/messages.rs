//! The library's errors in the command line's terms: where a library message tells its
//! reader which function to call, a user of the tool reads which command and flags to use.

use std::path::Path;

use tantivy_dedup::plugin::{IDF_FILE, SHINGLE_WEIGHTS_FILE};
use tantivy_dedup::Error;

/// What to tell a user of the tool about `error`, met on the index in `dir`, when the
/// library's message speaks of library calls; `None` when it reads well as it is.
pub fn in_cli_terms(error: &Error, dir: &Path) -> Option<String> {
    let dir = dir.display();
    Some(match error {
        Error::MissingSettings { path } => format!(
            "{dir} is a tantivy index but not one made by tantivy-dedup ({} is missing): \
             ingest its stored documents into a new index with `tantivy-dedup ingest \
             --from-index {dir} --index NEW_DIR`",
            path.display()
        ),
        Error::InvalidSetting { name: "idf", .. } => format!(
            "the index in {dir} weights features with an IDF table that is not in its folder \
             ({IDF_FILE} is missing or not the one its settings name): restore the folder \
             from a copy, or build the index again with `tantivy-dedup ingest --from-index \
             {dir} --index NEW_DIR`"
        ),
        Error::InvalidSetting {
            name: "verification.weights",
            ..
        } => format!(
            "the index in {dir} weighs its signatures' shingles by a table that is not in its \
             folder ({SHINGLE_WEIGHTS_FILE} is missing or not the one its settings name): \
             restore the folder from a copy, or build the index again with `tantivy-dedup \
             ingest --from-index {dir} --index NEW_DIR --idf-from SAMPLE`"
        ),
        Error::MissingSignatures { segment, documents } => format!(
            "{documents} documents of segment {segment} of the index in {dir} have a \
             fingerprint but no signature (they were added by another program), though the \
             index verifies with signatures: build the index again with `tantivy-dedup \
             ingest --from-index {dir} --index NEW_DIR`"
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_library_call_is_named() {
        let dir = Path::new("prod");
        let errors = [
            Error::MissingSettings {
                path: ".tantivy-dedup.json".into(),
            },
            Error::InvalidSetting {
                name: "idf",
                reason: "the config names IDF source \"x\"; pass it to the builder".into(),
            },
            Error::MissingSignatures {
                segment: "0123abcd".into(),
                documents: 3,
            },
        ];
        for error in &errors {
            let message = in_cli_terms(error, dir).unwrap();
            for library in ["DedupIndex", "builder", "fill_document", "DedupWriter"] {
                assert!(!message.contains(library), "{message}");
            }
            assert!(message.contains("tantivy-dedup ingest"), "{message}");
        }
        let plain = Error::InvalidSetting {
            name: "distance",
            reason: "at most 64".into(),
        };
        assert_eq!(in_cli_terms(&plain, dir), None);
    }
}
