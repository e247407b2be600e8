//! The `testbed` binary's headless commands, run as a user would.
#![cfg(feature = "testbed")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn testbed(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_testbed"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run testbed")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("impulse_cli_{name}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn check_is_silent_on_valid_files() {
    let out = testbed(&[
        "check",
        "scenes/box2d_lite/single_box.ron",
        "scenes/shapes/polygons.ron",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn check_reports_every_bad_scene_and_exits_1() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_scenes");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".ron"))
        .collect();
    files.sort();
    for file in &files {
        let out = testbed(&["check", file]);
        assert_eq!(out.status.code(), Some(1), "{file}");
        let err = text(&out.stderr);
        assert!(err.starts_with(file.as_str()), "{file}: {err}");
        assert!(out.stdout.is_empty());
    }
    // Syntax errors carry line and column.
    let out = testbed(&["check", "tests/bad_scenes/unknown_field.ron"]);
    assert!(
        text(&out.stderr).starts_with("tests/bad_scenes/unknown_field.ron:5:"),
        "{}",
        text(&out.stderr)
    );
    // All errors of a file.
    let out = testbed(&["check", "tests/bad_scenes/many_errors.ron"]);
    assert_eq!(
        text(&out.stderr).lines().count(),
        7,
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn list_names_every_catalog_scene() {
    let out = testbed(&["list"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout.lines().count(),
        impulse::scene::catalog::CATALOG.len()
    );
    assert!(stdout.contains("Box2D-Lite\tPyramid stacking\t"));
}

#[test]
fn run_prints_json_trace_and_export() {
    let dir = temp_dir("run");
    let trace = dir.join("trace.csv");
    let export = dir.join("out.ron");
    let out = testbed(&[
        "run",
        "scenes/shapes/compound_bodies.ron",
        "--steps",
        "30",
        "--set",
        "iterations=4",
        "--set",
        "gravity=(0,-9.8)",
        "--json",
        "--trace",
        trace.to_str().unwrap(),
        "--export",
        export.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = text(&out.stdout);
    for key in [
        "\"steps\":30",
        "\"time\":",
        "\"bodies\":[",
        "\"name\":\"table\"",
        "\"joints\":[",
        "\"stats\":{\"contacts\":",
        "\"max_penetration\":",
        "\"kinetic_energy\":",
        "\"step_ms\":{\"median\":",
        "\"p95\":",
        "\"hash\":\"",
    ] {
        assert!(json.contains(key), "{key} missing from {json}");
    }
    let csv = std::fs::read_to_string(&trace).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("step,time,name,x,y,angle,vx,vy,w"));
    // 5 named bodies (ground included) x 30 steps.
    assert_eq!(lines.count(), 5 * 30);
    // The export continues the run exactly: 30 + 20 steps = export, then 20 steps.
    let straight = testbed(&[
        "run",
        "scenes/shapes/compound_bodies.ron",
        "--steps",
        "50",
        "--set",
        "iterations=4",
        "--set",
        "gravity=(0,-9.8)",
        "--json",
    ]);
    let resumed = testbed(&["run", export.to_str().unwrap(), "--steps", "20", "--json"]);
    let hash = |o: &Output| {
        let s = text(&o.stdout);
        let i = s.find("\"hash\":\"").unwrap();
        s[i..i + 26].to_string()
    };
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(hash(&straight), hash(&resumed));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_exit_non_zero_with_a_message() {
    let out = testbed(&[
        "run",
        "scenes/box2d_lite/single_box.ron",
        "--steps",
        "5",
        "--set",
        "iteration=3",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("valid keys"),
        "{}",
        text(&out.stderr)
    );
    let out = testbed(&["run", "no/such/file.ron", "--steps", "5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("cannot read"),
        "{}",
        text(&out.stderr)
    );
    let out = testbed(&["run", "scenes/box2d_lite/single_box.ron"]);
    assert!(!out.status.success());
    let out = testbed(&["check"]);
    assert!(!out.status.success());
    let out = testbed(&["frobnicate"]);
    assert!(!out.status.success());
}

#[test]
fn bench_prints_a_table() {
    let out = testbed(&[
        "bench",
        "scenes/box2d_lite/pyramid_stacking.ron",
        "--steps",
        "10",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("scene"), "{stdout}");
    assert!(stdout.contains("Pyramid stacking"), "{stdout}");
}

#[test]
fn run_export_continues_a_joint_scene_exactly() {
    // Every joint's local frames and accumulated impulses travel in the export.
    let dir = temp_dir("joints");
    let export = dir.join("car.ron");
    let hash = |o: &Output| {
        assert!(o.status.success(), "{}", text(&o.stderr));
        let s = text(&o.stdout);
        let i = s.find("\"hash\":\"").unwrap();
        s[i..i + 26].to_string()
    };
    let first = testbed(&[
        "run",
        "scenes/joints/wheel_car.ron",
        "--steps",
        "40",
        "--json",
        "--export",
        export.to_str().unwrap(),
    ]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let straight = testbed(&[
        "run",
        "scenes/joints/wheel_car.ron",
        "--steps",
        "70",
        "--json",
    ]);
    let resumed = testbed(&["run", export.to_str().unwrap(), "--steps", "30", "--json"]);
    assert_eq!(hash(&straight), hash(&resumed));
    assert!(text(&straight.stdout).contains("\"joints\":["));
    std::fs::remove_dir_all(&dir).unwrap();
}
