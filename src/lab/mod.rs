//! The solver lab, without any GUI: what the testbed window drives.
//!
//! - [`session`]: a world plus its interaction state (mouse grab, bomb). Everything a user
//!   does reaches the world as an [`Input`], so it can be recorded and replayed.
//! - [`history`]: the last seconds of a run as keyframes plus the inputs between them;
//!   scrubbing rebuilds any step exactly (stepping is deterministic), resuming drops the
//!   future.
//! - [`compare`]: several sessions of one scene with different solver settings, stepping
//!   together and receiving the same inputs.

pub mod compare;
pub mod history;
pub mod session;

pub use compare::Comparison;
pub use history::{History, Replay};
pub use session::{Input, Session};
