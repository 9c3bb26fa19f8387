//! 64-bit SimHash fingerprints (Charikar 2002) and MinHash signatures (Broder 1997).
//!
//! A [`SimHasher`] turns a text into a [`Fingerprint`] under a [`FingerprintConfig`]; two
//! texts are near-duplicates when their fingerprints differ in few bits (3 of 64 by default,
//! as Manku et al. found for web pages). A [`MinHasher`] summarizes a set of strings (tags,
//! keywords, references) so that the Jaccard similarity of two sets can be estimated, and
//! [`combined_similarity`] mixes both as the "improved SimHash" paper does. The signatures
//! of two-stage matching (a text's shingles, one permutation MinHash, a byte or 32 bits a value) are
//! made here too, beside the fingerprint, from one walk over the text.

mod accumulator;
mod config;
mod counter;
mod kept_bits;
mod minhash;
mod shingle_hashing;
mod shingle_weights;
mod signature;
mod signer;
mod simhasher;
mod value;
mod weighted_bins;

pub use accumulator::SimHashAccumulator;
pub(crate) use config::serialized_differences;
pub use config::{ConfigDifference, FingerprintConfig, DEFAULT_MAX_TEXT_BYTES, FORMAT_VERSION};
pub use counter::SimHashCounter;
pub use kept_bits::KeptBits;
pub(crate) use minhash::OnePermutationBins;
pub use minhash::{combined_similarity, MinHashSignature, MinHashVariant, MinHasher, DEFAULT_MU};
pub use shingle_hashing::ShingleHashing;
pub(crate) use shingle_hashing::WordShingleHashes;
pub use shingle_weights::{
    idf_weight, ShingleWeights, ShingleWeightsBuilder, MAX_WEIGHTED_SHINGLES,
    SHINGLE_WEIGHTS_VERSION,
};
pub(crate) use signature::{
    equal_positions, jaccard, le_bytes, overlap_of, shares_band, write_le_bytes, Signature, EMPTY,
};
pub use signature::{estimated_size, is_empty_set, overlap};
pub(crate) use signer::Signer;
pub(crate) use simhasher::bounded_prefix;
pub use simhasher::{SimHasher, SimHasherBuilder, Utf8Policy};
pub use value::{Fingerprint, FINGERPRINT_BITS};
