//! Rapier 2D (pure Rust, single thread: no `parallel` feature).
//!
//! How the benchmark settings map onto Rapier 0.36 (its solver is a soft-step TGS like
//! Box2D v3's: each "solver iteration" is a sub-step with one biased PGS pass and one
//! relax (stabilization) pass):
//! - 4 sub-steps: `num_solver_iterations = 4`, `num_internal_pgs_iterations = 1`,
//!   `num_internal_stabilization_iterations = 1`;
//! - contacts 30 Hz, damping ratio 10, and 60 Hz against fixed bodies: `contact_softness`,
//!   `static_contact_softness` (Rapier's defaults already);
//! - push-out <= 3 m/s: `normalized_max_corrective_velocity = 3`; slop 0.005:
//!   `normalized_allowed_linear_error = 0.005` (Rapier corrects overlap to zero; the slop only
//!   sets a standoff);
//! - joints 60 Hz, damping ratio 2: per joint `softness`; warm starting of joints on
//!   (`warmstart_joints = true`, off by default in Rapier), contacts always warm started;
//! - sleeping off: `can_sleep(false)` on every body;
//! - the revolute motor is a velocity motor with a damping factor (Rapier has no rigid motor
//!   constraint): factor 1e4 makes it nearly rigid (compliance ~2% at the sub-step).
//!
//! Left at Rapier's defaults: the 2x2 block solver (default feature), contact recycling
//! (Box2D 3.2 recycles contacts too), CCD on (one sub-step), friction solved only in the relax
//! pass, prediction distance 0.02 m.

use rapier2d::prelude::*;

use crate::scenes::{self, FilterSpec, SceneSpec, ShapeSpec};
use crate::{BuildError, Sim};

pub struct RapierSim {
    bodies: RigidBodySet,
    colliders: ColliderSet,
    impulse_joints: ImpulseJointSet,
    multibody_joints: MultibodyJointSet,
    soft_bodies: SoftBodySet,
    pipeline: PhysicsPipeline,
    broad_phase: BroadPhaseBvh,
    narrow_phase: NarrowPhase,
    islands: IslandManager,
    ccd: CCDSolver,
    params: IntegrationParameters,
    gravity: Vector,
    handles: Vec<RigidBodyHandle>,
}

/// Damping factor of the velocity motor (see the module docs).
const MOTOR_FACTOR: f32 = 1.0e4;

pub fn parameters() -> IntegrationParameters {
    IntegrationParameters {
        dt: scenes::DT,
        num_solver_iterations: scenes::SUBSTEPS as usize,
        num_internal_pgs_iterations: 1,
        num_internal_stabilization_iterations: 1,
        contact_softness: SpringCoefficients::new(
            scenes::CONTACT_HERTZ,
            scenes::CONTACT_DAMPING_RATIO,
        ),
        static_contact_softness: SpringCoefficients::new(
            2.0 * scenes::CONTACT_HERTZ,
            scenes::CONTACT_DAMPING_RATIO,
        ),
        warmstart_coefficient: 1.0,
        warmstart_joints: true,
        normalized_allowed_linear_error: scenes::LINEAR_SLOP,
        normalized_max_corrective_velocity: scenes::CONTACT_PUSH_MAX_VELOCITY,
        ..IntegrationParameters::default()
    }
}

fn groups(f: FilterSpec) -> InteractionGroups {
    InteractionGroups::new(
        Group::from_bits_retain(f.category),
        Group::from_bits_retain(f.mask),
        InteractionTestMode::And,
    )
}

pub fn build(spec: &SceneSpec) -> Result<RapierSim, BuildError> {
    let mut bodies = RigidBodySet::new();
    let mut colliders = ColliderSet::new();
    let mut impulse_joints = ImpulseJointSet::new();
    let mut handles = Vec::with_capacity(spec.bodies.len());
    for b in &spec.bodies {
        let builder = if b.dynamic {
            RigidBodyBuilder::dynamic().can_sleep(false)
        } else {
            RigidBodyBuilder::fixed()
        };
        let handle = bodies.insert(builder.translation(Vector::new(b.position[0], b.position[1])));
        for s in &b.shapes {
            let collider = match *s {
                ShapeSpec::Box { half, center } => ColliderBuilder::cuboid(half[0], half[1])
                    .translation(Vector::new(center[0], center[1])),
                ShapeSpec::Circle { radius } => ColliderBuilder::ball(radius),
                ShapeSpec::Segment { a, b } => {
                    ColliderBuilder::segment(Vector::new(a[0], a[1]), Vector::new(b[0], b[1]))
                }
            }
            .density(b.density)
            .friction(scenes::FRICTION)
            .restitution(scenes::RESTITUTION)
            .collision_groups(groups(b.filter));
            colliders.insert_with_parent(collider, handle, &mut bodies);
        }
        handles.push(handle);
    }
    for j in &spec.joints {
        let pa = spec.bodies[j.body_a].position;
        let pb = spec.bodies[j.body_b].position;
        let mut joint = RevoluteJointBuilder::new()
            .local_anchor1(Vector::new(j.anchor[0] - pa[0], j.anchor[1] - pa[1]))
            .local_anchor2(Vector::new(j.anchor[0] - pb[0], j.anchor[1] - pb[1]))
            .contacts_enabled(false)
            .softness(SpringCoefficients::new(
                scenes::JOINT_HERTZ,
                scenes::JOINT_DAMPING_RATIO,
            ));
        if let Some(m) = j.motor {
            joint = joint
                .motor_velocity(m.speed, MOTOR_FACTOR)
                .motor_max_force(m.max_torque);
        }
        impulse_joints.insert(handles[j.body_a], handles[j.body_b], joint, true);
    }
    Ok(RapierSim {
        bodies,
        colliders,
        impulse_joints,
        multibody_joints: MultibodyJointSet::new(),
        soft_bodies: SoftBodySet::new(),
        pipeline: PhysicsPipeline::new(),
        broad_phase: BroadPhaseBvh::new(),
        narrow_phase: NarrowPhase::new(),
        islands: IslandManager::new(),
        ccd: CCDSolver::new(),
        params: parameters(),
        gravity: Vector::new(scenes::GRAVITY[0], scenes::GRAVITY[1]),
        handles,
    })
}

impl Sim for RapierSim {
    fn step(&mut self) {
        self.pipeline.step(
            self.gravity,
            &self.params,
            &mut self.islands,
            &mut self.broad_phase,
            &mut self.narrow_phase,
            &mut self.bodies,
            &mut self.colliders,
            &mut self.impulse_joints,
            &mut self.multibody_joints,
            &mut self.soft_bodies,
            &mut self.ccd,
            &(),
            &(),
        );
    }

    fn body_y(&mut self, index: usize) -> f32 {
        self.bodies
            .get(self.handles[index])
            .map_or(f32::NAN, |b| b.translation().y)
    }

    /// Pairs with at least one active contact point.
    fn touching_pairs(&mut self) -> usize {
        self.narrow_phase
            .contact_pairs()
            .filter(|p| p.has_any_active_contact())
            .count()
    }
}

impl RapierSim {
    /// Every pair record of the narrow phase, touching or not (for the memory figures).
    pub fn pair_records(&self) -> usize {
        self.narrow_phase.contact_pairs().count()
    }
}
