//! The testbed window, run for real: every catalog scene opens and draws, a scripted drag
//! moves a box, a scripted click turns warm starting off, the large pyramid runs with contact
//! points drawn (frame rate printed), an edited scene file is reloaded and a broken edit keeps
//! the old scene running, and missing scenes or a corrupt settings file are messages, not
//! crashes.
//!
//! Needs a display: each test is skipped (with a message) when `DISPLAY` is unset; CI runs the
//! suite a second time under `xvfb-run`. Scripted input needs `xdotool` (skipped without it).
//! The window tests take one lock, so only one window is open at a time: scripted input goes
//! to the right window and the tests do not fight for the two cores.

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

fn window_lock() -> MutexGuard<'static, ()> {
    WINDOW.lock().unwrap_or_else(|e| e.into_inner())
}

/// True when a display is available; otherwise prints why the test is skipped.
fn have_display(test: &str) -> bool {
    if std::env::var_os("DISPLAY").is_none() {
        eprintln!("{test}: skipped: DISPLAY is not set (run under `xvfb-run -a cargo test`)");
        return false;
    }
    true
}

fn have_xdotool(test: &str) -> bool {
    let ok = Command::new("xdotool")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("{test}: skipped: xdotool is not installed");
    }
    ok
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("impulse-window-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The testbed binary, run from the repository, preferences off unless a test sets them.
fn testbed() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_testbed"));
    cmd.current_dir(manifest_dir())
        .env("IMPULSE_SETTINGS", "")
        .env_remove("IMPULSE_SCENES");
    cmd
}

/// A child process killed when dropped (a failing test leaves no window behind). Its output
/// goes to files, so a chatty child never blocks on a full pipe.
struct Running {
    child: Option<Child>,
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
        Running {
            child: Some(child),
            out,
            err,
        }
    }

    fn id(&self) -> u32 {
        self.child.as_ref().unwrap().id()
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
        let status = self.child.as_mut().unwrap().try_wait().expect("wait")?;
        Some(self.output(status))
    }

    /// Wait for the exit, at most `limit`; kill and fail past it.
    fn wait(mut self, limit: Duration) -> Output {
        let start = Instant::now();
        let mut child = self.child.take().unwrap();
        loop {
            if let Some(status) = child.try_wait().expect("wait") {
                return self.output(status);
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let status = child.wait().unwrap();
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
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
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

/// Run the testbed to its end, at most `limit` (retrying a refused display connection).
fn run(cmd: &mut Command, limit: Duration) -> Output {
    let mut tries = 1;
    loop {
        let out = Running::spawn(cmd).wait(limit);
        if display_refused(&out) && tries < CONNECT_TRIES {
            eprintln!("display refused the connection (server reset?); trying again");
            tries += 1;
            pause(500);
            continue;
        }
        return out;
    }
}

/// Start the testbed and wait for its first `--layout-out` file (retrying a refused display
/// connection). Needs no xdotool.
fn launch_with_layout(cmd: &mut Command, layout: &Path) -> Running {
    let mut tries = 1;
    'spawn: loop {
        let _ = std::fs::remove_file(layout);
        let mut child = Running::spawn(cmd);
        let start = Instant::now();
        while !layout.exists() {
            if let Some(out) = child.exited() {
                if display_refused(&out) && tries < CONNECT_TRIES {
                    eprintln!("display refused the connection (server reset?); trying again");
                    tries += 1;
                    pause(500);
                    continue 'spawn;
                }
                panic!(
                    "testbed exited early: {:?}\nstdout:\n{}\nstderr:\n{}",
                    out.status,
                    text(&out.stdout),
                    text(&out.stderr)
                );
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "no layout file after 120 s"
            );
            pause(100);
        }
        return child;
    }
}

/// Start the testbed and wait for its window: the process and the X window id (retrying a
/// refused display connection).
fn launch(cmd: &mut Command) -> (Running, String) {
    for _ in 1..CONNECT_TRIES {
        let mut child = Running::spawn(cmd);
        match find_window(&mut child) {
            Ok(window) => return (child, window),
            Err(out) if display_refused(&out) => {
                eprintln!("display refused the connection (server reset?); trying again");
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
    let mut child = Running::spawn(cmd);
    let window = find_window(&mut child).unwrap_or_else(|out| {
        panic!(
            "testbed exited early: {:?}\nstderr:\n{}",
            out.status,
            text(&out.stderr)
        )
    });
    (child, window)
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
    if !have_display("default_scene") {
        return;
    }
    let _lock = window_lock();
    let dir = temp_dir("default");
    let (shot, state) = (dir.join("shot.png"), dir.join("state.json"));
    let out = run(
        testbed()
            .args(["--frames", "30", "--screenshot"])
            .arg(&shot)
            .arg("--dump-state")
            .arg(&state),
        Duration::from_secs(300),
    );
    assert_success(&out, "testbed --frames 30");

    let (w, h, pixels) = read_png(&shot);
    assert!(w >= 640 && h >= 360, "window is {w}x{h}");
    let mut counts: HashMap<[u8; 4], usize> = HashMap::new();
    for p in &pixels {
        *counts.entry(*p).or_default() += 1;
    }
    assert!(counts.len() > 50, "only {} distinct colours", counts.len());
    let json = std::fs::read_to_string(&state).expect("state dump written");
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_catalog_scene_opens_runs_and_draws() {
    if !have_display("catalog") {
        return;
    }
    let _lock = window_lock();
    let dir = temp_dir("catalog");
    let frames = 60;
    let start = Instant::now();
    let out = run(
        testbed()
            .arg("--catalog-smoke")
            .arg(&dir)
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dragging_a_box_moves_it() {
    if !have_display("drag") || !have_xdotool("drag") {
        return;
    }
    let _lock = window_lock();
    let dir = temp_dir("drag");
    let scene = "scenes/box2d_lite/single_box.ron";

    // Undragged: the box lands and rests.
    let still = dir.join("still.json");
    let out = run(
        testbed()
            .args(["--scene", scene, "--frames", "240", "--dump-state"])
            .arg(&still),
        Duration::from_secs(300),
    );
    assert_success(&out, "undragged run");
    let rest = body_position(&std::fs::read_to_string(&still).unwrap(), "box").unwrap();

    // Dragged: press on the box once it has landed, move in steps, release.
    let (layout, state) = (dir.join("layout.json"), dir.join("state.json"));
    let (child, window) = launch(
        testbed()
            .args(["--scene", scene, "--frames", "480", "--max-fps", "30"])
            .arg("--layout-out")
            .arg(&layout)
            .arg("--dump-state")
            .arg(&state),
    );
    let ready = wait_layout(&layout, Duration::from_secs(120), |j| {
        json_number(j, "steps").is_some_and(|s| s >= 90.0)
    });
    let (x0, y0) = world_to_window(&ready, (rest.0, rest.1));
    let (x1, y1) = world_to_window(&ready, (rest.0 + 6.0, rest.1 + 3.0));
    pointer_to(&window, x0, y0);
    pause(200);
    xdotool(&["mousedown", "1"]);
    pause(200);
    for k in 1..=10 {
        let t = k as f64 / 10.0;
        pointer_to(&window, x0 + t * (x1 - x0), y0 + t * (y1 - y0));
        pause(100);
    }
    pause(800);
    let during = std::fs::read_to_string(&layout).unwrap();
    xdotool(&["mouseup", "1"]);
    let out = child.wait(Duration::from_secs(300));
    assert_success(&out, "dragged run");
    assert_eq!(
        json_number(&during, "grabbing"),
        Some(1.0),
        "the box was not grabbed: {during}"
    );
    let json = std::fs::read_to_string(&state).unwrap();
    let moved = body_position(&json, "box").unwrap();
    let distance = ((moved.0 - rest.0).powi(2) + (moved.1 - rest.1).powi(2)).sqrt();
    eprintln!("box at rest {rest:?}, after the drag {moved:?}: {distance:.2} m apart");
    assert!(distance > 1.0, "the 1 m box moved only {distance} m");
    assert!(json.contains("\"grabbing\":false"), "released: {json}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn clicking_warm_starting_turns_it_off() {
    if !have_display("click") || !have_xdotool("click") {
        return;
    }
    let _lock = window_lock();
    let dir = temp_dir("click");
    // Preferences with the Solver section open and the long sections closed, so the
    // checkbox is on screen.
    let prefs = dir.join("prefs.ron");
    std::fs::write(
        &prefs,
        "(sections: (scenes: false, run: true, solver: true, draw: false, stats: false))",
    )
    .unwrap();
    let (layout, state) = (dir.join("layout.json"), dir.join("state.json"));
    let (child, window) = launch(
        testbed()
            .env("IMPULSE_SETTINGS", &prefs)
            .args([
                "--scene",
                "scenes/box2d_lite/single_box.ron",
                "--frames",
                "300",
                "--max-fps",
                "30",
            ])
            .arg("--layout-out")
            .arg(&layout)
            .arg("--dump-state")
            .arg(&state),
    );
    let ready = wait_layout(&layout, Duration::from_secs(120), |j| {
        j.contains("\"warm_starting\":[") && json_number(j, "frame").is_some_and(|f| f > 10.0)
    });
    let (x, y) = widget_center(&ready, "warm_starting").unwrap();
    pointer_to(&window, x, y);
    pause(200);
    xdotool(&["mousedown", "1"]);
    pause(150);
    xdotool(&["mouseup", "1"]);
    pause(300);
    let out = child.wait(Duration::from_secs(300));
    assert_success(&out, "testbed");
    let json = std::fs::read_to_string(&state).unwrap();
    assert!(
        json.contains("\"warm_starting\":false"),
        "warm starting still on after the click at ({x}, {y}): {json}"
    );
    // The scene's own value was on: the click changed it, nothing else did.
    assert!(json.contains("\"accumulate_impulses\":true"), "{json}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn large_pyramid_runs_with_contact_points_drawn() {
    if !have_display("large_pyramid") {
        return;
    }
    let _lock = window_lock();
    let dir = temp_dir("pyramid");
    let prefs = dir.join("prefs.ron");
    std::fs::write(&prefs, "(draw: (contact_points: true))").unwrap();
    let (shot, state) = (dir.join("shot.png"), dir.join("state.json"));
    let out = run(
        testbed()
            .env("IMPULSE_SETTINGS", &prefs)
            .args([
                "--scene",
                "scenes/benchmark/large_pyramid.ron",
                "--frames",
                "60",
            ])
            .arg("--screenshot")
            .arg(&shot)
            .arg("--dump-state")
            .arg(&state),
        Duration::from_secs(600),
    );
    assert_success(&out, "large pyramid");
    let json = std::fs::read_to_string(&state).unwrap();
    assert!(json.contains("\"contact_points\":true"), "{json}");
    assert!(json_number(&json, "manifold_points").unwrap() > 5000.0);
    let fps = json_number(&json, "fps").unwrap();
    let step_ms = json_number(&json, "median").unwrap();
    report(&format!(
        "large pyramid (5,050 boxes, contact points drawn): {fps:.1} frames per second, \
         median step {step_ms:.1} ms"
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_edited_scene_reloads_and_a_broken_edit_keeps_it_running() {
    if !have_display("reload") {
        return;
    }
    let _lock = window_lock();
    let dir = temp_dir("reload");
    let scene = dir.join("scene.ron");
    let original =
        std::fs::read_to_string(manifest_dir().join("scenes/box2d_lite/single_box.ron")).unwrap();
    std::fs::write(&scene, &original).unwrap();
    let (layout, state) = (dir.join("layout.json"), dir.join("state.json"));
    let child = launch_with_layout(
        testbed()
            .arg("--scene")
            .arg(&scene)
            .args(["--frames", "600", "--max-fps", "40"])
            .arg("--layout-out")
            .arg(&layout)
            .arg("--dump-state")
            .arg(&state),
        &layout,
    );
    wait_layout(&layout, Duration::from_secs(120), |j| {
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
    let tmp = dir.join("scene.ron.tmp");
    std::fs::write(&tmp, &edited).unwrap();
    std::fs::rename(&tmp, &scene).unwrap();
    wait_layout(&layout, Duration::from_secs(60), |j| {
        json_str(j, "scene").as_deref() == Some("Edited box")
    });

    // A broken edit: the old (edited) scene keeps running, the error is shown.
    let broken = edited.replace("half_width: 0.5,", "half_width: 0.5 oops,");
    std::fs::write(&scene, &broken).unwrap();
    let with_error = wait_layout(&layout, Duration::from_secs(60), |j| {
        json_number(j, "errors").is_some_and(|n| n > 0.0)
    });
    let steps_then = json_number(&with_error, "steps").unwrap();
    wait_layout(&layout, Duration::from_secs(60), |j| {
        json_number(j, "steps").is_some_and(|s| s > steps_then + 20.0)
    });

    let out = child.wait(Duration::from_secs(300));
    assert_success(&out, "testbed");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("reloaded"), "{stderr}");
    let json = std::fs::read_to_string(&state).unwrap();
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_scenes_and_a_corrupt_settings_file_are_messages() {
    if !have_display("messages") {
        return;
    }
    let _lock = window_lock();
    let dir = temp_dir("messages");
    let prefs = dir.join("prefs.ron");
    std::fs::write(&prefs, "(draw: (shapes: maybe)").unwrap();
    let (shot, state) = (dir.join("shot.png"), dir.join("state.json"));
    let out = run(
        testbed()
            .env("IMPULSE_SCENES", dir.join("no-scenes-here"))
            .env("IMPULSE_SETTINGS", &prefs)
            .args(["--frames", "10", "--screenshot"])
            .arg(&shot)
            .arg("--dump-state")
            .arg(&state),
        Duration::from_secs(300),
    );
    assert_success(&out, "testbed without scenes");
    let json = std::fs::read_to_string(&state).unwrap();
    assert!(json.contains("No scenes folder"), "{json}");
    assert!(json.contains("corrupt settings file"), "{json}");
    assert!(json.starts_with("{\"steps\":10,"), "{json}");
    // The corrupt file was replaced by good preferences at exit only if something changed;
    // either way it still loads without a crash next time.
    std::fs::remove_dir_all(&dir).unwrap();
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
    (c.apply)(&mut settings);
    world.set_settings(settings).unwrap();
    let mut session = impulse::lab::Session::new(configuration, world);
    for _ in 0..steps {
        session.step();
    }
    format!("{:016x}", session.world.state_hash())
}

#[test]
fn compare_mode_runs_each_world_as_it_would_run_alone() {
    if !have_display("compare") {
        return;
    }
    let _lock = window_lock();
    let dir = temp_dir("compare");
    let scene_file = "scenes/box2d_lite/pyramid_stacking.ron";
    let (shot, state) = (dir.join("shot.png"), dir.join("state.json"));
    let out = run(
        testbed()
            .args([
                "--scene",
                scene_file,
                "--compare",
                "classic,classic no warm starting,soft step",
                "--frames",
                "60",
            ])
            .arg("--screenshot")
            .arg(&shot)
            .arg("--dump-state")
            .arg(&state),
        Duration::from_secs(300),
    );
    assert_success(&out, "testbed --compare");
    let json = std::fs::read_to_string(&state).unwrap();
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
    let (w, h, pixels) = read_png(&shot);
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rewinding_in_the_window_and_resuming_replays_the_same_run() {
    if !have_display("rewind") {
        return;
    }
    let _lock = window_lock();
    let dir = temp_dir("rewind");
    let scene_file = "scenes/box2d_lite/pyramid_stacking.ron";
    // Two worlds, a bomb at frame 20; the rewound run pauses at frame 100 (step 100), scrubs
    // back to step 40 (after the bomb: it is replayed from the recording) and runs 50 more
    // frames: 90 steps, as many as the straight run.
    let dump = |name: &str, extra: &[&str]| {
        let state = dir.join(name);
        let out = run(
            testbed()
                .args([
                    "--scene",
                    scene_file,
                    "--compare",
                    "classic,soft step",
                    "--bomb-at",
                    "20",
                ])
                .args(extra)
                .arg("--dump-state")
                .arg(&state),
            Duration::from_secs(300),
        );
        assert_success(&out, name);
        (std::fs::read_to_string(&state).unwrap(), text(&out.stdout))
    };
    let (straight, _) = dump("straight.json", &["--frames", "90"]);
    let (rewound, stdout) = dump(
        "rewound.json",
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
    std::fs::remove_dir_all(&dir).unwrap();
}
