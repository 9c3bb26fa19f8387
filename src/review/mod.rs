//! Near-duplicate decisions for people to check: each pair of a document kept and another
//! judged its near-duplicate, side by side with what differs marked, the measurements and
//! the rule's reason: the "explain" view of a deduplication, as diff tools show two versions
//! of a file.
//!
//! Available with the `review` feature (on by default).
//!
//! * [`WordDiff`]: the word-level diff of two texts (character-level in Han text).
//! * [`DedupIndex::explain`](crate::plugin::DedupIndex::explain): an index's verdict on two
//!   texts with their diff ([`Explanation`]), for a dashboard of one's own.
//! * [`Review`]: every decision of a corpus index (its groups, flagged and replaced
//!   documents) or of an ingest report, least similar first, made into [`Decision`]s one at
//!   a time and written as self-contained HTML pages
//!   ([`write_html`](Review::write_html), [`DECISIONS_PER_PAGE`] a page) or as JSON
//!   ([`Decision::to_json`]).
//! * [`escape_html`]: document text made inert in a page.

mod bounded_lines;
mod decision;
mod diff;
mod escape;
mod from_index;
mod from_report;
mod html;
mod inputs;
mod ordered;
mod pages;
mod pending;
mod reason;
mod rule;

pub use decision::{Action, Decision, Explanation, Side};
pub use diff::{Change, Span, WordDiff, MAX_DIFF_CHARS};
pub use escape::{escape_html, escaped};
pub use html::MAX_ID_CHARS;
pub use ordered::{Gaps, Review};
pub use pages::{anchor_of, page_name, page_path, DECISIONS_PER_PAGE};
pub use reason::{reason_json, reason_kind, reason_text};
pub use rule::RuleSummary;
