//! [`Decision`]: one near-duplicate decision as a person reviews it (the kept document, the
//! other, what the policy did, the rule's verdict and the word-level diff), and
//! [`Explanation`], the verdict and the diff of any two texts
//! ([`DedupIndex::explain`]).

use serde::Serialize;
use serde_json::{json, Value};

use super::diff::WordDiff;
use super::reason::reason_json;
use super::rule::RuleSummary;
use crate::matching::Judgement;
use crate::plugin::DedupIndex;

/// What became of the other document of a decision.
///
/// Available with the `review` feature (on by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Action {
    /// Kept out of the index (`--policy reject`): its text is not in the index.
    Rejected,
    /// Indexed and flagged as a near-duplicate of the kept one (`--policy flag`).
    Flagged,
    /// Removed from the index by the kept one, a later near-duplicate (`--policy
    /// replace`): its text is not in the index.
    Replaced,
    /// In the index unflagged, in a group of near-duplicates as `clusters` finds them (an
    /// index ingested under another rule, or filled by another writer).
    Grouped,
}

impl Action {
    /// Every action, in the order filters list them.
    pub const ALL: [Action; 4] = [
        Action::Rejected,
        Action::Flagged,
        Action::Replaced,
        Action::Grouped,
    ];

    /// The action's name: `rejected`, `flagged`, `replaced`, `grouped`.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Rejected => "rejected",
            Action::Flagged => "flagged",
            Action::Replaced => "replaced",
            Action::Grouped => "grouped",
        }
    }
}

/// One document of a decision.
///
/// Available with the `review` feature (on by default).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Side {
    /// Its id.
    pub id: String,
    /// Whether its text is known: false for a rejected or replaced record whose text the
    /// index does not hold and no `--input` gave.
    pub text_known: bool,
    /// The characters of its text (0 when unknown).
    pub chars: usize,
}

/// One decision: a document kept and another judged a near-duplicate of it.
///
/// Available with the `review` feature (on by default).
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Its place in the review, from 1: least similar first.
    pub rank: usize,
    /// The name of the review page holding it.
    pub file: String,
    /// Its anchor in that page (see [`anchor_of`](super::anchor_of)).
    pub anchor: String,
    /// What became of the other document.
    pub action: Action,
    /// The document kept.
    pub kept: Side,
    /// The other document.
    pub other: Side,
    /// The Hamming distance of the fingerprints: the judgement's, else the report's.
    pub distance: Option<u32>,
    /// The signatures' agreement (Jaccard estimate): the judgement's, else the
    /// verification's score the report gives.
    pub similarity: Option<f64>,
    /// The rule's verdict on the pair; `None` when a text is not known, so that the
    /// decision is known from the report alone.
    pub judgement: Option<Judgement>,
    /// The texts with what differs marked.
    pub diff: WordDiff,
}

impl Decision {
    /// The decision as one JSON object, the line `tantivy-dedup review --json` prints:
    /// `rank`, `file`, `anchor`, `action`, `kept` and `other` (`id`, `text_known`,
    /// `chars`), `distance`, `similarity`, `near`, `reason` (`{"kind":..}`), `rule`, and
    /// `diff` (`kept` and `other` lists of `{"change":"same"|"removed"|"added","text":..}`,
    /// `truncated`).
    pub fn to_json(&self, rule: &RuleSummary) -> Value {
        json!({
            "rank": self.rank,
            "file": self.file,
            "anchor": self.anchor,
            "action": self.action,
            "kept": self.kept,
            "other": self.other,
            "distance": self.distance,
            "similarity": self.similarity,
            "near": self.judgement.as_ref().map(|judgement| judgement.near),
            "reason": reason_json(self.judgement.as_ref().map(|judgement| &judgement.reason)),
            "rule": rule,
            "diff": self.diff,
        })
    }
}

/// Two texts judged by an index's rule, with what differs between them: what a review page
/// shows of a decision, for a program (a crawler's dashboard) to show the same.
///
/// Available with the `review` feature (on by default).
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The rule's verdict, as [`DedupIndex::judge`] gives it.
    pub judgement: Judgement,
    /// The word-level diff (character-level in Han text) of the texts.
    pub diff: WordDiff,
}

impl DedupIndex {
    /// How this index's rule judges `kept` and `other` (see [`judge`](Self::judge)), with
    /// their word-level diff (each text cut at [`MAX_DIFF_CHARS`](super::MAX_DIFF_CHARS)
    /// characters for the diff; the judgement reads them whole).
    ///
    /// Available with the `review` feature (on by default).
    ///
    /// ```
    /// use tantivy::schema::Schema;
    /// use tantivy::Index;
    /// use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings};
    /// use tantivy_dedup::review::WordDiff;
    ///
    /// let settings = DedupSettings::new(["body"]);
    /// let mut schema = Schema::builder();
    /// schema.add_text_field("body", text_field_options());
    /// settings.add_fields(&mut schema)?;
    /// let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings)?;
    ///
    /// let kept = "The council approved the new budget on Tuesday after a long debate about schools and roads.";
    /// let other = "The council approved the new budget on Wednesday after a long debate about schools and roads.";
    /// let explanation = index.explain(kept, other);
    /// assert_eq!(WordDiff::changed(&explanation.diff.kept), ["Tuesday"]);
    /// assert_eq!(WordDiff::changed(&explanation.diff.other), ["Wednesday"]);
    /// assert!(explanation.judgement.distance.is_some());
    /// # Ok::<(), tantivy_dedup::Error>(())
    /// ```
    pub fn explain(&self, kept: &str, other: &str) -> Explanation {
        Explanation {
            judgement: self.judge(kept, other),
            diff: WordDiff::of(kept, other),
        }
    }
}
