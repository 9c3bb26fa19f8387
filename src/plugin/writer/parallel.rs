//! Many documents at once: [`DedupWriter::add_batch`] and [`DedupWriter::add_all`] compute
//! the documents' fingerprints and signatures (most of an add's cost) on rayon's threads,
//! and decide them one by one in input order under the writer's lock, so that the outcomes
//! are those of [`DedupWriter::add`] called on each document in turn.
//!
//! Why that holds: an add is two steps. `prepare` reads the document alone (its text, key
//! and scope) and the settings, never the index; `decide` looks the prepared document up
//! and applies the policy. Only `decide` depends on what was added before, and it runs in
//! input order, at the moment the caller asks for the outcome.

use std::collections::VecDeque;

use rayon::prelude::*;
use tantivy::schema::TantivyDocument;

use super::dedup_writer::DedupWriter;
use super::outcome::AddOutcome;
use super::prepared_document::PreparedDocument;
use crate::error::Result;

/// Documents a window holds per thread of the pool, by default: enough that a window keeps
/// every thread busy while the documents' lengths vary, few enough that a window of long
/// pages stays small.
const WINDOW_PER_THREAD: usize = 64;

impl DedupWriter {
    /// The window of [`add_all`](Self::add_all) when none is set ([`AddAll::window`]): 64
    /// documents per thread of the current rayon pool (the pool whose `install` runs the
    /// call, or the global one). A caller that reads its input in windows of its own can
    /// take the same size.
    #[must_use]
    pub fn default_window() -> usize {
        WINDOW_PER_THREAD * rayon::current_num_threads()
    }

    /// Adds `documents` as [`add`](Self::add) adds them one by one in this order: the same
    /// outcomes, in this order, with each document's fingerprint and signature computed in
    /// parallel on the current rayon pool (the global one, or the pool whose
    /// [`install`](rayon::ThreadPool::install) runs this). The decisions are taken in order
    /// under the lock, after every document of the batch is prepared.
    ///
    /// The whole batch is in memory at once: for a stream of documents use
    /// [`add_all`](Self::add_all), which works through it in windows.
    ///
    /// ```
    /// # use tantivy::schema::Schema;
    /// # use tantivy::{doc, Index};
    /// # use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings, Policy};
    /// # let settings = DedupSettings::new(["body"]);
    /// # let mut schema = Schema::builder();
    /// # let body = schema.add_text_field("body", text_field_options());
    /// # settings.add_fields(&mut schema)?;
    /// # let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings)?;
    /// let writer = index.writer(Policy::Reject, 15_000_000)?;
    /// let text = "Near-duplicate detection keeps a crawl's index free of mirrored pages, \
    ///             printer-friendly copies and pages that differ only in their boilerplate.";
    /// let outcomes = writer.add_batch([
    ///     doc!(body => text),
    ///     doc!(body => text.to_uppercase()),
    ///     doc!(body => "Something else entirely, about the weather in Lyon."),
    /// ]);
    /// let rejected = outcomes.iter().filter(|o| o.as_ref().unwrap().duplicate_of().is_some());
    /// assert_eq!(rejected.count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_batch(
        &self,
        documents: impl IntoIterator<Item = TantivyDocument>,
    ) -> Vec<Result<AddOutcome>> {
        // One window holding the whole batch.
        self.add_all(documents).window(usize::MAX).collect()
    }

    /// Adds `documents` as they come, in windows: an iterator of their outcomes, in input
    /// order. Each window's fingerprints and signatures are computed in parallel on the
    /// current rayon pool (see [`add_batch`](Self::add_batch)); each document is decided
    /// when its outcome is asked for, so the outcomes are those of [`add`](Self::add) at
    /// that moment, and a [`commit`](Self::commit) or delete between two outcomes takes
    /// effect between those two documents, as it would between two adds.
    ///
    /// At most one window of documents is held (by default 64 per thread of the pool:
    /// [`AddAll::window`]), whatever the stream's length. Nothing is added until the
    /// iterator is driven.
    ///
    /// ```
    /// # use tantivy::schema::Schema;
    /// # use tantivy::{doc, Index};
    /// # use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings, Policy};
    /// # let settings = DedupSettings::new(["body"]);
    /// # let mut schema = Schema::builder();
    /// # let body = schema.add_text_field("body", text_field_options());
    /// # settings.add_fields(&mut schema)?;
    /// # let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings)?;
    /// let writer = index.writer(Policy::Reject, 15_000_000)?;
    /// let pages = (0..1_000).map(|i| doc!(body => format!("page {i} of a crawl, about topic {}", i * 7919 % 1_000)));
    /// for (n, outcome) in writer.add_all(pages).enumerate() {
    ///     outcome?;
    ///     if n % 500 == 499 {
    ///         writer.commit()?; // takes effect after this document, as with `add`
    ///     }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_all<I>(&self, documents: I) -> AddAll<'_, I::IntoIter>
    where
        I: IntoIterator<Item = TantivyDocument>,
    {
        AddAll {
            writer: self,
            documents: documents.into_iter(),
            window: None,
            ready: VecDeque::new(),
        }
    }
}

/// The outcomes of [`DedupWriter::add_all`], in input order: the documents are prepared a
/// window at a time on rayon's threads, and each is decided when its outcome is taken.
pub struct AddAll<'w, I> {
    writer: &'w DedupWriter,
    documents: I,
    /// Documents per window; `None`: [`DedupWriter::default_window`].
    window: Option<usize>,
    /// The current window's prepared documents not decided yet.
    ready: VecDeque<Result<PreparedDocument>>,
}

impl<I> AddAll<'_, I> {
    /// Prepares `documents` documents at a time (at least 1): the memory held is one window
    /// of documents, and a larger window spreads uneven documents better over the threads.
    #[must_use]
    pub fn window(mut self, documents: usize) -> Self {
        self.window = Some(documents.max(1));
        self
    }
}

impl<I: Iterator<Item = TantivyDocument>> Iterator for AddAll<'_, I> {
    type Item = Result<AddOutcome>;

    fn next(&mut self) -> Option<Result<AddOutcome>> {
        if self.ready.is_empty() {
            let size = self.window.unwrap_or_else(DedupWriter::default_window);
            let window: Vec<TantivyDocument> = self.documents.by_ref().take(size).collect();
            let writer = self.writer;
            self.ready = window
                .into_par_iter()
                .map(|document| writer.prepare(document))
                .collect();
        }
        let prepared = self.ready.pop_front()?;
        Some(prepared.and_then(|prepared| self.writer.add_prepared(prepared)))
    }
}

impl<I> std::fmt::Debug for AddAll<'_, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AddAll")
            .field("window", &self.window)
            .field("ready", &self.ready.len())
            .finish_non_exhaustive()
    }
}
