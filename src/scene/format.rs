//! The scene file format: serde types that mirror the core definitions, every field
//! defaulted, unknown fields refused. `scenes/README.md` documents each field with its unit
//! and default; keep the two in step.
//!
//! Vectors are written as tuples `(x, y)` (glam's serde form). Optional fields take the bare
//! value (`length: 2.0`): files are read with RON's `implicit_some` extension.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::physics::joint::{
    AngleJointDef, DistanceJointDef, FrictionJointDef, MotorJointDef, MouseJointDef,
    PrismaticJointDef, PulleyJointDef, RevoluteJointDef, WeldJointDef, WheelJointDef,
};
use crate::physics::{BodyKind, Filter, JointDefKind, JointState, SolverKind, SolverSettings};

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
    /// How `testbed verdicts` judges the scene (a hard scene). The catalog's scenes with a
    /// verdict are the rows of the verdict table, in catalog order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<VerdictFile>,
}

/// A hard scene's verdict: its row label and pass criterion (`crate::verdicts` judges it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictFile {
    /// Row label of the verdict table.
    pub label: String,
    pub criterion: Criterion,
    /// Sub-steps of the soft step column (and of every sub-stepping solver's column), at
    /// least (the scene's own count when larger).
    #[serde(default = "default_soft_substeps")]
    pub soft_substeps: u32,
    /// Pyramid base used instead of the file's (the benchmark's large pyramid is base 100,
    /// judged at 40).
    #[serde(default)]
    pub pyramid_base: Option<u32>,
}

fn default_soft_substeps() -> u32 {
    4
}

/// What a hard scene is judged on. Lengths in metres, speeds in m/s; every number must be
/// finite and above zero.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Criterion {
    /// The highest box ends within `max_drop` m of where it started and within `max_shift`
    /// m sideways (a stack that stands).
    TopStays { max_drop: f32, max_shift: f32 },
    /// The highest box drops less than `max_drop` m and the scene comes to rest (every
    /// body slower than `rest_speed` m/s at the end).
    TopDropsAndRests { max_drop: f32, rest_speed: f32 },
    /// The heavy boxes (bodies named `heavy*`) neither crush nor pass through the light
    /// bodies under them: at the end the deepest overlap is under `max_overlap` m (the light
    /// bodies are 1-2 m: 0.3 m is less than a third of them), every heavy box is still above
    /// every light body that started below it, and all is at rest. Soft contacts are springs
    /// of stiffness `m_eff (2 pi hertz)^2` set by the light body's effective mass, so a heavy
    /// load compresses them visibly; the overlap is reported in the table. With
    /// `max_light_turn` (rad), every light body under a heavy one also ends within that angle
    /// of its starting orientation (it holds the load upright rather than being knocked
    /// over).
    HeavyHeld {
        max_overlap: f32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_light_turn: Option<f32>,
    },
    /// No body ever moves faster than `max_speed` m/s, and the overlap is gone at the end
    /// (deepest overlap under `max_overlap` m).
    GentleRecovery { max_speed: f32, max_overlap: f32 },
    /// Every body stays inside the scene's starting bounds grown by `margin` m, and at the
    /// end every body is slower than `rest_speed` m/s (settled, no blow-up).
    Settles { margin: f32, rest_speed: f32 },
    /// The largest joint gap over the whole run stays under `max_gap` m.
    JointGapThroughout { max_gap: f32 },
    /// The largest joint gap at the end stays under `max_gap` m.
    JointGapAtEnd { max_gap: f32 },
    /// No dynamic body moves more than `max_move` m from its start (a structure stands).
    Stands { max_move: f32 },
}

impl Criterion {
    /// Every number with its field name, for the checks.
    pub fn numbers(&self) -> Vec<(&'static str, f32)> {
        match *self {
            Criterion::TopStays {
                max_drop,
                max_shift,
            } => vec![("max_drop", max_drop), ("max_shift", max_shift)],
            Criterion::TopDropsAndRests {
                max_drop,
                rest_speed,
            } => vec![("max_drop", max_drop), ("rest_speed", rest_speed)],
            Criterion::HeavyHeld {
                max_overlap,
                max_light_turn,
            } => {
                let mut numbers = vec![("max_overlap", max_overlap)];
                numbers.extend(max_light_turn.map(|t| ("max_light_turn", t)));
                numbers
            }
            Criterion::GentleRecovery {
                max_speed,
                max_overlap,
            } => vec![("max_speed", max_speed), ("max_overlap", max_overlap)],
            Criterion::Settles { margin, rest_speed } => {
                vec![("margin", margin), ("rest_speed", rest_speed)]
            }
            Criterion::JointGapThroughout { max_gap } | Criterion::JointGapAtEnd { max_gap } => {
                vec![("max_gap", max_gap)]
            }
            Criterion::Stands { max_move } => vec![("max_move", max_move)],
        }
    }
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

/// `SolverKind`, name for name (`scenes/README.md` lists what each solver does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SolverFile {
    #[default]
    Classic,
    SoftStep,
    Jacobi,
    PgsNgs,
    PgsNgsBlock,
    PgsSoft,
    TgsSticky,
    TgsSoft,
    TgsNgs,
    Xpbd,
}

impl From<SolverKind> for SolverFile {
    fn from(k: SolverKind) -> SolverFile {
        match k {
            SolverKind::Classic => SolverFile::Classic,
            SolverKind::SoftStep => SolverFile::SoftStep,
            SolverKind::Jacobi => SolverFile::Jacobi,
            SolverKind::PgsNgs => SolverFile::PgsNgs,
            SolverKind::PgsNgsBlock => SolverFile::PgsNgsBlock,
            SolverKind::PgsSoft => SolverFile::PgsSoft,
            SolverKind::TgsSticky => SolverFile::TgsSticky,
            SolverKind::TgsSoft => SolverFile::TgsSoft,
            SolverKind::TgsNgs => SolverFile::TgsNgs,
            SolverKind::Xpbd => SolverFile::Xpbd,
        }
    }
}

impl From<SolverFile> for SolverKind {
    fn from(f: SolverFile) -> SolverKind {
        match f {
            SolverFile::Classic => SolverKind::Classic,
            SolverFile::SoftStep => SolverKind::SoftStep,
            SolverFile::Jacobi => SolverKind::Jacobi,
            SolverFile::PgsNgs => SolverKind::PgsNgs,
            SolverFile::PgsNgsBlock => SolverKind::PgsNgsBlock,
            SolverFile::PgsSoft => SolverKind::PgsSoft,
            SolverFile::TgsSticky => SolverKind::TgsSticky,
            SolverFile::TgsSoft => SolverKind::TgsSoft,
            SolverFile::TgsNgs => SolverKind::TgsNgs,
            SolverFile::Xpbd => SolverKind::Xpbd,
        }
    }
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
                    solver: s.solver.into(),
                    $($field: s.$field,)*
                }
            }
        }

        impl From<&SettingsFile> for SolverSettings {
            fn from(f: &SettingsFile) -> Self {
                SolverSettings {
                    solver: f.solver.into(),
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
    relax_iterations: u32,
    position_iterations: u32,
    jacobi_relaxation: f32,
    xpbd_compliance: f32,
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
        /// Rounds the corners (and every side) by this much, metres; 0 (sharp) when left out.
        #[serde(default, skip_serializing_if = "is_zero")]
        radius: f32,
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
    /// A body name of the file, or `"#N"`: the body created N-th (0-based, generated bodies
    /// included; export names unnamed bodies so).
    pub body_a: String,
    pub body_b: String,
    #[serde(default)]
    pub collide_connected: bool,
    /// Break above this reaction force, N (0 ..= 1e12). Default none: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_force: Option<f32>,
    /// Break above this reaction torque, N m (0 ..= 1e12). Default none: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_torque: Option<f32>,
    /// What breaking does: `Disable` (default) or `Destroy`.
    #[serde(default, skip_serializing_if = "is_default_on_break")]
    pub on_break: OnBreakFile,
    /// False: the joint starts disabled (as a broken one; export writes it so). Default
    /// true.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    pub kind: JointKindFile,
}

/// `OnBreak`: what a joint does when it breaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum OnBreakFile {
    /// Keep it, disabled (drawn as broken; can be re-enabled).
    #[default]
    Disable,
    /// Remove it from the world.
    Destroy,
}

impl From<OnBreakFile> for crate::physics::OnBreak {
    fn from(f: OnBreakFile) -> Self {
        match f {
            OnBreakFile::Disable => crate::physics::OnBreak::Disable,
            OnBreakFile::Destroy => crate::physics::OnBreak::Destroy,
        }
    }
}

impl From<crate::physics::OnBreak> for OnBreakFile {
    fn from(o: crate::physics::OnBreak) -> Self {
        match o {
            crate::physics::OnBreak::Disable => OnBreakFile::Disable,
            crate::physics::OnBreak::Destroy => OnBreakFile::Destroy,
        }
    }
}

fn is_default_on_break(o: &OnBreakFile) -> bool {
    *o == OnBreakFile::Disable
}
fn yes() -> bool {
    true
}

/// The joint types, one per core joint, every option of the core definition under the same
/// name with the same default and unit. Anchors and axes are world coordinates at creation.
/// Fields left out take the defaults given in `scenes/README.md`.
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

/// One arm per joint kind: `each_file!(kind, j => expr)`.
macro_rules! each_file {
    ($kind:expr, $j:ident => $body:expr) => {
        match $kind {
            JointKindFile::Revolute($j) => $body,
            JointKindFile::Prismatic($j) => $body,
            JointKindFile::Wheel($j) => $body,
            JointKindFile::Weld($j) => $body,
            JointKindFile::Angle($j) => $body,
            JointKindFile::Pulley($j) => $body,
            JointKindFile::Distance($j) => $body,
            JointKindFile::Motor($j) => $body,
            JointKindFile::Friction($j) => $body,
            JointKindFile::Mouse($j) => $body,
        }
    };
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

    /// The core definition, field for field (not validated: see `JointDefKind::validate`).
    pub fn to_core(&self) -> JointDefKind {
        each_file!(self, j => j.to_core().into())
    }

    /// Put the option named `field` back to its default. False when there is none.
    pub fn reset_field(&mut self, field: &str) -> bool {
        each_file!(self, j => j.reset_field(field))
    }
}

impl From<&JointDefKind> for JointKindFile {
    fn from(kind: &JointDefKind) -> Self {
        match kind {
            JointDefKind::Revolute(d) => JointKindFile::Revolute(d.into()),
            JointDefKind::Prismatic(d) => JointKindFile::Prismatic(d.into()),
            JointDefKind::Wheel(d) => JointKindFile::Wheel(d.into()),
            JointDefKind::Weld(d) => JointKindFile::Weld(d.into()),
            JointDefKind::Angle(d) => JointKindFile::Angle(d.into()),
            JointDefKind::Pulley(d) => JointKindFile::Pulley(d.into()),
            JointDefKind::Distance(d) => JointKindFile::Distance(d.into()),
            JointDefKind::Motor(d) => JointKindFile::Motor(d.into()),
            JointDefKind::Friction(d) => JointKindFile::Friction(d.into()),
            JointDefKind::Mouse(d) => JointKindFile::Mouse(d.into()),
        }
    }
}

/// Declares a joint's file type: the struct (every field defaulted, unknown fields refused),
/// its `Default`, `reset_field`, and the conversions to and from the core definition. Fields
/// marked `=` copy the core field of the same name; fields marked `~` convert through the
/// given functions (`to_core`, `from_core`).
macro_rules! joint_file {
    (
        $(#[$meta:meta])*
        $name:ident => $def:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident: $ty:ty = $default:expr
                $(, via($to:path, $from:path))?
            );* $(;)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $($(#[$fmeta])* pub $field: $ty,)*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        impl $name {
            /// Put the field named `field` back to its default. False when there is none.
            pub fn reset_field(&mut self, field: &str) -> bool {
                match field {
                    $(stringify!($field) => self.$field = $default,)*
                    _ => return false,
                }
                true
            }

            /// The core definition, field for field.
            pub fn to_core(&self) -> $def {
                $def { $($field: joint_file!(@to self.$field $(, $to)?),)* }
            }
        }

        impl From<&$def> for $name {
            fn from(d: &$def) -> Self {
                $name { $($field: joint_file!(@from d.$field $(, $from)?),)* }
            }
        }
    };
    (@to $e:expr) => { $e };
    (@to $e:expr, $f:path) => { $f($e) };
    (@from $e:expr) => { $e };
    (@from $e:expr, $f:path) => { $f($e) };
}

joint_file! {
    /// A pin: B turns about `anchor` relative to A (Box2D-Lite's joint), with an optional angle
    /// limit and motor.
    RevoluteFile => RevoluteJointDef {
        /// The shared point, world metres.
        anchor: Vec2 = Vec2::ZERO;
        /// Radians: the `angle_b - angle_a` at which the joint angle is zero (limits and the
        /// spring are measured from it); the bodies' relative angle at creation when left out.
        #[serde(skip_serializing_if = "Option::is_none")]
        reference_angle: Option<f32> = None;
        /// Box2D-Lite softness added to K's diagonal, 1/kg (m/(N s²) per unit impulse); 0 is
        /// rigid. Classic solver only.
        softness: f32 = 0.0;
        /// Own Baumgarte factor 0..1; the world's `bias_factor` when left out. Classic only.
        #[serde(skip_serializing_if = "Option::is_none")]
        bias_factor: Option<f32> = None;
        enable_limit: bool = false;
        /// Radians, relative to the initial relative angle.
        lower_angle: f32 = 0.0;
        upper_angle: f32 = 0.0;
        enable_motor: bool = false;
        /// rad/s, B relative to A.
        motor_speed: f32 = 0.0;
        /// N m.
        max_motor_torque: f32 = 0.0;
        /// A soft angular spring towards the reference angle (Box2D v3's revolute spring).
        enable_spring: bool = false;
        /// Spring frequency, Hz (0: no spring).
        spring_hertz: f32 = 0.0;
        /// Spring damping ratio (1: critical).
        spring_damping_ratio: f32 = 0.0;
    }
}

joint_file! {
    /// B slides along `axis` (through `anchor`) relative to A, without turning.
    PrismaticFile => PrismaticJointDef {
        anchor: Vec2 = Vec2::ZERO;
        /// World direction (normalised).
        axis: Vec2 = Vec2::X;
        enable_limit: bool = false;
        /// Metres along the axis.
        lower_translation: f32 = 0.0;
        upper_translation: f32 = 0.0;
        enable_motor: bool = false;
        /// m/s.
        motor_speed: f32 = 0.0;
        /// N.
        max_motor_force: f32 = 0.0;
    }
}

joint_file! {
    /// A wheel: B turns freely and slides along `axis` on a spring (suspension).
    WheelFile => WheelJointDef {
        anchor: Vec2 = Vec2::ZERO;
        axis: Vec2 = Vec2::Y;
        enable_spring: bool = true;
        /// Suspension frequency, Hz (0: free slide).
        hertz: f32 = 1.0;
        damping_ratio: f32 = 0.7;
        enable_motor: bool = false;
        /// rad/s.
        motor_speed: f32 = 0.0;
        /// N m.
        max_motor_torque: f32 = 0.0;
        enable_limit: bool = false;
        /// Metres along the axis.
        lower_translation: f32 = 0.0;
        upper_translation: f32 = 0.0;
    }
}

joint_file! {
    /// Glues B to A at `anchor`; 0 Hz is rigid, otherwise a spring.
    WeldFile => WeldJointDef {
        anchor: Vec2 = Vec2::ZERO;
        /// Hz.
        linear_hertz: f32 = 0.0;
        angular_hertz: f32 = 0.0;
        linear_damping_ratio: f32 = 1.0;
        angular_damping_ratio: f32 = 1.0;
    }
}

joint_file! {
    /// Holds `angle_b = ratio angle_a + offset` (a gear), or keeps it within limits.
    AngleFile => AngleJointDef {
        ratio: f32 = 1.0;
        /// Radians; the initial `angle_b - ratio angle_a` when left out.
        #[serde(skip_serializing_if = "Option::is_none")]
        offset: Option<f32> = None;
        enable_limit: bool = false;
        /// Radians.
        lower_angle: f32 = 0.0;
        upper_angle: f32 = 0.0;
    }
}

joint_file! {
    /// Two ropes over fixed pulleys: `|ground_anchor_a - anchor_a| + ratio |ground_anchor_b -
    /// anchor_b|` is constant.
    PulleyFile => PulleyJointDef {
        ground_anchor_a: Vec2 = Vec2::new(-1.0, 1.0);
        ground_anchor_b: Vec2 = Vec2::new(1.0, 1.0);
        anchor_a: Vec2 = Vec2::new(-1.0, 0.0);
        anchor_b: Vec2 = Vec2::new(1.0, 0.0);
        ratio: f32 = 1.0;
    }
}

/// `max_length` in files: left out for unbounded (`UNBOUNDED_LENGTH` in the core).
fn max_length_to_core(max: Option<f32>) -> f32 {
    max.unwrap_or(crate::physics::joint::distance::UNBOUNDED_LENGTH)
}

fn max_length_from_core(max: f32) -> Option<f32> {
    (max != crate::physics::joint::distance::UNBOUNDED_LENGTH).then_some(max)
}

joint_file! {
    /// Keeps `anchor_a` and `anchor_b` at `length` (a rod), as a spring, or within
    /// `min_length..max_length` (a rope).
    DistanceFile => DistanceJointDef {
        anchor_a: Vec2 = Vec2::ZERO;
        anchor_b: Vec2 = Vec2::X;
        /// Metres; the anchors' distance at creation when left out.
        #[serde(skip_serializing_if = "Option::is_none")]
        length: Option<f32> = None;
        enable_spring: bool = false;
        /// Hz (with `enable_spring`; 0: free length, a rope with `enable_limit`).
        hertz: f32 = 0.0;
        damping_ratio: f32 = 0.0;
        enable_limit: bool = false;
        /// Metres.
        min_length: f32 = 0.0;
        /// Metres; unbounded when left out.
        #[serde(skip_serializing_if = "Option::is_none")]
        max_length: Option<f32> = None, via(max_length_to_core, max_length_from_core);
    }
}

joint_file! {
    /// Drives B toward an offset from A with bounded force and torque.
    MotorFile => MotorJointDef {
        /// Target position of B's origin in A's frame, metres; where it is at creation when
        /// left out.
        #[serde(skip_serializing_if = "Option::is_none")]
        linear_offset: Option<Vec2> = None;
        /// Target `angle_b - angle_a`, radians; the initial one when left out.
        #[serde(skip_serializing_if = "Option::is_none")]
        angular_offset: Option<f32> = None;
        /// N.
        max_force: f32 = 1.0;
        /// N m.
        max_torque: f32 = 1.0;
        /// Fraction of the error corrected per step, 0..1.
        correction_factor: f32 = 0.3;
    }
}

joint_file! {
    /// Top-down friction: resists relative motion at `anchor` up to the maxima.
    FrictionFile => FrictionJointDef {
        anchor: Vec2 = Vec2::ZERO;
        /// N.
        max_force: f32 = 0.0;
        /// N m.
        max_torque: f32 = 0.0;
    }
}

joint_file! {
    /// Pulls B's point at `target` (grabbed at creation) toward `target` with a soft spring;
    /// A is usually the ground.
    MouseFile => MouseJointDef {
        /// World metres.
        target: Vec2 = Vec2::ZERO;
        /// Hz (> 0).
        hertz: f32 = 5.0;
        damping_ratio: f32 = 0.7;
        /// N.
        max_force: f32 = 1000.0;
    }
}

/// Procedural groups of bodies. Generated bodies are unnamed; they are created after the
/// file's `bodies`, generator by generator, in order. Each variant's fields are one struct
/// (written `Pyramid(base: 12, ...)` thanks to `unwrap_variant_newtypes`), and that struct
/// counts, checks and makes its bodies (`scene/generators.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Generator {
    Pyramid(PyramidFile),
    Stack(StackFile),
    Grid(GridFile),
    Chain(ChainFile),
    Scatter(ScatterFile),
    Repeat(RepeatFile),
    Ragdoll(RagdollFile),
}

/// Box2D-Lite's pyramid: `base` boxes in the bottom row, one fewer in each row above, each
/// row shifted right by half a spacing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PyramidFile {
    pub base: u32,
    pub half_size: f32,
    /// Centre of the bottom-left box.
    #[serde(default)]
    pub origin: Vec2,
    /// Distance between box centres in a row; `2 half_size` (touching) when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spacing: Option<f32>,
    /// Distance between rows; `2 half_size` when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_height: Option<f32>,
    #[serde(default)]
    pub material: MaterialFile,
}

/// `count` boxes one above the other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackFile {
    pub count: u32,
    pub half_size: f32,
    /// Centre of the bottom box.
    #[serde(default)]
    pub origin: Vec2,
    /// Distance between box centres; `2 half_size` when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spacing: Option<f32>,
    /// Each box is moved sideways by a random amount in `-jitter..jitter`, metres.
    #[serde(default)]
    pub jitter: f32,
    /// Side-by-side stacks of `count` boxes each (Box2D v3's vertical stack sample: up to
    /// 10). Default 1.
    #[serde(default = "one_column")]
    pub columns: u32,
    /// Distance between the columns' centres, metres, to the right. Default 3 (Box2D v3's
    /// sample).
    #[serde(default = "column_spacing")]
    pub column_spacing: f32,
    /// Seed of the jitter.
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub material: MaterialFile,
}

/// `columns x rows` bodies made of `shape`, their origins `spacing` apart (rows go down the
/// y axis by `spacing.y`), the first at `origin`. With `joints`, each body is pinned to its
/// right and lower neighbours at the midpoints by revolute joints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridFile {
    pub columns: u32,
    pub rows: u32,
    #[serde(default)]
    pub origin: Vec2,
    pub spacing: Vec2,
    pub shape: ShapeFile,
    #[serde(default)]
    pub kind: BodyKindFile,
    /// `(column, row)` cells made static.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<(u32, u32)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joints: Option<RevoluteFile>,
    /// Further shapes of every body (a compound body: `shape` and these).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_shapes: Vec<ShapeFile>,
    /// Shapes taken in turn: body `n` (creation order, row by row) is made of `shape` when
    /// `n mod (1 + len)` is 0, else of `alternate[n mod (1 + len) - 1]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternate: Vec<ShapeFile>,
    /// Even rows are moved by `stagger`, odd rows by `-stagger` (Box2D's zig-zag columns).
    #[serde(default, skip_serializing_if = "is_zero_vec")]
    pub stagger: Vec2,
}

/// Box2D v3's "human" ragdoll (`shared/human.c`), `count` of them `spacing` apart from
/// `origin` (the feet of the first): 11 capsule bones (hip, torso, head, two legs of two
/// bones with a rounded foot on each shin, two arms of two bones), density 1, friction 0.2
/// (feet 0.05); 10 revolute joints with Box2D's angle limits, joint friction as a motor at
/// speed 0 with at most `friction_torque` x the bone's friction scale, and springs of
/// `spring_hertz` and `spring_damping_ratio` towards each joint's reference angle (0; the
/// lower arms pi/4). Ragdoll `k` (1-based) has group index `-k`, so the k-th ragdolls of
/// repeated rows never touch; its shapes are category 2 (mask 1 | 2), its feet touch only
/// category 1 (the ground).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RagdollFile {
    #[serde(default = "one")]
    pub count: u32,
    /// The feet of the first ragdoll.
    #[serde(default)]
    pub origin: Vec2,
    #[serde(default)]
    pub spacing: Vec2,
    /// N m; 0 turns the joint friction off.
    #[serde(default = "ragdoll_friction_torque")]
    pub friction_torque: f32,
    /// Hz; 0 turns the springs off.
    #[serde(default = "ragdoll_hertz")]
    pub spring_hertz: f32,
    #[serde(default = "ragdoll_damping_ratio")]
    pub spring_damping_ratio: f32,
}

fn one() -> u32 {
    1
}
fn ragdoll_friction_torque() -> f32 {
    0.05
}
fn ragdoll_hertz() -> f32 {
    5.0
}
fn ragdoll_damping_ratio() -> f32 {
    0.5
}

/// `count` links made of `shape`, their origins `spacing` apart from `origin`, each pinned
/// to the next at their midpoint. With `start`, the first link is pinned to that body half a
/// spacing before it; with `end`, the last link to that body half a spacing after it (a
/// bridge).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainFile {
    pub count: u32,
    pub origin: Vec2,
    pub spacing: Vec2,
    pub shape: ShapeFile,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    #[serde(default)]
    pub joint: RevoluteFile,
}

/// `count` bodies made of `shape` at random positions in the box `min..max` with random
/// angles in `-max_angle..max_angle`, from a seeded generator: the same seed gives the same
/// scene on every machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterFile {
    pub count: u32,
    pub seed: u64,
    pub min: Vec2,
    pub max: Vec2,
    pub shape: ShapeFile,
    #[serde(default)]
    pub max_angle: f32,
}

/// `columns x rows` copies of another generator, each moved by `step` (x per column, y per
/// row) from the previous one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepeatFile {
    pub columns: u32,
    pub rows: u32,
    pub step: Vec2,
    pub of: Box<Generator>,
}

impl Generator {
    /// The variant's name as written in files.
    pub fn name(&self) -> &'static str {
        match self {
            Generator::Pyramid(_) => "Pyramid",
            Generator::Stack(_) => "Stack",
            Generator::Grid(_) => "Grid",
            Generator::Chain(_) => "Chain",
            Generator::Scatter(_) => "Scatter",
            Generator::Repeat(_) => "Repeat",
            Generator::Ragdoll(_) => "Ragdoll",
        }
    }
}

fn one_column() -> u32 {
    1
}

fn column_spacing() -> f32 {
    3.0
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
    /// One per joint, in creation order (the order of `joints`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<JointStateFile>,
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
    /// The shapes' reaches (the boxes swept by the motion that they pair with static shapes
    /// by), as `proxy_boxes`; empty when each is its proxy box.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reach_boxes: Vec<(Vec2, Vec2)>,
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
            reach_boxes: Vec::new(),
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
    /// The manifold recycling cache (`ManifoldCache`), when valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<ManifoldCacheFile>,
    /// TGS-Sticky's friction anchors (`StickyAnchors`), when they hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sticky: Option<StickyAnchorsFile>,
}

/// `StickyAnchors` that hold: per anchored point (`ids`, 0 to 2 of them) the anchors on A
/// and B in the bodies' frames, and the normal in A's and in B's frame when anchored.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StickyAnchorsFile {
    pub ids: Vec<u32>,
    pub anchor_a: Vec<Vec2>,
    pub anchor_b: Vec<Vec2>,
    pub normal_a: Vec2,
    pub normal_b: Vec2,
}

/// `ManifoldCache`: rotations as `(cos, sin)`, the relative frame as `(position, (cos,
/// sin))`, and per point the anchors on A and B and the separation then.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ManifoldCacheFile {
    pub rotation_a: (f32, f32),
    pub rotation_b: (f32, f32),
    pub relative: (Vec2, (f32, f32)),
    pub anchor_a: [Vec2; 2],
    pub anchor_b: [Vec2; 2],
    pub base_separation: [f32; 2],
}

impl Default for ContactFile {
    fn default() -> Self {
        ContactFile {
            shape_a: (0, 0),
            shape_b: (0, 0),
            normal: Vec2::ZERO,
            points: Vec::new(),
            cache: None,
            sticky: None,
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

/// Declares `JointStateFile`, the core's `JointState` variant for variant and field for field,
/// with the conversions both ways.
macro_rules! joint_state_file {
    ($($variant:ident($state:ident) {
        $($(#[$fmeta:meta])* $field:ident: $ty:ty),* $(,)?
    }),* $(,)?) => {
        /// A joint's exact solver state (`JointState`): local anchors and axes, reference
        /// angles and lengths as computed at creation, offsets and targets, and accumulated
        /// impulses. Written by export, one per joint.
        #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub enum JointStateFile {
            $($variant { $($(#[$fmeta])* $field: $ty),* },)*
        }

        impl From<&JointState> for JointStateFile {
            fn from(s: &JointState) -> Self {
                match *s {
                    $(JointState::$variant(crate::physics::joint::$state { $($field),* }) => {
                        JointStateFile::$variant { $($field: convert($field)),* }
                    })*
                }
            }
        }

        impl From<&JointStateFile> for JointState {
            fn from(s: &JointStateFile) -> Self {
                match *s {
                    $(JointStateFile::$variant { $($field),* } => {
                        JointState::$variant(crate::physics::joint::$state {
                            $($field: convert($field)),*
                        })
                    })*
                }
            }
        }

        impl JointStateFile {
            /// The variant's name as written in files.
            pub fn name(&self) -> &'static str {
                match self {
                    $(JointStateFile::$variant { .. } => stringify!($variant),)*
                }
            }

            /// Every number of the state with its field name (a vector gives two).
            pub fn numbers(&self) -> Vec<(&'static str, f32)> {
                let mut out = Vec::new();
                match self {
                    $(JointStateFile::$variant { $($field),* } => {
                        $(StateNumber::push_to(*$field, stringify!($field), &mut out);)*
                    })*
                }
                out
            }
        }
    };
}

/// A saved number between its core type and its file type (the same type, or an
/// `OptionalImpulse` written as a plain number).
fn convert<A: Into<B>, B>(a: A) -> B {
    a.into()
}

/// A number or vector of a saved state, flattened for the loader's checks.
trait StateNumber {
    fn push_to(self, field: &'static str, out: &mut Vec<(&'static str, f32)>);
}

impl StateNumber for f32 {
    fn push_to(self, field: &'static str, out: &mut Vec<(&'static str, f32)>) {
        out.push((field, self));
    }
}

impl StateNumber for Vec2 {
    fn push_to(self, field: &'static str, out: &mut Vec<(&'static str, f32)>) {
        out.push((field, self.x));
        out.push((field, self.y));
    }
}

joint_state_file! {
    Revolute(RevoluteState) {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        reference_angle: f32,
        linear_impulse: Vec2,
        motor_impulse: f32,
        lower_impulse: f32,
        upper_impulse: f32,
        /// Left out of files when zero (every joint without a spring), as in files written
        /// before the spring existed.
        #[serde(default, skip_serializing_if = "is_zero")]
        spring_impulse: f32,
    },
    Prismatic(PrismaticState) {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        local_axis_a: Vec2,
        reference_angle: f32,
        impulse: Vec2,
        motor_impulse: f32,
        lower_impulse: f32,
        upper_impulse: f32,
    },
    Wheel(WheelState) {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        local_axis_a: Vec2,
        perp_impulse: f32,
        spring_impulse: f32,
        motor_impulse: f32,
        lower_impulse: f32,
        upper_impulse: f32,
    },
    Weld(WeldState) {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        reference_angle: f32,
        linear_impulse: Vec2,
        angular_impulse: f32,
    },
    Angle(AngleState) {
        offset: f32,
        impulse: f32,
        lower_impulse: f32,
        upper_impulse: f32,
    },
    Pulley(PulleyState) {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        length_a: f32,
        length_b: f32,
        constant: f32,
        impulse: f32,
    },
    Distance(DistanceState) {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        length: f32,
        impulse: f32,
        lower_impulse: f32,
        upper_impulse: f32,
    },
    Motor(MotorState) {
        linear_offset: Vec2,
        angular_offset: f32,
        linear_impulse: Vec2,
        angular_impulse: f32,
    },
    Friction(FrictionState) {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        linear_impulse: Vec2,
        angular_impulse: f32,
    },
    Mouse(MouseState) {
        target: Vec2,
        local_anchor_b: Vec2,
        impulse: Vec2,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One definition of every joint kind with every option away from its default.
    fn unusual_defs() -> Vec<JointDefKind> {
        let v = Vec2::new;
        vec![
            RevoluteJointDef {
                anchor: v(1.0, 2.0),
                reference_angle: Some(0.75),
                softness: 0.01,
                bias_factor: Some(0.3),
                enable_limit: true,
                lower_angle: -0.5,
                upper_angle: 0.25,
                enable_motor: true,
                motor_speed: 2.0,
                max_motor_torque: 30.0,
                enable_spring: true,
                spring_hertz: 5.0,
                spring_damping_ratio: 0.5,
            }
            .into(),
            PrismaticJointDef {
                anchor: v(-1.0, 0.5),
                axis: v(0.6, 0.8),
                enable_limit: true,
                lower_translation: -1.0,
                upper_translation: 2.0,
                enable_motor: true,
                motor_speed: -0.5,
                max_motor_force: 40.0,
            }
            .into(),
            WheelJointDef {
                anchor: v(3.0, 0.4),
                axis: v(0.0, -1.0),
                enable_spring: false,
                hertz: 4.0,
                damping_ratio: 0.2,
                enable_motor: true,
                motor_speed: -8.0,
                max_motor_torque: 300.0,
                enable_limit: true,
                lower_translation: -0.3,
                upper_translation: 0.2,
            }
            .into(),
            WeldJointDef {
                anchor: v(0.5, 0.5),
                linear_hertz: 30.0,
                angular_hertz: 60.0,
                linear_damping_ratio: 0.7,
                angular_damping_ratio: 0.1,
            }
            .into(),
            AngleJointDef {
                ratio: -2.0,
                offset: Some(0.1),
                enable_limit: true,
                lower_angle: -0.2,
                upper_angle: 0.3,
            }
            .into(),
            PulleyJointDef {
                ground_anchor_a: v(2.0, 9.0),
                ground_anchor_b: v(6.0, 9.0),
                anchor_a: v(2.0, 4.5),
                anchor_b: v(6.0, 6.5),
                ratio: 2.0,
            }
            .into(),
            DistanceJointDef {
                anchor_a: v(-1.0, 9.0),
                anchor_b: v(1.5, 9.0),
                length: Some(2.5),
                enable_spring: true,
                hertz: 1.5,
                damping_ratio: 0.1,
                enable_limit: true,
                min_length: 1.5,
                max_length: 4.0,
            }
            .into(),
            MotorJointDef {
                linear_offset: Some(v(4.0, 0.0)),
                angular_offset: Some(0.2),
                max_force: 200.0,
                max_torque: 50.0,
                correction_factor: 0.5,
            }
            .into(),
            FrictionJointDef {
                anchor: v(-7.0, 1.5),
                max_force: 2.0,
                max_torque: 0.5,
            }
            .into(),
            MouseJointDef {
                target: v(0.0, 8.0),
                hertz: 3.0,
                damping_ratio: 0.4,
                max_force: 400.0,
            }
            .into(),
        ]
    }

    #[test]
    fn every_core_joint_option_survives_file_text_and_back() {
        for def in unusual_defs() {
            def.validate().unwrap();
            let file = JointKindFile::from(&def);
            let text = crate::scene::ron_options().to_string(&file).unwrap();
            let read: JointKindFile = crate::scene::ron_options().from_str(&text).unwrap();
            assert_eq!(read, file, "{text}");
            assert_eq!(read.to_core(), def, "{text}");
            // Every option was away from its default, so each one was written and read.
            let defaults = match &file {
                JointKindFile::Revolute(_) => JointKindFile::Revolute(Default::default()),
                JointKindFile::Prismatic(_) => JointKindFile::Prismatic(Default::default()),
                JointKindFile::Wheel(_) => JointKindFile::Wheel(Default::default()),
                JointKindFile::Weld(_) => JointKindFile::Weld(Default::default()),
                JointKindFile::Angle(_) => JointKindFile::Angle(Default::default()),
                JointKindFile::Pulley(_) => JointKindFile::Pulley(Default::default()),
                JointKindFile::Distance(_) => JointKindFile::Distance(Default::default()),
                JointKindFile::Motor(_) => JointKindFile::Motor(Default::default()),
                JointKindFile::Friction(_) => JointKindFile::Friction(Default::default()),
                JointKindFile::Mouse(_) => JointKindFile::Mouse(Default::default()),
            };
            assert_ne!(file, defaults);
        }
    }

    #[test]
    fn file_defaults_are_the_core_defaults() {
        // Options left out of a file mean what they mean in the core (`max_length` left out
        // is the core's unbounded `UNBOUNDED_LENGTH`).
        assert_eq!(
            RevoluteFile::default().to_core(),
            RevoluteJointDef::default()
        );
        assert_eq!(
            PrismaticFile::default().to_core(),
            PrismaticJointDef::default()
        );
        assert_eq!(WheelFile::default().to_core(), WheelJointDef::default());
        assert_eq!(WeldFile::default().to_core(), WeldJointDef::default());
        assert_eq!(AngleFile::default().to_core(), AngleJointDef::default());
        assert_eq!(PulleyFile::default().to_core(), PulleyJointDef::default());
        assert_eq!(
            DistanceFile::default().to_core(),
            DistanceJointDef::default()
        );
        assert_eq!(MotorFile::default().to_core(), MotorJointDef::default());
        assert_eq!(
            FrictionFile::default().to_core(),
            FrictionJointDef::default()
        );
        assert_eq!(MouseFile::default().to_core(), MouseJointDef::default());
        assert_eq!(
            DistanceFile::from(&DistanceJointDef::default()),
            DistanceFile::default()
        );
    }

    #[test]
    fn reset_field_knows_every_option() {
        let mut r = RevoluteFile {
            lower_angle: 1.0,
            ..Default::default()
        };
        assert!(r.reset_field("lower_angle"));
        assert_eq!(r, RevoluteFile::default());
        assert!(!r.reset_field("no_such_option"));
    }
}
