//! Finding stored fingerprints within a Hamming distance of a query: pigeonhole block tables
//! (Manku, Jain, Das Sarma 2007) with overflow re-bucketing, behind [`FingerprintIndex`].

mod blocks;
mod index;
mod options;
mod results;
mod run;
mod scan;

pub use index::FingerprintIndex;
pub use options::{
    LookupOptions, TablePlan, AUTO_TWO_LEVEL_BUCKET, DEFAULT_BUFFER_LEN, DEFAULT_MAX_DISTANCE,
    DEFAULT_MU, DEFAULT_SPLIT_MIN, MAX_TABLE_DISTANCE,
};
pub use results::{IndexStats, Match, MemoryUsage, Pair};
pub use scan::LinearScan;
