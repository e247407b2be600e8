//! Scripted runs of the window: what the command line asks besides the scene, and the hooks
//! the frame loop (`window::run`) calls at fixed points of each frame.
//!
//! - Before the loop: [`check_environment`] (a display, output folders), [`Automation::setup`]
//!   (`--compare`, `--pick`) and [`Automation::new`] (`--catalog-smoke` opens its first scene).
//! - Before the physics of a frame ([`Automation::before_update`]): `--bomb-at`,
//!   `--rewind-to` / `--rewind-at`.
//! - After the frame is drawn ([`Automation::after_frame`]): `--layout-out` every few
//!   frames; `--catalog-smoke`'s screenshot and state dump per scene and its next scene; on
//!   the last frame (`--frames` reached, or the window closed) `--screenshot`,
//!   `--dump-state` and the frame count line. It returns the exit code once the run is over.
//! - Before the next frame ([`Automation::throttle`]): `--max-fps`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use macroquad::window::screen_dpi_scale;

use super::camera::Camera;
use super::compare::parse_compare;
use super::probe::Quantity;
use super::report::{to_json_line, CameraReport, LayoutReport, WindowReport};
use super::screenshot::save_screen;
use super::testbed::{Key, Testbed};
use super::window::AppOptions;
use crate::files::{escape, refuse_special, write_atomic};
use crate::physics::Vec2;
use crate::scene::catalog;

/// Frames per catalog scene for `--catalog-smoke` without `--frames`.
pub const SMOKE_FRAMES: u64 = 60;
/// How often `--layout-out` is rewritten, in frames.
const LAYOUT_EVERY: u64 = 10;

/// Refuse early what would fail late: output files that are not regular files (a device, a
/// folder, a link) or whose folders do not exist, or no display.
pub fn check_environment(options: &AppOptions) -> Result<(), String> {
    for path in [
        &options.screenshot,
        &options.dump_state,
        &options.layout_out,
    ]
    .into_iter()
    .flatten()
    {
        refuse_special(path).map_err(|e| format!("cannot write {e}"))?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            return Err(format!(
                "cannot write {}: folder {} does not exist",
                escape(path),
                escape(parent)
            ));
        }
    }
    #[cfg(all(unix, not(target_os = "macos"), not(target_os = "android")))]
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        return Err(
            "no display (DISPLAY is not set); run under `xvfb-run -a` for a headless \
                    window"
                .to_owned(),
        );
    }
    if let Some(dir) = &options.catalog_smoke {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", escape(dir)))?;
    }
    Ok(())
}

/// The automation of one window run.
pub struct Automation {
    options: AppOptions,
    smoke: Option<Smoke>,
    /// When the loop started (for `seconds` and `fps`).
    started: Instant,
    /// When the last frame ended (for `--max-fps`).
    last_frame: Instant,
    /// 1 once an output could not be written.
    exit_code: i32,
}

impl Automation {
    /// `--compare` and `--pick` on a new testbed, before the window opens. The error is for
    /// stderr (exit 1).
    pub fn setup(options: &AppOptions, testbed: &mut Testbed) -> Result<(), String> {
        if let Some(list) = &options.compare {
            testbed.set_compare(parse_compare(list)?);
            testbed.view.sections.compare = true;
        }
        if let Some(pick) = &options.pick {
            let (name, quantity) = match pick.rsplit_once(':') {
                Some((name, q)) => (name, Quantity::parse(q)),
                None => (pick.as_str(), None),
            };
            let point = name
                .split_once(',')
                .and_then(|(x, y)| Some(Vec2::new(x.trim().parse().ok()?, y.trim().parse().ok()?)));
            let picked = match point {
                Some(p) => {
                    testbed.pick(p, 0.1);
                    testbed.picked().is_some()
                }
                None => testbed.pick_named(name),
            };
            if !picked {
                return Err(format!(
                    "--pick: no body or joint at or called \"{}\"",
                    escape(name)
                ));
            }
            if let Some(q) = quantity {
                testbed.lab.probe.set_quantity(q);
            }
            testbed.view.sections.plots = true;
        }
        Ok(())
    }

    /// The automation of `options`, as the loop starts (`--catalog-smoke` opens its first
    /// scene, the empty world).
    pub fn new(options: AppOptions, testbed: &mut Testbed) -> Automation {
        let (started, last_frame) = (Instant::now(), Instant::now());
        let mut smoke = options
            .catalog_smoke
            .as_deref()
            .map(|dir| Smoke::new(dir, options.frames.unwrap_or(SMOKE_FRAMES), testbed));
        if let Some(smoke) = smoke.as_mut() {
            smoke.start(testbed);
        }
        Automation {
            options,
            smoke,
            started,
            last_frame,
            exit_code: 0,
        }
    }

    /// Before the physics of frame `frame` (counted from 0): a bomb, a rewind.
    pub fn before_update(&mut self, frame: u64, testbed: &mut Testbed) {
        if self.options.bomb_at.contains(&frame) {
            testbed.key(Key::Bomb);
        }
        let rewind_at = self
            .options
            .rewind_at
            .or(self.options.frames.map(|n| n / 2))
            .unwrap_or(0);
        if let Some(to) = self.options.rewind_to.filter(|_| frame == rewind_at) {
            rewind(testbed, to);
        }
    }

    /// True when the `frame`s drawn so far end the run: the window is closing, or
    /// `--frames` is reached (outside a catalog smoke, which counts per scene).
    pub fn is_last(&self, frame: u64, quitting: bool) -> bool {
        quitting || (self.smoke.is_none() && self.options.frames.is_some_and(|n| frame >= n))
    }

    /// After frame number `frame` (counted from 1) is drawn: the layout file, the catalog
    /// smoke, and on the last frame the outputs. `Some(exit code)` when the run is over.
    pub fn after_frame(
        &mut self,
        frame: u64,
        quitting: bool,
        camera: &Camera,
        testbed: &mut Testbed,
        screen: Vec2,
    ) -> Option<i32> {
        if let Some(path) = &self.options.layout_out {
            if frame % LAYOUT_EVERY == 1 {
                let _ = write_text(path, &layout_json(camera, testbed, screen, frame));
            }
        }
        let started = self.started;
        let window = || window_report(started, camera, frame);
        if let Some(s) = self.smoke.as_mut() {
            s.frames_left = s.frames_left.saturating_sub(1);
            if s.frames_left == 0 {
                let (stem, _, _) = &s.queue[s.index];
                let shot = s.dir.join(format!("{stem}.png"));
                let state = s.dir.join(format!("{stem}.json"));
                let written = save_screen(&shot)
                    .and_then(|()| write_text(&state, &testbed.state_json(&window())));
                if let Err(e) = written {
                    eprintln!("testbed: {e}");
                    self.exit_code = 1;
                }
                s.index += 1;
                if s.index == s.queue.len() || quitting {
                    println!("testbed: catalog smoke: {} scenes", s.queue.len() - 1);
                    return Some(self.exit_code);
                }
                s.start(testbed);
            }
        }
        if !self.is_last(frame, quitting) {
            return None;
        }
        if let Some(path) = &self.options.screenshot {
            if let Err(e) = save_screen(path) {
                eprintln!("testbed: {e}");
                self.exit_code = 1;
            }
        }
        if let Some(path) = &self.options.dump_state {
            if let Err(e) = write_text(path, &testbed.state_json(&window())) {
                eprintln!("testbed: {e}");
                self.exit_code = 1;
            }
        }
        if self.options.frames.is_some() {
            let seconds = self.started.elapsed().as_secs_f64();
            println!(
                "testbed: {frame} frames in {seconds:.2} s ({:.1} fps), {} steps",
                frame as f64 / seconds.max(1e-9),
                testbed.steps()
            );
        }
        Some(self.exit_code)
    }

    /// `--max-fps`: sleep what is left of this frame's period. Call once per frame, just
    /// before the next.
    pub fn throttle(&mut self) {
        if let Some(fps) = self.options.max_fps.filter(|f| f.is_finite() && *f > 0.0) {
            let period = Duration::from_secs_f32(1.0 / fps);
            let spent = self.last_frame.elapsed();
            if spent < period {
                std::thread::sleep(period - spent);
            }
        }
        self.last_frame = Instant::now();
    }
}

/// The window's members of the state dump after `frame` frames, the loop having started at
/// `started`.
fn window_report(started: Instant, camera: &Camera, frame: u64) -> WindowReport {
    let viewport = camera.viewport();
    let seconds = started.elapsed().as_secs_f64();
    WindowReport {
        viewport: Some([viewport.x, viewport.y, viewport.w, viewport.h]),
        frames: Some(frame),
        seconds: Some(seconds),
        fps: Some(frame as f64 / seconds.max(1e-9)),
    }
}

/// `--catalog-smoke`: the scenes still to show, and frames left on the current one.
struct Smoke {
    dir: PathBuf,
    /// (output file stem, scene file or `None` for the empty world, frames).
    queue: Vec<(String, Option<PathBuf>, u64)>,
    index: usize,
    frames_left: u64,
}

impl Smoke {
    fn new(dir: &Path, frames: u64, testbed: &Testbed) -> Smoke {
        let mut queue = vec![("00_empty".to_string(), None, frames)];
        for (i, entry) in catalog::CATALOG.iter().enumerate() {
            let stem = entry.file.trim_end_matches(".ron").replace('/', "-");
            let path = entry.path_in(&testbed.library().dir);
            queue.push((format!("{:02}_{stem}", i + 1), Some(path), frames));
        }
        Smoke {
            dir: dir.to_path_buf(),
            queue,
            index: 0,
            frames_left: 0,
        }
    }

    /// Open the current entry.
    fn start(&mut self, testbed: &mut Testbed) {
        let (_, path, frames) = &self.queue[self.index];
        match path {
            Some(path) => testbed.open(path),
            None => testbed.open_empty(),
        }
        self.frames_left = *frames;
    }
}

/// `--rewind-to`: pause, scrub back to `to` the way a drag of the timeline does (through
/// steps on the way, so the forward cache is used too), then run on from it.
fn rewind(testbed: &mut Testbed, to: u64) {
    let was_paused = testbed.run.paused;
    let (_, newest, _) = testbed.timeline();
    let mid = to + (newest.saturating_sub(to)) / 2;
    for step in [mid, to.saturating_sub(3), to.saturating_sub(1), to] {
        testbed.scrub(step);
    }
    let (oldest, newest, shown) = testbed.timeline();
    println!("testbed: rewound to step {shown} (recorded {oldest}..{newest})");
    if !was_paused {
        testbed.toggle_pause();
    }
}

/// The `--layout-out` JSON: where things are on screen, for scripted input.
fn layout_json(camera: &Camera, testbed: &Testbed, screen: Vec2, frame: u64) -> String {
    let v = camera.viewport();
    let c = camera.center();
    let widgets = testbed
        .layout()
        .iter()
        .map(|(name, r)| (*name, [r.min.x, r.min.y, r.width(), r.height()]))
        .collect();
    to_json_line(&LayoutReport {
        frame,
        dpi_scale: screen_dpi_scale(),
        screen: [screen.x, screen.y],
        viewport: [v.x, v.y, v.w, v.h],
        camera: CameraReport {
            center: [c.x, c.y],
            view_height: camera.view_height(),
            pixels_per_metre: camera.pixels_per_metre(),
        },
        steps: testbed.steps(),
        newest: testbed.timeline().1,
        grabbing: testbed.grabbing(),
        scene: &testbed.info().name,
        errors: testbed.errors().len(),
        widgets,
    })
}

/// Write a text file atomically; the error names the file.
fn write_text(path: &Path, text: &str) -> Result<(), String> {
    write_atomic(path, text).map_err(|e| format!("cannot write {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_frame_is_frames_or_closing_but_not_during_a_smoke() {
        let mut testbed = Testbed::with_library(
            None,
            &Default::default(),
            super::super::library::Library::scan_dir(Path::new("/no/such/scenes")),
        )
        .unwrap();
        let options = AppOptions {
            frames: Some(3),
            ..AppOptions::default()
        };
        let automation = Automation::new(options, &mut testbed);
        assert!(!automation.is_last(2, false));
        assert!(automation.is_last(3, false));
        assert!(automation.is_last(1, true));
    }
}
