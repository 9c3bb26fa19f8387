//! Records as the readers hand them over, their costly last step not taken yet: parsing a
//! JSON line, extracting an HTML page's text. The reader then only splits its input, and
//! whoever takes the records (threads of a pool) finishes them with [`RawRecord::parse`].

use super::json_lines::json_line;
use super::walk::html_page;
use super::{error, Document, Record};

/// A record as read, to be finished with [`RawRecord::parse`], on any thread: the record
/// it gives is the one [`read_inputs`](super::read_inputs) would have given.
#[derive(Debug)]
pub struct RawRecord {
    kind: Kind,
    /// Read from standard input (see [`Document::from_stdin`]).
    from_stdin: bool,
}

#[derive(Debug)]
enum Kind {
    /// Finished by the reader (a plain-text file, an error, ...).
    Done(Record),
    /// A JSON line (not blank, within the size limit, its byte order mark dropped), read at
    /// `place` (`FILE:LINE`).
    JsonLine {
        bytes: Vec<u8>,
        place: String,
        lossy: bool,
    },
    /// An HTML page's bytes (within the size limit, its byte order mark dropped), read from
    /// `place`.
    Html {
        bytes: Vec<u8>,
        place: String,
        lossy: bool,
    },
    /// A [`Kind::Done`] record given out by [`RawRecord::take`].
    Taken,
}

impl RawRecord {
    /// A JSON line to parse, of place `place`.
    pub(super) fn json_line(bytes: Vec<u8>, place: String, lossy: bool) -> RawRecord {
        Kind::JsonLine {
            bytes,
            place,
            lossy,
        }
        .into()
    }

    /// An HTML page whose text is to extract, of place `place`.
    pub(super) fn html(bytes: Vec<u8>, place: &str, lossy: bool) -> RawRecord {
        Kind::Html {
            bytes,
            place: place.to_owned(),
            lossy,
        }
        .into()
    }

    /// The record read from standard input.
    pub(super) fn read_from_stdin(self) -> RawRecord {
        RawRecord {
            from_stdin: true,
            ..self
        }
    }

    /// The bytes it holds (about): what a window of records is measured by.
    pub fn size(&self) -> usize {
        match &self.kind {
            Kind::Done(Ok(doc)) => doc.text.len(),
            Kind::Done(Err(e)) => e.reason.len(),
            Kind::Taken => 0,
            Kind::JsonLine { bytes, .. } | Kind::Html { bytes, .. } => bytes.len(),
        }
    }

    /// The record: the JSON line parsed, the page's text extracted.
    pub fn parse(mut self) -> Record {
        self.take()
    }

    /// [`parse`](Self::parse) leaving the bytes read in `self`, for its owner to drop: a
    /// memory allocator keeps an arena per thread, and freeing the bytes on the thread that
    /// read them spares it the contention of a free from another thread (a lock taken once a
    /// record, for every record, on two cores). Once only: a record the reader finished is
    /// moved out.
    pub fn take(&mut self) -> Record {
        let record = match &mut self.kind {
            Kind::Done(_) => match std::mem::replace(&mut self.kind, Kind::Taken) {
                Kind::Done(record) => record,
                _ => unreachable!(),
            },
            Kind::Taken => panic!("a raw record is taken once"),
            Kind::JsonLine {
                bytes,
                place,
                lossy,
            } => json_line(bytes, place, *lossy).map_err(|reason| error(place, reason)),
            Kind::Html {
                bytes,
                place,
                lossy,
            } => html_page(bytes, place, *lossy),
        };
        record.map(|doc| Document {
            from_stdin: doc.from_stdin || self.from_stdin,
            ..doc
        })
    }
}

impl From<Kind> for RawRecord {
    fn from(kind: Kind) -> Self {
        RawRecord {
            kind,
            from_stdin: false,
        }
    }
}

impl From<Record> for RawRecord {
    fn from(record: Record) -> Self {
        Kind::Done(record).into()
    }
}

impl From<super::RecordError> for RawRecord {
    fn from(error: super::RecordError) -> Self {
        Kind::Done(Err(error)).into()
    }
}
