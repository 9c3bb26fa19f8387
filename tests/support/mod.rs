//! Helpers shared by the integration tests.

pub mod cli;
pub mod index;
/// The benches' deterministic data (its splitmix64 `Rng`), shared rather than copied.
#[allow(dead_code)] // Each test file uses its own part.
#[path = "../../benches/support/data.rs"]
pub mod rng;
