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
//! - a revolute spring (rain's ragdolls) is a second joint on the pair locking nothing, with
//!   an unbounded acceleration-based position motor of stiffness omega^2 and damping
//!   2 zeta omega: Box2D's soft spring (see `revolute_spring`); the reference angle turns the
//!   joint frame on the first body.
//!
//! - friction mixes as sqrt(a b) (`GeometricMean`) and restitution as the larger (`Max`), as
//!   in Impulse and Box2D (Rapier's default is the average).
//!
//! Left at Rapier's defaults: the 2x2 block solver (default feature), contact recycling
//! (Box2D 3.2 recycles contacts too), CCD on (one sub-step), friction solved only in the relax
//! pass, prediction distance 0.02 m.

use rapier2d::prelude::*;

use crate::scenes::{
    BodySpec, FilterSpec, JointKindSpec, JointSpec, SceneSpec, ShapeSpec, SpringSpec, WorldSpec,
};
use crate::verdict_port::{self, LocalJoint, Pose};
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
    /// The scene's joints with their anchors in the bodies' frames, for the verdicts' gaps.
    joints: Vec<(JointSpec, LocalJoint)>,
    /// Joint softness, for joints created mid-run.
    softness: SpringCoefficients<f32>,
    /// Bodies created mid-run, by slot (rain's groups).
    spawned: Vec<Vec<RigidBodyHandle>>,
}

/// Damping factor of the velocity motor (see the module docs).
const MOTOR_FACTOR: f32 = 1.0e4;

pub fn parameters(world: &WorldSpec) -> IntegrationParameters {
    IntegrationParameters {
        dt: world.dt,
        num_solver_iterations: world.substeps as usize,
        num_internal_pgs_iterations: 1,
        num_internal_stabilization_iterations: 1,
        contact_softness: SpringCoefficients::new(world.contact_hertz, world.contact_damping_ratio),
        static_contact_softness: SpringCoefficients::new(
            2.0 * world.contact_hertz,
            world.contact_damping_ratio,
        ),
        warmstart_coefficient: 1.0,
        warmstart_joints: true,
        normalized_allowed_linear_error: world.linear_slop,
        normalized_max_corrective_velocity: world.contact_push_max_velocity,
        ..IntegrationParameters::default()
    }
}

fn vector(p: [f32; 2]) -> Vector {
    Vector::new(p[0], p[1])
}

fn groups(f: FilterSpec) -> InteractionGroups {
    InteractionGroups::new(
        Group::from_bits_retain(f.category),
        Group::from_bits_retain(f.mask),
        InteractionTestMode::And,
    )
}

/// Create body `b` with its colliders.
fn add_body(
    bodies: &mut RigidBodySet,
    colliders: &mut ColliderSet,
    b: &BodySpec,
) -> Result<RigidBodyHandle, BuildError> {
    let builder = if b.dynamic {
        RigidBodyBuilder::dynamic().can_sleep(false)
    } else if b.kinematic {
        RigidBodyBuilder::kinematic_velocity_based().can_sleep(false)
    } else {
        RigidBodyBuilder::fixed()
    };
    let builder = builder
        .translation(vector(b.position))
        .rotation(b.angle)
        .linvel(vector(b.linear_velocity))
        .angvel(b.angular_velocity)
        .linear_damping(b.linear_damping)
        .angular_damping(b.angular_damping)
        .gravity_scale(b.gravity_scale);
    let handle = bodies.insert(builder);
    for shape in &b.shapes {
        let collider = match &shape.geometry {
            &ShapeSpec::Box { half, center } => {
                ColliderBuilder::cuboid(half[0], half[1]).translation(vector(center))
            }
            &ShapeSpec::Circle { center, radius } => {
                ColliderBuilder::ball(radius).translation(vector(center))
            }
            ShapeSpec::Polygon { vertices, radius } => {
                let points: Vec<Vector> = vertices.iter().map(|&p| vector(p)).collect();
                let built = if *radius > 0.0 {
                    ColliderBuilder::round_convex_hull(&points, *radius)
                } else {
                    ColliderBuilder::convex_hull(&points)
                };
                built.ok_or_else(|| {
                    BuildError::Failed(format!("rapier: no convex hull of {vertices:?}"))
                })?
            }
            &ShapeSpec::Capsule { a, b, radius } => {
                ColliderBuilder::capsule_from_endpoints(vector(a), vector(b), radius)
            }
            &ShapeSpec::Segment { a, b } => ColliderBuilder::segment(vector(a), vector(b)),
        }
        .density(shape.density)
        .friction(shape.friction)
        .friction_combine_rule(CoefficientCombineRule::GeometricMean)
        .restitution(shape.restitution)
        .restitution_combine_rule(CoefficientCombineRule::Max)
        .collision_groups(groups(shape.filter));
        colliders.insert_with_parent(collider, handle, bodies);
    }
    Ok(handle)
}

/// Rapier's joints for `j` (anchors in the bodies' frames in `local`): one, or for a sprung
/// revolute joint two (see `revolute_spring`).
fn make_joint(
    j: &JointSpec,
    local: &LocalJoint,
    softness: SpringCoefficients<f32>,
) -> Vec<GenericJoint> {
    match j.kind {
        JointKindSpec::Revolute {
            motor,
            limit,
            spring,
            reference_angle,
        } => {
            let mut joint = RevoluteJointBuilder::new()
                .local_anchor1(vector(local.anchor_a))
                .local_anchor2(vector(local.anchor_b))
                .contacts_enabled(j.collide_connected)
                .softness(softness);
            if let Some(m) = motor {
                joint = joint
                    .motor_velocity(m.speed, MOTOR_FACTOR)
                    .motor_max_force(m.max_torque);
            }
            if let Some((lower, upper)) = limit {
                joint = joint.limits([lower, upper]);
            }
            // Rapier's joint angle is measured between the joint frames: A's frame turned by
            // the reference angle measures `angle_b - angle_a - reference_angle`.
            let mut joint: GenericJoint = joint.build().into();
            joint.set_local_frame1(turned_frame(local.anchor_a, reference_angle));
            let mut out = vec![joint];
            if let Some(s) = spring {
                out.push(revolute_spring(j, local, reference_angle, s));
            }
            out
        }
        JointKindSpec::Prismatic { limit, .. } => {
            let mut joint = PrismaticJointBuilder::new(vector(local.axis_a))
                .local_anchor1(vector(local.anchor_a))
                .local_anchor2(vector(local.anchor_b))
                .local_axis2(vector(local.axis_b))
                .contacts_enabled(j.collide_connected)
                .softness(softness);
            if let Some((lower, upper)) = limit {
                joint = joint.limits([lower, upper]);
            }
            vec![joint.build().into()]
        }
    }
}

/// A joint frame at `anchor` (body frame) turned by `angle`.
fn turned_frame(anchor: [f32; 2], angle: f32) -> rapier2d::math::Pose {
    rapier2d::math::Pose::new(vector(anchor), angle)
}

/// A revolute spring as Rapier can hold it. Rapier gives a joint axis one motor with one force
/// bound, and the revolute joint's motor already models the joint friction (speed 0, bounded
/// torque), so the spring is a second joint on the same pair that locks nothing and drives
/// the angle with an unbounded position motor. With `MotorModel::AccelerationBased` and
/// `stiffness = omega^2`, `damping = 2 zeta omega` (`omega = 2 pi hertz`), Rapier's motor
/// coefficients are Box2D's soft spring exactly: `erp / dt = k / (dt k + c) =
/// omega / (2 zeta + dt omega)` (Box2D's bias rate), and the mass is the joint's angular
/// effective mass in both (`1 / (i_a + i_b)`).
fn revolute_spring(
    j: &JointSpec,
    local: &LocalJoint,
    reference_angle: f32,
    spring: SpringSpec,
) -> GenericJoint {
    let omega = 2.0 * std::f32::consts::PI * spring.hertz;
    GenericJointBuilder::new(JointAxesMask::empty())
        .local_frame1(turned_frame(local.anchor_a, reference_angle))
        .local_frame2(turned_frame(local.anchor_b, 0.0))
        .contacts_enabled(j.collide_connected)
        .motor_model(JointAxis::AngX, MotorModel::AccelerationBased)
        .motor_position(
            JointAxis::AngX,
            0.0,
            omega * omega,
            2.0 * spring.damping_ratio * omega,
        )
        .build()
}
pub fn build(spec: &SceneSpec) -> Result<RapierSim, BuildError> {
    let world = spec.world;
    let mut bodies = RigidBodySet::new();
    let mut colliders = ColliderSet::new();
    let mut impulse_joints = ImpulseJointSet::new();
    let mut handles = Vec::with_capacity(spec.bodies.len());
    for b in &spec.bodies {
        handles.push(add_body(&mut bodies, &mut colliders, b)?);
    }
    let softness = SpringCoefficients::new(world.joint_hertz, world.joint_damping_ratio);
    let mut joints = Vec::with_capacity(spec.joints.len());
    for j in &spec.joints {
        let local = LocalJoint::new(j, &spec.bodies);
        for joint in make_joint(j, &local, softness) {
            impulse_joints.insert(handles[j.body_a], handles[j.body_b], joint, true);
        }
        joints.push((*j, local));
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
        params: parameters(&world),
        gravity: vector(world.gravity),
        handles,
        joints,
        softness,
        spawned: Vec::new(),
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

    fn body_x(&mut self, index: usize) -> f32 {
        self.bodies
            .get(self.handles[index])
            .map_or(f32::NAN, |b| b.translation().x)
    }

    fn set_velocity(&mut self, index: usize, v: [f32; 2]) {
        if let Some(b) = self.bodies.get_mut(self.handles[index]) {
            b.set_linvel(vector(v), true);
        }
    }

    fn spawn(&mut self, slot: usize, bodies: &[BodySpec], joints: &[JointSpec]) {
        let handles: Vec<RigidBodyHandle> = bodies
            .iter()
            .map(|b| add_body(&mut self.bodies, &mut self.colliders, b).expect("rapier spawn"))
            .collect();
        for j in joints {
            let local = LocalJoint::new(j, bodies);
            for joint in make_joint(j, &local, self.softness) {
                self.impulse_joints
                    .insert(handles[j.body_a], handles[j.body_b], joint, true);
            }
        }
        if self.spawned.len() <= slot {
            self.spawned.resize(slot + 1, Vec::new());
        }
        self.spawned[slot] = handles;
    }

    fn despawn(&mut self, slot: usize) {
        for h in self
            .spawned
            .get_mut(slot)
            .map(std::mem::take)
            .unwrap_or_default()
        {
            self.bodies.remove(
                h,
                &mut self.islands,
                &mut self.colliders,
                &mut self.impulse_joints,
                &mut self.multibody_joints,
                &mut self.soft_bodies,
                true,
            );
        }
    }

    fn spawned_y(&mut self) -> Vec<f32> {
        let bodies = &self.bodies;
        self.spawned
            .iter()
            .flatten()
            .filter_map(|&h| bodies.get(h).map(|b| b.translation().y))
            .collect()
    }

    /// Pairs with at least one active contact point.
    fn touching_pairs(&mut self) -> usize {
        self.narrow_phase
            .contact_pairs()
            .filter(|p| p.has_any_active_contact())
            .count()
    }
}

impl impulse::verdicts::Judged for RapierSim {
    fn step(&mut self) {
        Sim::step(self);
    }

    fn body(&mut self, index: usize) -> impulse::verdicts::BodyReading {
        self.bodies
            .get(self.handles[index])
            .map_or(verdict_port::NAN_READING, |b| {
                let p = b.translation();
                let v = b.linvel();
                verdict_port::reading([p.x, p.y], b.rotation().angle(), [v.x, v.y])
            })
    }

    fn joint_gap(&mut self) -> f32 {
        let mut gap: f32 = 0.0;
        for (spec, local) in &self.joints {
            let pose = |i: usize| {
                self.bodies.get(self.handles[i]).map_or(
                    Pose {
                        position: [f32::NAN; 2],
                        angle: f32::NAN,
                    },
                    |b| Pose {
                        position: [b.translation().x, b.translation().y],
                        angle: b.rotation().angle(),
                    },
                )
            };
            gap = gap.max(local.gap(spec, pose(spec.body_a), pose(spec.body_b)));
        }
        gap
    }

    fn max_overlap(&mut self) -> f32 {
        let mut overlap: f32 = 0.0;
        for pair in self.narrow_phase.contact_pairs() {
            for manifold in pair.manifolds() {
                for point in &manifold.points {
                    overlap = overlap.max(-point.dist);
                }
            }
        }
        overlap
    }
}

impl RapierSim {
    /// Every pair record of the narrow phase, touching or not (for the memory figures).
    pub fn pair_records(&self) -> usize {
        self.narrow_phase.contact_pairs().count()
    }
}
