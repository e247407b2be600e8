//! The testbed's headless commands (`list`, `check`, `run`, `bench`) as plain functions of
//! parsed options and writers, so tests call them directly. The command line (clap) lives in
//! `main.rs` (`RunOptions` derives its arguments there); nothing here parses arguments or
//! touches a window.
//!
//! Every function returns the process exit code: 0 on success, 1 when a file or an argument
//! is bad (with the reason written to `err`). None of them panics on user input. Names, paths
//! and errors are printed through `files::escape` (a newline or an escape code in a name is
//! shown as `\n`, `\u{1b}`); the JSON is `app::report`'s; files are written through
//! `files::write_atomic`.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::app::report::{to_json_line, JointEventReport, StepMs, WorldReport};
use crate::files::{escape, write_atomic, AtomicFile};
use crate::physics::quarantine::describe_quarantine;
use crate::physics::{Body, World};
use crate::scene::catalog::{self, CATALOG};
use crate::scene::export::{self, SceneMeta};
use crate::scene::{self, SceneErrors, SceneFile, SettingsFile};

/// Options of `testbed run` (the command line's own: the doc comments are its help).
#[derive(Clone, Debug, Default, PartialEq, clap::Args)]
pub struct RunOptions {
    pub file: PathBuf,
    #[arg(long)]
    pub steps: u64,
    /// Override a setting: key=value, value in RON (gravity=(0,-9.8), solver=SoftStep).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// One JSON object instead of the text summary.
    #[arg(long)]
    pub json: bool,
    /// CSV of every named body at every step.
    #[arg(long, value_name = "OUT.csv")]
    pub trace: Option<PathBuf>,
    /// Write the final world as an exact scene file.
    #[arg(long, value_name = "OUT.ron")]
    pub export: Option<PathBuf>,
    /// Step on this many threads (1 to 64; the results are the same for any count).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..=64))]
    pub threads: u16,
}

/// `testbed list`: category, name and file of every catalog scene, tab-separated, one per line.
pub fn list(out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let dir = catalog::scenes_dir();
    let mut code = 0;
    for entry in CATALOG {
        let path = entry.path_in(&dir);
        let name = scene::read_file(&path)
            .and_then(|text| scene::parse(&text, entry.file))
            .map(|f| f.name);
        match name {
            Ok(name) => {
                let _ = writeln!(
                    out,
                    "{}\t{}\t{}",
                    entry.category,
                    escape(&name),
                    escape(&path)
                );
            }
            Err(errors) => {
                print_errors(err, &errors);
                code = 1;
            }
        }
    }
    code
}

/// `testbed check FILE...`: silent when every file is valid; otherwise every error of every
/// file on `err`, and 1.
pub fn check(files: &[PathBuf], err: &mut dyn Write) -> i32 {
    if files.is_empty() {
        let _ = writeln!(err, "check: give at least one scene file");
        return 1;
    }
    let mut code = 0;
    for path in files {
        if let Err(errors) = scene::load_file(path) {
            print_errors(err, &errors);
            code = 1;
        }
    }
    code
}

/// Apply `key=value` overrides to settings. The value is RON for that field
/// (`gravity=(0,-9.8)`, `solver=SoftStep`).
pub fn apply_sets(settings: &mut SettingsFile, sets: &[String]) -> Result<(), String> {
    for set in sets {
        let Some((key, value)) = set.split_once('=') else {
            return Err(format!(
                "--set {}: write key=value, e.g. --set iterations=4",
                escape(set)
            ));
        };
        let key = key.trim();
        if !SettingsFile::KEYS.contains(&key) {
            return Err(format!(
                "--set {}: no setting is called `{}`; valid keys: {}",
                escape(set),
                escape(key),
                SettingsFile::KEYS.join(", ")
            ));
        }
        let parsed: SettingsFile = scene::ron_options()
            .from_str(&format!("({key}: {value})"))
            .map_err(|e| {
                format!(
                    "--set {}: `{}` is not a valid {key}: {}",
                    escape(set),
                    escape(value),
                    escape(e.code.to_string())
                )
            })?;
        settings.copy_field(&parsed, key);
    }
    let check = crate::physics::SolverSettings::from(&*settings).validate();
    check.map_err(|e| format!("--set: {e}"))
}

/// Every error on its own line, escaped (a newline inside one cannot split it).
fn print_errors(err: &mut dyn Write, errors: &SceneErrors) {
    let _ = writeln!(err, "{}", errors_text(errors));
}

/// The errors, one escaped line each.
fn errors_text(errors: &SceneErrors) -> String {
    let lines: Vec<String> = errors.iter().map(|e| escape(e.to_string())).collect();
    lines.join("\n")
}

/// Load a scene file with settings overrides.
fn load_with_sets(path: &Path, sets: &[String]) -> Result<(SceneFile, scene::Scene), String> {
    let file_name = path.display().to_string();
    let text = scene::read_file(path).map_err(|e| errors_text(&e))?;
    let mut file = scene::parse(&text, &file_name).map_err(|e| errors_text(&e))?;
    apply_sets(&mut file.settings, sets)?;
    let loaded = scene::build::build(&file, &file_name).map_err(|e| errors_text(&e))?;
    Ok((file, loaded))
}

/// `testbed run FILE --steps N [--set key=value]... [--json] [--trace OUT.csv]
/// [--export OUT.ron]`.
pub fn run(options: &RunOptions, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let (file, mut loaded) = match load_with_sets(&options.file, &options.sets) {
        Ok(x) => x,
        Err(message) => {
            let _ = writeln!(err, "{message}");
            return 1;
        }
    };
    let world = &mut loaded.world;
    if let Err(e) = world.set_thread_count(options.threads.into()) {
        let _ = writeln!(err, "{e}");
        return 1;
    }
    let mut trace = match &options.trace {
        None => None,
        Some(path) => match AtomicFile::create(path) {
            Ok(mut t) => {
                let _ = writeln!(t, "step,time,name,x,y,angle,vx,vy,w");
                Some(t)
            }
            Err(e) => {
                let _ = writeln!(err, "cannot write the trace {e}");
                return 1;
            }
        },
    };
    let dt = world.settings().dt();
    let mut times = Vec::with_capacity(options.steps.min(1 << 20) as usize);
    let mut quarantined = false;
    let mut joint_events = Vec::new();
    for _ in 0..options.steps {
        let start = Instant::now();
        world.step(dt);
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        if let Some(line) = describe_quarantine(world) {
            let _ = writeln!(err, "{}: error: {}", escape(&options.file), escape(&line));
            quarantined = true;
        }
        joint_events.extend(
            world
                .joint_events()
                .iter()
                .map(|e| JointEventReport::new(e, None)),
        );
        if let Some(t) = trace.as_mut() {
            if let Err(e) = write_trace_rows(t, world) {
                let _ = writeln!(err, "cannot write the trace {}: {e}", escape(t.path()));
                return 1;
            }
        }
    }
    if let Some(t) = trace {
        if let Err(e) = t.finish() {
            let _ = writeln!(err, "cannot write the trace {e}");
            return 1;
        }
    }
    if let Some(path) = &options.export {
        let meta = SceneMeta {
            name: file.name.clone(),
            category: file.category.clone(),
            description: file.description.clone(),
            camera: file.camera,
        };
        let written = export::export_world(world, &meta)
            .map_err(|e| io::Error::other(format!("{}: {}", escape(path), escape(&e))))
            .and_then(|text| write_atomic(path, text));
        if let Err(e) = written {
            let _ = writeln!(err, "cannot export {e}");
            return 1;
        }
    }
    let report = if options.json {
        let mut report = WorldReport::new(world, &times, ());
        report.joint_events = joint_events;
        to_json_line(&report)
    } else {
        text_report(&file.name, world, &times)
    };
    let _ = out.write_all(report.as_bytes());
    if quarantined {
        // The run finished (report and export written) but the state went non-finite.
        let _ = writeln!(
            err,
            "{}: the state went non-finite; the bodies named above were frozen",
            escape(&options.file)
        );
        return QUARANTINE_EXIT;
    }
    0
}

/// Exit status of `run` when the step's quarantine froze a body or reset a constraint
/// (its state went non-finite); 1 is for bad arguments and files.
pub const QUARANTINE_EXIT: i32 = 3;

/// A body's position, angle, velocity and angular velocity: `[x, y, angle, vx, vy, w]`.
fn motion(b: &Body) -> [f32; 6] {
    let (p, v) = (b.position(), b.linear_velocity());
    [p.x, p.y, b.angle(), v.x, v.y, b.angular_velocity()]
}

fn write_trace_rows(out: &mut dyn Write, world: &World) -> io::Result<()> {
    let step = world.step_count();
    let time = world.time();
    for (_, b) in world.bodies() {
        let Some(name) = b.name() else { continue };
        // Names are quoted when they hold a comma, a quote or a line break.
        let name = if name.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", name.replace('"', "\"\""))
        } else {
            name.to_string()
        };
        let [x, y, angle, vx, vy, w] = motion(b);
        writeln!(out, "{step},{time},{name},{x},{y},{angle},{vx},{vy},{w}")?;
    }
    Ok(())
}

fn text_report(name: &str, world: &World, times: &[f64]) -> String {
    let StepMs { median, p95, max } = StepMs::of(times);
    let stats = world.stats();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {} steps, {:.3} s simulated",
        escape(name),
        world.step_count(),
        world.time()
    );
    let _ = writeln!(
        s,
        "bodies {} ({} awake), joints {}, contacts {}, manifold points {}",
        world.body_count(),
        stats.awake_bodies,
        world.joint_count(),
        stats.contacts,
        stats.manifold_points
    );
    let _ = writeln!(
        s,
        "max penetration {:.5} m, kinetic energy {:.4} J",
        stats.max_penetration, stats.kinetic_energy
    );
    let _ = writeln!(s, "step ms: median {median:.4}, p95 {p95:.4}, max {max:.4}");
    for (_, b) in world.bodies() {
        if let Some(n) = b.name() {
            let [x, y, angle, vx, vy, w] = motion(b);
            let _ = writeln!(
                s,
                "  {}: position ({x:.4}, {y:.4}) angle {angle:.4} velocity ({vx:.4}, {vy:.4}) \
                 angular {w:.4}",
                escape(n)
            );
        }
    }
    let _ = writeln!(s, "hash {:016x}", world.state_hash());
    s
}

/// `bench` shows its progress bar once a scene has taken this long.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);

/// A progress bar over `steps` steps, hidden until shown (on stderr, when it is a terminal):
/// `[#########.....................] 300/1000 Pyramid stacking`.
fn progress_bar(steps: u64, label: String) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template("[{bar:30}] {pos}/{len} {msg}") {
        bar.set_style(style.progress_chars("#."));
    }
    bar.set_message(label);
    bar
}

/// `testbed bench [FILE...] --steps N`: median and p95 step time per scene; every
/// Benchmark-category scene when no file is given.
pub fn bench(files: &[PathBuf], steps: u64, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if steps == 0 {
        let _ = writeln!(err, "bench: --steps must be at least 1");
        return 1;
    }
    let files: Vec<PathBuf> = if files.is_empty() {
        catalog::in_category(catalog::BENCHMARK)
            .map(|e| e.path())
            .collect()
    } else {
        files.to_vec()
    };
    let mut rows = Vec::new();
    let mut code = 0;
    for path in &files {
        let mut loaded = match scene::load_file(path) {
            Ok(s) => s,
            Err(errors) => {
                print_errors(err, &errors);
                code = 1;
                continue;
            }
        };
        let dt = loaded.world.settings().dt();
        let mut times = Vec::with_capacity(steps.min(1 << 20) as usize);
        let progress = progress_bar(steps, escape(&loaded.name));
        let started = Instant::now();
        for _ in 0..steps {
            let start = Instant::now();
            loaded.world.step(dt);
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            if progress.is_hidden() && started.elapsed() >= PROGRESS_AFTER {
                progress.set_draw_target(ProgressDrawTarget::stderr());
            }
            progress.inc(1);
        }
        progress.finish_and_clear();
        let StepMs { median, p95, .. } = StepMs::of(&times);
        rows.push((escape(&loaded.name), loaded.world.body_count(), median, p95));
    }
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(5).max(5);
    let _ = writeln!(
        out,
        "{:<width$}  {:>7}  {:>10}  {:>10}",
        "scene", "bodies", "median ms", "p95 ms"
    );
    for (name, bodies, median, p95) in rows {
        let _ = writeln!(
            out,
            "{name:<width$}  {bodies:>7}  {median:>10.3}  {p95:>10.3}"
        );
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_override_by_key_and_refuse_unknown_keys() {
        let mut s = SettingsFile::default();
        apply_sets(
            &mut s,
            &[
                "warm_starting=false".into(),
                "iterations=4".into(),
                "solver=SoftStep".into(),
                "gravity=(0,-9.8)".into(),
            ],
        )
        .unwrap();
        assert!(!s.warm_starting);
        assert_eq!(s.iterations, 4);
        assert_eq!(s.solver, crate::scene::format::SolverFile::SoftStep);
        assert_eq!(s.gravity, glam::Vec2::new(0.0, -9.8));
        let e = apply_sets(&mut s, &["iteration=4".into()]).unwrap_err();
        assert!(e.contains("valid keys") && e.contains("iterations"), "{e}");
        let e = apply_sets(&mut s, &["iterations=many".into()]).unwrap_err();
        assert!(e.contains("not a valid iterations"), "{e}");
        let e = apply_sets(&mut s, &["iterations=0".into()]).unwrap_err();
        assert!(e.contains("iterations"), "{e}");
        assert!(apply_sets(&mut s, &["noequals".into()]).is_err());
    }
}
