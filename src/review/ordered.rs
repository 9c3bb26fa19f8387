//! [`Review`]: the decisions of an index or of an ingest report, sorted for review (least
//! similar first) and made into [`Decision`]s one at a time: the texts are read from the
//! index (and the inputs) only when a decision is shown.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tantivy::schema::{IndexRecordOption, TantivyDocument, Value};
use tantivy::{DocAddress, DocSet, Searcher, Term, TERMINATED};

use super::decision::{Decision, Side};
use super::diff::WordDiff;
use super::from_index::index_decisions;
use super::from_report::report_decisions;
use super::inputs::InputTexts;
use super::pages::{anchor_of, page_name, DECISIONS_PER_PAGE};
use super::pending::{review_order, Doc, Pending};
use super::rule::RuleSummary;
use crate::corpus::CorpusIndex;
use crate::error::Result;

/// What a review's decisions name that it cannot show (see [`Review::gaps`]).
///
/// Available with the `review` feature (on by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Gaps {
    /// Documents named as kept (in the index), distinct.
    pub kept_named: usize,
    /// Of those, the ones the index does not hold.
    pub kept_missing: usize,
    /// Rejected or replaced records whose texts are read from the inputs, distinct.
    pub texts_wanted: usize,
    /// Of those, the ones the inputs do not hold.
    pub texts_missing: usize,
    /// Lines of the inputs that are no JSON records (invalid UTF-8 or JSON, or too long).
    pub unreadable_lines: usize,
}

/// The decisions to review, in review order. Holds a few dozen bytes a decision (where
/// its documents are, its distance and similarity), never the texts.
///
/// Available with the `review` feature (on by default).
///
/// ```
/// use tantivy_dedup::corpus::{corpus_settings, CorpusIndex, CorpusRecord};
/// use tantivy_dedup::plugin::Policy;
/// use tantivy_dedup::review::{Action, Review};
///
/// let dir = tempfile::tempdir()?;
/// let index = CorpusIndex::open_or_create(&dir.path().join("index"), corpus_settings)?;
/// let writer = index.dedup.writer(Policy::Flag, 50_000_000)?;
/// let text = "The same page fetched twice by the crawler, word for word, with one more line.";
/// writer.add(index.fields.document(&CorpusRecord::new("a", text)))?;
/// writer.add(index.fields.document(&CorpusRecord::new("b", text)))?;
/// writer.commit()?;
///
/// let searcher = index.dedup.index().reader()?.searcher();
/// let review = Review::of_index(&index, searcher, "index")?;
/// let decisions: Vec<_> = review.decisions(&dir.path().join("review.html")).collect::<Result<_, _>>()?;
/// assert_eq!(decisions.len(), 1);
/// assert_eq!((decisions[0].kept.id.as_str(), decisions[0].other.id.as_str()), ("a", "b"));
/// assert_eq!(decisions[0].action, Action::Flagged);
/// let files = review.write_html(&dir.path().join("review.html"))?;
/// assert_eq!(files.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Review<'a> {
    index: &'a CorpusIndex,
    searcher: Searcher,
    pending: Vec<Pending>,
    inputs: InputTexts,
    rule: RuleSummary,
    source: String,
}

impl std::fmt::Debug for Review<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Review")
            .field("source", &self.source)
            .field("decisions", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl<'a> Review<'a> {
    /// The decisions `index` holds: every member of a group of near-duplicates (as
    /// [`CorpusIndex::clusters`] finds them) against its leader, flagged or not, and every
    /// record of a document replaced under `--policy replace` (its text is gone).
    /// `source` names the index in the pages.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the index cannot be read.
    pub fn of_index(
        index: &'a CorpusIndex,
        searcher: Searcher,
        source: &str,
    ) -> Result<Review<'a>> {
        let pending = index_decisions(index, &searcher)?;
        Ok(Review::new(
            index,
            searcher,
            pending,
            InputTexts::default(),
            source,
        ))
    }

    /// The decisions of the ingest report at `report`, read with `index`, the index that
    /// ingest wrote (it holds the documents kept and the flagged ones). The texts of
    /// rejected and replaced records are read from the JSON-lines `inputs` of the ingest,
    /// when given; without them those decisions show what the report and the index know.
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) when a file cannot be read;
    /// [`Error::Report`](crate::Error::Report) for a line that is not a report line.
    pub fn of_report(
        index: &'a CorpusIndex,
        searcher: Searcher,
        report: &Path,
        inputs: &[PathBuf],
    ) -> Result<Review<'a>> {
        let pending = report_decisions(report)?;
        let wanted: HashSet<&str> = (pending.iter())
            .flat_map(|p| [&p.kept, &p.other])
            .filter_map(|doc| match doc {
                Doc::Gone(id) => Some(id.as_str()),
                _ => None,
            })
            .collect();
        let inputs = InputTexts::scan(inputs, &wanted)?;
        let source = format!("report {}", report.display());
        Ok(Review::new(index, searcher, pending, inputs, &source))
    }

    fn new(
        index: &'a CorpusIndex,
        searcher: Searcher,
        mut pending: Vec<Pending>,
        inputs: InputTexts,
        source: &str,
    ) -> Review<'a> {
        pending.sort_by(review_order);
        Review {
            rule: RuleSummary::of(&index.dedup),
            index,
            searcher,
            pending,
            inputs,
            source: source.to_owned(),
        }
    }

    /// What the decisions name that the review cannot show: documents a report calls kept
    /// that the index does not hold (the report of another index?), and texts of rejected
    /// or replaced records that the inputs do not hold. One lookup a decision.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the index cannot be read.
    pub fn gaps(&self) -> Result<Gaps> {
        let mut kept = HashSet::new();
        let mut gone = HashSet::new();
        for pending in &self.pending {
            for doc in [&pending.kept, &pending.other] {
                match doc {
                    Doc::Id(id) => kept.insert(id.as_str()),
                    Doc::Gone(id) => gone.insert(id.as_str()),
                    Doc::At(_) => false,
                };
            }
        }
        let mut kept_missing = 0;
        for id in &kept {
            kept_missing += usize::from(self.address_of(id)?.is_none());
        }
        Ok(Gaps {
            kept_named: kept.len(),
            kept_missing,
            texts_wanted: gone.len(),
            texts_missing: gone.len() - self.inputs.found(),
            unreadable_lines: self.inputs.unreadable(),
        })
    }

    /// The number of decisions.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The rule the index judges by.
    pub fn rule(&self) -> &RuleSummary {
        &self.rule
    }

    /// What the decisions come from (`index DIR`, `report FILE`), as the pages say.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The first decision (in review order) about the record `id`: the one where it is the
    /// other document, else one where it is kept. Its rank (from 1).
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the index cannot be read.
    pub fn rank_of(&self, id: &str) -> Result<Option<usize>> {
        let address = self.address_of(id)?;
        let is = |doc: &Doc| match doc {
            Doc::At(at) => Some(*at) == address,
            Doc::Id(other) | Doc::Gone(other) => other == id,
        };
        let found = (self.pending.iter().position(|p| is(&p.other)))
            .or_else(|| self.pending.iter().position(|p| is(&p.kept)));
        Ok(found.map(|at| at + 1))
    }

    /// The decisions in review order, each read when the iterator comes to it; `out` is
    /// the first page's path (see [`write_html`](Self::write_html)), which names the file
    /// each decision is in.
    pub fn decisions<'r>(&'r self, out: &'r Path) -> impl Iterator<Item = Result<Decision>> + 'r {
        (self.pending.iter().enumerate()).map(move |(at, pending)| self.decision(at, pending, out))
    }

    /// The decision of rank `rank` (from 1), read alone; `None` past the last.
    ///
    /// # Errors
    /// What reading the index or the inputs returns.
    pub fn decision_at(&self, rank: usize, out: &Path) -> Result<Option<Decision>> {
        match rank
            .checked_sub(1)
            .and_then(|at| Some((at, self.pending.get(at)?)))
        {
            Some((at, pending)) => self.decision(at, pending, out).map(Some),
            None => Ok(None),
        }
    }

    /// The decisions of ranks `from..to` (from 0), as [`decisions`](Self::decisions).
    pub(crate) fn decisions_in(&self, from: usize, to: usize, out: &Path) -> Result<Vec<Decision>> {
        (from..to.min(self.pending.len()))
            .map(|at| self.decision(at, &self.pending[at], out))
            .collect()
    }

    fn decision(&self, at: usize, pending: &Pending, out: &Path) -> Result<Decision> {
        let kept = self.resolve(&pending.kept)?;
        let other = self.resolve(&pending.other)?;
        let judgement = match (&pending.judgement, kept.address, other.address) {
            (Some(judgement), _, _) => Some(judgement.clone()),
            (None, Some(a), Some(b)) => {
                Some(self.index.dedup.judge_stored(&self.searcher, a, b)?)
            }
            (None, _, _) => match (&kept.text, &other.text) {
                (Some(a), Some(b)) => Some(self.index.dedup.judge(a, b)),
                _ => None,
            },
        };
        let judged = judgement.as_ref();
        let diff = match (&kept.text, &other.text) {
            (Some(a), Some(b)) => WordDiff::of(a, b),
            (Some(a), None) => WordDiff::alone(a),
            (None, Some(b)) => {
                let alone = WordDiff::alone(b);
                WordDiff {
                    kept: Vec::new(),
                    other: alone.kept,
                    truncated: alone.truncated,
                }
            }
            (None, None) => WordDiff::default(),
        };
        Ok(Decision {
            rank: at + 1,
            file: page_name(out, at / DECISIONS_PER_PAGE),
            anchor: anchor_of(&other.id),
            action: pending.action,
            distance: pending.distance.or(judged.and_then(|j| j.distance)),
            similarity: pending.similarity.or(judged.and_then(|j| j.jaccard)),
            kept: kept.side(),
            other: other.side(),
            judgement,
            diff,
        })
    }

    /// The id, text and address of `doc`.
    fn resolve(&self, doc: &Doc) -> Result<Resolved> {
        let (id, address) = match doc {
            Doc::At(address) => (None, Some(*address)),
            Doc::Id(id) => (Some(id.clone()), self.address_of(id)?),
            Doc::Gone(id) => {
                return Ok(Resolved {
                    id: id.clone(),
                    text: self.inputs.text_of(id)?,
                    address: None,
                })
            }
        };
        let Some(address) = address else {
            return Ok(Resolved {
                id: id.unwrap_or_default(),
                text: None,
                address: None,
            });
        };
        let stored: TantivyDocument = self.searcher.doc(address)?;
        let fields = &self.index.fields;
        let id = id.unwrap_or_else(|| {
            (stored.get_first(fields.id))
                .and_then(|value| value.as_str())
                .unwrap_or_default()
                .to_owned()
        });
        let text = self.index.dedup.fields().text_of(&stored).into_owned();
        Ok(Resolved {
            id,
            text: Some(text),
            address: Some(address),
        })
    }

    /// The address of the alive document with the id `id`, if there is one.
    fn address_of(&self, id: &str) -> Result<Option<DocAddress>> {
        let term = Term::from_field_text(self.index.fields.id, id);
        for (ord, segment) in self.searcher.segment_readers().iter().enumerate() {
            let inverted = segment.inverted_index(self.index.fields.id)?;
            let Some(mut postings) = inverted
                .read_postings(&term, IndexRecordOption::Basic)
                .map_err(tantivy::TantivyError::from)?
            else {
                continue;
            };
            let mut doc = postings.doc();
            while doc != TERMINATED {
                if segment
                    .alive_bitset()
                    .is_none_or(|alive| alive.is_alive(doc))
                {
                    return Ok(Some(DocAddress::new(ord as u32, doc)));
                }
                doc = postings.advance();
            }
        }
        Ok(None)
    }
}

/// A document of a decision, found.
struct Resolved {
    id: String,
    text: Option<String>,
    address: Option<DocAddress>,
}

impl Resolved {
    fn side(&self) -> Side {
        Side {
            id: self.id.clone(),
            text_known: self.text.is_some(),
            chars: self.text.as_deref().map_or(0, |text| text.chars().count()),
        }
    }
}
