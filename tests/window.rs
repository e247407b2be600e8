//! The testbed window opens, draws the world and the panel, and saves a screenshot.
//!
//! Needs a display: skipped (with a message) when `DISPLAY` is unset. CI runs the test
//! suite a second time under `xvfb-run`, where it runs for real.

#![cfg(feature = "testbed")]

use std::collections::HashMap;
use std::fs::File;
use std::path::PathBuf;
use std::process::Command;

/// Decode an 8-bit RGB or RGBA PNG into (width, height, RGBA pixels).
fn read_png(path: &PathBuf) -> (u32, u32, Vec<[u8; 4]>) {
    let decoder = png::Decoder::new(File::open(path).expect("screenshot exists"));
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

#[test]
fn window_draws_world_and_panel_and_saves_a_screenshot() {
    if std::env::var_os("DISPLAY").is_none() {
        eprintln!("skipped: DISPLAY is not set (run under `xvfb-run -a cargo test`)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("impulse-window-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("shot.png");
    let state = dir.join("state.json");

    let output = Command::new(env!("CARGO_BIN_EXE_testbed"))
        .args(["--frames", "30", "--screenshot"])
        .arg(&shot)
        .arg("--dump-state")
        .arg(&state)
        .output()
        .expect("testbed binary runs");
    assert!(
        output.status.success(),
        "testbed failed: {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );

    let (w, h, pixels) = read_png(&shot);
    assert!(w >= 640 && h >= 360, "window is {w}x{h}");
    assert_eq!(pixels.len(), (w * h) as usize);
    // The most common colour is the background; a drawn frame has plenty of other pixels
    // (grid, shapes, labels, the panel) and many distinct colours (fills, antialiasing).
    let mut counts: HashMap<[u8; 4], usize> = HashMap::new();
    for p in &pixels {
        *counts.entry(*p).or_default() += 1;
    }
    let background = counts.values().copied().max().unwrap();
    let drawn = pixels.len() - background;
    assert!(
        drawn > pixels.len() / 20,
        "only {drawn} of {} pixels differ from the background",
        pixels.len()
    );
    assert!(counts.len() > 50, "only {} distinct colours", counts.len());
    // The world view (left) and the panel (right) are both drawn: each half has non-background
    // pixels.
    let background_color = *counts.iter().max_by_key(|(_, n)| **n).unwrap().0;
    for (name, range) in [("world", 0..w / 2), ("panel", w - 200..w)] {
        let busy = (0..h)
            .flat_map(|y| range.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| pixels[(y * w + x) as usize] != background_color)
            .count();
        assert!(busy > 1000, "{name} side is nearly blank ({busy} pixels)");
    }

    let json = std::fs::read_to_string(&state).expect("state dump written");
    assert!(json.contains("\"steps\": 30"), "{json}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_and_pending_commands_exit_2() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_testbed"))
            .args(args)
            .env_remove("DISPLAY")
            .output()
            .expect("testbed binary runs")
    };
    let out = run(&["--frames", "zero"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not implemented yet"));
    // No display: an error message and exit 1, not a panic.
    let out = run(&["--frames", "1"]);
    if cfg!(target_os = "linux") && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("DISPLAY"));
    }
}
