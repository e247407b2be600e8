//! The testbed window, run for real: every catalog scene opens and draws, a scripted drag
//! moves a box, a scripted click turns warm starting off, a scripted `F` frames the pyramid
//! rather than its ground, the large pyramid runs with contact points drawn (frame rate
//! printed), an edited scene file is reloaded and a broken edit keeps the old scene running,
//! and missing scenes or a corrupt settings file are messages, not crashes.
//!
//! Needs a display: each test is skipped (with a message) when `DISPLAY` is unset; CI runs the
//! suite a second time under `xvfb-run`. Scripted input needs `xdotool` (skipped without it).
//! Every window test starts as a `WindowTest`, which takes one lock, so only one window is open
//! at a time (scripted input goes to the right window and the tests do not fight for the two
//! cores), and runs the testbed through it (`run_dumping`, `launch`, `launch_with_layout`).

#![cfg(feature = "testbed")]

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use impulse::scene::{self, catalog};

/// One window at a time.
static WINDOW: Mutex<()> = Mutex::new(());

/// A window test under way: it holds the lock that keeps one window open at a time and owns
/// a fresh temporary folder, removed when the test ends without a panic (a failing test
/// leaves its files to look at).
struct WindowTest {
    dir: PathBuf,
    _lock: MutexGuard<'static, ()>,
}

impl WindowTest {
    /// Start the test `name`, or `None` (with a message) when there is no display.
    fn start(name: &str) -> Option<WindowTest> {
        if std::env::var_os("DISPLAY").is_none() {
            eprintln!("{name}: skipped: DISPLAY is not set (run under `xvfb-run -a cargo test`)");
            return None;
        }
        let lock = WINDOW.lock().unwrap_or_else(|e| e.into_inner());
        let dir =
            std::env::temp_dir().join(format!("impulse-window-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Some(WindowTest { dir, _lock: lock })
    }

    /// As `start`, for a test that scripts input: also `None` without xdotool.
    fn scripted(name: &str) -> Option<WindowTest> {
        let ok = Command::new("xdotool")
            .arg("version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!("{name}: skipped: xdotool is not installed");
            return None;
        }
        WindowTest::start(name)
    }

    fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    /// The testbed with these preferences (RON text, written to `prefs.ron`).
    fn testbed_with_prefs(&self, prefs: &str) -> Command {
        let path = self.path("prefs.ron");
        std::fs::write(&path, prefs).unwrap();
        let mut cmd = testbed();
        cmd.env("IMPULSE_SETTINGS", &path);
        cmd
    }

    /// Run `cmd` to its end (at most `limit`) with `--dump-state NAME.json`, and with
    /// `--screenshot NAME.png` when `screenshot` (see `shot`); assert that it exited 0.
    fn run_dumping(
        &self,
        cmd: &mut Command,
        name: &str,
        screenshot: bool,
        limit: Duration,
    ) -> Finished {
        if screenshot {
            cmd.arg("--screenshot").arg(self.shot(name));
        }
        let state = self.path(&format!("{name}.json"));
        let out = run(cmd.arg("--dump-state").arg(&state), limit);
        assert_success(&out, &format!("the {name} run"));
        Finished::read(out, &state)
    }

    /// The screenshot `run_dumping` took for `name`.
    fn shot(&self, name: &str) -> PathBuf {
        self.path(&format!("{name}.png"))
    }

    /// Start `cmd` with `--layout-out layout.json --dump-state state.json` and wait for its
    /// window, for scripted input: the running testbed and its X window id.
    fn launch(&self, cmd: &mut Command) -> (Live, String) {
        let (layout, state) = self.live_files(cmd);
        let (child, window) = spawn_ready(cmd, find_window);
        (
            Live {
                child,
                layout,
                state,
            },
            window,
        )
    }

    /// Start `cmd` with `--layout-out layout.json --dump-state state.json` and wait for its
    /// first layout file (no xdotool needed).
    fn launch_with_layout(&self, cmd: &mut Command) -> Live {
        let (layout, state) = self.live_files(cmd);
        let _ = std::fs::remove_file(&layout);
        let (child, ()) = spawn_ready(cmd, |child| {
            let start = Instant::now();
            while !layout.exists() {
                if let Some(out) = child.exited() {
                    return Err(out);
                }
                assert!(
                    start.elapsed() < Duration::from_secs(120),
                    "no layout file after 120 s"
                );
                pause(100);
            }
            Ok(())
        });
        Live {
            child,
            layout,
            state,
        }
    }

    /// Add `--layout-out` and `--dump-state` in the test's folder to `cmd`.
    fn live_files(&self, cmd: &mut Command) -> (PathBuf, PathBuf) {
        let (layout, state) = (self.path("layout.json"), self.path("state.json"));
        cmd.arg("--layout-out")
            .arg(&layout)
            .arg("--dump-state")
            .arg(&state);
        (layout, state)
    }
}

impl Drop for WindowTest {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The testbed binary, run from the repository, preferences off unless a test sets them.
fn testbed() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_testbed"));
    cmd.current_dir(manifest_dir())
        .env("IMPULSE_SETTINGS", "")
        .env_remove("IMPULSE_SCENES");
    cmd
}

/// What a finished testbed left: its output and its `--dump-state` JSON.
struct Finished {
    out: Output,
    state: String,
}

impl Finished {
    fn read(out: Output, state: &Path) -> Finished {
        let state = std::fs::read_to_string(state)
            .unwrap_or_else(|e| panic!("no state dump {}: {e}", state.display()));
        Finished { out, state }
    }
}

/// A testbed running with `--layout-out` and `--dump-state` (`WindowTest::launch`).
struct Live {
    child: Running,
    layout: PathBuf,
    state: PathBuf,
}

impl Live {
    /// The layout file once it satisfies `ready`, waiting at most `limit`.
    fn layout_when(&self, limit: Duration, ready: impl Fn(&str) -> bool) -> String {
        wait_layout(&self.layout, limit, ready)
    }

    /// The layout file as it is now.
    fn layout(&self) -> String {
        std::fs::read_to_string(&self.layout).unwrap()
    }

    /// Wait for the end (at most 300 s) and assert that it exited 0.
    fn finish(mut self, what: &str) -> Finished {
        let out = self.child.wait(Duration::from_secs(300));
        assert_success(&out, what);
        Finished::read(out, &self.state)
    }
}

/// A child process killed when dropped (a failing test leaves no window behind). Its output
/// goes to files, so a chatty child never blocks on a full pipe.
struct Running {
    child: Child,
    out: PathBuf,
    err: PathBuf,
}

impl Running {
    fn spawn(cmd: &mut Command) -> Running {
        static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let base = std::env::temp_dir().join(format!("impulse-window-{}-{n}", std::process::id()));
        let (out, err) = (base.with_extension("out"), base.with_extension("err"));
        let child = cmd
            .stdin(Stdio::null())
            .stdout(File::create(&out).unwrap())
            .stderr(File::create(&err).unwrap())
            .spawn()
            .expect("testbed starts");
        Running { child, out, err }
    }

    fn id(&self) -> u32 {
        self.child.id()
    }

    /// The output so far.
    fn output(&self, status: std::process::ExitStatus) -> Output {
        Output {
            status,
            stdout: std::fs::read(&self.out).unwrap_or_default(),
            stderr: std::fs::read(&self.err).unwrap_or_default(),
        }
    }

    /// The output if the process has exited (it should still be running).
    fn exited(&mut self) -> Option<Output> {
        let status = self.child.try_wait().expect("wait")?;
        Some(self.output(status))
    }

    /// Wait for the exit, at most `limit`; kill and fail past it.
    fn wait(&mut self, limit: Duration) -> Output {
        let start = Instant::now();
        loop {
            if let Some(out) = self.exited() {
                return out;
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let status = self.child.wait().unwrap();
                let out = self.output(status);
                panic!(
                    "testbed still running after {limit:?}; killed.\nstdout:\n{}\nstderr:\n{}",
                    text(&out.stdout),
                    text(&out.stderr)
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Nothing to kill once it has exited; a window left by a failing test is closed.
        if self.child.try_wait().is_ok_and(|s| s.is_none()) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_file(&self.out);
        let _ = std::fs::remove_file(&self.err);
    }
}

/// A line for the log even when the test harness captures output (written to the process's
/// stderr directly, not through `eprintln!`, which the harness captures).
fn report(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed: {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// Tries at connecting to the X server. An X server without a window manager resets when
/// its last client leaves, and a client connecting during the reset is refused
/// (`XOpenDisplay() failed`): one window test starting as the last one ends can hit that.
const CONNECT_TRIES: usize = 5;

/// True when the process failed only because the display refused the connection.
fn display_refused(out: &Output) -> bool {
    !out.status.success() && text(&out.stderr).contains("XOpenDisplay")
}

/// Start the testbed and wait until `ready` says it is (`Ok`) or it has exited (`Err` with
/// its output), starting it again while the display refuses the connection; an exit for any
/// other reason fails the test.
fn spawn_ready<T>(
    cmd: &mut Command,
    mut ready: impl FnMut(&mut Running) -> Result<T, Output>,
) -> (Running, T) {
    let mut tries = 1;
    loop {
        let mut child = Running::spawn(cmd);
        match ready(&mut child) {
            Ok(value) => return (child, value),
            Err(out) if display_refused(&out) && tries < CONNECT_TRIES => {
                eprintln!("display refused the connection (server reset?); trying again");
                tries += 1;
                pause(500);
            }
            Err(out) => panic!(
                "testbed exited early: {:?}\nstdout:\n{}\nstderr:\n{}",
                out.status,
                text(&out.stdout),
                text(&out.stderr)
            ),
        }
    }
}

/// Run the testbed to its end, at most `limit` (retrying a refused display connection): its
/// output, whatever its exit status.
fn run(cmd: &mut Command, limit: Duration) -> Output {
    let mut refused = 1;
    let (_, out) = spawn_ready(cmd, |child| {
        let out = child.wait(limit);
        if display_refused(&out) && refused < CONNECT_TRIES {
            refused += 1;
            return Err(out);
        }
        Ok(out)
    });
    out
}

// ---------------------------------------------------------------------------------------
// Tiny JSON readers (the files are the testbed's own, one object each).

/// The numbers of the array after `"key":[`.
fn json_array(json: &str, key: &str) -> Option<Vec<f64>> {
    let start = json.find(&format!("\"{key}\":["))? + key.len() + 4;
    let end = start + json[start..].find(']')?;
    json[start..end]
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect()
}

/// The number (or `true`/`false` as 1/0) after `"key":`.
fn json_number(json: &str, key: &str) -> Option<f64> {
    let start = json.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = &json[start..];
    let end = rest.find([',', '}', ']']).unwrap_or(rest.len());
    match rest[..end].trim() {
        "true" => Some(1.0),
        "false" => Some(0.0),
        x => x.parse().ok(),
    }
}

/// The string after `"key":`.
fn json_str(json: &str, key: &str) -> Option<String> {
    let start = json.find(&format!("\"{key}\":\""))? + key.len() + 4;
    let end = start + json[start..].find('"')?;
    Some(json[start..end].to_string())
}

/// Position of the body called `name` in a state dump.
fn body_position(json: &str, name: &str) -> Option<(f64, f64)> {
    let at = json.find(&format!("{{\"name\":\"{name}\",\"position\":"))?;
    let p = json_array(&json[at..], "position")?;
    Some((p[0], p[1]))
}

/// The `--layout-out` file once it exists and satisfies `ready`, waiting at most `limit`.
fn wait_layout(path: &Path, limit: Duration, ready: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        if let Ok(json) = std::fs::read_to_string(path) {
            if ready(&json) {
                return json;
            }
        }
        assert!(
            start.elapsed() < limit,
            "layout {} not ready after {limit:?}: {:?}",
            path.display(),
            std::fs::read_to_string(path).ok()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

// ---------------------------------------------------------------------------------------
// Pixels.

/// Decode an 8-bit RGB or RGBA PNG into (width, height, RGBA pixels).
fn read_png(path: &Path) -> (u32, u32, Vec<[u8; 4]>) {
    let file = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let decoder = png::Decoder::new(file);
    let mut reader = decoder.read_info().expect("screenshot is a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("screenshot decodes");
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let channels = match info.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        other => panic!("unexpected colour type {other:?}"),
    };
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|c| [c[0], c[1], c[2], if channels == 4 { c[3] } else { 255 }])
        .collect();
    (info.width, info.height, pixels)
}

/// Pixels of the world view (`x < view_width`) with a clear colour: bodies are drawn in
/// colours (green static, blue kinematic, orange dynamic, lavender asleep), while the
/// background, the grid and the messages are grey.
fn coloured_world_pixels(path: &Path, view_width: u32) -> usize {
    let (w, h, pixels) = read_png(path);
    let view_width = view_width.min(w);
    (0..h)
        .flat_map(|y| (0..view_width).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = pixels[(y * w + x) as usize];
            let (max, min) = (p[0].max(p[1]).max(p[2]), p[0].min(p[1]).min(p[2]));
            max - min > 24
        })
        .count()
}

// ---------------------------------------------------------------------------------------
// xdotool.

fn xdotool(args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .output()
        .expect("xdotool runs");
    assert!(
        out.status.success(),
        "xdotool {args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The testbed's X window id, waiting for it to be mapped; the output if it exits first.
fn find_window(child: &mut Running) -> Result<String, Output> {
    let start = Instant::now();
    let pid = child.id().to_string();
    loop {
        if let Some(out) = child.exited() {
            return Err(out);
        }
        // By process id when the window has _NET_WM_PID, else by title (one window at a
        // time: the tests hold a lock).
        for args in [
            vec![
                "search",
                "--onlyvisible",
                "--pid",
                &pid,
                "--name",
                "Impulse testbed",
            ],
            vec!["search", "--onlyvisible", "--name", "Impulse testbed"],
            vec!["search", "--name", "Impulse testbed"],
        ] {
            let out = Command::new("xdotool")
                .args(&args)
                .output()
                .expect("xdotool runs");
            if let Some(id) = text(&out.stdout).lines().last() {
                return Ok(id.trim().to_string());
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no testbed window after 120 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Move the pointer to window coordinates (physical pixels).
fn pointer_to(window: &str, x: f64, y: f64) {
    xdotool(&[
        "mousemove",
        "--window",
        window,
        &format!("{}", x.round() as i64),
        &format!("{}", y.round() as i64),
    ]);
}

fn pause(ms: u64) {
    std::thread::sleep(Duration::from_millis(ms));
}

/// World point (m) to window pixels, through the camera the layout file reports.
fn world_to_window(layout: &str, p: (f64, f64)) -> (f64, f64) {
    let v = json_array(layout, "viewport").unwrap();
    let c = json_array(layout, "center").unwrap();
    let ppm = json_number(layout, "pixels_per_metre").unwrap();
    let dpi = json_number(layout, "dpi_scale").unwrap_or(1.0);
    let sx = v[0] + 0.5 * v[2] + (p.0 - c[0]) * ppm;
    let sy = v[1] + 0.5 * v[3] - (p.1 - c[1]) * ppm;
    (sx * dpi, sy * dpi)
}

/// The centre of a named panel widget, in window pixels.
fn widget_center(layout: &str, name: &str) -> Option<(f64, f64)> {
    let r = json_array(layout, name)?;
    let dpi = json_number(layout, "dpi_scale").unwrap_or(1.0);
    Some(((r[0] + 0.5 * r[2]) * dpi, (r[1] + 0.5 * r[3]) * dpi))
}

// ---------------------------------------------------------------------------------------
// Tests.

#[test]
fn default_scene_draws_world_and_panel_and_dumps_state() {
    let Some(t) = WindowTest::start("default_scene") else {
        return;
    };
    let run = t.run_dumping(
        testbed().args(["--frames", "30"]),
        "default",
        true,
        Duration::from_secs(300),
    );
    let shot = t.shot("default");

    let (w, h, pixels) = read_png(&shot);
    assert!(w >= 640 && h >= 360, "window is {w}x{h}");
    let mut counts: HashMap<[u8; 4], usize> = HashMap::new();
    for p in &pixels {
        *counts.entry(*p).or_default() += 1;
    }
    assert!(counts.len() > 50, "only {} distinct colours", counts.len());
    let json = run.state;
    // The `testbed run --json` object, then the settings and the testbed's state.
    assert!(json.starts_with("{\"steps\":30,"), "{json}");
    assert!(json.contains("\"stats\":{\"contacts\":"), "{json}");
    assert!(
        json.contains("\"settings\":{\"solver\":\"Classic\""),
        "{json}"
    );
    assert_eq!(json_str(&json, "name").as_deref(), Some("ground"));
    assert!(json.contains("\"name\":\"Pyramid stacking\""), "{json}");
    let view = json_array(&json, "viewport").unwrap();
    let coloured = coloured_world_pixels(&shot, view[2] as u32);
    assert!(
        coloured > 5000,
        "the pyramid is not drawn: {coloured} coloured pixels"
    );
}

#[test]
fn every_catalog_scene_opens_runs_and_draws() {
    let Some(t) = WindowTest::start("catalog") else {
        return;
    };
    let dir = &t.dir;
    let frames = 60;
    let start = Instant::now();
    let out = run(
        testbed()
            .arg("--catalog-smoke")
            .arg(dir)
            .args(["--frames", &frames.to_string()]),
        Duration::from_secs(900),
    );
    assert_success(&out, "testbed --catalog-smoke");
    report(&format!(
        "catalog smoke: {} scenes in {:.1} s",
        catalog::CATALOG.len(),
        start.elapsed().as_secs_f64()
    ));

    // The empty world: the reference with no bodies.
    let empty_json = std::fs::read_to_string(dir.join("00_empty.json")).unwrap();
    let view_width = json_array(&empty_json, "viewport").unwrap()[2] as u32;
    let empty = coloured_world_pixels(&dir.join("00_empty.png"), view_width);
    assert!(empty < 200, "the empty world has {empty} coloured pixels");

    let scenes = catalog::scenes_dir();
    let mut drawn = 0;
    for (i, entry) in catalog::CATALOG.iter().enumerate() {
        let stem = format!(
            "{:02}_{}",
            i + 1,
            entry.file.trim_end_matches(".ron").replace('/', "-")
        );
        let json = std::fs::read_to_string(dir.join(format!("{stem}.json")))
            .unwrap_or_else(|e| panic!("{stem}.json: {e}"));
        let shot = dir.join(format!("{stem}.png"));
        match scene::load_file(&entry.path_in(&scenes)) {
            Ok(loaded) => {
                assert!(json.contains("\"errors\":[]"), "{}: {json}", entry.file);
                let expected = frames;
                assert!(
                    json.starts_with(&format!("{{\"steps\":{expected},")),
                    "{}: {}",
                    entry.file,
                    &json[..80.min(json.len())]
                );
                assert!(
                    json.contains(&format!("\"name\":{:?}", loaded.name)),
                    "{}",
                    entry.file
                );
                let coloured = coloured_world_pixels(&shot, view_width);
                assert!(
                    coloured > empty + 300,
                    "{}: only {coloured} coloured pixels in the world view (empty: {empty})",
                    entry.file
                );
                drawn += 1;
            }
            Err(errors) => panic!("{}: every catalog scene must load: {errors}", entry.file),
        }
    }
    assert_eq!(drawn, catalog::CATALOG.len(), "every scene drawn");
}

#[test]
fn dragging_a_box_moves_it() {
    let Some(t) = WindowTest::scripted("drag") else {
        return;
    };
    let scene = "scenes/box2d_lite/single_box.ron";

    // Undragged: the box lands and rests.
    let still = t.run_dumping(
        testbed().args(["--scene", scene, "--frames", "240"]),
        "still",
        false,
        Duration::from_secs(300),
    );
    let rest = body_position(&still.state, "box").unwrap();

    // Dragged: press on the box once it has landed, move in steps, release.
    let (live, window) =
        t.launch(testbed().args(["--scene", scene, "--frames", "480", "--max-fps", "30"]));
    let ready = live.layout_when(Duration::from_secs(120), |j| {
        json_number(j, "steps").is_some_and(|s| s >= 90.0)
    });
    let (x0, y0) = world_to_window(&ready, (rest.0, rest.1));
    let (x1, y1) = world_to_window(&ready, (rest.0 + 6.0, rest.1 + 3.0));
    pointer_to(&window, x0, y0);
    pause(200);
    xdotool(&["mousedown", "1"]);
    pause(200);
    for k in 1..=10 {
        let f = k as f64 / 10.0;
        pointer_to(&window, x0 + f * (x1 - x0), y0 + f * (y1 - y0));
        pause(100);
    }
    pause(800);
    let during = live.layout();
    xdotool(&["mouseup", "1"]);
    let json = live.finish("dragged run").state;
    assert_eq!(
        json_number(&during, "grabbing"),
        Some(1.0),
        "the box was not grabbed: {during}"
    );
    let moved = body_position(&json, "box").unwrap();
    let distance = ((moved.0 - rest.0).powi(2) + (moved.1 - rest.1).powi(2)).sqrt();
    eprintln!("box at rest {rest:?}, after the drag {moved:?}: {distance:.2} m apart");
    assert!(distance > 1.0, "the 1 m box moved only {distance} m");
    assert!(json.contains("\"grabbing\":false"), "released: {json}");
}

#[test]
fn clicking_warm_starting_turns_it_off() {
    let Some(t) = WindowTest::scripted("click") else {
        return;
    };
    // Preferences with the Solver section open and the long sections closed, so the
    // checkbox is on screen.
    let (live, window) = t.launch(
        t.testbed_with_prefs(
            "(sections: (scenes: false, run: true, solver: true, draw: false, stats: false))",
        )
        .args([
            "--scene",
            "scenes/box2d_lite/single_box.ron",
            "--frames",
            "300",
            "--max-fps",
            "30",
        ]),
    );
    let ready = live.layout_when(Duration::from_secs(120), |j| {
        j.contains("\"warm_starting\":[") && json_number(j, "frame").is_some_and(|f| f > 10.0)
    });
    let (x, y) = widget_center(&ready, "warm_starting").unwrap();
    pointer_to(&window, x, y);
    pause(200);
    xdotool(&["mousedown", "1"]);
    pause(150);
    xdotool(&["mouseup", "1"]);
    pause(300);
    let json = live.finish("testbed").state;
    assert!(
        json.contains("\"warm_starting\":false"),
        "warm starting still on after the click at ({x}, {y}): {json}"
    );
    // The scene's own value was on: the click changed it, nothing else did.
    assert!(json.contains("\"accumulate_impulses\":true"), "{json}");
}

/// `F` used to frame the bounds of every shape, so on a scene with a 100 m ground the pyramid
/// shrank to a few pixels. Pressed on Box2D-Lite's pyramid, it must zoom in on the pyramid
/// (12 m tall once settled) from the scene's 21 m view, not out to the ground.
#[test]
fn pressing_f_frames_the_pyramid_not_the_ground() {
    let Some(t) = WindowTest::scripted("frame") else {
        return;
    };
    let (live, window) = t.launch(testbed().args([
        "--scene",
        "scenes/box2d_lite/pyramid_stacking.ron",
        "--frames",
        "450",
        "--max-fps",
        "30",
    ]));
    // The scene's camera at first (centre (0, 7), 21 m high); F once the rows have landed.
    let before = live.layout_when(Duration::from_secs(120), |j| {
        json_number(j, "steps").is_some_and(|s| s >= 240.0)
    });
    let ppm_before = json_number(&before, "pixels_per_metre").unwrap();
    let height = json_array(&before, "viewport").unwrap()[3];
    assert!((ppm_before * 21.0 - height).abs() < 1.0, "{before}");
    xdotool(&["windowfocus", "--sync", &window]);
    xdotool(&["key", "f"]);
    let after = live.layout_when(Duration::from_secs(60), |j| {
        json_number(j, "pixels_per_metre").is_some_and(|p| (p - ppm_before).abs() > 1.0)
    });
    let ppm = json_number(&after, "pixels_per_metre").unwrap();
    let center = json_array(&after, "center").unwrap();
    // The settled pyramid spans about y 0 to 12 m: framed with a 10% margin it fills about
    // 14.4 m of the view's height.
    let shown = height / ppm;
    assert!(
        (12.0..18.0).contains(&shown) && (4.0..8.0).contains(&center[1]),
        "F shows {shown:.1} m around {center:?}: {after}"
    );
    live.finish("testbed");
}

#[test]
fn large_pyramid_runs_with_contact_points_drawn() {
    let Some(t) = WindowTest::start("large_pyramid") else {
        return;
    };
    let json = t
        .run_dumping(
            t.testbed_with_prefs("(draw: (contact_points: true))")
                .args([
                    "--scene",
                    "scenes/benchmark/large_pyramid.ron",
                    "--frames",
                    "60",
                ]),
            "pyramid",
            true,
            Duration::from_secs(600),
        )
        .state;
    assert!(json.contains("\"contact_points\":true"), "{json}");
    assert!(json_number(&json, "manifold_points").unwrap() > 5000.0);
    let fps = json_number(&json, "fps").unwrap();
    let step_ms = json_number(&json, "median").unwrap();
    report(&format!(
        "large pyramid (5,050 boxes, contact points drawn): {fps:.1} frames per second, \
         median step {step_ms:.1} ms"
    ));
}

#[test]
fn an_edited_scene_reloads_and_a_broken_edit_keeps_it_running() {
    let Some(t) = WindowTest::start("reload") else {
        return;
    };
    let scene = t.path("scene.ron");
    let original =
        std::fs::read_to_string(manifest_dir().join("scenes/box2d_lite/single_box.ron")).unwrap();
    std::fs::write(&scene, &original).unwrap();
    let live = t.launch_with_layout(testbed().arg("--scene").arg(&scene).args([
        "--frames",
        "600",
        "--max-fps",
        "40",
    ]));
    live.layout_when(Duration::from_secs(120), |j| {
        json_str(j, "scene").as_deref() == Some("A single box")
    });

    // A good edit: renamed scene and box, moved up. Written to a temporary file and renamed,
    // as editors do.
    let edited = original
        .replace("name: \"A single box\"", "name: \"Edited box\"")
        .replace(
            "(name: \"box\", position: (0.0, 4.0)",
            "(name: \"edited\", position: (3.0, 6.0)",
        );
    assert_ne!(edited, original);
    let tmp = t.path("scene.ron.tmp");
    std::fs::write(&tmp, &edited).unwrap();
    std::fs::rename(&tmp, &scene).unwrap();
    live.layout_when(Duration::from_secs(60), |j| {
        json_str(j, "scene").as_deref() == Some("Edited box")
    });

    // A broken edit: the old (edited) scene keeps running, the error is shown.
    let broken = edited.replace("half_width: 0.5,", "half_width: 0.5 oops,");
    std::fs::write(&scene, &broken).unwrap();
    let with_error = live.layout_when(Duration::from_secs(60), |j| {
        json_number(j, "errors").is_some_and(|n| n > 0.0)
    });
    let steps_then = json_number(&with_error, "steps").unwrap();
    live.layout_when(Duration::from_secs(60), |j| {
        json_number(j, "steps").is_some_and(|s| s > steps_then + 20.0)
    });

    let Finished { out, state: json } = live.finish("testbed");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("reloaded"), "{stderr}");
    assert!(body_position(&json, "edited").is_some(), "{json}");
    assert!(body_position(&json, "box").is_none(), "{json}");
    assert!(json.contains("\"name\":\"Edited box\""), "{json}");
    // The error names the file, line and column.
    let file = scene.display().to_string();
    let line = broken
        .lines()
        .position(|l| l.contains("oops"))
        .map(|i| i + 1)
        .unwrap();
    let needle = format!("{file}:{line}:");
    assert!(json.contains(&needle), "no `{needle}` error in {json}");
    assert!(stderr.contains(&needle), "{stderr}");
}

#[test]
fn missing_scenes_and_a_corrupt_settings_file_are_messages() {
    let Some(t) = WindowTest::start("messages") else {
        return;
    };
    let json = t
        .run_dumping(
            t.testbed_with_prefs("(draw: (shapes: maybe)")
                .env("IMPULSE_SCENES", t.path("no-scenes-here"))
                .args(["--frames", "10"]),
            "messages",
            true,
            Duration::from_secs(300),
        )
        .state;
    assert!(json.contains("No scenes folder"), "{json}");
    assert!(json.contains("corrupt settings file"), "{json}");
    assert!(json.starts_with("{\"steps\":10,"), "{json}");
    // The corrupt file was replaced by good preferences at exit only if something changed;
    // either way it still loads without a crash next time, and its text is not lost: it is
    // still there, or kept beside the rewritten file.
    let corrupt = "(draw: (shapes: maybe)";
    let file = std::fs::read_to_string(t.path("prefs.ron")).unwrap();
    let kept = std::fs::read_to_string(t.path("prefs.ron.bad")).ok();
    assert!(
        file == corrupt || kept.as_deref() == Some(corrupt),
        "the corrupt text is lost: file {file:?}, kept {kept:?}"
    );
}

#[test]
fn bad_arguments_exit_2_and_no_display_exits_1() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_testbed"))
            .args(args)
            .env_remove("DISPLAY")
            .output()
            .expect("testbed binary runs")
    };
    let out = run(&["--frames", "zero"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["--frames", "3", "list"]);
    assert_eq!(out.status.code(), Some(2));
    // No display: an error message and exit 1, not a panic.
    let out = run(&["--frames", "1"]);
    if cfg!(target_os = "linux") && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("DISPLAY"));
    }
    // An unreadable scene is refused before any window opens.
    let out = run(&["--scene", "/no/such/scene.ron", "--frames", "1"]);
    assert_eq!(out.status.code(), Some(1));
    // So is an output that is not a regular file (issue 15, Files): the device stays.
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let out = run(&["--frames", "1", "--screenshot", "/dev/null"]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("/dev/null") && err.contains("device"), "{err}");
        let kind = std::fs::symlink_metadata("/dev/null").unwrap().file_type();
        assert!(kind.is_char_device());
    }
}

/// The `"hash"` strings of the `worlds` array of a state dump, in order.
fn world_hashes(json: &str) -> Vec<String> {
    let Some(start) = json.find("\"worlds\":[{") else {
        return Vec::new();
    };
    json[start..]
        .split("\"hash\":\"")
        .skip(1)
        .map(|rest| rest[..16].to_string())
        .collect()
}

/// The scene file run headless `steps` steps under a verdicts configuration (by label): the
/// hash.
fn run_alone(file: &str, configuration: &str, steps: u64) -> String {
    let mut world = scene::load_file(&manifest_dir().join(file)).unwrap().world;
    let mut settings = *world.settings();
    let c = impulse::verdicts::configurations()
        .into_iter()
        .find(|c| c.label == configuration)
        .unwrap_or_else(|| panic!("no configuration {configuration}"));
    c.apply(&mut settings);
    world.set_settings(settings).unwrap();
    let mut session = impulse::lab::Session::new(configuration, world);
    for _ in 0..steps {
        session.step();
    }
    format!("{:016x}", session.world.state_hash())
}

#[test]
fn compare_mode_runs_each_world_as_it_would_run_alone() {
    let Some(t) = WindowTest::start("compare") else {
        return;
    };
    let scene_file = "scenes/box2d_lite/pyramid_stacking.ron";
    let json = t
        .run_dumping(
            testbed().args([
                "--scene",
                scene_file,
                "--compare",
                "classic,classic no warm starting,soft step",
                "--frames",
                "60",
            ]),
            "compare",
            true,
            Duration::from_secs(300),
        )
        .state;
    assert!(json.starts_with("{\"steps\":60,"), "{json}");
    assert_eq!(json_number(&json, "worlds"), Some(3.0), "{json}");
    let hashes = world_hashes(&json);
    assert_eq!(hashes.len(), 3, "{json}");
    assert!(
        hashes[0] != hashes[1] && hashes[1] != hashes[2] && hashes[0] != hashes[2],
        "the settings make a difference: {hashes:?}"
    );
    for (hash, label) in hashes
        .iter()
        .zip(["classic", "classic, no warm starting", "soft step"])
    {
        assert!(json.contains(&format!("\"label\":\"{label}\"")), "{json}");
        assert_eq!(
            *hash,
            run_alone(scene_file, label, 60),
            "{label}: the compared world differs from the scene run alone"
        );
    }
    // Each world is drawn in its legend colour (the second one's cyan outlines, say).
    let (w, h, pixels) = read_png(&t.shot("compare"));
    let view = json_array(&json, "viewport").unwrap()[2] as u32;
    let cyan = (0..h)
        .flat_map(|y| (0..view.min(w)).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = pixels[(y * w + x) as usize];
            p[0] < 140 && p[1] > 160 && p[2] > 220
        })
        .count();
    assert!(
        cyan > 200,
        "the second world is not drawn: {cyan} cyan pixels"
    );
}

#[test]
fn rewinding_in_the_window_and_resuming_replays_the_same_run() {
    let Some(t) = WindowTest::start("rewind") else {
        return;
    };
    let scene_file = "scenes/box2d_lite/pyramid_stacking.ron";
    // Two worlds, a bomb at frame 20; the rewound run pauses at frame 100 (step 100), scrubs
    // back to step 40 (after the bomb: it is replayed from the recording) and runs 50 more
    // frames: 90 steps, as many as the straight run.
    let dump = |name: &str, extra: &[&str]| {
        let run = t.run_dumping(
            testbed()
                .args([
                    "--scene",
                    scene_file,
                    "--compare",
                    "classic,soft step",
                    "--bomb-at",
                    "20",
                ])
                .args(extra),
            name,
            false,
            Duration::from_secs(300),
        );
        (run.state, text(&run.out.stdout))
    };
    let (straight, _) = dump("straight", &["--frames", "90"]);
    let (rewound, stdout) = dump(
        "rewound",
        &["--frames", "150", "--rewind-to", "40", "--rewind-at", "100"],
    );
    assert!(stdout.contains("rewound to step 40"), "{stdout}");
    assert!(straight.starts_with("{\"steps\":90,"), "{straight}");
    assert!(rewound.starts_with("{\"steps\":90,"), "{rewound}");
    assert!(
        straight.contains("\"name\":\"bomb\""),
        "the bomb flew: {straight}"
    );
    assert_eq!(json_number(&rewound, "newest"), Some(90.0), "{rewound}");
    assert_eq!(json_str(&rewound, "hash"), json_str(&straight, "hash"));
    let (a, b) = (world_hashes(&straight), world_hashes(&rewound));
    assert_eq!(a.len(), 2);
    assert_eq!(a, b, "every compared world resumed exactly");
}

/// Issue 16: the bomb on the breakable wall. The dumped state must show welds disabled
/// (`"enabled":false` in `joints`), the same breaks listed as events (the Joint events
/// section's list, with force or torque past the 300 N / 60 N m thresholds), and the broken
/// welds drawn in the broken-joint red; with two solvers compared, each event names its world.
#[test]
fn the_bomb_shatters_the_breakable_wall_and_the_breaks_are_listed() {
    let Some(t) = WindowTest::start("breakable_wall") else {
        return;
    };
    let scene_file = "scenes/joints/breakable_wall.ron";
    let run = t.run_dumping(
        testbed().args(["--scene", scene_file, "--bomb-at", "10", "--frames", "100"]),
        "wall",
        true,
        Duration::from_secs(300),
    );
    let json = &run.state;
    assert!(json.starts_with("{\"steps\":100,"), "{json}");
    assert!(json.contains("\"name\":\"bomb\""), "the bomb flew: {json}");
    let broken = json.matches("\"enabled\":false").count();
    assert!(broken >= 20, "only {broken} of 150 welds broke: {json}");
    let events = &json[json.find("\"joint_events\":[").expect("events listed")..];
    let listed = events.matches("\"cause\":").count();
    assert!(listed >= 20, "only {listed} events listed");
    for (cause, threshold) in [("force", 300.0), ("torque", 60.0)] {
        let needle = format!("\"cause\":\"{cause}\"");
        for at in events.match_indices(&needle).map(|(i, _)| i) {
            let load = json_number(&events[at..], "load").unwrap();
            assert_eq!(json_number(&events[at..], "threshold"), Some(threshold));
            assert!(load > threshold, "{cause} {load} listed under {threshold}");
        }
    }
    // Broken welds are drawn as red dots (draw::BROKEN_JOINT_COLOR, 255 51 51).
    let (_, _, pixels) = read_png(&t.shot("wall"));
    let red = pixels
        .iter()
        .filter(|p| p[0] > 230 && p[1] < 80 && p[2] < 80)
        .count();
    assert!(red > 200, "broken joints not drawn: {red} red pixels");

    // Compared, the list names the world that broke each joint.
    let run = t.run_dumping(
        testbed().args([
            "--scene",
            scene_file,
            "--compare",
            "classic,soft step",
            "--bomb-at",
            "10",
            "--frames",
            "100",
        ]),
        "wall_compare",
        false,
        Duration::from_secs(300),
    );
    let json = &run.state;
    let events = &json[json.find("\"joint_events\":[").expect("events listed")..];
    assert!(events.contains("\"world\":\"1 classic\""), "{events}");
    assert!(events.contains("\"world\":\"2 soft step\""), "{events}");
}

/// Click the named panel widget of the running testbed (its rectangle from the layout file).
fn click(live: &Live, window: &str, name: &str) {
    let layout = live.layout_when(Duration::from_secs(60), |j| {
        j.contains(&format!("\"{name}\":["))
    });
    let (x, y) = widget_center(&layout, name).unwrap();
    pointer_to(window, x, y);
    pause(150);
    xdotool(&["mousedown", "1"]);
    pause(100);
    xdotool(&["mouseup", "1"]);
    pause(250);
}

/// The scene file run headless `steps` steps in one world of its own settings: the world.
fn world_after(file: &str, steps: u64) -> impulse::physics::World {
    let world = scene::load_file(&manifest_dir().join(file)).unwrap().world;
    let mut session = impulse::lab::Session::new("alone", world);
    for _ in 0..steps {
        session.step();
    }
    session.world
}

/// Copy a screenshot to the folder `IMPULSE_SHOTS` names, when set (how the README's
/// `assets/inside_step.png` and `assets/fork.png` are made).
fn keep_shot(shot: &Path) {
    if let Some(dir) = std::env::var_os("IMPULSE_SHOTS") {
        let to = Path::new(&dir).join(shot.file_name().unwrap());
        std::fs::copy(shot, &to).unwrap_or_else(|e| panic!("cannot copy to {to:?}: {e}"));
    }
}

/// Preferences for the inside-the-step tests: Run and Draw open, the rest closed, so the
/// buttons and toggles are on screen.
const INSIDE_STEP_PREFS: &str = "(sections: (scenes: false, run: true, solver: false, draw: true, \
     stats: false, view: false, compare: false, plots: false))";

/// Iteration stepping through the real UI (issue 13), on the heavy boxes landing on the
/// light pyramids (classic: deep overlaps): pause, colour by error, click
/// "iteration ▶" four times and "◀ iteration" once; the world dumped is the step stopped
/// after three iterations, exactly what a headless `World::step_until` gives from the same
/// frame. The screenshot is the error-coloured view (`assets/inside_step.png`).
#[test]
fn iteration_stepping_in_the_window_shows_the_step_after_k_iterations() {
    let Some(t) = WindowTest::scripted("inside_step") else {
        return;
    };
    let scene_file = "scenes/stacking/high_mass_ratio_1.ron";
    let shot = t.path("inside_step.png");
    let (live, window) = t.launch(
        t.testbed_with_prefs(INSIDE_STEP_PREFS)
            .args(["--scene", scene_file, "--frames", "420", "--max-fps", "30"])
            .arg("--screenshot")
            .arg(&shot),
    );
    live.layout_when(Duration::from_secs(120), |j| {
        json_number(j, "steps").is_some_and(|s| s >= 90.0) && j.contains("\"iteration_next\":[")
    });
    click(&live, &window, "pause");
    click(&live, &window, "color_by_error");
    for _ in 0..4 {
        click(&live, &window, "iteration_next");
    }
    click(&live, &window, "iteration_back");
    let Finished { state: json, .. } = live.finish("testbed");
    assert!(json.contains("\"paused\":true"), "{json}");
    let inspect = &json[json.find("\"inspect\":{").expect("inspecting")..];
    assert_eq!(json_number(inspect, "iteration"), Some(3.0), "{inspect}");
    assert_eq!(json_number(inspect, "substep"), Some(1.0), "{inspect}");
    assert!(inspect.contains("\"halted\":true"), "{inspect}");
    let steps = json_number(&json, "steps").unwrap() as u64;
    let mut alone = world_after(scene_file, steps);
    let dt = alone.settings().dt();
    let p = alone.step_until(dt, impulse::physics::HaltPoint::Iteration(3));
    assert!(p.halted && p.iteration == 3);
    assert_eq!(
        json_str(&json, "hash"),
        Some(format!("{:016x}", alone.state_hash())),
        "the window shows the step after 3 iterations from step {steps}"
    );
    // The error colouring is drawn: contact dots on the ramp's green-to-red (not the plain
    // red and yellow contact points, which are off).
    keep_shot(&shot);
    let (w, h, pixels) = read_png(&shot);
    let view = json_array(&json, "viewport").unwrap()[2] as u32;
    let green = (0..h)
        .flat_map(|y| (0..view.min(w)).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = pixels[(y * w + x) as usize];
            p[1] > 200 && p[0] < 120 && p[2] < 120
        })
        .count();
    assert!(
        green > 50,
        "no error-coloured contact points: {green} pixels"
    );
}

/// Fork from the timeline through the real UI (issue 13), on a heavy box falling on two
/// light ones: pause, rewind to step 60, click "fork into compare" (soft step), run on. The
/// first world goes on exactly as the scene run alone (classic: the heavy box breaks
/// through), the fork exactly as the rewound frame stepped on under the soft step (it
/// holds): the fork started from that frame's state. The screenshot is the forked compare
/// (`assets/fork.png`).
#[test]
fn forking_a_rewound_frame_in_the_window_starts_the_new_world_from_it() {
    let Some(t) = WindowTest::scripted("fork") else {
        return;
    };
    let scene_file = "scenes/stacking/high_mass_ratio_2.ron";
    let shot = t.path("fork.png");
    let (live, window) = t.launch(
        t.testbed_with_prefs(INSIDE_STEP_PREFS)
            .args([
                "--scene",
                scene_file,
                "--frames",
                "360",
                "--max-fps",
                "30",
                "--rewind-to",
                "60",
                "--rewind-at",
                "150",
            ])
            .arg("--screenshot")
            .arg(&shot),
    );
    live.layout_when(Duration::from_secs(120), |j| {
        json_number(j, "steps").is_some_and(|s| s >= 60.0) && j.contains("\"pause\":[")
    });
    click(&live, &window, "pause");
    // Paused, the automation's rewind at frame 150 stays on step 40.
    live.layout_when(Duration::from_secs(60), |j| {
        json_number(j, "steps") == Some(60.0) && json_number(j, "frame").is_some_and(|f| f > 150.0)
    });
    click(&live, &window, "fork");
    // Run on: the classic world's heavy box breaks through, the soft step's holds.
    click(&live, &window, "pause");
    let Finished { state: json, .. } = live.finish("testbed");
    keep_shot(&shot);
    assert_eq!(json_number(&json, "worlds"), Some(2.0), "{json}");
    let steps = json_number(&json, "steps").unwrap() as u64;
    assert!(steps > 120, "ran on after the fork: {json}");
    let hashes = world_hashes(&json);
    assert_eq!(hashes.len(), 2, "{json}");
    let frame = world_after(scene_file, 60);
    let classic = world_after(scene_file, steps);
    assert_eq!(hashes[0], format!("{:016x}", classic.state_hash()));
    let mut fork = frame.clone();
    let mut settings = *fork.settings();
    let soft = impulse::verdicts::configurations()
        .into_iter()
        .find(|c| c.label == "soft step")
        .unwrap();
    soft.apply(&mut settings);
    fork.restore_settings(settings).unwrap();
    let mut fork = impulse::lab::Session::new("fork", fork);
    for _ in 60..steps {
        fork.step();
    }
    assert_eq!(
        hashes[1],
        format!("{:016x}", fork.world.state_hash()),
        "the fork starts from step 60 exactly"
    );
    assert!(json.contains("\"solver\":\"SoftStep\""), "{json}");
}
