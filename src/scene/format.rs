//! The scene file format: serde types that mirror the core definitions, every field
//! defaulted, unknown fields refused. `scenes/README.md` documents each field with its unit
//! and default; keep the two in step.
//!
//! Vectors are written as tuples `(x, y)` (glam's serde form). Optional fields take the bare
//! value (`length: 2.0`): files are read with RON's `implicit_some` extension.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::physics::{BodyKind, Filter, SolverKind, SolverSettings};

/// A whole scene file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Scene", default, deny_unknown_fields)]
pub struct SceneFile {
    /// Shown in the menu.
    pub name: String,
    /// Menu folder; the catalog checks it matches the file's folder.
    pub category: String,
    pub description: String,
    pub camera: CameraFile,
    pub settings: SettingsFile,
    /// Created in this order (their slot order in the world).
    pub bodies: Vec<BodyFile>,
    pub joints: Vec<JointFile>,
    /// Run after `bodies` and `joints`, in order.
    pub generators: Vec<Generator>,
    /// Exact world state written by export (contacts, fat boxes, sleep, clock): loading it
    /// continues the saved simulation bit for bit. Hand-written scenes leave it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<WorldStateFile>,
}

/// What the testbed frames when the scene opens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CameraFile {
    /// World point at the centre of the view, metres.
    pub center: Vec2,
    /// Height of the view, metres.
    pub height: f32,
}

impl Default for CameraFile {
    fn default() -> Self {
        CameraFile {
            center: Vec2::new(0.0, 7.0),
            height: 25.0,
        }
    }
}

/// `SolverSettings` field for field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SolverFile {
    #[default]
    Classic,
    SoftStep,
}

/// Declares `SettingsFile` with the fields of `SolverSettings` (same names, same defaults),
/// the conversions both ways, the list of keys and a per-key copy for `--set key=value`.
macro_rules! settings_file {
    ($($field:ident: $ty:ty),* $(,)?) => {
        /// Every field of `SolverSettings`, under the same name, with the same default.
        #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct SettingsFile {
            pub solver: SolverFile,
            $(pub $field: $ty,)*
        }

        impl SettingsFile {
            /// The key of every setting, in file order.
            pub const KEYS: &'static [&'static str] = &["solver", $(stringify!($field),)*];

            /// Copy the setting named `key` from `other`. False when no setting has that name.
            pub fn copy_field(&mut self, other: &SettingsFile, key: &str) -> bool {
                match key {
                    "solver" => self.solver = other.solver,
                    $(stringify!($field) => self.$field = other.$field,)*
                    _ => return false,
                }
                true
            }
        }

        impl From<&SolverSettings> for SettingsFile {
            fn from(s: &SolverSettings) -> Self {
                SettingsFile {
                    solver: match s.solver {
                        SolverKind::Classic => SolverFile::Classic,
                        SolverKind::SoftStep => SolverFile::SoftStep,
                    },
                    $($field: s.$field,)*
                }
            }
        }

        impl From<&SettingsFile> for SolverSettings {
            fn from(f: &SettingsFile) -> Self {
                SolverSettings {
                    solver: match f.solver {
                        SolverFile::Classic => SolverKind::Classic,
                        SolverFile::SoftStep => SolverKind::SoftStep,
                    },
                    $($field: f.$field,)*
                }
            }
        }
    };
}

settings_file! {
    iterations: u32,
    substeps: u32,
    accumulate_impulses: bool,
    warm_starting: bool,
    position_correction: bool,
    bias_factor: f32,
    allowed_penetration: f32,
    block_solver: bool,
    restitution_threshold: f32,
    gravity: Vec2,
    step_hz: f32,
    sleep: bool,
    time_to_sleep: f32,
    linear_sleep_tolerance: f32,
    angular_sleep_tolerance: f32,
    contact_hertz: f32,
    contact_damping_ratio: f32,
    contact_push_max_velocity: f32,
    joint_hertz: f32,
    joint_damping_ratio: f32,
}

impl Default for SettingsFile {
    fn default() -> Self {
        SettingsFile::from(&SolverSettings::default())
    }
}

/// `BodyKind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum BodyKindFile {
    Static,
    Kinematic,
    #[default]
    Dynamic,
}

impl From<BodyKindFile> for BodyKind {
    fn from(k: BodyKindFile) -> BodyKind {
        match k {
            BodyKindFile::Static => BodyKind::Static,
            BodyKindFile::Kinematic => BodyKind::Kinematic,
            BodyKindFile::Dynamic => BodyKind::Dynamic,
        }
    }
}

impl From<BodyKind> for BodyKindFile {
    fn from(k: BodyKind) -> BodyKindFile {
        match k {
            BodyKind::Static => BodyKindFile::Static,
            BodyKind::Kinematic => BodyKindFile::Kinematic,
            BodyKind::Dynamic => BodyKindFile::Dynamic,
        }
    }
}

/// A body and its shapes (`BodyDef` plus `shapes`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BodyFile {
    /// Joints and the command line refer to bodies by name. Names are unique in a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub kind: BodyKindFile,
    /// World position of the body origin, metres.
    pub position: Vec2,
    /// Radians, counter-clockwise.
    #[serde(skip_serializing_if = "is_zero")]
    pub angle: f32,
    /// m/s.
    #[serde(skip_serializing_if = "is_zero_vec")]
    pub linear_velocity: Vec2,
    /// rad/s.
    #[serde(skip_serializing_if = "is_zero")]
    pub angular_velocity: f32,
    /// 1/s.
    #[serde(skip_serializing_if = "is_zero")]
    pub linear_damping: f32,
    /// 1/s.
    #[serde(skip_serializing_if = "is_zero")]
    pub angular_damping: f32,
    #[serde(skip_serializing_if = "is_one")]
    pub gravity_scale: f32,
    #[serde(skip_serializing_if = "is_false")]
    pub fixed_rotation: bool,
    #[serde(skip_serializing_if = "is_true")]
    pub enable_sleep: bool,
    #[serde(skip_serializing_if = "is_true")]
    pub awake: bool,
    pub shapes: Vec<ShapeFile>,
}

// Export leaves out fields equal to their default, bit for bit (so -0.0 is still written).
fn is_zero(x: &f32) -> bool {
    x.to_bits() == 0
}
fn is_one(x: &f32) -> bool {
    x.to_bits() == 1.0f32.to_bits()
}
fn is_zero_vec(v: &Vec2) -> bool {
    is_zero(&v.x) && is_zero(&v.y)
}
fn is_false(b: &bool) -> bool {
    !*b
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_default_filter(f: &FilterFile) -> bool {
    *f == FilterFile::default()
}

impl Default for BodyFile {
    fn default() -> Self {
        BodyFile {
            name: None,
            kind: BodyKindFile::Dynamic,
            position: Vec2::ZERO,
            angle: 0.0,
            linear_velocity: Vec2::ZERO,
            angular_velocity: 0.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            fixed_rotation: false,
            enable_sleep: true,
            awake: true,
            shapes: Vec::new(),
        }
    }
}

/// A shape on a body (`ShapeDef`): geometry and material.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShapeFile {
    pub shape: GeometryFile,
    /// kg/m^2.
    pub density: f32,
    pub friction: f32,
    #[serde(skip_serializing_if = "is_zero")]
    pub restitution: f32,
    #[serde(skip_serializing_if = "is_default_filter")]
    pub filter: FilterFile,
}

impl Default for ShapeFile {
    fn default() -> Self {
        ShapeFile {
            shape: GeometryFile::Box {
                half_width: 0.5,
                half_height: 0.5,
                center: Vec2::ZERO,
                angle: 0.0,
            },
            density: 1.0,
            friction: 0.6,
            restitution: 0.0,
            filter: FilterFile::default(),
        }
    }
}

/// Geometry in the body frame, metres.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum GeometryFile {
    /// A rectangle of `2 half_width x 2 half_height` centred at `center`, turned by `angle`.
    Box {
        half_width: f32,
        half_height: f32,
        #[serde(default)]
        center: Vec2,
        #[serde(default)]
        angle: f32,
    },
    /// A convex polygon of 3 to 8 vertices (either winding; kept in the given order when
    /// counter-clockwise).
    Polygon {
        vertices: Vec<Vec2>,
        /// Written by export when the stored centroid differs in its last bits from the one
        /// computed from the vertices (boxes keep their exact centre).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        centroid: Option<Vec2>,
    },
    Circle {
        radius: f32,
        #[serde(default)]
        center: Vec2,
    },
    Capsule {
        center_a: Vec2,
        center_b: Vec2,
        radius: f32,
    },
    /// Two-sided line, no mass: for static ground.
    Segment { point_a: Vec2, point_b: Vec2 },
}

/// `Filter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FilterFile {
    pub category_bits: u32,
    pub mask_bits: u32,
    pub group_index: i32,
}

impl Default for FilterFile {
    fn default() -> Self {
        Filter::default().into()
    }
}

impl From<Filter> for FilterFile {
    fn from(f: Filter) -> Self {
        FilterFile {
            category_bits: f.category_bits,
            mask_bits: f.mask_bits,
            group_index: f.group_index,
        }
    }
}

impl From<FilterFile> for Filter {
    fn from(f: FilterFile) -> Self {
        Filter {
            category_bits: f.category_bits,
            mask_bits: f.mask_bits,
            group_index: f.group_index,
        }
    }
}

/// A joint between two bodies named in the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub body_a: String,
    pub body_b: String,
    #[serde(default)]
    pub collide_connected: bool,
    pub kind: JointKindFile,
}

/// The joint types. Anchors and axes are in world coordinates at creation. Fields left out
/// take the defaults given in `scenes/README.md`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum JointKindFile {
    Revolute(RevoluteFile),
    Prismatic(PrismaticFile),
    Wheel(WheelFile),
    Weld(WeldFile),
    Angle(AngleFile),
    Pulley(PulleyFile),
    Distance(DistanceFile),
    Motor(MotorFile),
    Friction(FrictionFile),
    Mouse(MouseFile),
}

impl JointKindFile {
    /// The variant's name as written in files.
    pub fn name(&self) -> &'static str {
        match self {
            JointKindFile::Revolute(_) => "Revolute",
            JointKindFile::Prismatic(_) => "Prismatic",
            JointKindFile::Wheel(_) => "Wheel",
            JointKindFile::Weld(_) => "Weld",
            JointKindFile::Angle(_) => "Angle",
            JointKindFile::Pulley(_) => "Pulley",
            JointKindFile::Distance(_) => "Distance",
            JointKindFile::Motor(_) => "Motor",
            JointKindFile::Friction(_) => "Friction",
            JointKindFile::Mouse(_) => "Mouse",
        }
    }
}

/// A pin: B turns about `anchor` relative to A. Box2D-Lite's joint, with its `softness`
/// (m/N s; 0: rigid) and `bias_factor` (per step, 0..1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RevoluteFile {
    pub anchor: Vec2,
    pub enable_limit: bool,
    /// Radians, relative angle of B to A.
    pub lower_angle: f32,
    pub upper_angle: f32,
    pub enable_motor: bool,
    /// rad/s.
    pub motor_speed: f32,
    /// N m.
    pub max_motor_torque: f32,
    pub softness: f32,
    pub bias_factor: f32,
}

impl Default for RevoluteFile {
    fn default() -> Self {
        RevoluteFile {
            anchor: Vec2::ZERO,
            enable_limit: false,
            lower_angle: 0.0,
            upper_angle: 0.0,
            enable_motor: false,
            motor_speed: 0.0,
            max_motor_torque: 0.0,
            softness: 0.0,
            bias_factor: 0.2,
        }
    }
}

/// B slides along `axis` (through `anchor`) relative to A, without turning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PrismaticFile {
    pub anchor: Vec2,
    pub axis: Vec2,
    pub enable_limit: bool,
    /// Metres along the axis.
    pub lower_translation: f32,
    pub upper_translation: f32,
    pub enable_motor: bool,
    /// m/s.
    pub motor_speed: f32,
    /// N.
    pub max_motor_force: f32,
}

impl Default for PrismaticFile {
    fn default() -> Self {
        PrismaticFile {
            anchor: Vec2::ZERO,
            axis: Vec2::X,
            enable_limit: false,
            lower_translation: 0.0,
            upper_translation: 0.0,
            enable_motor: false,
            motor_speed: 0.0,
            max_motor_force: 0.0,
        }
    }
}

/// A wheel: B turns freely and slides along `axis` on a spring (suspension).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WheelFile {
    pub anchor: Vec2,
    pub axis: Vec2,
    /// Suspension stiffness, Hz.
    pub hertz: f32,
    pub damping_ratio: f32,
    pub enable_limit: bool,
    pub lower_translation: f32,
    pub upper_translation: f32,
    pub enable_motor: bool,
    pub motor_speed: f32,
    pub max_motor_torque: f32,
}

impl Default for WheelFile {
    fn default() -> Self {
        WheelFile {
            anchor: Vec2::ZERO,
            axis: Vec2::Y,
            hertz: 1.0,
            damping_ratio: 0.7,
            enable_limit: false,
            lower_translation: 0.0,
            upper_translation: 0.0,
            enable_motor: false,
            motor_speed: 0.0,
            max_motor_torque: 0.0,
        }
    }
}

/// Glues B to A at `anchor`; 0 Hz is rigid, otherwise a spring.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WeldFile {
    pub anchor: Vec2,
    pub linear_hertz: f32,
    pub angular_hertz: f32,
    pub damping_ratio: f32,
}

impl Default for WeldFile {
    fn default() -> Self {
        WeldFile {
            anchor: Vec2::ZERO,
            linear_hertz: 0.0,
            angular_hertz: 0.0,
            damping_ratio: 1.0,
        }
    }
}

/// Keeps the relative angle of B to A (at its creation value, or `target_angle`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AngleFile {
    /// Radians; the angle at creation when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_angle: Option<f32>,
    /// Hz; 0 is rigid.
    pub hertz: f32,
    pub damping_ratio: f32,
    /// N m; 0 is unlimited.
    pub max_torque: f32,
}

impl Default for AngleFile {
    fn default() -> Self {
        AngleFile {
            target_angle: None,
            hertz: 0.0,
            damping_ratio: 1.0,
            max_torque: 0.0,
        }
    }
}

/// Two ropes over fixed pulleys: `|ground_a - anchor_a| + ratio |ground_b - anchor_b|` is
/// constant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PulleyFile {
    pub ground_a: Vec2,
    pub ground_b: Vec2,
    pub anchor_a: Vec2,
    pub anchor_b: Vec2,
    pub ratio: f32,
}

impl Default for PulleyFile {
    fn default() -> Self {
        PulleyFile {
            ground_a: Vec2::ZERO,
            ground_b: Vec2::ZERO,
            anchor_a: Vec2::ZERO,
            anchor_b: Vec2::ZERO,
            ratio: 1.0,
        }
    }
}

/// Keeps `anchor_a` and `anchor_b` at `length` (rod), or between `min_length` and
/// `max_length` (rope), optionally as a spring.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DistanceFile {
    pub anchor_a: Vec2,
    pub anchor_b: Vec2,
    /// Metres; the anchors' distance at creation when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<f32>,
    pub min_length: f32,
    /// Metres; unlimited when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<f32>,
    /// Hz; 0 is rigid.
    pub hertz: f32,
    pub damping_ratio: f32,
}

impl Default for DistanceFile {
    fn default() -> Self {
        DistanceFile {
            anchor_a: Vec2::ZERO,
            anchor_b: Vec2::ZERO,
            length: None,
            min_length: 0.0,
            max_length: None,
            hertz: 0.0,
            damping_ratio: 0.0,
        }
    }
}

/// Drives B toward an offset from A with bounded force and torque.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MotorFile {
    /// Target position of B's origin in A's frame, metres.
    pub linear_offset: Vec2,
    /// Target angle of B relative to A, radians.
    pub angular_offset: f32,
    /// N.
    pub max_force: f32,
    /// N m.
    pub max_torque: f32,
    /// Fraction of the error corrected per step, 0..1.
    pub correction_factor: f32,
}

impl Default for MotorFile {
    fn default() -> Self {
        MotorFile {
            linear_offset: Vec2::ZERO,
            angular_offset: 0.0,
            max_force: 1.0,
            max_torque: 1.0,
            correction_factor: 0.3,
        }
    }
}

/// Top-down friction: resists relative motion at `anchor` up to the maxima.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FrictionFile {
    pub anchor: Vec2,
    /// N.
    pub max_force: f32,
    /// N m.
    pub max_torque: f32,
}

impl Default for FrictionFile {
    fn default() -> Self {
        FrictionFile {
            anchor: Vec2::ZERO,
            max_force: 0.0,
            max_torque: 0.0,
        }
    }
}

/// Pulls B's point at `anchor` toward `target` with a soft spring (A is usually the ground).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MouseFile {
    pub anchor: Vec2,
    /// World target; `anchor` when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Vec2>,
    /// Hz.
    pub hertz: f32,
    pub damping_ratio: f32,
    /// N.
    pub max_force: f32,
}

impl Default for MouseFile {
    fn default() -> Self {
        MouseFile {
            anchor: Vec2::ZERO,
            target: None,
            hertz: 5.0,
            damping_ratio: 0.7,
            max_force: 1000.0,
        }
    }
}

/// Procedural groups of bodies. Generated bodies are unnamed; they are created after the
/// file's `bodies`, generator by generator, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Generator {
    /// Box2D-Lite's pyramid: `base` boxes in the bottom row, one fewer in each row above,
    /// each row shifted right by half a spacing.
    Pyramid {
        base: u32,
        half_size: f32,
        /// Centre of the bottom-left box.
        #[serde(default)]
        origin: Vec2,
        /// Distance between box centres in a row; `2 half_size` (touching) when left out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spacing: Option<f32>,
        /// Distance between rows; `2 half_size` when left out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        row_height: Option<f32>,
        #[serde(default)]
        material: MaterialFile,
    },
    /// `count` boxes one above the other.
    Stack {
        count: u32,
        half_size: f32,
        /// Centre of the bottom box.
        #[serde(default)]
        origin: Vec2,
        /// Distance between box centres; `2 half_size` when left out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spacing: Option<f32>,
        /// Each box is moved sideways by a random amount in `-jitter..jitter`, metres.
        #[serde(default)]
        jitter: f32,
        /// Seed of the jitter.
        #[serde(default)]
        seed: u64,
        #[serde(default)]
        material: MaterialFile,
    },
    /// `columns x rows` bodies made of `shape`, their origins `spacing` apart (rows go
    /// down the y axis by `spacing.y`), the first at `origin`. With `joints`, each body is
    /// pinned to its right and lower neighbours at the midpoints by revolute joints.
    Grid {
        columns: u32,
        rows: u32,
        #[serde(default)]
        origin: Vec2,
        spacing: Vec2,
        shape: ShapeFile,
        #[serde(default)]
        kind: BodyKindFile,
        /// `(column, row)` cells made static.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        fixed: Vec<(u32, u32)>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        joints: Option<RevoluteFile>,
    },
    /// `count` links made of `shape`, their origins `spacing` apart from `origin`, each
    /// pinned to the next at their midpoint. With `start`, the first link is pinned to that
    /// body half a spacing before it; with `end`, the last link to that body half a spacing
    /// after it (a bridge).
    Chain {
        count: u32,
        origin: Vec2,
        spacing: Vec2,
        shape: ShapeFile,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        start: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end: Option<String>,
        #[serde(default)]
        joint: RevoluteFile,
    },
    /// `count` bodies made of `shape` at random positions in the box `min..max` with random
    /// angles in `-max_angle..max_angle`, from a seeded generator: the same seed gives the
    /// same scene on every machine.
    Scatter {
        count: u32,
        seed: u64,
        min: Vec2,
        max: Vec2,
        shape: ShapeFile,
        #[serde(default)]
        max_angle: f32,
    },
    /// `columns x rows` copies of another generator, each moved by `step` (x per column, y
    /// per row) from the previous one.
    Repeat {
        columns: u32,
        rows: u32,
        step: Vec2,
        of: Box<Generator>,
    },
}

impl Generator {
    /// The variant's name as written in files.
    pub fn name(&self) -> &'static str {
        match self {
            Generator::Pyramid { .. } => "Pyramid",
            Generator::Stack { .. } => "Stack",
            Generator::Grid { .. } => "Grid",
            Generator::Chain { .. } => "Chain",
            Generator::Scatter { .. } => "Scatter",
            Generator::Repeat { .. } => "Repeat",
        }
    }
}

/// Material for generated boxes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MaterialFile {
    pub density: f32,
    pub friction: f32,
    pub restitution: f32,
}

impl Default for MaterialFile {
    fn default() -> Self {
        MaterialFile {
            density: 1.0,
            friction: 0.6,
            restitution: 0.0,
        }
    }
}

/// The exact state export writes after the definitions.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorldStateFile {
    pub step_count: u64,
    /// Seconds.
    pub time: f64,
    /// One per body, in creation order.
    pub bodies: Vec<BodyStateFile>,
    /// In the world's solver order.
    pub contacts: Vec<ContactFile>,
}

/// A body's exact motion and sleep state, and its shapes' broad-phase boxes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BodyStateFile {
    /// World centre of mass, metres.
    pub center: Vec2,
    pub angle: f32,
    pub linear_velocity: Vec2,
    pub angular_velocity: f32,
    pub awake: bool,
    pub sleep_time: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub island: Option<u32>,
    /// One `(min, max)` per shape, in shape order.
    pub proxy_boxes: Vec<(Vec2, Vec2)>,
}

impl Default for BodyStateFile {
    fn default() -> Self {
        BodyStateFile {
            center: Vec2::ZERO,
            angle: 0.0,
            linear_velocity: Vec2::ZERO,
            angular_velocity: 0.0,
            awake: true,
            sleep_time: 0.0,
            island: None,
            proxy_boxes: Vec::new(),
        }
    }
}

/// A contact: shapes as `(body index, shape index on that body)`, and its manifold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContactFile {
    pub shape_a: (u32, u32),
    pub shape_b: (u32, u32),
    pub normal: Vec2,
    pub points: Vec<ManifoldPointFile>,
}

impl Default for ContactFile {
    fn default() -> Self {
        ContactFile {
            shape_a: (0, 0),
            shape_b: (0, 0),
            normal: Vec2::ZERO,
            points: Vec::new(),
        }
    }
}

/// `ManifoldPoint`.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ManifoldPointFile {
    pub point: Vec2,
    pub separation: f32,
    pub id: u32,
    pub normal_impulse: f32,
    pub tangent_impulse: f32,
    pub max_normal_impulse: f32,
    pub persisted: bool,
}
