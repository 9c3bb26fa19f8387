//! The crate's layers import one way only: text → fingerprint → lookup → matching →
//! {shared, grouping} → plugin → {eval, corpus} → review. A module may name itself, `error`, and the layers below
//! it; eval (which measures settings end to end through the plugin's writer) and the corpus
//! sit side by side and name neither each other nor anything above them. Inside the plugin,
//! the writer's path and the collector's path do not name each other.
//!
//! Read from the source: every `crate::` path outside comments, in `use` lines and in code.

use std::fs;
use std::path::{Path, PathBuf};

/// The layer of each top-level module, lowest first; modules of one layer may not name
/// each other. `error` is everyone's.
const LAYERS: [(&str, u32); 12] = [
    ("text", 0),
    ("html", 0),
    ("fingerprint", 1),
    ("lookup", 2),
    ("matching", 3),
    ("shared", 4),
    ("grouping", 4),
    ("plugin", 5),
    ("eval", 6),
    ("corpus", 6),
    ("review", 7),
    ("cli", 8),
];

/// What the crate root re-exports, by the module it comes from.
const ROOT_REEXPORTS: [(&str, &str); 5] = [
    ("Error", "error"),
    ("Result", "error"),
    ("Fingerprint", "fingerprint"),
    ("FingerprintConfig", "fingerprint"),
    ("SimHasher", "fingerprint"),
];

/// The module a name at the crate root stands for.
fn home(name: &str) -> &str {
    ROOT_REEXPORTS
        .iter()
        .find(|(reexport, _)| *reexport == name)
        .map_or(name, |&(_, module)| module)
}

fn layer(module: &str) -> Option<u32> {
    LAYERS
        .iter()
        .find(|(name, _)| *name == module)
        .map(|&(_, layer)| layer)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a line: what comes before a `//` comment (string literals holding `//` are
/// rare enough in this crate not to matter, and would only hide a path).
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |at| &line[..at])
}

/// The top-level module each `crate::` path of `line` names, and with `{a, b}` groups at
/// the root, each of them.
fn named_modules(line: &str) -> Vec<String> {
    let mut named = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        // `tantivy_dedup::` is the crate seen from outside; `crate::` preceded by an
        // identifier character belongs to another word.
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            named.extend(
                group[..end]
                    .split(',')
                    .map(|item| item.trim().split("::").next().unwrap_or("").to_owned())
                    .filter(|item| !item.is_empty()),
            );
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        named.push(name);
    }
    named
}

/// The plugin's submodule a file of `src/plugin/` belongs to.
fn plugin_part(relative: &Path) -> Option<String> {
    let mut parts = relative.iter();
    (parts.next()? == "plugin").then_some(())?;
    let part = parts.next()?.to_str()?;
    Some(part.trim_end_matches(".rs").to_owned())
}

#[test]
fn layers_import_one_way_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let top = relative.iter().next().unwrap().to_str().unwrap();
        let Some(own) = layer(top.trim_end_matches(".rs")) else {
            continue; // lib.rs, main.rs, error.rs
        };
        let own_name = top.trim_end_matches(".rs");
        let part = plugin_part(relative);
        for (n, line) in fs::read_to_string(file).unwrap().lines().enumerate() {
            let code = code(line);
            for module in named_modules(code) {
                let module = home(&module);
                checked += 1;
                let allowed = module == own_name
                    || module == "error"
                    || layer(module).is_some_and(|theirs| theirs < own);
                if !allowed {
                    wrong.push(format!("{}:{}: {}", relative.display(), n + 1, line.trim()));
                }
            }
            // The writer's path and the collector's path are apart.
            let crossing = match part.as_deref() {
                Some("writer") => code.contains("plugin::collector"),
                Some("collector") => code.contains("plugin::writer"),
                _ => false,
            };
            if crossing {
                wrong.push(format!("{}:{}: {}", relative.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} paths read: is the parser broken?"
    );
    assert!(
        wrong.is_empty(),
        "imports from a layer above or beside:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_reader_sees_groups_and_skips_other_words() {
    assert_eq!(
        named_modules("use crate::{error::Result, lookup::X, plugin};"),
        ["error", "lookup", "plugin"]
    );
    assert_eq!(
        named_modules("let x = crate::plugin::f(tantivy_dedup::eval::g);"),
        ["plugin"]
    );
    assert_eq!(
        named_modules(code("x(); // crate::plugin")),
        Vec::<String>::new()
    );
}
