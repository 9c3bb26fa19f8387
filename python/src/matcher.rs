//! `TextMatcher`: fingerprints, signatures and verdicts of many texts on rayon's pool,
//! with the GIL released.

use pyo3::exceptions::{PyUnicodeEncodeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use rayon::iter::Either;
use rayon::prelude::*;
use tantivy_dedup::fingerprint::is_empty_set;
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::matching::{self, Reason};

use crate::settings::MatchingSettings;
use crate::{column, error, signed_words, words, DedupError};

/// Fingerprints, signatures and verdicts of texts under one set of matching settings.
#[pyclass(module = "tantivy_dedup._native", frozen)]
pub(crate) struct TextMatcher(matching::TextMatcher);

/// What `candidate_values` gives: fingerprints, whether each text has one, signatures,
/// whether each has one, band keys, whether each has them.
type CandidateBytes<'py> = (
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
);

impl TextMatcher {
    /// The values of `candidate_values` for `texts`, computed on rayon's pool with the GIL
    /// released and written straight into the bytes returned (the signatures and band
    /// keys, the large ones, are made once at their final size).
    fn candidate_values_of<'py>(
        &self,
        py: Python<'py>,
        texts: &[&str],
    ) -> PyResult<CandidateBytes<'py>> {
        let (len, count) = (self.0.signature_len().unwrap_or(0), texts.len());
        let (bands, rows) = self.0.bands().unwrap_or((0, 1));
        let mut fingerprints = vec![[0u8; 8]; count];
        // Whether each text has a fingerprint, a signature, band keys.
        let mut flags = vec![[0u8; 3]; count];
        let mut signatures = None;
        let keys = PyBytes::new_with(py, count * bands * 4, |keys| {
            let signed = PyBytes::new_with(py, count * len * 4, |signatures| {
                py.allow_threads(|| {
                    (rows_of(signatures, len * 4, count).zip(rows_of(keys, bands * 4, count)))
                        .zip(texts)
                        .zip(fingerprints.par_iter_mut().zip(flags.par_iter_mut()))
                        .for_each(|(((signature_row, key_row), text), (fingerprint, flags))| {
                            let (f, signature) = self.0.fingerprint_and_signature(text);
                            *fingerprint = fingerprint_bytes(&f);
                            flags[0] = u8::from(f.is_some());
                            let Some(signature) = signature else { return };
                            write_signature(signature_row, &signature);
                            flags[1] = 1;
                            // An empty set's signature shares its bands with every other: no
                            // band keys, as an index leaves it out of its band tables.
                            if bands > 0 && !is_empty_set(&signature) {
                                let keys = tantivy_dedup::lookup::band_keys(&signature, rows);
                                for (bytes, key) in key_row.chunks_exact_mut(4).zip(keys) {
                                    bytes.copy_from_slice(&key.to_le_bytes());
                                }
                                flags[2] = 1;
                            }
                        });
                });
                Ok(())
            })?;
            signatures = Some(signed);
            Ok(())
        })?;
        let flag = |i: usize| PyBytes::new(py, &flags.iter().map(|f| f[i]).collect::<Vec<_>>());
        Ok((
            PyBytes::new(py, fingerprints.as_flattened()),
            flag(0),
            signatures.expect("made with the keys"),
            flag(1),
            keys,
            flag(2),
        ))
    }

    /// Bytes for `count` signatures of `len` u32 values, zeros until `fill` writes its rows
    /// (`len * 4` bytes each, in order, as a parallel iterator) on rayon's pool with the
    /// GIL released: the result is made in place, at its final size, once.
    fn signature_buffer<'py>(
        &self,
        py: Python<'py>,
        len: usize,
        count: usize,
        fill: impl FnOnce(Rows<'_>) + Send,
    ) -> PyResult<Bound<'py, PyBytes>> {
        PyBytes::new_with(py, count * len * 4, |bytes| {
            py.allow_threads(|| fill(rows_of(bytes, len * 4, count)));
            Ok(())
        })
    }

    /// Values per signature, or the error of settings without signatures.
    fn signature_len_or_err(&self) -> PyResult<usize> {
        self.0.signature_len().ok_or_else(|| {
            DedupError::new_err("these settings have no two-stage matching, so no signatures")
        })
    }
}

/// The UTF-8 of each of `texts`, lent by Python rather than copied (a str keeps its UTF-8
/// once asked; an ASCII str is its own), so that the work on rayon's pool starts at once.
///
/// # Errors
/// `UnicodeEncodeError` (a `ValueError`) for the first str that is not valid Unicode (a
/// lone surrogate), its reason naming the text's index in the batch: `surrogates not
/// allowed (text 3 of the batch)`.
fn borrowed<'a>(texts: &'a [Bound<'_, PyString>]) -> PyResult<Vec<&'a str>> {
    (texts.iter().enumerate())
        .map(|(i, text)| text.to_str().map_err(|e| naming_the_text(text.py(), e, i)))
        .collect()
}

/// `error`, raised by the text at `index` of a batch, saying which: a
/// `UnicodeEncodeError`'s reason gets ` (text INDEX of the batch)`; another error becomes
/// a `ValueError` naming the text, caused by it.
pub(crate) fn naming_the_text(py: Python<'_>, error: PyErr, index: usize) -> PyErr {
    let place = format!("text {index} of the batch");
    if error.is_instance_of::<PyUnicodeEncodeError>(py) {
        let value = error.value(py);
        let reason = (value.getattr("reason").and_then(|r| r.extract::<String>()))
            .unwrap_or_else(|_| "not valid Unicode".to_owned());
        if value
            .setattr("reason", format!("{reason} ({place})"))
            .is_ok()
        {
            return error;
        }
    }
    let named = PyValueError::new_err(format!("{place}: {error}"));
    named.set_cause(py, Some(error));
    named
}

/// The rows of a buffer of `count` rows of `width` bytes, in order, for rayon's pool;
/// `count` empty rows when `width` is 0 (settings without signatures or bands).
type Rows<'a> = Either<
    rayon::slice::ChunksExactMut<'a, u8>,
    rayon::iter::Map<rayon::range::Iter<usize>, fn(usize) -> &'a mut [u8]>,
>;

/// The rows of `bytes`, `count` of `width` bytes (see [`Rows`]).
fn rows_of(bytes: &mut [u8], width: usize, count: usize) -> Rows<'_> {
    if width == 0 {
        Either::Right((0..count).into_par_iter().map(|_| <&mut [u8]>::default()))
    } else {
        Either::Left(bytes.par_chunks_exact_mut(width))
    }
}

/// `signature`'s values into `row`, little-endian, 4 bytes each.
fn write_signature(row: &mut [u8], signature: &[u32]) {
    for (bytes, value) in row.chunks_exact_mut(4).zip(signature) {
        bytes.copy_from_slice(&value.to_le_bytes());
    }
}

/// A fingerprint's little-endian bytes, zeros for none.
fn fingerprint_bytes(fingerprint: &Option<Fingerprint>) -> [u8; 8] {
    fingerprint.map_or(0, |f| f.bits()).to_le_bytes()
}

/// One side of `judge_pairs`, decoded once from the bytes `candidate_values` gives.
struct Decoded<'a> {
    fingerprints: Vec<u64>,
    has_fingerprint: &'a [u8],
    signatures: Vec<u32>,
    has_signature: &'a [u8],
}

impl<'a> Decoded<'a> {
    fn of(
        fingerprints: &[u8],
        has_fingerprint: &'a [u8],
        signatures: &[u8],
        has_signature: &'a [u8],
    ) -> PyResult<Decoded<'a>> {
        Ok(Decoded {
            fingerprints: words(fingerprints, 8, "fingerprints")?,
            has_fingerprint,
            signatures: (words(signatures, 4, "signatures")?.into_iter())
                .map(|v| v as u32)
                .collect(),
            has_signature,
        })
    }

    /// The values of row `i`, signatures of `len` values.
    fn at(&self, i: usize, len: usize) -> (Option<Fingerprint>, Option<&[u32]>) {
        let fingerprint = (self.has_fingerprint[i] != 0).then(|| Fingerprint(self.fingerprints[i]));
        let signature = (self.has_signature[i] != 0 && len > 0)
            .then(|| &self.signatures[i * len..(i + 1) * len]);
        (fingerprint, signature)
    }
}

#[pymethods]
impl TextMatcher {
    #[new]
    #[pyo3(signature = (settings=None))]
    fn new(settings: Option<&MatchingSettings>) -> PyResult<Self> {
        let settings = settings.map_or_else(matching::MatchingSettings::default, |s| s.0.clone());
        matching::TextMatcher::new(&settings)
            .map(TextMatcher)
            .map_err(error)
    }

    /// Values per signature; `None` without two-stage matching.
    #[getter]
    fn signature_len(&self) -> Option<usize> {
        self.0.signature_len()
    }

    /// The fingerprints of `texts` as little-endian u64 bytes, and one byte per text, 1
    /// where the text has a fingerprint (0 for a text without features).
    fn fingerprints<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Bound<'py, PyString>>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let texts = borrowed(&texts)?;
        let fingerprints: Vec<Option<Fingerprint>> =
            py.allow_threads(|| texts.par_iter().map(|t| self.0.fingerprint(t)).collect());
        Ok((
            PyBytes::new(py, &column(&fingerprints, fingerprint_bytes)),
            PyBytes::new(py, &column(&fingerprints, |f| [u8::from(f.is_some())])),
        ))
    }

    /// The fingerprints and signatures of `texts`: fingerprints as little-endian u64 bytes,
    /// signatures as `signature_len` little-endian u32 values per text (zeros where a text
    /// has none), and one byte per text, 1 where it has both. The signatures are written
    /// straight into the bytes returned, without a copy.
    fn fingerprints_and_signatures<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Bound<'py, PyString>>,
    ) -> PyResult<(
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )> {
        let len = self.signature_len_or_err()?;
        let texts = borrowed(&texts)?;
        let mut fingerprints = vec![[0u8; 8]; texts.len()];
        let mut valid = vec![0u8; texts.len()];
        let signatures = self.signature_buffer(py, len, texts.len(), |rows| {
            (rows
                .zip(&texts)
                .zip(fingerprints.par_iter_mut())
                .zip(valid.par_iter_mut()))
            .for_each(|(((row, text), fingerprint), valid)| {
                let (f, signature) = self.0.fingerprint_and_signature(text);
                *fingerprint = fingerprint_bytes(&f);
                if let Some(signature) = &signature {
                    write_signature(row, signature);
                }
                *valid = u8::from(f.is_some() && signature.is_some());
            });
        })?;
        Ok((
            PyBytes::new(py, fingerprints.as_flattened()),
            signatures,
            PyBytes::new(py, &valid),
        ))
    }

    /// The signatures of `texts` alone, without fingerprints: `signature_len`
    /// little-endian u32 values per text (zeros where a text has no shingles), and one byte
    /// per text, 1 where it has shingles. The signatures are written straight into the
    /// bytes returned, without a copy.
    fn signatures<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Bound<'py, PyString>>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let len = self.signature_len_or_err()?;
        let texts = borrowed(&texts)?;
        let mut valid = vec![0u8; texts.len()];
        let signatures = self.signature_buffer(py, len, texts.len(), |rows| {
            (rows.zip(&texts).zip(valid.par_iter_mut())).for_each(|((row, text), valid)| {
                if let Some(signature) = self.0.signature(text).filter(|s| !is_empty_set(s)) {
                    write_signature(row, &signature);
                    *valid = 1;
                }
            });
        })?;
        Ok((signatures, PyBytes::new(py, &valid)))
    }

    /// The values a batch job groups and judges texts by, in one pass on every core:
    /// fingerprints (little-endian u64), one byte per text saying it has one, signatures
    /// (`signature_len` little-endian u32 values a text, zeros without one), one byte per
    /// text saying it has one, the signature's band keys (`bands` little-endian u32 values
    /// a text; none when the rule has no bands), and one byte per text saying it has band
    /// keys (a signature, not an empty set's).
    fn candidate_values<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Bound<'py, PyString>>,
    ) -> PyResult<CandidateBytes<'py>> {
        self.candidate_values_of(py, &borrowed(&texts)?)
    }

    /// [`candidate_values`](Self::candidate_values) of texts given as an Arrow string
    /// column's buffers: `offsets`, little-endian i64, one more than the texts (text `i`
    /// is `data[offsets[i]..offsets[i + 1]]`), and `data`, their UTF-8. No Python string
    /// is made.
    fn candidate_values_utf8<'py>(
        &self,
        py: Python<'py>,
        offsets: &[u8],
        data: &[u8],
    ) -> PyResult<CandidateBytes<'py>> {
        let offsets = signed_words(offsets, "offsets")?;
        let mut texts = Vec::with_capacity(offsets.len().saturating_sub(1));
        for (i, range) in offsets.windows(2).enumerate() {
            let (start, end) = (usize::try_from(range[0]), usize::try_from(range[1]));
            let bytes = match (start, end) {
                (Ok(start), Ok(end)) if start <= end && end <= data.len() => &data[start..end],
                _ => {
                    return Err(DedupError::new_err(format!(
                        "text {i}: offsets {}..{} outside the {} bytes of data",
                        range[0],
                        range[1],
                        data.len()
                    )))
                }
            };
            let text = std::str::from_utf8(bytes)
                .map_err(|e| DedupError::new_err(format!("text {i} is not valid UTF-8: {e}")))?;
            texts.push(text);
        }
        self.candidate_values_of(py, &texts)
    }

    /// The least agreement of a pair the signatures judge that can be near (see the
    /// crate's `TextMatcher::least_agreement`): the fewest equal signature positions;
    /// `None` when the rule does not verify or scores containment.
    #[getter]
    fn least_agreement(&self) -> Option<usize> {
        self.0.least_agreement()
    }

    /// The largest Hamming distance at which a pair can be near-duplicates.
    #[getter]
    fn reach(&self) -> u32 {
        self.0.reach()
    }

    /// The bands and rows of the candidate stage; `None` without band candidates.
    #[getter]
    fn bands(&self) -> Option<(usize, usize)> {
        self.0.bands()
    }

    /// The distance *k*.
    #[getter]
    fn distance(&self) -> u32 {
        self.0.distance()
    }

    /// Whether the signatures decide the pairs within *k* too.
    #[getter]
    fn signatures_decide(&self) -> bool {
        self.0.signatures_decide()
    }

    /// Verdicts on pairs by their stored values, as `candidate_values` gives them (bytes of
    /// the same layouts, pair `i` being `a[i]` and `b[i]`), on every core: one byte per pair
    /// saying near, its Hamming distance (little-endian u32; `u32::MAX` without
    /// fingerprints), and its signatures' agreement (little-endian f64; NaN without).
    #[allow(clippy::too_many_arguments)]
    fn judge_pairs<'py>(
        &self,
        py: Python<'py>,
        fingerprints_a: &[u8],
        has_fingerprint_a: &[u8],
        signatures_a: &[u8],
        has_signature_a: &[u8],
        fingerprints_b: &[u8],
        has_fingerprint_b: &[u8],
        signatures_b: &[u8],
        has_signature_b: &[u8],
    ) -> PyResult<(
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )> {
        let n = has_fingerprint_a.len();
        let len = self.0.signature_len().unwrap_or(0);
        let sized = [
            (fingerprints_a.len(), n * 8),
            (fingerprints_b.len(), n * 8),
            (has_fingerprint_b.len(), n),
            (has_signature_a.len(), n),
            (has_signature_b.len(), n),
            (signatures_a.len(), n * len * 4),
            (signatures_b.len(), n * len * 4),
        ];
        if sized.iter().any(|(got, want)| got != want) {
            return Err(DedupError::new_err(format!(
                "judge_pairs: arrays of {n} pairs must hold 8 bytes a fingerprint and \
                 {len} u32 values a signature"
            )));
        }
        let a = Decoded::of(
            fingerprints_a,
            has_fingerprint_a,
            signatures_a,
            has_signature_a,
        )?;
        let b = Decoded::of(
            fingerprints_b,
            has_fingerprint_b,
            signatures_b,
            has_signature_b,
        )?;
        let verdicts: Vec<(bool, u32, f64)> = py.allow_threads(|| {
            (0..n)
                .into_par_iter()
                .map(|i| {
                    let judgement = self.0.judge_values(a.at(i, len), b.at(i, len));
                    (
                        judgement.near,
                        judgement.distance.unwrap_or(u32::MAX),
                        judgement.jaccard.unwrap_or(f64::NAN),
                    )
                })
                .collect()
        });
        let near: Vec<u8> = verdicts.iter().map(|v| u8::from(v.0)).collect();
        let distances: Vec<u8> = verdicts.iter().flat_map(|v| v.1.to_le_bytes()).collect();
        let similarity: Vec<u8> = verdicts.iter().flat_map(|v| v.2.to_le_bytes()).collect();
        Ok((
            PyBytes::new(py, &near),
            PyBytes::new(py, &distances),
            PyBytes::new(py, &similarity),
        ))
    }

    /// The verdict on two texts: a dict with `near`, `distance`, `jaccard`, `reason` and,
    /// where the reason has them, `k`, `reach`, `rows`, `score` and `threshold`.
    fn judge<'py>(&self, py: Python<'py>, a: &str, b: &str) -> PyResult<Bound<'py, PyDict>> {
        let judgement = py.allow_threads(|| self.0.judge(a, b));
        let dict = PyDict::new(py);
        dict.set_item("near", judgement.near)?;
        dict.set_item("distance", judgement.distance)?;
        dict.set_item("jaccard", judgement.jaccard)?;
        let reason = match judgement.reason {
            Reason::NoFingerprint => "no-fingerprint",
            Reason::WithinDistance { k } => {
                dict.set_item("k", k)?;
                "within-distance"
            }
            Reason::BeyondReach { reach } => {
                dict.set_item("reach", reach)?;
                "beyond-reach"
            }
            Reason::NoSignature => "no-signature",
            Reason::NoSharedBand { rows } => {
                dict.set_item("rows", rows)?;
                "no-shared-band"
            }
            Reason::BelowThreshold { score, threshold } => {
                dict.set_item("score", score)?;
                dict.set_item("threshold", threshold)?;
                "below-threshold"
            }
            Reason::Verified { score, threshold } => {
                dict.set_item("score", score)?;
                dict.set_item("threshold", threshold)?;
                "verified"
            }
            _ => "other",
        };
        dict.set_item("reason", reason)?;
        Ok(dict)
    }
}
