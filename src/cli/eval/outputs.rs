//! The files `eval` writes, one stem per set (`OUT/STEM.json`, `.md`, `.svg`,
//! `.settings.json`), named and checked before anything is written: no two sets share a
//! stem, and no output is a file some set is read from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::set_files::{set_name, SET_FILES};
use crate::cli::same_file::{resolved, same_file};

/// The extensions of the files written per set.
const EXTENSIONS: [&str; 4] = ["json", "md", "svg", "settings.json"];

/// The stem of each set's output files in `out`, in the order of `sets`.
///
/// # Errors
/// When a set's description cannot be read; when two sets would write the same files (the
/// same folder given twice, or names such as `a/b` and `a_b` that make one file name,
/// compared without case for file systems that ignore it); when an output file would be a
/// file of a set (a set named `set` with `--out` its own folder).
pub fn stems(sets: &[PathBuf], out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut taken: HashMap<String, (&Path, String)> = HashMap::new();
    let mut stems = Vec::with_capacity(sets.len());
    for dir in sets {
        let name = set_name(dir)?;
        let stem = sanitize(&name);
        if let Some((first, first_name)) = taken.get(&stem.to_lowercase()) {
            anyhow::bail!(
                "the sets {} (named {first_name:?}) and {} (named {name:?}) would both write \
                 {}.*: give one of them another \"name\" in its set.json",
                first.display(),
                dir.display(),
                out.join(&stem).display()
            );
        }
        taken.insert(stem.to_lowercase(), (dir, name));
        stems.push(out.join(stem));
    }
    let inputs: Vec<PathBuf> = (sets.iter())
        .flat_map(|dir| SET_FILES.map(|file| dir.join(file)))
        .collect();
    for stem in &stems {
        for output in EXTENSIONS.map(|extension| output(stem, extension)) {
            if let Some(input) = (inputs.iter())
                .find(|input| resolved(&output) == resolved(input) || same_file(&output, input))
            {
                anyhow::bail!(
                    "{} would be written over the set file {}: choose another --out",
                    output.display(),
                    input.display()
                );
            }
        }
    }
    Ok(stems)
}

/// The file of `stem` with `extension` added (a stem's own dots kept: `v1.2` gives
/// `v1.2.json`).
pub fn output(stem: &Path, extension: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(".");
    name.push(extension);
    PathBuf::from(name)
}

/// A set name as a file name: path separators and other oddities replaced.
fn sanitize(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() || cleaned.starts_with('.') {
        format!("set{cleaned}")
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(root: &Path, folder: &str, name: &str) -> PathBuf {
        let dir = root.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("set.json"), format!("{{\"name\":{name:?}}}")).unwrap();
        dir
    }

    #[test]
    fn sets_whose_names_make_one_file_name_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        let a = set(root.path(), "one", "a/b");
        let b = set(root.path(), "two", "a_b");
        let error = stems(&[a.clone(), b], &out).unwrap_err().to_string();
        assert!(
            error.contains("\"a/b\"") && error.contains("\"a_b\""),
            "{error}"
        );
        let error = stems(&[a.clone(), a.clone()], &out)
            .unwrap_err()
            .to_string();
        assert!(error.contains("would both write"), "{error}");
        let c = set(root.path(), "three", "A_B");
        assert!(
            stems(&[a.clone(), c], &out).is_err(),
            "case aside, one name"
        );
        let d = set(root.path(), "four", "c");
        assert_eq!(
            stems(&[a, d], &out).unwrap(),
            [out.join("a_b"), out.join("c")]
        );
        // Dots in names are kept whole: versions are distinct files.
        let v1 = set(root.path(), "v1", "news.v1");
        let v2 = set(root.path(), "v2", "news.v2");
        let both = stems(&[v1, v2], &out).unwrap();
        assert_ne!(output(&both[0], "json"), output(&both[1], "json"));
        assert_eq!(output(&both[0], "json"), out.join("news.v1.json"));
    }

    #[test]
    fn an_output_over_a_set_file_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = set(root.path(), "mine", "set");
        let error = stems(std::slice::from_ref(&dir), &dir)
            .unwrap_err()
            .to_string();
        assert!(error.contains("set.json"), "{error}");
        let docs = set(root.path(), "other", "docs");
        std::fs::write(docs.join("docs.jsonl"), "").unwrap();
        // docs.json is no set file: written beside docs.jsonl.
        assert!(stems(std::slice::from_ref(&docs), &docs).is_ok());
    }
}
