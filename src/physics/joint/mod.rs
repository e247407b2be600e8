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
mod breaking;
pub mod distance;
pub mod friction;
pub mod motor;
pub mod mouse;
pub mod prismatic;
pub mod pulley;
pub mod revolute;
mod rows;
mod state;
pub mod weld;
pub mod wheel;

pub use angle::{AngleJoint, AngleJointDef, AngleState};
pub use breaking::{check_threshold, BreakCause, JointEvent, OnBreak};
pub use distance::{DistanceJoint, DistanceJointDef, DistanceState};
pub use friction::{FrictionJoint, FrictionJointDef, FrictionState};
pub use motor::{MotorJoint, MotorJointDef, MotorState};
pub use mouse::{MouseJoint, MouseJointDef, MouseState};
pub use prismatic::{PrismaticJoint, PrismaticJointDef, PrismaticState};
pub use pulley::{PulleyJoint, PulleyJointDef, PulleyState};
use revolute::RevoluteRow;
pub use revolute::{RevoluteJoint, RevoluteJointDef, RevoluteState};
pub(crate) use rows::{
    apply_angular, apply_linear, arm, check_order, clamp_increment, clamp_increment_vec,
    draw_anchors, inv_or_zero, point_velocity, rigid_softness, solve22, solve33, spring_softness,
    unit_axis, Anchors, BodyPair, Slide, ANCHOR_SIZE,
};
pub(crate) use state::saved_state;
pub use state::OptionalImpulse;
pub use weld::{WeldJoint, WeldJointDef, WeldState};
pub use wheel::{WheelJoint, WheelJointDef, WheelState};

use super::body::Body;
use super::debug_draw::{DebugDraw, DrawFlags};
use super::error::{PhysicsError, PhysicsResult};
use super::limits;
use super::math::Vec2;
use super::solver::{SolverBody, StepContext};
use super::BodyHandle;

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
    /// Break when the reaction force on B (the length of `Joint::reaction_force`) exceeds
    /// this at the end of a step, N (0 ..= 1e12). Default none (never breaks). Box2D v3's
    /// `forceThreshold`.
    pub break_force: Option<f32>,
    /// Break when the reaction torque on B (`|Joint::reaction_torque|`) exceeds this at the
    /// end of a step, N m (0 ..= 1e12). Default none. Box2D v3's `torqueThreshold`.
    pub break_torque: Option<f32>,
    /// What breaking does: disable the joint (kept, drawn as broken, can be re-enabled) or
    /// destroy it. Default `Disable`.
    pub on_break: OnBreak,
    /// A disabled joint is kept but not solved: its bodies move freely and collide with each
    /// other. Default true. A broken joint is disabled.
    pub enabled: bool,
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
            break_force: None,
            break_torque: None,
            on_break: OnBreak::Disable,
            enabled: true,
            kind: kind.into(),
        }
    }

    /// Break above this reaction force, N (see `JointDef::break_force`).
    pub fn break_force(mut self, force: f32) -> Self {
        self.break_force = Some(force);
        self
    }

    /// Break above this reaction torque, N m (see `JointDef::break_torque`).
    pub fn break_torque(mut self, torque: f32) -> Self {
        self.break_torque = Some(torque);
        self
    }

    pub fn on_break(mut self, on_break: OnBreak) -> Self {
        self.on_break = on_break;
        self
    }

    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
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
    /// Break thresholds and what breaking does (`breaking.rs`); false when disabled.
    pub(crate) breaking: breaking::Breaking,
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

/// `Ok` when every anchor of `def` lies within [`limits::MAX_JOINT_ARM`] of the origin of
/// the body it is on, as the scene loader checks a file's joints: longer arms make the
/// solver's effective masses overflow (NaN at 100 m). Non-finite anchors are left to the
/// definitions' own checks.
pub(crate) fn check_arms(def: &JointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<()> {
    let (a, b) = (body_a.position(), body_b.position());
    let arms: [(&'static str, Vec2, &str, Vec2); 2] = match &def.kind {
        JointDefKind::Revolute(d) => [
            ("anchor", d.anchor, "body_a", a),
            ("anchor", d.anchor, "body_b", b),
        ],
        JointDefKind::Prismatic(d) => [
            ("anchor", d.anchor, "body_a", a),
            ("anchor", d.anchor, "body_b", b),
        ],
        JointDefKind::Wheel(d) => [
            ("anchor", d.anchor, "body_a", a),
            ("anchor", d.anchor, "body_b", b),
        ],
        JointDefKind::Weld(d) => [
            ("anchor", d.anchor, "body_a", a),
            ("anchor", d.anchor, "body_b", b),
        ],
        JointDefKind::Friction(d) => [
            ("anchor", d.anchor, "body_a", a),
            ("anchor", d.anchor, "body_b", b),
        ],
        JointDefKind::Pulley(d) => [
            ("anchor_a", d.anchor_a, "body_a", a),
            ("anchor_b", d.anchor_b, "body_b", b),
        ],
        JointDefKind::Distance(d) => [
            ("anchor_a", d.anchor_a, "body_a", a),
            ("anchor_b", d.anchor_b, "body_b", b),
        ],
        JointDefKind::Mouse(d) => [
            ("target", d.target, "body_b", b),
            ("target", d.target, "body_b", b),
        ],
        JointDefKind::Angle(_) | JointDefKind::Motor(_) => return Ok(()),
    };
    for (field, point, body, origin) in arms {
        let d = point.distance(origin);
        if d.is_finite() && d > limits::MAX_JOINT_ARM {
            return Err(PhysicsError::new(
                field,
                format!(
                    "is {} m from {body}'s origin; a joint's anchors lie within {} m of the \
                     bodies they join (longer arms make the solver's effective masses \
                     overflow: NaN at 100 m)",
                    limits::number(d),
                    limits::number(limits::MAX_JOINT_ARM)
                ),
            ));
        }
    }
    Ok(())
}

impl Joint {
    pub(crate) fn new(def: &JointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<Joint> {
        if let Some(name) = &def.name {
            if name.is_empty() {
                return Err(PhysicsError::new("name", "a joint name must not be empty"));
            }
        }
        let breaking = breaking::Breaking::new(def)?;
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
            breaking,
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
    /// the accumulated impulses zeroed when warm starting is off, then the joint's own.
    pub(crate) fn prepare(&mut self, body_a: &Body, body_b: &Body, ctx: &StepContext) {
        let pair = BodyPair::new(self.index_a, self.index_b, body_a, body_b);
        let (local_a, local_b) = self.local_anchors();
        let anchors = Anchors {
            pair,
            frame_a: arm(body_a, local_a),
            frame_b: arm(body_b, local_b),
        };
        if !ctx.warm_starting() {
            each!(&mut self.kind, j => j.zero_impulses());
        }
        each!(&mut self.kind, j => j.prepare(&anchors, body_a, body_b, ctx))
    }

    /// Forget the accumulated impulses (a joint being disabled carries no load; the
    /// quarantine, when a body it joins is frozen or an impulse is not finite).
    pub(crate) fn zero_impulses(&mut self) {
        each!(&mut self.kind, j => j.zero_impulses())
    }

    /// Warm start: last step's impulses; with warm starting off, none (zeroed).
    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], ctx: &StepContext) {
        if !ctx.warm_starting() {
            each!(&mut self.kind, j => j.zero_impulses());
            return;
        }
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
                reference_angle: Some(j.reference_angle),
                softness: j.softness,
                bias_factor: j.bias_factor,
                enable_limit: j.limit.enabled,
                lower_angle: j.limit.lower,
                upper_angle: j.limit.upper,
                enable_motor: j.motor.enabled,
                motor_speed: j.motor.speed,
                max_motor_torque: j.motor.max,
                enable_spring: j.enable_spring,
                spring_hertz: j.spring_hertz,
                spring_damping_ratio: j.spring_damping_ratio,
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
            break_force: self.breaking.break_force,
            break_torque: self.breaking.break_torque,
            on_break: self.breaking.on_break,
            enabled: self.breaking.enabled,
            kind,
        }
    }
}

/// Declares `JointState` (one variant per joint type, holding the state its own file
/// declares with `saved_state!`) with `Joint::state`, `Joint::restore_state` and
/// `JointState::bits`: the one exhaustive match over the saved states.
macro_rules! joint_states {
    ($($variant:ident($state:ident) = $type_name:literal),* $(,)?) => {
        /// What a joint carries from step to step beyond its definition: the exact local
        /// anchors, axes, reference angles and lengths computed at creation, the motor joint's
        /// offsets, the mouse target, and the accumulated impulses that warm start the next
        /// step. Scene export saves it so that a loaded scene continues bit for bit. Each
        /// joint file declares its own (`RevoluteState`, ...).
        #[doc(hidden)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum JointState {
            $($variant($state),)*
        }

        impl JointState {
            /// The joint type's name (`"revolute"`, ...), as `JointKind::type_name`.
            pub fn type_name(&self) -> &'static str {
                match self {
                    $(JointState::$variant(_) => $type_name,)*
                }
            }

            /// Every number's bits, in field order (for `World::state_hash`).
            pub(crate) fn bits(&self, out: &mut Vec<u32>) {
                match self {
                    $(JointState::$variant(s) => s.bits(out),)*
                }
            }
        }

        impl Joint {
            /// The joint's solver state (see [`JointState`]).
            #[doc(hidden)]
            pub fn state(&self) -> JointState {
                match &self.kind {
                    $(JointKind::$variant(j) => JointState::$variant(j.state()),)*
                }
            }

            /// After a step: every accumulated impulse of the state (the fields named
            /// `*impulse`) held inside the saved range ([`limits::ACCUMULATED_IMPULSE`],
            /// ±1e30 N s) that the loader accepts, so every export loads again (a prismatic
            /// joint's `impulse` grew to 1.57e30). Values inside the range are unchanged.
            /// Returns false, with every impulse zeroed, when one was not finite.
            pub(crate) fn hold_impulses(&mut self) -> bool {
                let max = limits::ACCUMULATED_IMPULSE.max;
                let finite = match &mut self.kind {
                    $(JointKind::$variant(j) => j.hold_impulses(max),)*
                };
                if !finite {
                    self.zero_impulses();
                }
                finite
            }

            /// Every number of every accumulated impulse, to write (tests).
            #[cfg(test)]
            pub(crate) fn impulses_mut(&mut self) -> Vec<&mut f32> {
                match &mut self.kind {
                    $(JointKind::$variant(j) => j.impulses_mut(),)*
                }
            }

            /// Put back a saved state. Refused (and nothing changed) when it is of another
            /// joint type or holds a number that is not finite.
            pub(crate) fn restore_state(&mut self, state: &JointState) -> PhysicsResult<()> {
                match (&mut self.kind, state) {
                    $((JointKind::$variant(j), JointState::$variant(s)) => j.restore_state(s),)*
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
    Revolute(RevoluteState) = "revolute",
    Prismatic(PrismaticState) = "prismatic",
    Wheel(WheelState) = "wheel",
    Weld(WeldState) = "weld",
    Angle(AngleState) = "angle",
    Pulley(PulleyState) = "pulley",
    Distance(DistanceState) = "distance",
    Motor(MotorState) = "motor",
    Friction(FrictionState) = "friction",
    Mouse(MouseState) = "mouse",
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

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
