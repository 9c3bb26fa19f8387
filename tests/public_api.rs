//! The crate's public API, listed from rustdoc JSON (every feature on), is the one checked
//! in as `public-api.txt`: a change of the API is a change of that file, seen in review.
//!
//! After an intended change, update the file with
//! `UPDATE_PUBLIC_API=1 cargo test --test public_api`.
//!
//! rustdoc JSON is unstable: on a stable toolchain it needs `RUSTC_BOOTSTRAP=1`, set for the
//! `cargo rustdoc` this test runs (in its own target folder, `target/tmp/public-api`, so
//! that it does not wait for the `cargo test` that runs it). The listing omits blanket
//! impls (`impl<T> From<T> for T` and the like, the same for every type) and keeps auto
//! traits (`Send`, `Sync`, ...), whose loss would break users.

use std::path::{Path, PathBuf};

const UPDATE: &str = "UPDATE_PUBLIC_API=1 cargo test --test public_api";

/// The public API, one item a line, sorted.
fn listing() -> String {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("public-api");
    let mut stderr = Vec::new();
    let json = rustdoc_json::Builder::default()
        .manifest_path(&manifest)
        .target_dir(&target)
        .all_features(true)
        .env("RUSTC_BOOTSTRAP", "1")
        // Flags of the outer build (coverage, `-D warnings`) are not this listing's.
        .env("RUSTDOCFLAGS", "")
        .env("RUSTFLAGS", "")
        .build_with_captured_output(std::io::sink(), &mut stderr)
        .unwrap_or_else(|e| {
            panic!(
                "cannot build rustdoc JSON: {e}\n{}",
                String::from_utf8_lossy(&stderr)
            )
        });
    let api = public_api::Builder::from_rustdoc_json(&json)
        .omit_blanket_impls(true)
        .build()
        .unwrap_or_else(|e| panic!("cannot read the rustdoc JSON {}: {e}", json.display()));
    let mut text = String::new();
    for item in api.items() {
        text.push_str(&item.to_string());
        text.push('\n');
    }
    text
}

#[test]
fn the_public_api_is_the_checked_in_listing() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("public-api.txt");
    let now = listing();
    if std::env::var_os("UPDATE_PUBLIC_API").is_some_and(|v| v == "1") {
        std::fs::write(&path, &now).expect("cannot write public-api.txt");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    if checked_in != now {
        let diff = similar::TextDiff::from_lines(&checked_in, &now);
        panic!(
            "the public API differs from public-api.txt (- checked in, + now):\n\n{}\n\
             If the change is intended, update the file with `{UPDATE}` and commit it.",
            diff.unified_diff()
                .context_radius(2)
                .header("public-api.txt", "now")
        );
    }
}
