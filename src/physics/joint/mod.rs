//! Joints: one file per joint type, all with the same skeleton (definition with `Default`,
//! state, accessors, `prepare`, `warm_start`, `solve`, `draw`). Dispatch is one exhaustive
//! `match` on the closed enum `JointKind` per stage.
//!
//! Table of contents:
//! - [`revolute`]: a shared point (pin); limits, motor, Box2D-Lite softness.
//! - [`prismatic`]: slide along an axis without rotation; limits, motor.
//! - [`wheel`]: slide along an axis with free rotation; suspension spring, motor, limits.
//! - [`weld`]: fixed relative position and angle (one 3x3 block); optional softness.
//! - [`angle`]: relative angle (gear-like ratio); limits.
//! - [`pulley`]: `length_a + ratio * length_b` constant through two ground anchors.
//! - [`distance`]: anchor distance; rigid, rope (min/max) or spring.
//! - [`motor`]: drives B to an offset and angle relative to A.
//! - [`friction`]: top-down friction.
//! - [`mouse`]: drags a body point to a target.
//! - `rows`: the limit and motor rows on a joint coordinate, shared by the joints above.
//!
//! Conventions shared by every joint:
//! - Definitions take **world** anchors and axes (like Box2D v2's `Initialize`); `Joint::new`
//!   stores them in the bodies' frames (anchors relative to the body origin).
//! - Pair quantities are `_a` / `_b`; every impulse acts negatively on A and positively on B
//!   unless a file says otherwise; `r_a`, `r_b` are arms from the centres of mass.
//! - Impulses: `impulse = -mass_scale * mass * (c_dot + bias) - impulse_scale * accumulated`
//!   with `bias = bias_rate * C` ([`Softness`]). Classic solver: Baumgarte
//!   (`bias_rate = bias_factor / dt`, mass scale 1, impulse scale 0). Soft step: the world's
//!   `joint_softness` in the solve pass, rigid without bias in the relax pass; `C` is
//!   recomputed every sub-step from the solver bodies' `dp`, `dq` (anchors fixed in the
//!   bodies: `r = dq.rotate(r0)`, Box2D v3 style).
//! - Accumulated impulses persist across steps for warm starting (zeroed when warm starting
//!   is off). With `accumulate_impulses` off, limits, motors and ropes clamp each increment
//!   instead of the accumulated impulse.
//! - `reaction_force(inv_dt)` / `reaction_torque(inv_dt)`: accumulated impulse times
//!   `inv_dt`, where `inv_dt` is the inverse of the (sub-)step the solver used
//!   (`substeps / dt`).

pub mod angle;
pub mod distance;
pub mod friction;
pub mod motor;
pub mod mouse;
pub mod prismatic;
pub mod pulley;
pub mod revolute;
mod rows;
pub mod weld;
pub mod wheel;

pub use angle::{AngleJoint, AngleJointDef};
pub use distance::{DistanceJoint, DistanceJointDef};
pub use friction::{FrictionJoint, FrictionJointDef};
pub use motor::{MotorJoint, MotorJointDef};
pub use mouse::{MouseJoint, MouseJointDef};
pub use prismatic::{PrismaticJoint, PrismaticJointDef};
pub use pulley::{PulleyJoint, PulleyJointDef};
use revolute::RevoluteRow;
pub use revolute::{RevoluteJoint, RevoluteJointDef};
pub use weld::{WeldJoint, WeldJointDef};
pub use wheel::{WheelJoint, WheelJointDef};

use super::body::Body;
use super::debug_draw::{DebugDraw, DrawFlags, DrawKind};
use super::error::{check_finite, PhysicsError, PhysicsResult};
use super::math::{cross, cross_sv, Vec2};
use super::settings::SolverKind;
use super::solver::{Softness, SolverBody, StepContext};
use super::BodyHandle;
use crate::physics::settings::JOINT_POSITION_FRACTION;
use glam::Vec3;

/// The per-type definition of a joint.
#[derive(Clone, Debug, PartialEq)]
pub enum JointDefKind {
    Revolute(RevoluteJointDef),
    Prismatic(PrismaticJointDef),
    Wheel(WheelJointDef),
    Weld(WeldJointDef),
    Angle(AngleJointDef),
    Pulley(PulleyJointDef),
    Distance(DistanceJointDef),
    Motor(MotorJointDef),
    Friction(FrictionJointDef),
    Mouse(MouseJointDef),
}

/// Everything needed to create a joint.
#[derive(Clone, Debug, PartialEq)]
pub struct JointDef {
    pub body_a: BodyHandle,
    pub body_b: BodyHandle,
    /// Let the two bodies collide with each other. Default off.
    pub collide_connected: bool,
    /// An optional name to find the joint by. Default none.
    pub name: Option<String>,
    pub kind: JointDefKind,
}

impl JointDef {
    /// A joint between `body_a` and `body_b`, not colliding, unnamed.
    pub fn new(body_a: BodyHandle, body_b: BodyHandle, kind: impl Into<JointDefKind>) -> Self {
        JointDef {
            body_a,
            body_b,
            collide_connected: false,
            name: None,
            kind: kind.into(),
        }
    }

    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    pub fn collide_connected(mut self, collide: bool) -> Self {
        self.collide_connected = collide;
        self
    }
}

macro_rules! def_into_kind {
    ($($def:ident => $variant:ident),* $(,)?) => {$(
        impl From<$def> for JointDefKind {
            fn from(def: $def) -> Self {
                JointDefKind::$variant(def)
            }
        }
    )*};
}

def_into_kind!(
    RevoluteJointDef => Revolute,
    PrismaticJointDef => Prismatic,
    WheelJointDef => Wheel,
    WeldJointDef => Weld,
    AngleJointDef => Angle,
    PulleyJointDef => Pulley,
    DistanceJointDef => Distance,
    MotorJointDef => Motor,
    FrictionJointDef => Friction,
    MouseJointDef => Mouse,
);

/// The per-type state of a joint.
#[derive(Clone, Debug)]
pub enum JointKind {
    Revolute(RevoluteJoint),
    Prismatic(PrismaticJoint),
    Wheel(WheelJoint),
    Weld(WeldJoint),
    Angle(AngleJoint),
    Pulley(PulleyJoint),
    Distance(DistanceJoint),
    Motor(MotorJoint),
    Friction(FrictionJoint),
    Mouse(MouseJoint),
}

impl JointKind {
    /// The joint type's name as scene files spell it (`"revolute"`, `"pulley"`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            JointKind::Revolute(_) => "revolute",
            JointKind::Prismatic(_) => "prismatic",
            JointKind::Wheel(_) => "wheel",
            JointKind::Weld(_) => "weld",
            JointKind::Angle(_) => "angle",
            JointKind::Pulley(_) => "pulley",
            JointKind::Distance(_) => "distance",
            JointKind::Motor(_) => "motor",
            JointKind::Friction(_) => "friction",
            JointKind::Mouse(_) => "mouse",
        }
    }
}

/// A joint as the world stores it.
#[derive(Clone, Debug)]
pub struct Joint {
    pub(crate) body_a: BodyHandle,
    pub(crate) body_b: BodyHandle,
    pub(crate) collide_connected: bool,
    pub(crate) name: Option<String>,
    pub(crate) kind: JointKind,
    /// Solver array indices of A and B for the current step.
    pub(crate) index_a: usize,
    pub(crate) index_b: usize,
}

/// One arm per joint type: `each!(self.kind, j => expr)`.
macro_rules! each {
    ($kind:expr, $j:ident => $body:expr) => {
        match $kind {
            JointKind::Revolute($j) => $body,
            JointKind::Prismatic($j) => $body,
            JointKind::Wheel($j) => $body,
            JointKind::Weld($j) => $body,
            JointKind::Angle($j) => $body,
            JointKind::Pulley($j) => $body,
            JointKind::Distance($j) => $body,
            JointKind::Motor($j) => $body,
            JointKind::Friction($j) => $body,
            JointKind::Mouse($j) => $body,
        }
    };
}

impl Joint {
    pub(crate) fn new(def: &JointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<Joint> {
        if let Some(name) = &def.name {
            if name.is_empty() {
                return Err(PhysicsError::new("name", "a joint name must not be empty"));
            }
        }
        let kind = match &def.kind {
            JointDefKind::Revolute(d) => {
                JointKind::Revolute(RevoluteJoint::new(d, body_a, body_b)?)
            }
            JointDefKind::Prismatic(d) => {
                JointKind::Prismatic(PrismaticJoint::new(d, body_a, body_b)?)
            }
            JointDefKind::Wheel(d) => JointKind::Wheel(WheelJoint::new(d, body_a, body_b)?),
            JointDefKind::Weld(d) => JointKind::Weld(WeldJoint::new(d, body_a, body_b)?),
            JointDefKind::Angle(d) => JointKind::Angle(AngleJoint::new(d, body_a, body_b)?),
            JointDefKind::Pulley(d) => JointKind::Pulley(PulleyJoint::new(d, body_a, body_b)?),
            JointDefKind::Distance(d) => {
                JointKind::Distance(DistanceJoint::new(d, body_a, body_b)?)
            }
            JointDefKind::Motor(d) => JointKind::Motor(MotorJoint::new(d, body_a, body_b)?),
            JointDefKind::Friction(d) => {
                JointKind::Friction(FrictionJoint::new(d, body_a, body_b)?)
            }
            JointDefKind::Mouse(d) => JointKind::Mouse(MouseJoint::new(d, body_a, body_b)?),
        };
        Ok(Joint {
            body_a: def.body_a,
            body_b: def.body_b,
            collide_connected: def.collide_connected,
            name: def.name.clone(),
            kind,
            index_a: 0,
            index_b: 0,
        })
    }

    pub fn body_a(&self) -> BodyHandle {
        self.body_a
    }
    pub fn body_b(&self) -> BodyHandle {
        self.body_b
    }
    pub fn collide_connected(&self) -> bool {
        self.collide_connected
    }
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    pub fn kind(&self) -> &JointKind {
        &self.kind
    }
    /// Change motor speeds, limits, targets. Get the joint through `World::joint_mut` so
    /// that its bodies wake up.
    pub fn kind_mut(&mut self) -> &mut JointKind {
        &mut self.kind
    }

    /// World anchor on body A (for the mouse joint: the target).
    pub fn anchor_a(&self, body_a: &Body) -> Vec2 {
        each!(&self.kind, j => j.anchor_a(body_a))
    }

    /// World anchor on body B.
    pub fn anchor_b(&self, body_b: &Body) -> Vec2 {
        each!(&self.kind, j => j.anchor_b(body_b))
    }

    /// The anchors in the bodies' frames whose arms `prepare` computes for the joint
    /// (`Vec2::ZERO` where a joint has none: the angle joint's, the mouse's A).
    fn local_anchors(&self) -> (Vec2, Vec2) {
        match &self.kind {
            JointKind::Revolute(j) => (j.local_anchor_a, j.local_anchor_b),
            JointKind::Prismatic(j) => (j.local_anchor_a, j.local_anchor_b),
            JointKind::Wheel(j) => (j.local_anchor_a, j.local_anchor_b),
            JointKind::Weld(j) => (j.local_anchor_a, j.local_anchor_b),
            JointKind::Angle(_) => (Vec2::ZERO, Vec2::ZERO),
            JointKind::Pulley(j) => (j.local_anchor_a, j.local_anchor_b),
            JointKind::Distance(j) => (j.local_anchor_a, j.local_anchor_b),
            JointKind::Motor(j) => (j.linear_offset, Vec2::ZERO),
            JointKind::Friction(j) => (j.local_anchor_a, j.local_anchor_b),
            JointKind::Mouse(j) => (Vec2::ZERO, j.local_anchor_b),
        }
    }

    /// Prepare: the shared part (`Anchors`: the bodies' pair and the anchors' arms) once,
    /// then the joint's own.
    pub(crate) fn prepare(&mut self, body_a: &Body, body_b: &Body, ctx: &StepContext) {
        let pair = BodyPair::new(self.index_a, self.index_b, body_a, body_b);
        let (local_a, local_b) = self.local_anchors();
        let anchors = Anchors {
            pair,
            frame_a: arm(body_a, local_a),
            frame_b: arm(body_b, local_b),
        };
        each!(&mut self.kind, j => j.prepare(&anchors, body_a, body_b, ctx))
    }

    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], ctx: &StepContext) {
        each!(&mut self.kind, j => j.warm_start(bodies, ctx))
    }

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        each!(&mut self.kind, j => j.solve(bodies, ctx, use_bias))
    }

    /// The compact soft-step row of a prepared joint, when the joint is a free revolute pin
    /// (see `RevoluteRow`); `slot` is the joint's slot in the world's arena.
    pub(crate) fn revolute_row(&self, slot: usize) -> Option<RevoluteRow> {
        match &self.kind {
            JointKind::Revolute(r) => RevoluteRow::of(r, slot),
            _ => None,
        }
    }

    /// Take back the accumulated impulse of the joint's `revolute_row`.
    pub(crate) fn store_row_impulse(&mut self, impulse: Vec2) {
        if let JointKind::Revolute(r) = &mut self.kind {
            r.linear_impulse = impulse;
        }
    }

    pub(crate) fn draw(
        &self,
        body_a: &Body,
        body_b: &Body,
        draw: &mut dyn DebugDraw,
        flags: &DrawFlags,
    ) {
        each!(&self.kind, j => j.draw(body_a, body_b, draw, flags))
    }

    /// Reaction force on body B at its anchor, N, from the last step. `inv_dt` is the
    /// inverse of the (sub-)step the solver used: `substeps / dt`.
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        each!(&self.kind, j => j.reaction_force(inv_dt))
    }

    /// Reaction torque on body B, N m, from the last step (`inv_dt` as above).
    pub fn reaction_torque(&self, inv_dt: f32) -> f32 {
        each!(&self.kind, j => j.reaction_torque(inv_dt))
    }

    /// Current linear constraint error, metres (0 for joints without one).
    pub fn linear_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        each!(&self.kind, j => j.linear_error(body_a, body_b))
    }

    /// Current angular constraint error, radians (0 for joints without one).
    pub fn angular_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        each!(&self.kind, j => j.angular_error(body_a, body_b))
    }
}

// --------------------------------------------------------------------------------------
// Definition and solver state of an existing joint (scene export and restore).

impl JointDefKind {
    /// Check every field; the first problem found, naming its field.
    pub fn validate(&self) -> PhysicsResult<()> {
        match self {
            JointDefKind::Revolute(d) => d.validate(),
            JointDefKind::Prismatic(d) => d.validate(),
            JointDefKind::Wheel(d) => d.validate(),
            JointDefKind::Weld(d) => d.validate(),
            JointDefKind::Angle(d) => d.validate(),
            JointDefKind::Pulley(d) => d.validate(),
            JointDefKind::Distance(d) => d.validate(),
            JointDefKind::Motor(d) => d.validate(),
            JointDefKind::Friction(d) => d.validate(),
            JointDefKind::Mouse(d) => d.validate(),
        }
    }
}

impl Joint {
    /// A definition that recreates this joint with its current options, world anchors and
    /// axes taken from the bodies' current poses. Reference angles and local anchors are
    /// recomputed from those poses on creation, so they may differ in the last bits:
    /// [`Joint::state`] carries the exact ones.
    pub fn definition(&self, body_a: &Body, body_b: &Body) -> JointDef {
        let kind: JointDefKind = match &self.kind {
            JointKind::Revolute(j) => RevoluteJointDef {
                anchor: j.anchor_a(body_a),
                softness: j.softness,
                bias_factor: j.bias_factor,
                enable_limit: j.limit.enabled,
                lower_angle: j.limit.lower,
                upper_angle: j.limit.upper,
                enable_motor: j.motor.enabled,
                motor_speed: j.motor.speed,
                max_motor_torque: j.motor.max,
            }
            .into(),
            JointKind::Prismatic(j) => PrismaticJointDef {
                anchor: j.anchor_a(body_a),
                axis: body_a.q.rotate(j.local_axis_a),
                enable_limit: j.limit.enabled,
                lower_translation: j.limit.lower,
                upper_translation: j.limit.upper,
                enable_motor: j.motor.enabled,
                motor_speed: j.motor.speed,
                max_motor_force: j.motor.max,
            }
            .into(),
            JointKind::Wheel(j) => WheelJointDef {
                anchor: j.anchor_a(body_a),
                axis: body_a.q.rotate(j.local_axis_a),
                enable_spring: j.enable_spring,
                hertz: j.hertz,
                damping_ratio: j.damping_ratio,
                enable_motor: j.motor.enabled,
                motor_speed: j.motor.speed,
                max_motor_torque: j.motor.max,
                enable_limit: j.limit.enabled,
                lower_translation: j.limit.lower,
                upper_translation: j.limit.upper,
            }
            .into(),
            JointKind::Weld(j) => WeldJointDef {
                anchor: j.anchor_a(body_a),
                linear_hertz: j.linear_hertz,
                angular_hertz: j.angular_hertz,
                linear_damping_ratio: j.linear_damping_ratio,
                angular_damping_ratio: j.angular_damping_ratio,
            }
            .into(),
            JointKind::Angle(j) => AngleJointDef {
                ratio: j.ratio,
                offset: Some(j.offset),
                enable_limit: j.limit.enabled,
                lower_angle: j.limit.lower,
                upper_angle: j.limit.upper,
            }
            .into(),
            JointKind::Pulley(j) => PulleyJointDef {
                ground_anchor_a: j.ground_anchor_a,
                ground_anchor_b: j.ground_anchor_b,
                anchor_a: j.anchor_a(body_a),
                anchor_b: j.anchor_b(body_b),
                ratio: j.ratio,
            }
            .into(),
            JointKind::Distance(j) => DistanceJointDef {
                anchor_a: j.anchor_a(body_a),
                anchor_b: j.anchor_b(body_b),
                length: Some(j.length),
                enable_spring: j.enable_spring,
                hertz: j.hertz,
                damping_ratio: j.damping_ratio,
                enable_limit: j.limit.enabled,
                min_length: j.limit.lower,
                max_length: j.limit.upper,
            }
            .into(),
            JointKind::Motor(j) => MotorJointDef {
                linear_offset: Some(j.linear_offset),
                angular_offset: Some(j.angular_offset),
                max_force: j.max_force,
                max_torque: j.max_torque,
                correction_factor: j.correction_factor,
            }
            .into(),
            JointKind::Friction(j) => FrictionJointDef {
                anchor: j.anchor_a(body_a),
                max_force: j.max_force,
                max_torque: j.max_torque,
            }
            .into(),
            JointKind::Mouse(j) => MouseJointDef {
                target: j.target,
                hertz: j.hertz,
                damping_ratio: j.damping_ratio,
                max_force: j.max_force,
            }
            .into(),
        };
        JointDef {
            body_a: self.body_a,
            body_b: self.body_b,
            collide_connected: self.collide_connected,
            name: self.name.clone(),
            kind,
        }
    }
}

/// A number a joint state holds: checked finite on restore, fed to the state hash.
trait StateValue: Copy {
    fn is_finite_value(self) -> bool;
    fn push_bits(self, out: &mut Vec<u32>);
}

impl StateValue for f32 {
    fn is_finite_value(self) -> bool {
        self.is_finite()
    }
    fn push_bits(self, out: &mut Vec<u32>) {
        out.push(self.to_bits());
    }
}

impl StateValue for Vec2 {
    fn is_finite_value(self) -> bool {
        self.is_finite()
    }
    fn push_bits(self, out: &mut Vec<u32>) {
        out.push(self.x.to_bits());
        out.push(self.y.to_bits());
    }
}

/// The place of a `JointState` field in its joint: `j.field`, or `j.path` for a field
/// declared `field: Type = path` (a value kept in a part such as `limit.lower_impulse`).
macro_rules! state_place {
    ($j:ident, $field:ident) => {
        $j.$field
    };
    ($j:ident, $field:ident, $($place:ident).+) => {
        $j.$($place).+
    };
}

/// Declares `JointState` (one variant per joint type, fields named like the joint's own, or
/// `field: Type = path` where the joint keeps the value in a part) with `Joint::state`,
/// `Joint::restore_state` and `JointState::bits`.
macro_rules! joint_states {
    ($($variant:ident = $type_name:literal {
        $($field:ident: $ty:ty $(= $($place:ident).+)?),* $(,)?
    }),* $(,)?) => {
        /// What a joint carries from step to step beyond its definition: the exact local
        /// anchors, axes, reference angles and lengths computed at creation, the motor joint's
        /// offsets, the mouse target, and the accumulated impulses that warm start the next
        /// step. Scene export saves it so that a loaded scene continues bit for bit.
        #[doc(hidden)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum JointState {
            $($variant { $($field: $ty),* },)*
        }

        impl JointState {
            /// The joint type's name (`"revolute"`, ...), as `JointKind::type_name`.
            pub fn type_name(&self) -> &'static str {
                match self {
                    $(JointState::$variant { .. } => $type_name,)*
                }
            }

            /// Every number's bits, in field order (for `World::state_hash`).
            pub(crate) fn bits(&self, out: &mut Vec<u32>) {
                match self {
                    $(JointState::$variant { $($field),* } => {
                        $(StateValue::push_bits(*$field, out);)*
                    })*
                }
            }
        }

        impl Joint {
            /// The joint's solver state (see [`JointState`]).
            #[doc(hidden)]
            pub fn state(&self) -> JointState {
                match &self.kind {
                    $(JointKind::$variant(j) => JointState::$variant {
                        $($field: state_place!(j, $field $(, $($place).+)?)),*
                    },)*
                }
            }

            /// Put back a saved state. Refused (and nothing changed) when it is of another
            /// joint type or holds a number that is not finite.
            pub(crate) fn restore_state(&mut self, state: &JointState) -> PhysicsResult<()> {
                match (&mut self.kind, state) {
                    $((JointKind::$variant(j), JointState::$variant { $($field),* }) => {
                        $(
                            if !StateValue::is_finite_value(*$field) {
                                return Err(PhysicsError::new(
                                    stringify!($field),
                                    format!("must be finite, got {:?}", $field),
                                ));
                            }
                        )*
                        $(state_place!(j, $field $(, $($place).+)?) = *$field;)*
                        Ok(())
                    })*
                    (kind, state) => Err(PhysicsError::new(
                        "state",
                        format!(
                            "the state of a {} joint cannot be given to a {} joint",
                            state.type_name(),
                            kind.type_name()
                        ),
                    )),
                }
            }
        }
    };
}

joint_states! {
    Revolute = "revolute" {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        reference_angle: f32,
        linear_impulse: Vec2,
        motor_impulse: f32 = motor.impulse,
        lower_impulse: f32 = limit.lower_impulse,
        upper_impulse: f32 = limit.upper_impulse,
    },
    Prismatic = "prismatic" {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        local_axis_a: Vec2,
        reference_angle: f32,
        impulse: Vec2,
        motor_impulse: f32 = motor.impulse,
        lower_impulse: f32 = limit.lower_impulse,
        upper_impulse: f32 = limit.upper_impulse,
    },
    Wheel = "wheel" {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        local_axis_a: Vec2,
        perp_impulse: f32,
        spring_impulse: f32,
        motor_impulse: f32 = motor.impulse,
        lower_impulse: f32 = limit.lower_impulse,
        upper_impulse: f32 = limit.upper_impulse,
    },
    Weld = "weld" {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        reference_angle: f32,
        linear_impulse: Vec2,
        angular_impulse: f32,
    },
    Angle = "angle" {
        offset: f32,
        impulse: f32,
        lower_impulse: f32 = limit.lower_impulse,
        upper_impulse: f32 = limit.upper_impulse,
    },
    Pulley = "pulley" {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        length_a: f32,
        length_b: f32,
        constant: f32,
        impulse: f32,
    },
    Distance = "distance" {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        length: f32,
        impulse: f32,
        lower_impulse: f32 = limit.lower_impulse,
        upper_impulse: f32 = limit.upper_impulse,
    },
    Motor = "motor" {
        linear_offset: Vec2,
        angular_offset: f32,
        linear_impulse: Vec2,
        angular_impulse: f32,
    },
    Friction = "friction" {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        linear_impulse: Vec2,
        angular_impulse: f32,
    },
    Mouse = "mouse" {
        target: Vec2,
        local_anchor_b: Vec2,
        impulse: Vec2,
    },
}

// --------------------------------------------------------------------------------------
// Helpers shared by the joint files.

/// What every joint's `prepare` starts from, computed once before dispatch: the bodies as
/// the step sees them and the arms from their centres of mass to the joint's anchors
/// (world axes; see `Joint::local_anchors`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Anchors {
    pub pair: BodyPair,
    pub frame_a: Vec2,
    pub frame_b: Vec2,
}

/// The two bodies of a joint as one (sub-)step sees them: solver indices, inverse masses
/// (zero for index 0, the shared static body) and the state at the start of the step.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BodyPair {
    pub index_a: usize,
    pub index_b: usize,
    pub m_a: f32,
    pub m_b: f32,
    pub i_a: f32,
    pub i_b: f32,
    /// Centres of mass at the start of the step, world.
    pub center_a: Vec2,
    pub center_b: Vec2,
    /// Angles at the start of the step, radians (unwrapped).
    pub angle_a: f32,
    pub angle_b: f32,
}

impl BodyPair {
    pub fn new(index_a: usize, index_b: usize, body_a: &Body, body_b: &Body) -> BodyPair {
        let (m_a, i_a) = if index_a == 0 {
            (0.0, 0.0)
        } else {
            (body_a.inv_mass, body_a.inv_inertia)
        };
        let (m_b, i_b) = if index_b == 0 {
            (0.0, 0.0)
        } else {
            (body_b.inv_mass, body_b.inv_inertia)
        };
        BodyPair {
            index_a,
            index_b,
            m_a,
            m_b,
            i_a,
            i_b,
            center_a: body_a.center,
            center_b: body_b.center,
            angle_a: body_a.angle,
            angle_b: body_b.angle,
        }
    }

    #[inline]
    pub fn load(&self, bodies: &[SolverBody]) -> (SolverBody, SolverBody) {
        (bodies[self.index_a], bodies[self.index_b])
    }

    /// Write the velocities back (index 0, the shared static body, is never written).
    #[inline]
    pub fn store(&self, bodies: &mut [SolverBody], body_a: &SolverBody, body_b: &SolverBody) {
        if self.index_a != 0 {
            bodies[self.index_a].v = body_a.v;
            bodies[self.index_a].w = body_a.w;
        }
        if self.index_b != 0 {
            bodies[self.index_b].v = body_b.v;
            bodies[self.index_b].w = body_b.w;
        }
    }

    /// Current `d = (c_b + r_b) - (c_a + r_a)` from the displacements since step start.
    #[inline]
    pub fn separation(&self, a: &SolverBody, b: &SolverBody, r_a: Vec2, r_b: Vec2) -> Vec2 {
        (self.center_b - self.center_a) + (b.dp - a.dp) + (r_b - r_a)
    }

    /// Current `angle_b - angle_a`, radians.
    #[inline]
    pub fn relative_angle(&self, a: &SolverBody, b: &SolverBody) -> f32 {
        (self.angle_b - self.angle_a) + (b.d_angle - a.d_angle)
    }

    /// Inverse of `i_a + i_b` (0 when neither body can turn).
    pub fn axial_mass(&self) -> f32 {
        inv_or_zero(self.i_a + self.i_b)
    }

    /// The 2x2 K of a point constraint `C = p_b - p_a` (seed 000: `K = K1 + K2 + K3`) as
    /// `(k11, k12, k22)`:
    /// ```text
    /// K = (m_a + m_b) I + i_a [r_a.y^2, -r_a.x r_a.y; ., r_a.x^2] + i_b [same with r_b]
    /// ```
    pub fn point_k(&self, r_a: Vec2, r_b: Vec2) -> (f32, f32, f32) {
        let m = self.m_a + self.m_b;
        let k11 = m + self.i_a * r_a.y * r_a.y + self.i_b * r_b.y * r_b.y;
        let k12 = -self.i_a * r_a.x * r_a.y - self.i_b * r_b.x * r_b.y;
        let k22 = m + self.i_a * r_a.x * r_a.x + self.i_b * r_b.x * r_b.x;
        (k11, k12, k22)
    }

    /// Warm start a point block and an angular row (revolute, weld, motor, friction joints):
    /// the accumulated `linear` impulse at the arms (`frame_a`, `frame_b` turned by the
    /// sub-step rotations), then the `angular` one.
    pub fn warm_start_point(
        &self,
        bodies: &mut [SolverBody],
        frame_a: Vec2,
        frame_b: Vec2,
        linear: Vec2,
        angular: f32,
    ) {
        let (mut a, mut b) = self.load(bodies);
        let r_a = a.dq.rotate(frame_a);
        let r_b = b.dq.rotate(frame_b);
        apply_linear(&mut a, &mut b, r_a, r_b, linear);
        apply_angular(&mut a, &mut b, angular);
        self.store(bodies, &a, &b);
    }
}

/// The geometry of a slide (prismatic and wheel joints) at the current sub-step: the arms,
/// `d = (c_b + r_b) - (c_a + r_a)` and the axis fixed in A with `perp = skew(axis)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slide {
    pub pair: BodyPair,
    pub r_a: Vec2,
    pub r_b: Vec2,
    pub d: Vec2,
    pub axis: Vec2,
    pub perp: Vec2,
}

impl Slide {
    /// From the arms and axis at step start (`frame_a`, `frame_b`, `axis_a`, world axes)
    /// turned by the sub-step rotations.
    #[inline]
    pub fn new(
        pair: &BodyPair,
        frame_a: Vec2,
        frame_b: Vec2,
        axis_a: Vec2,
        a: &SolverBody,
        b: &SolverBody,
    ) -> Slide {
        let r_a = a.dq.rotate(frame_a);
        let r_b = b.dq.rotate(frame_b);
        let d = pair.separation(a, b, r_a, r_b);
        let axis = a.dq.rotate(axis_a);
        Slide {
            pair: *pair,
            r_a,
            r_b,
            d,
            axis,
            perp: Vec2::new(-axis.y, axis.x),
        }
    }

    /// The line row along `dir` (`axis` or `perp`):
    /// `J = [-dir, -s_a, dir, s_b]`, `s_a = (d + r_a) x dir`, `s_b = r_b x dir`,
    /// `K = m_a + m_b + i_a s_a^2 + i_b s_b^2`.
    #[inline]
    pub fn row(&self, dir: Vec2) -> LineRow {
        let s_a = cross(self.d + self.r_a, dir);
        let s_b = cross(self.r_b, dir);
        let p = &self.pair;
        LineRow {
            dir,
            s_a,
            s_b,
            k: p.m_a + p.m_b + p.i_a * s_a * s_a + p.i_b * s_b * s_b,
        }
    }

    /// Warm start the two line rows: `axial` along the axis, then `perp` across it.
    #[inline]
    pub fn warm_start(&self, a: &mut SolverBody, b: &mut SolverBody, axial: f32, perp: f32) {
        self.row(self.axis).apply(a, b, axial);
        self.row(self.perp).apply(a, b, perp);
    }
}

/// One line row `J = [-dir, -s_a, dir, s_b]` of a [`Slide`], with its `K`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LineRow {
    pub dir: Vec2,
    pub s_a: f32,
    pub s_b: f32,
    pub k: f32,
}

impl LineRow {
    /// `K^-1` (0 when nothing can move along the row).
    #[inline]
    pub fn mass(&self) -> f32 {
        inv_or_zero(self.k)
    }

    /// `Cdot = dir . (v_b - v_a) + s_b w_b - s_a w_a`.
    #[inline]
    pub fn c_dot(&self, a: &SolverBody, b: &SolverBody) -> f32 {
        self.dir.dot(b.v - a.v) + self.s_b * b.w - self.s_a * a.w
    }

    /// Apply the impulse `lambda` along the row.
    #[inline]
    pub fn apply(&self, a: &mut SolverBody, b: &mut SolverBody, lambda: f32) {
        apply_axial(a, b, self.dir, self.s_a, self.s_b, lambda);
    }
}

/// Arm from the centre of mass to a body-frame anchor (relative to the body origin), in
/// world axes.
#[inline]
pub(crate) fn arm(body: &Body, local_anchor: Vec2) -> Vec2 {
    body.q.rotate(local_anchor - body.local_center)
}

#[inline]
pub(crate) fn inv_or_zero(k: f32) -> f32 {
    if k > 0.0 {
        1.0 / k
    } else {
        0.0
    }
}

/// Relative velocity of the anchor points: `v_b + w_b x r_b - v_a - w_a x r_a`.
#[inline]
pub(crate) fn point_velocity(a: &SolverBody, b: &SolverBody, r_a: Vec2, r_b: Vec2) -> Vec2 {
    b.v + cross_sv(b.w, r_b) - a.v - cross_sv(a.w, r_a)
}

/// Apply the linear impulse `p` at the arms: `-p` on A, `+p` on B.
#[inline]
pub(crate) fn apply_linear(a: &mut SolverBody, b: &mut SolverBody, r_a: Vec2, r_b: Vec2, p: Vec2) {
    a.v -= a.inv_mass * p;
    a.w -= a.inv_inertia * cross(r_a, p);
    b.v += b.inv_mass * p;
    b.w += b.inv_inertia * cross(r_b, p);
}

/// Apply the angular impulse `l`: `-l` on A, `+l` on B.
#[inline]
pub(crate) fn apply_angular(a: &mut SolverBody, b: &mut SolverBody, l: f32) {
    a.w -= a.inv_inertia * l;
    b.w += b.inv_inertia * l;
}

/// Apply an impulse `lambda` along a line Jacobian `[-axis, -s_a, axis, s_b]`.
#[inline]
pub(crate) fn apply_axial(
    a: &mut SolverBody,
    b: &mut SolverBody,
    axis: Vec2,
    s_a: f32,
    s_b: f32,
    lambda: f32,
) {
    let p = lambda * axis;
    a.v -= a.inv_mass * p;
    a.w -= a.inv_inertia * lambda * s_a;
    b.v += b.inv_mass * p;
    b.w += b.inv_inertia * lambda * s_b;
}

/// The softness of a rigid equality constraint for this pass.
/// - Classic: Baumgarte, `bias_rate = bias_factor / dt` with the joint's own factor when
///   given, else the world's; 0 when position correction is off.
/// - Soft step: the world's `joint_softness` when `use_bias`, rigid without bias in relax.
pub(crate) fn rigid_softness(
    ctx: &StepContext,
    use_bias: bool,
    bias_factor: Option<f32>,
) -> Softness {
    match ctx.settings.solver {
        // Classic: a rigid row has no bias in the velocity iterations; its position error
        // is removed by the position pass (NGS, Box2D v2), which removes the whole error per
        // iteration (clamped by the world). A joint with its own `bias_factor` (Box2D-Lite's soft
        // revolute) keeps Box2D-Lite's velocity-level Baumgarte instead.
        SolverKind::Classic => {
            let on = ctx.settings.position_correction && use_bias;
            let bias_rate = match bias_factor {
                Some(beta) if on && !ctx.position_pass => beta * ctx.inv_dt,
                None if on && ctx.position_pass => JOINT_POSITION_FRACTION * ctx.inv_dt,
                _ => 0.0,
            };
            Softness {
                bias_rate,
                mass_scale: 1.0,
                impulse_scale: 0.0,
            }
        }
        SolverKind::SoftStep if use_bias => ctx.joint_softness,
        SolverKind::SoftStep => Softness::RIGID,
    }
}

/// Bias and softness of a one-sided constraint (limit, rope) with position `c` (`c >= 0`
/// wanted): when `c > 0` the gap may close within this step (speculative, `bias = c / dt`,
/// rigid); otherwise as a rigid constraint, `bias = bias_rate * c`.
pub(crate) fn limit_bias(ctx: &StepContext, use_bias: bool, c: f32) -> (f32, Softness) {
    if c > 0.0 {
        (c * ctx.inv_dt, Softness::RIGID)
    } else {
        let s = rigid_softness(ctx, use_bias, None);
        (s.bias_rate * c, s)
    }
}

/// A spring of `hertz` and `damping_ratio` for this (sub-)step (rigid-free when `hertz`
/// is 0: callers skip the spring then).
pub(crate) fn spring_softness(ctx: &StepContext, hertz: f32, damping_ratio: f32) -> Softness {
    Softness::new(hertz, damping_ratio, ctx.dt)
}

/// Add the increment `delta` to the accumulated impulse `acc` and return the increment to
/// apply. With `accumulate`, the accumulated impulse is kept in `[lo, hi]` (sequential
/// impulses); without it, the increment itself is clamped (the naive scheme the toggle
/// demonstrates).
#[inline]
pub(crate) fn clamp_increment(
    acc: &mut f32,
    delta: f32,
    lo: f32,
    hi: f32,
    accumulate: bool,
) -> f32 {
    if accumulate {
        let old = *acc;
        *acc = (old + delta).clamp(lo, hi);
        *acc - old
    } else {
        let d = delta.clamp(lo, hi);
        *acc += d;
        d
    }
}

/// As [`clamp_increment`] for a vector impulse bounded in length by `max`.
#[inline]
pub(crate) fn clamp_increment_vec(acc: &mut Vec2, delta: Vec2, max: f32, accumulate: bool) -> Vec2 {
    let clamp = |v: Vec2| {
        if v.length_squared() > max * max {
            v * (max / v.length())
        } else {
            v
        }
    };
    if accumulate {
        let old = *acc;
        *acc = clamp(old + delta);
        *acc - old
    } else {
        let d = clamp(delta);
        *acc += d;
        d
    }
}

/// Solve the symmetric 2x2 system `[k11 k12; k12 k22] x = b` (zero when singular).
#[inline]
pub(crate) fn solve22(k: (f32, f32, f32), b: Vec2) -> Vec2 {
    let (k11, k12, k22) = k;
    let det = k11 * k22 - k12 * k12;
    if det == 0.0 || !det.is_finite() {
        return Vec2::ZERO;
    }
    let inv = 1.0 / det;
    Vec2::new(inv * (k22 * b.x - k12 * b.y), inv * (k11 * b.y - k12 * b.x))
}

/// Solve the 3x3 system with columns `ex, ey, ez` by Cramer's rule. `None` when singular.
pub(crate) fn solve33(ex: Vec3, ey: Vec3, ez: Vec3, b: Vec3) -> Option<Vec3> {
    let det = ex.dot(ey.cross(ez));
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let inv = 1.0 / det;
    Some(Vec3::new(
        inv * b.dot(ey.cross(ez)),
        inv * ex.dot(b.cross(ez)),
        inv * ex.dot(ey.cross(b)),
    ))
}

/// `Ok` when `lower <= upper` (both finite).
pub(crate) fn check_order(
    lower_field: &'static str,
    lower: f32,
    upper_field: &'static str,
    upper: f32,
) -> PhysicsResult<()> {
    check_finite(lower_field, lower)?;
    check_finite(upper_field, upper)?;
    if lower > upper {
        return Err(PhysicsError::new(
            lower_field,
            format!("must not exceed {upper_field} ({upper}), got {lower}"),
        ));
    }
    Ok(())
}

/// A unit vector from a world axis; refuses zero length and NaN.
pub(crate) fn unit_axis(field: &'static str, axis: Vec2) -> PhysicsResult<Vec2> {
    super::error::check_finite_vec(field, axis)?;
    let len = axis.length();
    if len < 1e-6 {
        return Err(PhysicsError::new(
            field,
            "must be a direction (non-zero length), got (0, 0)",
        ));
    }
    Ok(axis / len)
}

// Drawing helpers.

/// Size of anchor dots, pixels.
pub(crate) const ANCHOR_SIZE: f32 = 6.0;

/// Lines from the centres of moving bodies to their anchors and a dot on each anchor.
pub(crate) fn draw_anchors(
    body_a: &Body,
    body_b: &Body,
    p_a: Vec2,
    p_b: Vec2,
    draw: &mut dyn DebugDraw,
    flags: &DrawFlags,
) {
    if flags.joints {
        if body_a.kind != super::body::BodyKind::Static {
            draw.draw_segment(body_a.center, p_a, DrawKind::Joint);
        }
        if body_b.kind != super::body::BodyKind::Static {
            draw.draw_segment(body_b.center, p_b, DrawKind::Joint);
        }
        if (p_b - p_a).length_squared() > 1e-8 {
            draw.draw_segment(p_a, p_b, DrawKind::Joint);
        }
    }
    if flags.joint_anchors {
        draw.draw_point(p_a, ANCHOR_SIZE, DrawKind::JointAnchor);
        draw.draw_point(p_b, ANCHOR_SIZE, DrawKind::JointAnchor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solvers_invert_their_systems() {
        let k = (2.0, 0.5, 1.0);
        let x = solve22(k, Vec2::new(1.0, 2.0));
        assert!((2.0 * x.x + 0.5 * x.y - 1.0).abs() < 1e-6);
        assert!((0.5 * x.x + 1.0 * x.y - 2.0).abs() < 1e-6);
        let (ex, ey, ez) = (
            Vec3::new(3.0, 0.2, 0.1),
            Vec3::new(0.2, 2.0, 0.3),
            Vec3::new(0.1, 0.3, 1.0),
        );
        let b = Vec3::new(1.0, -1.0, 0.5);
        let x = solve33(ex, ey, ez, b).unwrap();
        assert!((ex * x.x + ey * x.y + ez * x.z - b).length() < 1e-5);
        // Neither body turns: the angular column is zero and the block is refused.
        assert!(solve33(ex, ey, Vec3::ZERO, b).is_none());
    }

    #[test]
    fn clamping_accumulated_and_incremental() {
        let mut acc = 1.0;
        let d = clamp_increment(&mut acc, -3.0, 0.0, f32::INFINITY, true);
        assert_eq!((acc, d), (0.0, -1.0));
        let mut acc = 1.0;
        let d = clamp_increment(&mut acc, -3.0, 0.0, f32::INFINITY, false);
        assert_eq!((acc, d), (1.0, 0.0));
    }
}
