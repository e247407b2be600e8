//! The testbed's headless commands (`list`, `check`, `run`, `bench`) as plain functions of
//! parsed options and writers, so tests call them directly. The command line (clap) lives in
//! `main.rs`; nothing here parses arguments or touches a window.
//!
//! Every function returns the process exit code: 0 on success, 1 when a file or an argument
//! is bad (with the reason written to `err`). None of them panics on user input.

use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::physics::{Joint, World};
use crate::scene::catalog::{self, CATALOG};
use crate::scene::export::{self, SceneMeta};
use crate::scene::{self, SceneErrors, SceneFile, SettingsFile};

/// Options of `testbed run`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOptions {
    pub file: PathBuf,
    pub steps: u64,
    /// `key=value` overrides of the settings, value in RON.
    pub sets: Vec<String>,
    pub json: bool,
    pub trace: Option<PathBuf>,
    pub export: Option<PathBuf>,
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
                let _ = writeln!(out, "{}\t{}\t{}", entry.category, name, path.display());
            }
            Err(e) => {
                let _ = writeln!(err, "{e}");
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
            let _ = writeln!(err, "{errors}");
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
                "--set {set}: write key=value, e.g. --set iterations=4"
            ));
        };
        let key = key.trim();
        if !SettingsFile::KEYS.contains(&key) {
            return Err(format!(
                "--set {set}: no setting is called `{key}`; valid keys: {}",
                SettingsFile::KEYS.join(", ")
            ));
        }
        let parsed: SettingsFile = scene::ron_options()
            .from_str(&format!("({key}: {value})"))
            .map_err(|e| format!("--set {set}: `{value}` is not a valid {key}: {}", e.code))?;
        settings.copy_field(&parsed, key);
    }
    let check = crate::physics::SolverSettings::from(&*settings).validate();
    check.map_err(|e| format!("--set: {e}"))
}

fn print_errors(err: &mut dyn Write, errors: &SceneErrors) {
    let _ = writeln!(err, "{errors}");
}

/// Median, 95th percentile and maximum of step times, milliseconds.
fn percentiles(times: &[f64]) -> (f64, f64, f64) {
    if times.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95), sorted[sorted.len() - 1])
}

/// A JSON number (`null` when not finite).
pub fn json_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".to_string()
    }
}

/// A JSON number (`null` when not finite).
pub fn json_f32(x: f32) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".to_string()
    }
}

/// A JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The kind of a joint for reports.
fn joint_kind_name(joint: &Joint) -> &'static str {
    joint.kind().type_name()
}

/// A writer to a temporary file next to `path`, renamed into place by `finish`.
struct AtomicFile {
    tmp: PathBuf,
    path: PathBuf,
    out: BufWriter<std::fs::File>,
}

impl AtomicFile {
    fn create(path: &Path) -> io::Result<AtomicFile> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out".into());
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let file = std::fs::File::create(&tmp)?;
        Ok(AtomicFile {
            tmp,
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        })
    }

    fn finish(mut self) -> io::Result<()> {
        let result = self
            .out
            .flush()
            .and_then(|_| std::fs::rename(&self.tmp, &self.path));
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        result
    }
}

/// Load a scene file with settings overrides.
fn load_with_sets(path: &Path, sets: &[String]) -> Result<(SceneFile, scene::Scene), String> {
    let file_name = path.display().to_string();
    let text = scene::read_file(path).map_err(|e| e.to_string())?;
    let mut file = scene::parse(&text, &file_name).map_err(|e| e.to_string())?;
    apply_sets(&mut file.settings, sets)?;
    let loaded = scene::build::build(&file, &file_name).map_err(|e| e.to_string())?;
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
    let mut trace = match &options.trace {
        None => None,
        Some(path) => match AtomicFile::create(path) {
            Ok(mut t) => {
                let _ = writeln!(t.out, "step,time,name,x,y,angle,vx,vy,w");
                Some(t)
            }
            Err(e) => {
                let _ = writeln!(err, "{}: cannot write the trace: {e}", path.display());
                return 1;
            }
        },
    };
    let dt = world.settings().dt();
    let mut times = Vec::with_capacity(options.steps.min(1 << 20) as usize);
    for _ in 0..options.steps {
        let start = Instant::now();
        world.step(dt);
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        if let Some(t) = trace.as_mut() {
            if let Err(e) = write_trace_rows(&mut t.out, world) {
                let _ = writeln!(err, "cannot write the trace: {e}");
                return 1;
            }
        }
    }
    if let Some(t) = trace {
        let path = t.path.clone();
        if let Err(e) = t.finish() {
            let _ = writeln!(err, "{}: cannot write the trace: {e}", path.display());
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
            .map_err(io::Error::other)
            .and_then(|text| export::write_atomic(path, &text));
        if let Err(e) = written {
            let _ = writeln!(err, "{}: cannot export: {e}", path.display());
            return 1;
        }
    }
    let report = if options.json {
        json_report(world, &times)
    } else {
        text_report(&file.name, world, &times)
    };
    let _ = out.write_all(report.as_bytes());
    0
}

fn write_trace_rows(out: &mut dyn Write, world: &World) -> io::Result<()> {
    let step = world.step_count();
    let time = world.time();
    for (_, b) in world.bodies() {
        let Some(name) = b.name() else { continue };
        let p = b.position();
        let v = b.linear_velocity();
        // Names are quoted when they hold a comma or a quote.
        let name = if name.contains([',', '"']) {
            format!("\"{}\"", name.replace('"', "\"\""))
        } else {
            name.to_string()
        };
        writeln!(
            out,
            "{step},{time},{name},{},{},{},{},{},{}",
            p.x,
            p.y,
            b.angle(),
            v.x,
            v.y,
            b.angular_velocity()
        )?;
    }
    Ok(())
}

fn text_report(name: &str, world: &World, times: &[f64]) -> String {
    let (median, p95, max) = percentiles(times);
    let stats = world.stats();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{name}: {} steps, {:.3} s simulated",
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
            let p = b.position();
            let v = b.linear_velocity();
            let _ = writeln!(
                s,
                "  {n}: position ({:.4}, {:.4}) angle {:.4} velocity ({:.4}, {:.4}) angular {:.4}",
                p.x,
                p.y,
                b.angle(),
                v.x,
                v.y,
                b.angular_velocity()
            );
        }
    }
    let _ = writeln!(s, "hash {:016x}", world.state_hash());
    s
}

fn json_report(world: &World, times: &[f64]) -> String {
    json_state(world, times, &[])
}

/// The JSON object `testbed run --json` prints: the step count and time, every named body,
/// every joint, the last step's statistics, the median, p95 and maximum of `times` (step
/// times, ms) and the state hash. `extra` members (name, JSON value) are appended to the
/// object, so other writers (the window's `--dump-state`) give the same object plus their
/// own fields. One line, ending in a newline.
pub fn json_state(world: &World, times: &[f64], extra: &[(&str, String)]) -> String {
    let (median, p95, max) = percentiles(times);
    let stats = world.stats();
    let bodies: Vec<String> = world
        .bodies()
        .filter_map(|(_, b)| {
            let name = b.name()?;
            let p = b.position();
            let v = b.linear_velocity();
            Some(format!(
                "{{\"name\":{},\"position\":[{},{}],\"angle\":{},\"linear_velocity\":[{},{}],\"angular_velocity\":{}}}",
                json_string(name),
                json_f32(p.x),
                json_f32(p.y),
                json_f32(b.angle()),
                json_f32(v.x),
                json_f32(v.y),
                json_f32(b.angular_velocity())
            ))
        })
        .collect();
    let joints: Vec<String> = world
        .joints()
        .map(|(_, j)| {
            let (Some(a), Some(b)) = (world.body(j.body_a()), world.body(j.body_b())) else {
                return "null".to_string();
            };
            format!(
                "{{\"name\":{},\"kind\":{},\"linear_error\":{},\"angular_error\":{}}}",
                j.name().map_or("null".to_string(), json_string),
                json_string(joint_kind_name(j)),
                json_f32(j.linear_error(a, b)),
                json_f32(j.angular_error(a, b))
            )
        })
        .collect();
    let extra: String = extra
        .iter()
        .map(|(name, value)| format!(",{}:{value}", json_string(name)))
        .collect();
    format!(
        "{{\"steps\":{},\"time\":{},\"bodies\":[{}],\"joints\":[{}],\"stats\":{{\"contacts\":{},\"manifold_points\":{},\"max_penetration\":{},\"kinetic_energy\":{}}},\"step_ms\":{{\"median\":{},\"p95\":{},\"max\":{}}},\"hash\":\"{:016x}\"{extra}}}\n",
        world.step_count(),
        json_number(world.time()),
        bodies.join(","),
        joints.join(","),
        stats.contacts,
        stats.manifold_points,
        json_f32(stats.max_penetration),
        json_f32(stats.kinetic_energy),
        json_number(median),
        json_number(p95),
        json_number(max),
        world.state_hash()
    )
}

/// Every solver setting as a JSON object, under the names scene files and `--set` use
/// (`SettingsFile::KEYS`): `{"solver":"Classic","iterations":10,...,"gravity":[0,-10],...}`.
pub fn settings_json(settings: &crate::physics::SolverSettings) -> String {
    let file = SettingsFile::from(settings);
    let mut out = String::from("{");
    for (i, key) in SettingsFile::KEYS.iter().enumerate() {
        let value = match *key {
            "solver" => json_string(&format!("{:?}", file.solver)),
            "gravity" => format!(
                "[{},{}]",
                json_f32(file.gravity.x),
                json_f32(file.gravity.y)
            ),
            _ => setting_value_text(&file, key),
        };
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{}:{value}", json_string(key));
    }
    out.push('}');
    out
}

/// The value of one bool or number setting as text (`true`, `10`, `0.2`; `null` when not
/// finite).
fn setting_value_text(file: &SettingsFile, key: &str) -> String {
    macro_rules! pick {
        ($($field:ident),*) => {
            match key {
                $(stringify!($field) => JsonValue::from(file.$field).0,)*
                _ => "null".to_string(),
            }
        };
    }
    pick!(
        iterations,
        substeps,
        accumulate_impulses,
        warm_starting,
        position_correction,
        bias_factor,
        allowed_penetration,
        block_solver,
        restitution_threshold,
        step_hz,
        sleep,
        time_to_sleep,
        linear_sleep_tolerance,
        angular_sleep_tolerance,
        contact_hertz,
        contact_damping_ratio,
        contact_push_max_velocity,
        joint_hertz,
        joint_damping_ratio
    )
}

/// A setting's value as JSON text.
struct JsonValue(String);

impl From<bool> for JsonValue {
    fn from(b: bool) -> Self {
        JsonValue(b.to_string())
    }
}

impl From<u32> for JsonValue {
    fn from(n: u32) -> Self {
        JsonValue(n.to_string())
    }
}

impl From<f32> for JsonValue {
    fn from(x: f32) -> Self {
        JsonValue(json_f32(x))
    }
}

/// A progress bar on `err`, drawn only once a run has taken more than a second.
struct Progress {
    start: Instant,
    last: Option<Instant>,
    shown: bool,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            start: Instant::now(),
            last: None,
            shown: false,
        }
    }

    fn update(&mut self, err: &mut dyn Write, label: &str, done: u64, total: u64) {
        let now = Instant::now();
        if now - self.start < Duration::from_secs(1) {
            return;
        }
        if self
            .last
            .is_some_and(|t| now - t < Duration::from_millis(100))
            && done < total
        {
            return;
        }
        self.last = Some(now);
        self.shown = true;
        const WIDTH: u64 = 30;
        let filled = (done * WIDTH).checked_div(total).unwrap_or(WIDTH) as usize;
        let _ = write!(
            err,
            "\r[{}{}] {done}/{total} {label}   ",
            "#".repeat(filled),
            ".".repeat(WIDTH as usize - filled)
        );
        let _ = err.flush();
    }

    fn clear(&mut self, err: &mut dyn Write) {
        if self.shown {
            let _ = write!(err, "\r{}\r", " ".repeat(80));
            let _ = err.flush();
            self.shown = false;
        }
    }
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
        let mut progress = Progress::new();
        for k in 0..steps {
            let start = Instant::now();
            loaded.world.step(dt);
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            progress.update(err, &loaded.name, k + 1, steps);
        }
        progress.clear(err);
        let (median, p95, _) = percentiles(&times);
        rows.push((loaded.name.clone(), loaded.world.body_count(), median, p95));
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

    #[test]
    fn settings_json_names_every_setting() {
        let settings = crate::physics::SolverSettings {
            warm_starting: false,
            ..Default::default()
        };
        let json = settings_json(&settings);
        for key in SettingsFile::KEYS {
            assert!(
                json.contains(&format!("\"{key}\":")),
                "{key} missing: {json}"
            );
        }
        assert!(json.contains("\"warm_starting\":false"), "{json}");
        assert!(json.contains("\"iterations\":10"), "{json}");
        assert!(json.contains("\"gravity\":[0,-10]"), "{json}");
        assert!(json.contains("\"solver\":\"Classic\""), "{json}");
        assert!(!json.contains("null"), "{json}");
    }

    #[test]
    fn json_state_appends_extra_members() {
        let world = World::default();
        let json = json_state(&world, &[1.0], &[("answer", "42".to_string())]);
        assert!(json.starts_with("{\"steps\":0,"), "{json}");
        assert!(json.ends_with(",\"answer\":42}\n"), "{json}");
        assert_eq!(json_state(&world, &[1.0], &[]), json_report(&world, &[1.0]));
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(json_number(f64::NAN), "null");
    }
}
