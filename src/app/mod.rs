//! The interactive testbed: a macroquad window with an egui side panel, behind the
//! `testbed` feature. Rendering-only state (camera, colours, selection) lives here; the
//! physics core never draws and never sees a pixel.
//!
//! Table of contents:
//! - [`camera`]: `Camera`, the ONLY place converting world metres (y up) <-> screen pixels.
//! - [`draw`]: `MacroquadDraw`, the core's `DebugDraw` with macroquad; the background grid.
//! - [`testbed`]: `Testbed`, the seam the window calls (update, draw, panel, mouse); the
//!   `World` plugs in there.
//! - [`window`]: window configuration, the frame loop, input, `AppOptions`, automation.
//! - [`screenshot`]: PNG screenshots written atomically.
//! - [`demo`]: the placeholder picture drawn until the `World` exists.

pub mod camera;
pub mod demo;
pub mod draw;
pub mod screenshot;
pub mod testbed;
pub mod window;

pub use camera::Camera;
pub use draw::{draw_grid, MacroquadDraw};
pub use testbed::Testbed;
pub use window::{open_window, run, window_conf, AppOptions};
