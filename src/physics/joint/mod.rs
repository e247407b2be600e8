//! Joints: one file per joint type, all with the same skeleton (definition with `Default`,
//! state, accessors, `prepare`, `warm_start`, `solve`, `draw`). Dispatch is one exhaustive
//! `match` on the closed enum `JointKind` per stage.
//!
//! Placeholder until the joint types land: the enums are empty.

use super::body::Body;
use super::debug_draw::{DebugDraw, DrawFlags};
use super::error::PhysicsResult;
use super::math::Vec2;
use super::solver::{SolverBody, StepContext};
use super::BodyHandle;

/// The per-type definition of a joint.
#[derive(Clone, Debug, PartialEq)]
pub enum JointDefKind {}

/// Everything needed to create a joint.
#[derive(Clone, Debug, PartialEq)]
pub struct JointDef {
    pub body_a: BodyHandle,
    pub body_b: BodyHandle,
    /// Let the two bodies collide with each other. Default off.
    pub collide_connected: bool,
    pub name: Option<String>,
    pub kind: JointDefKind,
}

/// The per-type state of a joint.
#[derive(Clone, Debug)]
pub enum JointKind {}

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

impl Joint {
    pub(crate) fn new(def: &JointDef, _body_a: &Body, _body_b: &Body) -> PhysicsResult<Joint> {
        match def.kind {}
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

    pub(crate) fn prepare(&mut self, _body_a: &Body, _body_b: &Body, _ctx: &StepContext) {
        match self.kind {}
    }

    pub(crate) fn warm_start(&mut self, _bodies: &mut [SolverBody], _ctx: &StepContext) {
        match self.kind {}
    }

    pub(crate) fn solve(
        &mut self,
        _bodies: &mut [SolverBody],
        _ctx: &StepContext,
        _use_bias: bool,
    ) {
        match self.kind {}
    }

    pub(crate) fn draw(
        &self,
        _body_a: &Body,
        _body_b: &Body,
        _draw: &mut dyn DebugDraw,
        _flags: &DrawFlags,
    ) {
        match self.kind {}
    }

    /// Reaction force on body B at its anchor, N, from the last step.
    pub fn reaction_force(&self, _inv_dt: f32) -> Vec2 {
        match self.kind {}
    }

    /// Reaction torque on body B, N m, from the last step.
    pub fn reaction_torque(&self, _inv_dt: f32) -> f32 {
        match self.kind {}
    }

    /// Current linear constraint error, metres.
    pub fn linear_error(&self, _body_a: &Body, _body_b: &Body) -> f32 {
        match self.kind {}
    }

    /// Current angular constraint error, radians.
    pub fn angular_error(&self, _body_a: &Body, _body_b: &Body) -> f32 {
        match self.kind {}
    }
}
