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

/// `testbed run` of the single box for two steps, exported to `path`.
fn export_single_box(path: &Path) -> Output {
    testbed(&[
        "run",
        "scenes/box2d_lite/single_box.ron",
        "--steps",
        "2",
        "--export",
        path.to_str().unwrap(),
    ])
}

/// `--export /dev/null` used to rename a regular file over the device node (issue 15, Files).
#[cfg(unix)]
#[test]
fn export_refuses_a_device_node() {
    use std::os::unix::fs::FileTypeExt;
    let out = export_single_box(Path::new("/dev/null"));
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("/dev/null") && err.contains("device"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    let kind = std::fs::symlink_metadata("/dev/null").unwrap().file_type();
    assert!(kind.is_char_device(), "/dev/null is still a device");
}

/// `--export LINK` used to replace the link with a regular file (issue 15, Files): refused,
/// the link and its target untouched, no temporary file left.
#[cfg(unix)]
#[test]
fn export_refuses_a_symlink_and_leaves_it_and_its_target_alone() {
    let dir = temp_dir("symlink");
    let target = dir.join("target.ron");
    std::fs::write(&target, "keep me").unwrap();
    let link = dir.join("link.ron");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = export_single_box(&link);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(link.to_str().unwrap()) && err.contains("symbolic link"),
        "{err}"
    );
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["link.ron", "target.ron"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A name holding a newline or an escape code used to be printed raw, splitting the report
/// and driving the terminal (issue 15, Files): names and paths are printed escaped, and the
/// JSON escapes them as JSON does.
#[test]
fn names_with_newlines_and_escape_codes_are_printed_escaped() {
    let dir = temp_dir("escape");
    let scene = std::fs::read_to_string("scenes/box2d_lite/single_box.ron")
        .unwrap()
        .replace(
            "name: \"A single box\"",
            "name: \"evil\\nscene\\u{1b}[31m\"",
        )
        .replace("(name: \"box\"", "(name: \"bo\\nx\\u{1b}\"");
    let file = dir.join("evil.ron");
    std::fs::write(&file, scene).unwrap();
    let out = testbed(&["run", file.to_str().unwrap(), "--steps", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(!report.contains('\u{1b}'), "{report:?}");
    assert!(
        report.starts_with("evil\\nscene\\u{1b}[31m: 2 steps"),
        "{report}"
    );
    assert!(report.contains("\n  bo\\nx\\u{1b}: position"), "{report}");
    let out = testbed(&["run", file.to_str().unwrap(), "--steps", "2", "--json"]);
    let json = text(&out.stdout);
    assert!(json.contains("\"name\":\"bo\\nx\\u001b\""), "{json}");
    assert_eq!(json.lines().count(), 1, "{json}");
    // A bad file whose own name holds a newline: one error line, the name escaped.
    let bad = dir.join("bad\nname\u{1b}.ron");
    std::fs::write(&bad, "Scene(name: 3)").unwrap();
    let out = testbed(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("bad\\nname\\u{1b}.ron:1:"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A body whose state went non-finite was hidden (its velocity zeroed) and `run` exited 0.
/// Now `run` names the body on stderr and exits 3; the run still finishes, and its export
/// (the body frozen, kinematic, at rest) loads again.
#[test]
fn run_exits_3_naming_a_body_the_quarantine_froze() {
    let dir = temp_dir("quarantine");
    let export = dir.join("out.ron");
    let out = testbed(&[
        "run",
        "tests/fuzz_corpus/contact_impulse_at_range_edge_goes_non_finite.ron",
        "--steps",
        "20",
        "--export",
        export.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("body \"speck\"") && err.contains("went non-finite and was frozen"),
        "{err}"
    );
    assert_eq!(err.matches("step ").count(), 1, "reported once: {err}");
    let again = testbed(&["run", export.to_str().unwrap(), "--steps", "20"]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue 16: `run --json` lists every joint the run broke (`joint_events`), and the rope's
/// export, taken after it snapped, continues exactly with its links still broken.
#[test]
fn run_json_lists_broken_joints_and_the_export_keeps_them_broken() {
    let dir = temp_dir("breakable");
    let export = dir.join("rope.ron");
    let run = |steps: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            "scenes/joints/breakable_rope.ron",
            "--steps",
            steps,
            "--json",
        ];
        args.extend_from_slice(extra);
        let out = testbed(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let hash = |s: &str| {
        let i = s.find("\"hash\":\"").unwrap();
        s[i..i + 25].to_string()
    };
    let first = run("100", &["--export", export.to_str().unwrap()]);
    let events = &first[first.find("\"joint_events\":[").expect("events listed")..];
    assert!(events.contains("\"name\":\"rope8\""), "{events}");
    assert!(events.contains("\"cause\":\"force\""), "{events}");
    assert!(events.contains("\"threshold\":300"), "{events}");
    assert!(first.contains("\"enabled\":false"), "{first}");
    let saved = std::fs::read_to_string(&export).unwrap();
    assert!(
        saved.contains("enabled: false"),
        "the export keeps the break"
    );
    let straight = run("130", &[]);
    let out = testbed(&["run", export.to_str().unwrap(), "--steps", "30", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(hash(&straight), hash(&text(&out.stdout)));
    // Nothing breaks twice: the resumed run lists no event.
    assert!(!text(&out.stdout).contains("\"joint_events\""));
    std::fs::remove_dir_all(&dir).unwrap();
}
