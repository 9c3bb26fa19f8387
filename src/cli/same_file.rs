//! Whether two paths name one file: the same path once links and `..` are resolved, or
//! the same device and inode (hard links, bind mounts).

use std::path::{Path, PathBuf};

/// True when `a` and `b` are one existing file or folder.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a_real), Ok(b_real)) if a_real == b_real => true,
        (Ok(_), Ok(_)) => same_inode(a, b),
        _ => false,
    }
}

#[cfg(unix)]
fn same_inode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_inode(_: &Path, _: &Path) -> bool {
    false
}

/// `path` made absolute with its links resolved, as far as it exists: the resolved parent
/// of a path that does not exist yet, with its last component.
pub fn resolved(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => resolved(parent).join(name),
        _ => absolute,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_dots_name_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        std::fs::write(&file, "{}").unwrap();
        let linked = dir.path().join("linked.json");
        std::fs::hard_link(&file, &linked).unwrap();
        let other = dir.path().join("other.json");
        std::fs::write(&other, "{}").unwrap();
        assert!(same_file(
            &file,
            &dir.path().join(".").join("settings.json")
        ));
        assert!(same_file(&file, &linked), "a hard link is the same file");
        assert!(!same_file(&file, &other));
        assert!(!same_file(&file, &dir.path().join("missing.json")));
    }
}
