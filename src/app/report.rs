//! The JSON the testbed writes, as one serde model: `testbed run --json` ([`WorldReport`]),
//! the window's `--dump-state` (the same object plus [`DumpExtra`]) and `--layout-out`
//! ([`LayoutReport`]). Field names and order are the interface scripts and the tests read;
//! add fields at the end.
//!
//! Every object is one line ([`to_json_line`]). Numbers are written as Rust prints them
//! (`0.1`, `-10`, `1.6666667`): the shortest text that reads back to the same `f32` / `f64`,
//! never an exponent; a non-finite number is `null`.

use std::collections::BTreeMap;
use std::io;

use serde::Serialize;

use super::preferences::DrawPrefs;
use crate::physics::{SolverSettings, World};
use crate::scene::SettingsFile;

/// `value` as one line of compact JSON, ending in a newline.
pub fn to_json_line<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(1024);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, RustFloats);
    match value.serialize(&mut serializer) {
        Ok(()) => {
            out.push(b'\n');
            // serde_json writes UTF-8 only.
            String::from_utf8_lossy(&out).into_owned()
        }
        // Unreachable for this module's types (string keys, no failing `Serialize`); still
        // valid JSON rather than a panic.
        Err(e) => format!("{{\"error\":{:?}}}\n", e.to_string()),
    }
}

/// serde_json's compact output, with floats as Rust's `Display` writes them (what the
/// hand-written JSON of earlier versions wrote, so the output is unchanged).
struct RustFloats;

impl serde_json::ser::Formatter for RustFloats {
    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        write!(writer, "{value}")
    }

    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        write!(writer, "{value}")
    }
}

/// One world's state: the object `testbed run --json` prints, with `extra` members after
/// its own (`()` for none).
#[derive(Serialize)]
pub struct WorldReport<'a, E: Serialize = ()> {
    pub steps: u64,
    /// Simulated time, s.
    pub time: f64,
    /// Every named body.
    pub bodies: Vec<BodyReport<'a>>,
    /// Every joint (`null` for one whose bodies are gone).
    pub joints: Vec<Option<JointReport<'a>>>,
    /// The last step's statistics.
    pub stats: StatsReport,
    /// Step times, ms.
    pub step_ms: StepMs,
    /// `World::state_hash`, 16 hex digits.
    pub hash: String,
    /// Joints that broke (`run --json`: during the whole run; the window: the recent ones).
    /// Left out when none did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub joint_events: Vec<JointEventReport>,
    #[serde(flatten)]
    pub extra: E,
}

/// A broken joint (`physics::JointEvent`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointEventReport {
    /// The joint's slot in the world (its creation index while none was destroyed).
    pub joint: usize,
    pub name: Option<String>,
    /// `"force"` (N) or `"torque"` (N m).
    pub cause: &'static str,
    /// The load that broke it, N or N m.
    pub load: f32,
    /// The threshold it exceeded, same unit.
    pub threshold: f32,
    /// The world's step count after the step that broke it.
    pub step: u64,
    /// True when it was destroyed, false when disabled.
    pub destroyed: bool,
    /// The world it broke in, when comparing solvers (its legend label).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub world: Option<String>,
}

impl JointEventReport {
    pub fn new(e: &crate::physics::JointEvent, world: Option<String>) -> Self {
        JointEventReport {
            joint: e.joint.index(),
            name: e.name.clone(),
            cause: match e.cause {
                crate::physics::BreakCause::Force => "force",
                crate::physics::BreakCause::Torque => "torque",
            },
            load: e.load,
            threshold: e.threshold,
            step: e.step,
            destroyed: e.destroyed,
            world,
        }
    }
}

#[derive(Serialize)]
pub struct BodyReport<'a> {
    pub name: &'a str,
    pub position: [f32; 2],
    pub angle: f32,
    pub linear_velocity: [f32; 2],
    pub angular_velocity: f32,
}

#[derive(Serialize)]
pub struct JointReport<'a> {
    pub name: Option<&'a str>,
    pub kind: &'static str,
    /// m.
    pub linear_error: f32,
    /// rad.
    pub angular_error: f32,
    /// False for a disabled (broken) joint; left out when true.
    #[serde(skip_serializing_if = "is_true")]
    pub enabled: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

#[derive(Serialize)]
pub struct StatsReport {
    pub contacts: usize,
    pub manifold_points: usize,
    /// m.
    pub max_penetration: f32,
    /// J.
    pub kinetic_energy: f32,
}

/// Median, 95th percentile and maximum of step times, ms (0 for no steps).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StepMs {
    pub median: f64,
    pub p95: f64,
    pub max: f64,
}

impl StepMs {
    pub fn of(times: &[f64]) -> StepMs {
        if times.is_empty() {
            return StepMs::default();
        }
        let mut sorted = times.to_vec();
        sorted.sort_by(f64::total_cmp);
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
        StepMs {
            median: at(0.5),
            p95: at(0.95),
            max: sorted[sorted.len() - 1],
        }
    }
}

impl<'a, E: Serialize> WorldReport<'a, E> {
    /// `world` after its steps, `times` its step times (ms), then `extra`.
    pub fn new(world: &'a World, times: &[f64], extra: E) -> Self {
        let stats = world.stats();
        let bodies = world
            .bodies()
            .filter_map(|(_, b)| {
                let (p, v) = (b.position(), b.linear_velocity());
                Some(BodyReport {
                    name: b.name()?,
                    position: [p.x, p.y],
                    angle: b.angle(),
                    linear_velocity: [v.x, v.y],
                    angular_velocity: b.angular_velocity(),
                })
            })
            .collect();
        let joints = world
            .joints()
            .map(|(_, j)| {
                let (a, b) = (world.body(j.body_a())?, world.body(j.body_b())?);
                Some(JointReport {
                    name: j.name(),
                    kind: j.kind().type_name(),
                    linear_error: j.linear_error(a, b),
                    angular_error: j.angular_error(a, b),
                    enabled: j.is_enabled(),
                })
            })
            .collect();
        WorldReport {
            steps: world.step_count(),
            time: world.time(),
            bodies,
            joints,
            stats: StatsReport {
                contacts: stats.contacts,
                manifold_points: stats.manifold_points,
                max_penetration: stats.max_penetration,
                kinetic_energy: stats.kinetic_energy,
            },
            step_ms: StepMs::of(times),
            hash: format!("{:016x}", world.state_hash()),
            joint_events: world
                .joint_events()
                .iter()
                .map(|e| JointEventReport::new(e, None))
                .collect(),
            extra,
        }
    }
}

/// Every solver setting, under the names scene files and `--set` use, in file order
/// (`SettingsFile::KEYS`): `{"solver":"Classic","iterations":10,...,"gravity":[0,-10],...}`.
pub fn settings_report(settings: &SolverSettings) -> SettingsFile {
    SettingsFile::from(settings)
}

/// What `--dump-state` adds to the first world's [`WorldReport`]: the settings in force, the
/// testbed's state, every compared world, then the window's members.
#[derive(Serialize)]
pub struct DumpExtra<'a, W: Serialize> {
    pub settings: SettingsFile,
    pub testbed: TestbedReport<'a>,
    /// When comparing: every world, with its label and settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worlds: Option<Vec<WorldReport<'a, Labelled<'a>>>>,
    #[serde(flatten)]
    pub window: W,
}

/// A compared world's own members.
#[derive(Serialize)]
pub struct Labelled<'a> {
    pub label: &'a str,
    pub settings: SettingsFile,
}

/// The testbed's state in `--dump-state`.
#[derive(Serialize)]
pub struct TestbedReport<'a> {
    /// The scene file chosen (`null`: the empty world).
    pub scene: Option<String>,
    pub name: &'a str,
    pub errors: &'a [String],
    pub notices: &'a [String],
    pub paused: bool,
    pub stepping: SteppingReport,
    pub draw: DrawPrefs,
    pub grabbing: bool,
    pub bodies: usize,
    pub worlds: usize,
    pub rewind: RewindReport,
    pub pick: Option<PickReport>,
    pub trace_samples: usize,
    /// Where the step under inspection stopped (first world), when iteration stepping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inspect: Option<InspectReport>,
}

/// `{"substep":1,"iteration":3,"substep_iteration":3,"halted":true,"total_iterations":10}`.
#[derive(Serialize)]
pub struct InspectReport {
    pub substep: u32,
    pub iteration: u32,
    pub substep_iteration: u32,
    pub halted: bool,
    pub total_iterations: u32,
}

/// `{"steps_per_frame":1}` or `{"time_scale":0.5}`.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SteppingReport {
    StepsPerFrame(u32),
    TimeScale(f32),
}

#[derive(Serialize)]
pub struct RewindReport {
    pub oldest: u64,
    pub newest: u64,
    pub shown: u64,
}

/// `{"body":3}` or `{"joint":0}` (handle indices).
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PickReport {
    Body(usize),
    Joint(usize),
}

/// The window's members of `--dump-state`, each left out when `None`.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct WindowReport {
    /// The world view: x, y, width, height (px).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub viewport: Option<[f32; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<u64>,
    /// Wall-clock seconds since the window opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Average frames per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fps: Option<f64>,
}

/// The `--layout-out` JSON: where things are on screen, for scripted input.
#[derive(Serialize)]
pub struct LayoutReport<'a> {
    pub frame: u64,
    pub dpi_scale: f32,
    pub screen: [f32; 2],
    /// x, y, width, height (px), as every rectangle here.
    pub viewport: [f32; 4],
    pub camera: CameraReport,
    pub steps: u64,
    pub newest: u64,
    pub grabbing: bool,
    pub scene: &'a str,
    pub errors: usize,
    /// The panel's named widgets, by name.
    pub widgets: BTreeMap<&'a str, [f32; 4]>,
}

#[derive(Serialize)]
pub struct CameraReport {
    pub center: [f32; 2],
    /// m.
    pub view_height: f32,
    pub pixels_per_metre: f32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_name_every_setting() {
        let settings = SolverSettings {
            warm_starting: false,
            ..Default::default()
        };
        let json = to_json_line(&settings_report(&settings));
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
    fn world_reports_append_extra_members() {
        let world = World::default();
        let json = to_json_line(&WorldReport::new(
            &world,
            &[1.0],
            serde_json::json!({"answer": 42}),
        ));
        assert!(json.starts_with("{\"steps\":0,"), "{json}");
        assert!(json.ends_with(",\"answer\":42}\n"), "{json}");
        // Without extras: the same object, ending at the hash.
        let plain = to_json_line(&WorldReport::new(&world, &[1.0], ()));
        assert_eq!(
            json,
            format!(
                "{},\"answer\":42}}\n",
                plain.trim_end().trim_end_matches('}')
            )
        );
    }

    #[test]
    fn strings_are_escaped_and_non_finite_numbers_are_null() {
        assert_eq!(to_json_line("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"\n");
        assert_eq!(to_json_line(&f64::NAN), "null\n");
        assert_eq!(
            to_json_line(&[0.1f32, -10.0, 1e-7]),
            "[0.1,-10,0.0000001]\n"
        );
        assert_eq!(to_json_line(&1.6666667f64), "1.6666667\n");
    }

    #[test]
    fn percentiles_of_step_times() {
        assert_eq!(StepMs::of(&[]), StepMs::default());
        let s = StepMs::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.p95, s.max), (2.0, 3.0, 3.0));
    }
}
