//! A near-duplicate space shared by writers on several machines, kept in Redis Cluster: the
//! store crawler fleets already run for URL frontiers, and that datasketch uses for shared
//! MinHash LSH.
//!
//! Available with the `cluster` feature.
//!
//! Each document is registered under its candidate keys (the fingerprint's blocks for the
//! distance *k*, Manku et al.'s pigeonhole, and its signature's bands), receives a number
//! from one cluster-wide counter, and is then judged, by the index's rule
//! ([`MatchRule`](crate::matching::MatchRule)), against the documents numbered before it that
//! share a key: it is rejected when one of them was admitted and is a near-duplicate. Why
//! no near-duplicate pair is admitted even when two writers add one at the same moment:
//! [`SharedRegistry`].

mod identity;
mod keys;
mod lease;
mod record;
mod registry;
mod repair;
mod scripts;
mod slots;
mod space;
mod store;
mod window;

pub use identity::{ShardIdentity, IDENTITY_FILE};
pub use registry::{SharedDecision, SharedRegistry};
pub use repair::{Released, SharedState};
pub use window::WindowDocument;
