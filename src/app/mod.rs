//! The interactive testbed: a macroquad window with an egui side panel, behind the
//! `testbed` feature. Rendering-only state (camera, colours, selection) lives here; the
//! physics core never draws and never sees a pixel.
//!
//! Table of contents:
//! - [`compare`]: compare mode's presets, legend colours, `--compare` and the `Tint` draw.
//! - [`rewind`]: the recording of the last seconds, scrubbing and resuming.
//! - [`probe`]: Ctrl+click picks, their traces and the residual plot.
//! - [`breaks`]: breakable joints: the recent joint events, the flash, the picked joint's
//!   thresholds and enable button.
//! - [`solver_view`]: inside the step: iteration stepping, error colouring and its legend,
//!   the solver's structure (graph colours, islands, feature ids, warm starts).
//! - [`camera`]: `Camera`, the ONLY place converting world metres (y up) <-> screen pixels.
//! - [`framing`]: what `F` frames: the moving bodies and the static geometry near them.
//! - [`draw`]: `MacroquadDraw`, the core's `DebugDraw` with macroquad; body colours; grid;
//!   `draw_worlds`: all drawing of the worlds (bodies, angle lines, pull, pick, compare tints).
//! - [`testbed`]: `Testbed`, the seam the window calls (update, draw, panel, mouse, keys):
//!   the scene, its worlds (a `lab::Comparison`), stepping, inputs, reloads, the state dump.
//! - [`panel`]: the side panel's sections (Scenes, Run, Compare, Solver, Draw, Stats, Plots).
//! - [`plots`]: the last seconds of step time, kinetic energy and penetration.
//! - [`library`]: the scene menu built from the catalog.
//! - [`watch`]: polling the open scene file for changes.
//! - [`preferences`]: what is remembered between runs, in a RON file.
//! - [`window`]: window configuration, the frame loop (its order documented on `run`),
//!   input, `AppOptions`.
//! - [`automation`]: scripted runs: `--frames`, screenshots, state dumps, the catalog smoke
//!   and the test hooks, called by the frame loop at fixed points.
//! - [`screenshot`]: PNG screenshots written atomically.
//! - [`report`]: the JSON model (`run --json`, `--dump-state`, `--layout-out`), serde.

// Drawing is not simulation: libm's sine and cosine are fine here (see `clippy.toml`).
#![allow(clippy::disallowed_methods)]

pub mod automation;
pub mod breaks;
pub mod camera;
pub mod compare;
pub mod draw;
pub mod framing;
pub mod library;
pub mod panel;
pub mod plots;
pub mod preferences;
pub mod probe;
pub mod report;
pub mod rewind;
pub mod screenshot;
pub mod solver_view;
pub mod testbed;
pub mod watch;
pub mod window;

pub use camera::Camera;
pub use draw::{draw_grid, MacroquadDraw};
pub use testbed::Testbed;
pub use window::{open_window, run, window_conf, AppOptions, CONTROLS};
