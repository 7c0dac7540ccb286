//! metapvp's decision-time search on poke-engine: Monte Carlo tree search in which both sides
//! choose at once (duct.rs), with what it needs around it, and the Python module that calls it
//! (binding.rs, behind the `python` feature). README.md says what each module holds.

pub mod chance;
pub mod corrections;
pub mod duct;
pub mod encoding;
pub mod example;
pub mod features;
pub mod names;
pub mod outcomes;
#[cfg(feature = "studies")]
pub mod selfplay;
pub mod valuenet;

#[cfg(feature = "python")]
mod binding;
