//! The step's stages over the solver's scratch buffers, in the order they run.
//!
//! `StepSolver` owns everything the solver keeps between two steps only to avoid
//! allocating: the solver bodies, the contact family (`ContactSolver`), the joint family
//! (`JointSolver`) and the residual record. Each stage is one method, named like its bullet
//! in the drivers (`classic.rs`, `soft_step.rs`); each calls each constraint family once
//! and never asks which path (scalar or SIMD) the family takes.

use std::time::{Duration, Instant};

use super::contact::{BiasMode, ContactSolver};
use super::joints::JointSolver;
use super::{SolverBody, StepContext};
use crate::physics::body::{Body, BodyKind};
use crate::physics::contact::Contact;
use crate::physics::handle::Arena;
use crate::physics::joint::Joint;
use crate::physics::math::{Rot, Vec2};
use crate::physics::settings::{SolverSettings, MAX_ROTATION_SPEED, MAX_TRANSLATION_SPEED};
use crate::physics::world::StepStats;

/// What of the world the solver stages read and write.
pub(crate) struct StepWorld<'a> {
    pub settings: &'a SolverSettings,
    pub bodies: &'a mut Arena<Body>,
    pub joints: &'a mut Arena<Joint>,
    pub contacts: &'a mut [Contact],
    /// Slot indices of the awake non-static bodies, ascending (solver index - 1).
    pub awake: &'a [usize],
}

/// The solver's scratch buffers and stages. Buffers are reused: no allocation per step once
/// warmed up.
#[derive(Clone, Debug, Default)]
pub(crate) struct StepSolver {
    /// Index 0 is the shared static body, then the awake bodies in slot order.
    pub(crate) bodies: Vec<SolverBody>,
    pub(crate) contacts: ContactSolver,
    pub(crate) joints: JointSolver,
    /// Record the solver residual of every iteration (off by default: costs a pass over
    /// the solver bodies per iteration).
    pub(crate) record_residuals: bool,
    pub(crate) residuals: Vec<f32>,
    pub(super) residual_scratch: Vec<(Vec2, f32)>,
    /// Jacobi: the velocity changes of one iteration, per solver body.
    pub(super) jacobi_deltas: Vec<(Vec2, f32)>,
    /// XPBD: each solver body's motion (`dp`, `d_angle`) at the start of the sub-step.
    pub(super) substep_start: Vec<(Vec2, f32)>,
    /// Time spent in `integrate_positions` since `start_clock`.
    integrate_time: Duration,
}

impl StepSolver {
    /// Start timing a driver's stages.
    pub(crate) fn start_clock(&mut self) -> Instant {
        self.integrate_time = Duration::ZERO;
        Instant::now()
    }

    /// Add the time since `start` to the stats: position integration apart, the rest is
    /// solving.
    pub(crate) fn stop_clock(&self, start: Instant, stats: &mut StepStats) {
        let total = start.elapsed();
        stats.solve_ms += (total - self.integrate_time).as_secs_f32() * 1000.0;
        stats.integrate_ms += self.integrate_time.as_secs_f32() * 1000.0;
    }

    /// Fill the solver body array: index 0 is the shared static body, then every awake
    /// non-static body in slot order.
    pub(crate) fn build_solver_bodies(&mut self, world: &mut StepWorld) {
        self.bodies.clear();
        self.bodies.push(SolverBody::STATIC);
        for (k, &i) in world.awake.iter().enumerate() {
            let b = world.bodies.at_mut(i);
            b.solver_index = k + 1;
            self.bodies.push(SolverBody {
                v: b.linear_velocity,
                w: b.angular_velocity,
                inv_mass: b.inv_mass,
                inv_inertia: b.inv_inertia,
                dp: Vec2::ZERO,
                dq: Rot::IDENTITY,
                d_angle: 0.0,
            });
        }
    }

    /// Gravity, forces and damping into velocities.
    pub(crate) fn integrate_velocities(&mut self, world: &StepWorld, h: f32) {
        let gravity = world.settings.gravity;
        for (k, &i) in world.awake.iter().enumerate() {
            let b = world.bodies.at(i);
            if b.kind != BodyKind::Dynamic {
                continue;
            }
            let sb = &mut self.bodies[k + 1];
            let mut v = sb.v + h * (b.gravity_scale * gravity + b.inv_mass * b.force);
            let mut w = sb.w + h * b.inv_inertia * b.torque;
            // Implicit damping: stable for any damping * h.
            v *= 1.0 / (1.0 + h * b.linear_damping);
            w *= 1.0 / (1.0 + h * b.angular_damping);
            sb.v = v;
            sb.w = w;
        }
    }

    /// Contact constraints, then joints, for this (sub-)step.
    pub(crate) fn prepare(&mut self, world: &mut StepWorld, ctx: &StepContext) {
        self.contacts
            .prepare(world.contacts, world.bodies, &self.bodies, ctx);
        self.joints
            .prepare(world.joints, world.bodies, &self.bodies, ctx);
    }

    /// Apply last step's impulses: joints, then contacts.
    pub(crate) fn warm_start(&mut self, world: &mut StepWorld, ctx: &StepContext) {
        self.joints.warm_start(world.joints, &mut self.bodies, ctx);
        self.contacts.warm_start(&mut self.bodies, ctx);
    }

    /// One pass over joints then contacts, recording the iteration's residual when asked
    /// to.
    pub(crate) fn iterate(&mut self, world: &mut StepWorld, ctx: &StepContext, mode: BiasMode) {
        if !self.record_residuals {
            self.iterate_once(world, ctx, mode);
            return;
        }
        self.residual_scratch.clear();
        self.residual_scratch
            .extend(self.bodies.iter().map(|b| (b.v, b.w)));
        self.iterate_once(world, ctx, mode);
        let mut residual = 0.0;
        for (b, &(v, w)) in self.bodies.iter().zip(&self.residual_scratch) {
            if b.inv_mass > 0.0 {
                residual += (b.v - v).length() / b.inv_mass;
            }
            if b.inv_inertia > 0.0 {
                residual += (b.w - w).abs() / b.inv_inertia;
            }
        }
        self.residuals.push(residual);
    }

    fn iterate_once(&mut self, world: &mut StepWorld, ctx: &StepContext, mode: BiasMode) {
        let use_bias = mode != BiasMode::Relax;
        self.joints
            .solve(world.joints, &mut self.bodies, ctx, use_bias);
        self.contacts.solve(&mut self.bodies, ctx, mode);
    }

    /// Move bodies by their velocities (speeds clamped to the engine limits).
    pub(crate) fn integrate_positions(&mut self, h: f32) {
        let start = Instant::now();
        let max_v2 = MAX_TRANSLATION_SPEED * MAX_TRANSLATION_SPEED;
        for sb in self.bodies.iter_mut().skip(1) {
            let v2 = sb.v.length_squared();
            if v2 > max_v2 {
                if v2.is_finite() {
                    sb.v *= MAX_TRANSLATION_SPEED / v2.sqrt();
                } else if sb.v.is_finite() {
                    // `v . v` overflowed f32 (speeds above ~1.8e19 m/s): scale by the largest
                    // component first, so the cap keeps the direction instead of giving
                    // `MAX / inf = 0`.
                    let u = sb.v / sb.v.abs().max_element();
                    sb.v = u * (MAX_TRANSLATION_SPEED / u.length());
                }
            }
            if !sb.v.is_finite() {
                sb.v = Vec2::ZERO;
            }
            if !sb.w.is_finite() {
                sb.w = 0.0;
            }
            sb.w = sb.w.clamp(-MAX_ROTATION_SPEED, MAX_ROTATION_SPEED);
            sb.dp += h * sb.v;
            sb.d_angle += h * sb.w;
            sb.dq = sb.dq.integrate(h * sb.w);
        }
        self.integrate_time += start.elapsed();
    }

    /// Classic: move the joints' bodies to remove their position error (see
    /// `JointSolver::correct_positions`).
    pub(crate) fn correct_joint_positions(&mut self, world: &mut StepWorld, ctx: &StepContext) {
        self.joints
            .correct_positions(world.joints, world.bodies, &mut self.bodies, ctx);
    }

    /// Restitution, after the last iteration.
    pub(crate) fn restitution(&mut self, ctx: &StepContext) {
        self.contacts.restitution(&mut self.bodies, ctx);
    }

    /// Accumulated contact impulses back to the contacts for the next warm start.
    pub(crate) fn store_impulses(&mut self, world: &mut StepWorld) {
        self.contacts.store_impulses(world.contacts);
    }

    /// The joints' saved state (the compact rows hand their impulses back).
    pub(crate) fn store_joint_state(&mut self, world: &mut StepWorld) {
        self.joints.store_state(world.joints);
    }

    /// Write velocities and motion back to the bodies.
    pub(crate) fn finalize_bodies(&mut self, world: &mut StepWorld) {
        for (k, &i) in world.awake.iter().enumerate() {
            let sb = self.bodies[k + 1];
            let b = world.bodies.at_mut(i);
            b.linear_velocity = sb.v;
            b.angular_velocity = sb.w;
            b.center += sb.dp;
            b.angle += sb.d_angle;
            b.sync_transform();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::physics::body::{BodyDef, BodyKind};
    use crate::physics::joint::JointDef;
    use crate::physics::math::Vec2;
    use crate::physics::settings::{SolverKind, SolverSettings};
    use crate::physics::shape::{Geometry, Polygon, ShapeDef};
    use crate::physics::world::World;

    /// A pyramid of 15 rows on a static box, soft step, sleeping off.
    fn pyramid(four_lanes: bool) -> World {
        let mut world = World::new(SolverSettings {
            solver: SolverKind::SoftStep,
            sleep: false,
            ..SolverSettings::default()
        });
        world.solver.contacts.wide.force_four_lanes = four_lanes;
        let ground = world
            .create_body(&BodyDef::fixed(Vec2::new(0.0, -1.0)))
            .unwrap();
        let slab = Geometry::Polygon(Polygon::new_box(20.0, 1.0).unwrap());
        world.create_shape(ground, &ShapeDef::new(slab)).unwrap();
        let cube = Geometry::Polygon(Polygon::new_box(0.5, 0.5).unwrap());
        for row in 0..15 {
            for k in 0..15 - row {
                let x = (k as f32 - (14 - row) as f32 * 0.5) * 1.05;
                let body = world
                    .create_body(&BodyDef::dynamic(Vec2::new(x, 0.5 + row as f32)))
                    .unwrap();
                world.create_shape(body, &ShapeDef::new(cube)).unwrap();
            }
        }
        world
    }

    /// A resting pyramid reuses nearly every manifold (soft step); a shape added to a body
    /// moves its centre of mass, so that body's cached anchors are forgotten; the classic
    /// solver never recycles.
    #[test]
    fn resting_contacts_recycle_until_a_body_changes() {
        let mut world = pyramid(false);
        let persisted = |w: &World| w.contacts().iter().filter(|c| c.cache().valid).count();
        for _ in 0..60 {
            world.step(1.0 / 60.0);
        }
        let cached = persisted(&world);
        let touching = world.contacts().iter().filter(|c| c.is_touching()).count();
        assert!(
            cached == touching && touching > 200,
            "{cached} of {touching} touching manifolds cached"
        );
        let reused = world.stats().manifolds_reused;
        assert!(
            reused * 10 >= touching * 9,
            "{reused} of {touching} manifolds reused at rest"
        );
        let top = world
            .bodies()
            .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
            .max_by(|a, b| a.1.center.y.total_cmp(&b.1.center.y))
            .map(|(h, _)| h)
            .unwrap();
        let touching_top = world
            .contacts()
            .iter()
            .filter(|c| c.is_touching() && (c.body_a() == top || c.body_b() == top))
            .count();
        assert!(touching_top >= 2);
        let weight =
            Geometry::Polygon(Polygon::new_offset_box(0.2, 0.2, Vec2::new(0.3, 0.3), 0.0).unwrap());
        world.create_shape(top, &ShapeDef::new(weight)).unwrap();
        assert_eq!(
            persisted(&world),
            cached - touching_top,
            "only the changed body's contacts are forgotten"
        );
        // Stepping on computes them afresh and caches them again.
        world.step(1.0 / 60.0);
        assert!(world
            .contacts()
            .iter()
            .filter(|c| c.body_a() == top || c.body_b() == top)
            .all(|c| c.cache().valid || c.manifold().count == 0));

        let mut classic = pyramid(false);
        classic
            .set_settings(SolverSettings {
                solver: SolverKind::Classic,
                ..*classic.settings()
            })
            .unwrap();
        for _ in 0..30 {
            classic.step(1.0 / 60.0);
        }
        assert_eq!(persisted(&classic), 0);
        assert_eq!(classic.stats().manifolds_reused, 0);
    }

    /// The eight-lane (AVX2) and four-lane (SSE2) contact batches must give bitwise the
    /// same step: lanes never interact and a colour's constraints share no moving body.
    /// (On a CPU without AVX2 both runs are four wide and the test is trivially true.)
    #[test]
    fn eight_and_four_lane_contact_batches_step_identically() {
        let mut eight = pyramid(false);
        let mut four = pyramid(true);
        for _ in 0..120 {
            eight.step(1.0 / 60.0);
            four.step(1.0 / 60.0);
        }
        assert!(eight.stats().contacts > 100);
        assert_eq!(eight.state_hash(), four.state_hash());
    }

    /// A 12 x 12 grid of circles pinned to their neighbours above and to the left, hanging
    /// from two static bodies, soft step.
    fn joint_grid(four_lanes: bool) -> World {
        use crate::physics::joint::RevoluteJointDef;
        use crate::physics::shape::Circle;
        let mut world = World::new(SolverSettings {
            solver: SolverKind::SoftStep,
            sleep: false,
            ..SolverSettings::default()
        });
        world.solver.joints.pins.force_four_lanes = four_lanes;
        let n = 12;
        let mut grid = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let p = Vec2::new(j as f32, -(i as f32));
                let def = if i == 0 && (j == 3 || j == 8) {
                    BodyDef::fixed(p)
                } else {
                    BodyDef::dynamic(p)
                };
                let body = world.create_body(&def).unwrap();
                let ball = Geometry::Circle(Circle::new(Vec2::ZERO, 0.4).unwrap());
                world.create_shape(body, &ShapeDef::new(ball)).unwrap();
                grid.push(body);
            }
        }
        for i in 0..n {
            for j in 0..n {
                let body = grid[i * n + j];
                let anchor = Vec2::new(j as f32, -(i as f32));
                for other in [
                    (i > 0).then(|| grid[(i - 1) * n + j]),
                    (j > 0).then(|| grid[i * n + j - 1]),
                ]
                .into_iter()
                .flatten()
                {
                    let pin = RevoluteJointDef {
                        anchor,
                        ..RevoluteJointDef::default()
                    };
                    world
                        .create_joint(&JointDef::new(other, body, pin))
                        .unwrap();
                }
            }
        }
        world
    }

    /// As above for the free revolute pins' batches.
    #[test]
    fn eight_and_four_lane_revolute_batches_step_identically() {
        let mut eight = joint_grid(false);
        let mut four = joint_grid(true);
        for _ in 0..120 {
            eight.step(1.0 / 60.0);
            four.step(1.0 / 60.0);
        }
        assert!(eight.solver.joints.pins.batched_count() > 200);
        assert_eq!(eight.state_hash(), four.state_hash());
    }
}
