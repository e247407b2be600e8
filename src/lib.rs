//! # Impulse
//!
//! A 2D rigid-body physics engine in the Box2D-Lite family: sequential impulses with warm
//! starting, Baumgarte position correction, a block solver for two-point manifolds, joints,
//! and (in the testbed) live toggles for every one of them.
//!
//! - [`physics`]: the core. Depends on glam and std only.
//! - [`scene`]: RON scene files to and from a `World` (no GUI).
//! - `commands`: the headless commands of the `testbed` binary (list, check, run, bench),
//!   behind the `testbed` feature.
//! - `files`: user files written atomically (refusing devices, folders and links) and user
//!   strings escaped for printing, behind the `testbed` feature.
//! - `lab`: rewind and side-by-side comparison, headless (the window drives it).
//! - `verdicts`: the hard-scene verdicts, every solver (and the classic toggles) side by side.
//! - `app`: the interactive testbed, behind the `testbed` feature.
//!
//! Units are metres, kilograms, seconds and radians, with y up.

// `clippy.toml` refuses libm's transcendental functions (`physics::trig` says why); tests
// may use them for reference values and inputs.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub mod physics;
pub mod scene;

#[cfg(feature = "testbed")]
pub mod commands;
#[cfg(feature = "testbed")]
pub mod files;
pub mod lab;
pub mod verdicts;

#[cfg(feature = "testbed")]
pub mod app;
