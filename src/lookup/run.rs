//! An immutable run: a batch of fingerprints sorted by id, with its own block tables.
//!
//! [`FingerprintIndex`](super::FingerprintIndex) keeps its fingerprints in a few runs of
//! geometrically different sizes (the logarithmic method of Bentley and Saxe 1980, the shape
//! of an LSM tree): tables are built in bulk, by radix sort, never updated in place, and an
//! insert costs a few amortized merges instead of a rebuild. A run stores each fingerprint
//! once, in slot order (slots sorted by id, so an id is found by binary search), and its
//! tables refer to slots.
//!
//! A run never shrinks in place: a slot whose id was inserted again is marked dead (one bit),
//! and both dead slots and removed ids are dropped when the run is merged or compacted.

use roaring::RoaringBitmap;

use super::blocks::{node_specs, two_level_specs, BuildParams, Node, Probe};
use super::options::LookupOptions;
use super::results::Match;
use super::scan::for_each_within;

#[derive(Clone, Debug)]
pub(crate) struct Run {
    /// Ids by slot, strictly increasing.
    ids: Vec<u32>,
    /// Fingerprints by slot.
    fps: Vec<u64>,
    /// One bit per slot, set when the slot was replaced; empty while none is.
    dead: Vec<u64>,
    dead_count: usize,
    /// Block tables over all slots; `None` when the options build no tables.
    root: Option<Node>,
    max_distance: u32,
}

impl Run {
    /// A run over `ids` (strictly increasing) and their fingerprints.
    pub(crate) fn build(ids: Vec<u32>, fps: Vec<u64>, options: &LookupOptions) -> Run {
        debug_assert!(ids.windows(2).all(|w| w[0] < w[1]));
        debug_assert_eq!(ids.len(), fps.len());
        let k = options.get_max_distance();
        let root = options.uses_tables().then(|| {
            let specs = if options.get_plan().two_level(ids.len(), k) {
                two_level_specs(k)
            } else {
                node_specs(u64::MAX, k, 0, &[])
            };
            let params = BuildParams {
                k,
                mu: options.get_mu(),
                split_min: options.get_split_min(),
            };
            let slots: Vec<u32> = (0..ids.len() as u32).collect();
            Node::build(specs, &fps, &slots, params, 0)
        });
        Run {
            ids,
            fps,
            dead: Vec::new(),
            dead_count: 0,
            root,
            max_distance: k,
        }
    }

    /// Slots, dead ones included.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(crate) fn dead_count(&self) -> usize {
        self.dead_count
    }

    #[inline]
    fn is_dead(&self, slot: usize) -> bool {
        self.dead_count > 0 && self.dead[slot / 64] & (1 << (slot % 64)) != 0
    }

    /// The live slot of `id`, if this run has one.
    pub(crate) fn find(&self, id: u32) -> Option<usize> {
        self.ids
            .binary_search(&id)
            .ok()
            .filter(|&slot| !self.is_dead(slot))
    }

    pub(crate) fn fingerprint(&self, slot: usize) -> u64 {
        self.fps[slot]
    }

    /// Marks `slot` dead: its id now lives elsewhere.
    pub(crate) fn kill(&mut self, slot: usize) {
        if self.dead.is_empty() {
            self.dead = vec![0; self.ids.len().div_ceil(64)];
        }
        if !self.is_dead(slot) {
            self.dead[slot / 64] |= 1 << (slot % 64);
            self.dead_count += 1;
        }
    }

    /// True when some id of `ids` is stored here (dead slots included).
    pub(crate) fn holds_any(&self, ids: &RoaringBitmap) -> bool {
        ids.iter().any(|id| self.ids.binary_search(&id).is_ok())
    }

    /// Appends the matches within `k` of `query` that are neither dead nor in `removed`.
    /// Uses the tables when `k` is within their distance, else scans every slot.
    pub(crate) fn query(
        &self,
        query: u64,
        k: u32,
        removed: Option<&RoaringBitmap>,
        out: &mut Vec<Match>,
    ) {
        let keep = |slot: usize, id: u32| {
            !self.is_dead(slot) && removed.is_none_or(|removed| !removed.contains(id))
        };
        match &self.root {
            Some(root) if k <= self.max_distance => {
                let probe = Probe {
                    query,
                    k,
                    fps: &self.fps,
                    ids: &self.ids,
                    keep: &keep,
                };
                root.probe(&probe, out);
            }
            _ => for_each_within(&self.fps, query, k, |slot| {
                let id = self.ids[slot];
                if keep(slot, id) {
                    out.push(Match {
                        id,
                        distance: (self.fps[slot] ^ query).count_ones(),
                    });
                }
            }),
        }
    }

    /// The live `(id, fingerprint)` entries in id order, removed ids included.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        (0..self.ids.len())
            .filter(|&slot| !self.is_dead(slot))
            .map(|slot| (self.ids[slot], self.fps[slot]))
    }

    /// Heap bytes of the tables.
    pub(crate) fn table_bytes(&self) -> usize {
        self.root.as_ref().map_or(0, Node::heap_bytes)
    }

    /// Heap bytes of the stored ids and fingerprints.
    pub(crate) fn fingerprint_bytes(&self) -> usize {
        4 * self.ids.capacity() + 8 * self.fps.capacity()
    }

    /// Heap bytes of the dead-slot bits.
    pub(crate) fn dead_bytes(&self) -> usize {
        8 * self.dead.capacity()
    }

    pub(crate) fn root(&self) -> Option<&Node> {
        self.root.as_ref()
    }
}

/// Merges the live entries of two runs into one list sorted by id, dropping the ids in
/// `removed` (and forgetting them there: their only stored copy is gone).
pub(crate) fn merge_entries(a: &Run, b: &Run, removed: &mut RoaringBitmap) -> (Vec<u32>, Vec<u64>) {
    let capacity = a.len() - a.dead_count + b.len() - b.dead_count;
    let mut ids = Vec::with_capacity(capacity);
    let mut fps = Vec::with_capacity(capacity);
    let mut left = a.entries().peekable();
    let mut right = b.entries().peekable();
    loop {
        let next = match (left.peek(), right.peek()) {
            (Some(l), Some(r)) => {
                if l.0 < r.0 {
                    left.next()
                } else {
                    right.next()
                }
            }
            (Some(_), None) => left.next(),
            (None, Some(_)) => right.next(),
            (None, None) => break,
        };
        let (id, fp) = next.expect("peeked");
        if removed.is_empty() || !removed.remove(id) {
            ids.push(id);
            fps.push(fp);
        }
    }
    (ids, fps)
}

/// The live entries of `run` sorted by id, without the ids in `removed` (which are
/// forgotten there, as in [`merge_entries`]).
pub(crate) fn retain_entries(run: &Run, removed: &mut RoaringBitmap) -> (Vec<u32>, Vec<u64>) {
    run.entries()
        .filter(|&(id, _)| removed.is_empty() || !removed.remove(id))
        .unzip()
}
