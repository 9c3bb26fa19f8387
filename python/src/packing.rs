//! Rows packed by bucket, as the Spark job shuffles them: a few large binary values, one a
//! bucket, instead of a row each (Spark's cost is per row).

/// The bucket of `(kind, key)` among `count`: the high half of a multiplicative hash, the
/// same in every worker (and as `tantivy_dedup.spark._buckets_of`).
pub(crate) fn bucket_of(kind: u32, key: u64, count: u32) -> u32 {
    let mixed = (key ^ (u64::from(kind) << 56)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((mixed >> 32) % u64::from(count)) as u32
}

/// Rows packed by bucket.
pub(crate) struct Packed {
    /// The buckets that hold rows, ascending.
    pub(crate) buckets: Vec<u32>,
    /// Where each bucket's rows start in `rows`, in bytes, then the end.
    pub(crate) bounds: Vec<usize>,
    /// The rows, in order of bucket, then of input.
    pub(crate) rows: Vec<u8>,
}

impl Packed {
    /// Rows of `width` bytes each, `write(i, out)` writing row `i`, put in order of their
    /// buckets `of` (a counting sort: stable), `count` buckets in all.
    pub(crate) fn by_bucket(
        of: &[u32],
        count: u32,
        width: usize,
        mut write: impl FnMut(usize, &mut [u8]),
    ) -> Packed {
        let mut starts = vec![0usize; count as usize + 1];
        for &bucket in of {
            starts[bucket as usize + 1] += 1;
        }
        for i in 0..count as usize {
            starts[i + 1] += starts[i];
        }
        let mut next = starts.clone();
        let mut rows = vec![0u8; of.len() * width];
        for (i, &bucket) in of.iter().enumerate() {
            let at = next[bucket as usize];
            write(i, &mut rows[at * width..(at + 1) * width]);
            next[bucket as usize] += 1;
        }
        let buckets: Vec<u32> = (0..count)
            .filter(|&b| starts[b as usize + 1] > starts[b as usize])
            .collect();
        let mut bounds: Vec<usize> = buckets
            .iter()
            .map(|&b| starts[b as usize] * width)
            .collect();
        bounds.push(of.len() * width);
        Packed {
            buckets,
            bounds,
            rows,
        }
    }
}
