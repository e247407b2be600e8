//! The step's stages over the solver's scratch buffers, in the order they run.
//!
//! `StepSolver` owns everything the solver keeps between two steps only to avoid
//! allocating: the solver bodies, the contact family (`ContactSolver`), the joint family
//! (`JointSolver`) and the residual record. Each stage is one method, named like its bullet
//! in the drivers (`classic.rs`, `soft_step.rs`); each calls each constraint family once
//! and never asks which path (scalar or SIMD) the family takes.
//!
//! Halting inside a step (`World::step_until`, the testbed's iteration stepping): the
//! stages count sub-steps (`integrate_velocities` starts one) and solver iterations (every
//! pass goes through `iteration`). Once the armed `HaltPoint` is reached, the stage that
//! reached it writes the intermediate state back (contact separations moved by the motion
//! so far, accumulated impulses, joint state, body velocities and positions) and every
//! later stage returns at once. A stage added for a new solver follows the same contract:
//! it starts with `if self.halted() { return; }`, and a pass over the constraints runs
//! inside `iteration`. Without an armed point nothing of this changes the step.

use std::time::{Duration, Instant};

use super::contact::{BiasMode, ContactSolver};
use super::contact_sticky::StickyStore;
use super::joints::JointSolver;
use super::{SolverBody, StepContext};
use crate::physics::body::{Body, BodyKind};
use crate::physics::contact::{Contact, ContactUpdate, RecycledChecks};
use crate::physics::growth::resize_total;
use crate::physics::handle::Arena;
use crate::physics::joint::Joint;
use crate::physics::math::{Rot, Vec2};
use crate::physics::settings::{SolverSettings, MAX_ROTATION_SPEED, MAX_TRANSLATION_SPEED};
use crate::physics::threads::Threads;
use crate::physics::threads::{DisjointMut, MIN_ARENA_BODIES_PER_THREAD};
use crate::physics::world::{StepStats, World};

/// How many constraints at a time the soft step's batched families (contacts and free
/// revolute pins) solve. Every choice gives bitwise the same simulation (each constraint
/// runs the same kernel, whatever the width: the tests compare them); only the speed
/// differs. For measuring the SIMD speed-up and checking determinism.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lanes {
    /// The widest the CPU has: sixteen (AVX-512F; contacts only, the revolute pins stop at
    /// eight), eight (AVX2), else four (SSE2, or the portable fallback off x86_64). The
    /// default.
    #[default]
    Auto,
    /// At most eight (AVX2 when the CPU has it, else four), even with AVX-512.
    Eight,
    /// Four, even with AVX2.
    Four,
    /// One: every constraint through the one-lane path, in the batches' order.
    One,
}

impl World {
    /// Force the width of the soft step's constraint batches (see `Lanes`): the results
    /// do not change, only the speed. The classic solver has no batches.
    pub fn set_lanes(&mut self, lanes: Lanes) {
        self.solver.set_lanes(lanes);
    }
}

/// Where `World::step_until` stops inside a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HaltPoint {
    /// After this many solver iterations of the step, counted over every sub-step (0: before
    /// the first, once the warm start is applied).
    Iteration(u32),
    /// When sub-step `n` (counted from 1) is about to start: the state after `n - 1`
    /// sub-steps (`Substep(1)`: before any).
    Substep(u32),
}

/// How far a step went: where it halted, or how much a whole step ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepProgress {
    /// True when the step stopped at its halt point; false when it ran to its end.
    pub halted: bool,
    /// The sub-step under way, from 1 (0 before the first started).
    pub substep: u32,
    /// Solver iterations run in the step, over every sub-step.
    pub iteration: u32,
    /// Solver iterations run in the sub-step under way.
    pub substep_iteration: u32,
}

/// The halt point armed for this step and the progress counters.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Halt {
    pub(crate) point: Option<HaltPoint>,
    pub(crate) progress: StepProgress,
    /// The constraints were prepared since the solver bodies were built (so their impulses
    /// belong to the world's contacts and joints as they are).
    prepared: bool,
}

/// Bodies per thread below which the integration stages stay on one thread (waking the
/// team costs more). Each body is integrated alone, so the split changes no result. A body
/// costs about 7 ns a stage and waking the spinning team about a microsecond: at 1024 a
/// thread the large pyramid's 5,051 bodies split (its two integrations at 2 threads took
/// 0.50 to 0.71 of the time they took at 4096); at 512 the tumbler's 2,027 split too (its
/// integration of positions at 2 threads: 0.034 to 0.019 ms a step, min of 7 runs; its
/// one-thread copy was the slower: the solve left half the bodies in the other core's
/// cache).
const MIN_BODIES_PER_THREAD: usize = 512;

/// The step's solver index of `body` (in body slot `slot`) from the slot map
/// (`StepSolver::solver_index_by_slot`): its index when it is awake, else 0 (the shared static
/// body).
pub(crate) fn solver_index_of(by_slot: &[u32], body: &Body, slot: usize) -> usize {
    if body.awake {
        by_slot.get(slot).map_or(0, |&i| i as usize)
    } else {
        0
    }
}

/// What of the world the solver stages read and write.
pub(crate) struct StepWorld<'a> {
    pub settings: &'a SolverSettings,
    pub bodies: &'a mut Arena<Body>,
    pub joints: &'a mut Arena<Joint>,
    pub contacts: &'a mut [Contact],
    /// TGS-Sticky's anchors of `contacts`.
    pub sticky: &'a mut StickyStore,
    /// The body slots of each touching contact from this step's narrow phase, when they
    /// are in step with `contacts` (`ContactSet::with_touching_slots`).
    pub touching: Option<&'a [ContactUpdate]>,
    /// The checks of the manifolds the narrow phase recycled (`ContactSet::for_solver`).
    pub recycled: RecycledChecks<'a>,
    /// `ContactSet::generation` of `contacts`.
    pub contacts_generation: u64,
    /// Slot indices of the awake non-static bodies, ascending (solver index - 1).
    pub awake: &'a [usize],
}

/// A dynamic body's velocity change per (sub-)step `h`: `dv = h (gravity_scale g + f / m)`,
/// `dw = h torque / I`, and the implicit damping factors `1 / (1 + h damping)`.
#[derive(Clone, Copy, Debug)]
struct VelocityStep {
    dv: Vec2,
    dw: f32,
    linear_factor: f32,
    angular_factor: f32,
}

/// The solver's scratch buffers and stages. Buffers are reused: no allocation per step once
/// warmed up.
#[derive(Clone, Debug, Default)]
pub(crate) struct StepSolver {
    /// Index 0 is the shared static body, then the awake bodies in slot order.
    pub(crate) bodies: Vec<SolverBody>,
    /// Per body slot: its solver index, 0 when it is not awake (the shared static body).
    /// Compact, so the contact prepare need not read the bodies; and the bodies keep no
    /// copy: a store into each body's line at every build took the line from the other
    /// threads, which read it in the narrow phase (many pyramids at 2 threads: without the
    /// store a step takes 0.91 of the time, median of 7 alternating runs).
    pub(crate) solver_index_by_slot: Vec<u32>,
    pub(crate) contacts: ContactSolver,
    pub(crate) joints: JointSolver,
    /// Record the solver residual of every iteration (off by default: costs a pass over
    /// the solver bodies per iteration).
    pub(crate) record_residuals: bool,
    pub(crate) residuals: Vec<f32>,
    pub(super) residual_scratch: Vec<(Vec2, f32)>,
    /// Centre and angle of each awake body when `build_solver_bodies` ran (the solver body
    /// array's order, without the static body 0): where the quarantine puts back a body
    /// whose state went non-finite.
    start_poses: Vec<(Vec2, f32)>,
    /// Per solver body (index - 1), for `integrate_velocities`: the body's velocity change
    /// per (sub-)step and damping factors, computed once per step (`None`: not dynamic).
    velocity_steps: Vec<Option<VelocityStep>>,
    /// `velocity_steps` are from an earlier step (set by `build_solver_bodies`).
    velocity_steps_stale: bool,
    /// The world's worker threads (the colour-by-colour solve).
    pub(crate) threads: Threads,
    /// Jacobi: the velocity changes of one iteration, per solver body.
    pub(super) jacobi_deltas: Vec<(Vec2, f32)>,
    /// XPBD: each solver body's motion (`dp`, `d_angle`) at the start of the sub-step.
    pub(super) substep_start: Vec<(Vec2, f32)>,
    /// TGS-Sticky: each contact constraint's friction rows (`contact_sticky.rs`).
    pub(super) sticky_rows: Vec<[super::contact_sticky::StickyPoint; 2]>,
    /// Time spent in `integrate_positions` since `start_clock`.
    integrate_time: Duration,
    /// Where to stop inside the step, and how far it went.
    pub(crate) halt: Halt,
    /// Record how much each iteration changed each contact point's and joint's impulse
    /// (off by default: costs two passes over the contacts and joints per iteration).
    pub(crate) track_impulses: bool,
    /// Per contact (the world's contact order) and point: `|Δ(normal, tangent) impulse|`
    /// of the last iteration run, N s.
    pub(crate) contact_impulse_change: Vec<[f32; 2]>,
    /// Per joint slot: `|Δ linear impulse| + |Δ angular impulse|` (N s, N m s counted per
    /// metre) of the last iteration run.
    pub(crate) joint_impulse_change: Vec<f32>,
    contact_impulse_scratch: Vec<[Vec2; 2]>,
    joint_impulse_scratch: Vec<(Vec2, f32)>,
}

impl StepSolver {
    /// Reset the halt counters at the start of a world step (the armed point stays).
    pub(crate) fn begin_step(&mut self) {
        self.halt.progress = StepProgress::default();
        self.halt.prepared = false;
    }

    /// True once the armed halt point was reached: every stage returns at once.
    #[inline]
    pub(crate) fn halted(&self) -> bool {
        self.halt.progress.halted
    }

    /// The width of the batched families' next builds (see `Lanes`).
    pub(crate) fn set_lanes(&mut self, lanes: Lanes) {
        let (one, four) = (lanes == Lanes::One, lanes == Lanes::Four);
        self.contacts.wide.force_one_lane = one;
        self.contacts.wide.force_four_lanes = four;
        self.contacts.wide.force_eight_lanes = lanes == Lanes::Eight;
        self.joints.pins.force_one_lane = one;
        self.joints.pins.force_four_lanes = four;
    }

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
        if self.halted() {
            return;
        }
        self.halt.prepared = false;
        // Every slot but the static body's written below, across the threads (runs of the
        // awake list): the arrays only take their length (filling them first, on one
        // thread, wrote a megabyte that was written again).
        let n = world.awake.len();
        self.bodies.resize(n + 1, SolverBody::STATIC);
        self.bodies.truncate(n + 1);
        self.bodies[0] = SolverBody::STATIC;
        self.start_poses.resize(n, (Vec2::ZERO, 0.0));
        self.start_poses.truncate(n);
        self.velocity_steps_stale = true;
        self.solver_index_by_slot.clear();
        self.solver_index_by_slot.resize(world.bodies.capacity(), 0);
        let awake = world.awake;
        let arena = world.bodies.shared();
        let solver_bodies = DisjointMut::new(&mut self.bodies);
        let poses = DisjointMut::new(&mut self.start_poses);
        let index_by_slot = DisjointMut::new(&mut self.solver_index_by_slot);
        let worth_it = n >= MIN_ARENA_BODIES_PER_THREAD * self.threads.count();
        self.threads.ranges(n, worth_it, |run| {
            for k in run {
                let i = awake[k];
                // SAFETY: awake slots are distinct and each `k` is in one run: body `i`,
                // solver body `k + 1`, pose `k` and slot `i`'s index are this thread's.
                let (b, sb, pose, index) = unsafe {
                    (
                        arena.at_mut(i),
                        solver_bodies.get(k + 1),
                        poses.get(k),
                        index_by_slot.get(i),
                    )
                };
                *index = (k + 1) as u32;
                *pose = (b.center, b.angle);
                *sb = SolverBody {
                    v: b.linear_velocity,
                    w: b.angular_velocity,
                    inv_mass: b.inv_mass,
                    inv_inertia: b.inv_inertia,
                    dp: Vec2::ZERO,
                    dq: Rot::IDENTITY,
                    d_angle: 0.0,
                };
            }
        });
    }

    /// The centre and angle of the `k`-th awake body at the start of the last driver call.
    pub(crate) fn start_pose(&self, k: usize) -> Option<(Vec2, f32)> {
        self.start_poses.get(k).copied()
    }

    /// Gravity, forces and damping into velocities. Starts a sub-step (for the halt point).
    /// The per-body terms depend only on the body and `h`, so they are read from the bodies
    /// once per step (the first sub-step) and kept in a compact array for the others: the
    /// same floats, fewer cache misses.
    pub(crate) fn integrate_velocities(&mut self, world: &mut StepWorld, h: f32) {
        if self.halted() {
            return;
        }
        let progress = &mut self.halt.progress;
        progress.substep += 1;
        progress.substep_iteration = 0;
        if self.halt.point == Some(HaltPoint::Substep(progress.substep)) {
            self.stop(world);
            return;
        }
        if self.velocity_steps_stale || self.velocity_steps.len() != world.awake.len() {
            let gravity = world.settings.gravity;
            let (awake, bodies) = (world.awake, &*world.bodies);
            // Every entry is written below, across the threads: no serial pass clears them.
            resize_total(&mut self.velocity_steps, awake.len(), None);
            let worth_it = awake.len() >= MIN_ARENA_BODIES_PER_THREAD * self.threads.count();
            self.threads
                .chunks_mut(&mut self.velocity_steps, worth_it, |offset, steps| {
                    for (step, &i) in steps.iter_mut().zip(&awake[offset..]) {
                        let b = bodies.at(i);
                        *step = (b.kind == BodyKind::Dynamic).then(|| VelocityStep {
                            dv: h * (b.gravity_scale * gravity + b.inv_mass * b.force),
                            dw: h * b.inv_inertia * b.torque,
                            // Implicit damping: stable for any damping * h.
                            linear_factor: 1.0 / (1.0 + h * b.linear_damping),
                            angular_factor: 1.0 / (1.0 + h * b.angular_damping),
                        });
                    }
                });
            self.velocity_steps_stale = false;
        }
        let steps = &self.velocity_steps;
        let worth_it = steps.len() >= MIN_BODIES_PER_THREAD * self.threads.count();
        self.threads
            .chunks_mut(&mut self.bodies[1..], worth_it, |offset, bodies| {
                for (sb, step) in bodies.iter_mut().zip(&steps[offset..]) {
                    if let Some(step) = step {
                        let mut v = sb.v + step.dv;
                        let mut w = sb.w + step.dw;
                        v *= step.linear_factor;
                        w *= step.angular_factor;
                        sb.v = v;
                        sb.w = w;
                    }
                }
            });
    }

    /// Contact constraints, then joints, for this (sub-)step.
    pub(crate) fn prepare(&mut self, world: &mut StepWorld, ctx: &StepContext) {
        if self.halted() {
            return;
        }
        self.halt.prepared = true;
        self.contacts.prepare(
            (world.contacts, world.touching),
            (world.recycled, world.contacts_generation),
            world.bodies,
            (&self.bodies, &self.solver_index_by_slot),
            ctx,
            &self.threads,
        );
        self.joints.prepare(
            world.joints,
            world.bodies,
            (&self.bodies, &self.solver_index_by_slot),
            ctx,
            &self.threads,
        );
    }

    /// Apply last step's impulses: joints, then contacts.
    pub(crate) fn warm_start(&mut self, world: &mut StepWorld, ctx: &StepContext) {
        if self.halted() {
            return;
        }
        self.joints
            .warm_start(world.joints, &mut self.bodies, ctx, &self.threads);
        self.contacts
            .warm_start(&mut self.bodies, ctx, &self.threads);
    }

    /// One pass over joints then contacts (one solver iteration).
    pub(crate) fn iterate(&mut self, world: &mut StepWorld, ctx: &StepContext, mode: BiasMode) {
        self.iteration(world, |solver, world| solver.iterate_once(world, ctx, mode));
    }

    /// Run `pass` as one solver iteration: counted for the halt point (which may stop the
    /// step before or after it), its residual recorded and its impulse changes tracked when
    /// asked to. Every driver's pass over the constraints goes through here.
    pub(crate) fn iteration<'w>(
        &mut self,
        world: &mut StepWorld<'w>,
        pass: impl FnOnce(&mut StepSolver, &mut StepWorld<'w>),
    ) {
        if self.halted() {
            return;
        }
        if self.iteration_reached() {
            self.stop(world);
            return;
        }
        if self.track_impulses {
            self.impulses_before(world);
        }
        if !self.record_residuals {
            pass(self, world);
        } else {
            self.residual_scratch.clear();
            self.residual_scratch
                .extend(self.bodies.iter().map(|b| (b.v, b.w)));
            pass(self, world);
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
        if self.track_impulses {
            self.impulses_after(world);
        }
        self.halt.progress.iteration += 1;
        self.halt.progress.substep_iteration += 1;
        if self.iteration_reached() {
            self.stop(world);
        }
    }

    /// The armed point is `Iteration(k)` and `k` iterations have run.
    #[inline]
    fn iteration_reached(&self) -> bool {
        self.halt.point == Some(HaltPoint::Iteration(self.halt.progress.iteration))
    }

    fn iterate_once(&mut self, world: &mut StepWorld, ctx: &StepContext, mode: BiasMode) {
        let use_bias = mode != BiasMode::Relax;
        self.joints
            .solve(world.joints, &mut self.bodies, ctx, use_bias, &self.threads);
        self.contacts
            .solve(&mut self.bodies, ctx, mode, &self.threads);
    }

    /// Move bodies by their velocities (speeds clamped to the engine limits). A velocity
    /// that is not finite is left as it is: the quarantine after the driver finds the body,
    /// reports it and freezes it (`physics/quarantine.rs`); zeroing it here hid the NaN.
    pub(crate) fn integrate_positions(&mut self, h: f32) {
        if self.halted() {
            return;
        }
        let start = Instant::now();
        let worth_it = self.bodies.len() >= MIN_BODIES_PER_THREAD * self.threads.count();
        self.threads
            .chunks_mut(&mut self.bodies[1..], worth_it, |_, bodies| {
                for sb in bodies {
                    (sb.v, sb.w) = cap_speeds(sb.v, sb.w);
                    sb.dp += h * sb.v;
                    sb.d_angle += h * sb.w;
                    sb.dq = sb.dq.integrate(h * sb.w);
                }
            });
        self.integrate_time += start.elapsed();
    }

    /// Classic: move the joints' bodies to remove their position error (see
    /// `JointSolver::correct_positions`).
    pub(crate) fn correct_joint_positions(&mut self, world: &mut StepWorld, ctx: &StepContext) {
        if self.halted() {
            return;
        }
        self.joints
            .correct_positions(world.joints, world.bodies, &mut self.bodies, ctx);
    }

    /// Restitution, after the last iteration.
    pub(crate) fn restitution(&mut self, ctx: &StepContext) {
        if self.halted() {
            return;
        }
        self.contacts
            .restitution(&mut self.bodies, ctx, &self.threads);
    }

    /// Accumulated contact impulses back to the contacts for the next warm start.
    pub(crate) fn store_impulses(&mut self, world: &mut StepWorld) {
        if self.halted() {
            return;
        }
        self.contacts
            .store_impulses(world.contacts, &self.threads, false);
    }

    /// The joints' saved state (the compact rows hand their impulses back).
    pub(crate) fn store_joint_state(&mut self, world: &mut StepWorld) {
        if self.halted() {
            return;
        }
        self.joints.store_state(world.joints);
    }

    /// Write velocities and motion back to the bodies.
    pub(crate) fn finalize_bodies(&mut self, world: &mut StepWorld) {
        if self.halted() {
            return;
        }
        self.write_bodies(world);
    }

    /// Across the threads, by runs of the awake list.
    fn write_bodies(&mut self, world: &mut StepWorld) {
        let awake = world.awake;
        let arena = world.bodies.shared();
        let solver_bodies = &self.bodies;
        let worth_it = awake.len() >= MIN_ARENA_BODIES_PER_THREAD * self.threads.count();
        self.threads.ranges(awake.len(), worth_it, |run| {
            for k in run {
                let sb = solver_bodies[k + 1];
                // SAFETY: awake slots are distinct and each `k` is in one run.
                let b = unsafe { arena.at_mut(awake[k]) };
                b.linear_velocity = sb.v;
                b.angular_velocity = sb.w;
                b.center += sb.dp;
                b.angle += sb.d_angle;
                b.sync_transform();
            }
        });
    }

    /// The halt point is reached: write the intermediate state back and stop the step.
    /// Contact points move with the bodies' motion so far (their separations as the solver
    /// sees them now); impulses and joint state go back when this driver call prepared
    /// them (a classic sub-step halted before its prepare has stored them already).
    fn stop(&mut self, world: &mut StepWorld) {
        self.move_contact_points(world);
        if self.halt.prepared {
            self.contacts
                .store_impulses(world.contacts, &self.threads, true);
            self.joints.store_state(world.joints);
        }
        self.write_bodies(world);
        self.halt.progress.halted = true;
    }

    /// Each touching contact's points follow the bodies' motion since the step started:
    /// `separation += n . ((dp_b + dq_b r_b - r_b) - (dp_a + dq_a r_a - r_a))` (the soft
    /// step's current separation, `contact.rs`), the point midway between the moved anchors.
    /// Call before the bodies are written back (the anchors are from the old centres).
    fn move_contact_points(&self, world: &mut StepWorld) {
        // The body's solver index this step (0 when it is not awake).
        let index = |b: &Body, h: crate::physics::BodyHandle| {
            let i = solver_index_of(&self.solver_index_by_slot, b, h.index());
            if i < self.bodies.len() {
                i
            } else {
                0
            }
        };
        for c in world.contacts.iter_mut() {
            if c.manifold.count == 0 {
                continue;
            }
            let body_a = world.bodies.at(c.body_a.index());
            let body_b = world.bodies.at(c.body_b.index());
            let (sa, sb) = (
                self.bodies[index(body_a, c.body_a)],
                self.bodies[index(body_b, c.body_b)],
            );
            let n = c.manifold.normal;
            for k in 0..c.manifold.count {
                let (r_a, r_b) = c.anchors(k, body_a.center, body_b.center);
                let (q_a, q_b) = (sa.dq.rotate(r_a), sb.dq.rotate(r_b));
                let d = (sb.dp + q_b - r_b) - (sa.dp + q_a - r_a);
                let p = &mut c.manifold.points[k];
                p.separation += n.dot(d);
                p.point = 0.5 * ((body_a.center + sa.dp + q_a) + (body_b.center + sb.dp + q_b));
            }
        }
    }

    /// Store the accumulated impulses to the world (harmless mid-step: only the next
    /// step's prepare reads them, and the step's own store comes last) and keep a copy.
    fn impulses_before(&mut self, world: &mut StepWorld) {
        if !self.halt.prepared {
            return;
        }
        self.contacts
            .store_impulses(world.contacts, &self.threads, false);
        self.joints.store_state(world.joints);
        self.contact_impulse_scratch.clear();
        self.contact_impulse_scratch
            .extend(world.contacts.iter().map(|c| {
                let p = &c.manifold.points;
                [
                    Vec2::new(p[0].normal_impulse, p[0].tangent_impulse),
                    Vec2::new(p[1].normal_impulse, p[1].tangent_impulse),
                ]
            }));
        self.joint_impulse_scratch.clear();
        for i in 0..world.joints.capacity() {
            let impulse = match world.joints.handle_at(i) {
                Some(_) => joint_impulse(world.joints.at(i)),
                None => (Vec2::ZERO, 0.0),
            };
            self.joint_impulse_scratch.push(impulse);
        }
    }

    /// Store again and keep how much the iteration changed each impulse.
    fn impulses_after(&mut self, world: &mut StepWorld) {
        if !self.halt.prepared || self.contact_impulse_scratch.len() != world.contacts.len() {
            return;
        }
        self.contacts
            .store_impulses(world.contacts, &self.threads, false);
        self.joints.store_state(world.joints);
        self.contact_impulse_change.clear();
        for (c, before) in world.contacts.iter().zip(&self.contact_impulse_scratch) {
            let p = &c.manifold.points;
            let change = |k: usize| {
                let count = c.manifold.count;
                if k < count {
                    (Vec2::new(p[k].normal_impulse, p[k].tangent_impulse) - before[k]).length()
                } else {
                    0.0
                }
            };
            self.contact_impulse_change.push([change(0), change(1)]);
        }
        self.joint_impulse_change.clear();
        for (i, &(p0, l0)) in self.joint_impulse_scratch.iter().enumerate() {
            let change = match world.joints.handle_at(i) {
                Some(_) => {
                    let (p1, l1) = joint_impulse(world.joints.at(i));
                    (p1 - p0).length() + (l1 - l0).abs()
                }
                None => 0.0,
            };
            self.joint_impulse_change.push(change);
        }
    }
}

/// A joint's accumulated impulse: linear (N s) and angular (N m s).
fn joint_impulse(joint: &Joint) -> (Vec2, f32) {
    (joint.reaction_force(1.0), joint.reaction_torque(1.0))
}

/// Speeds held to the engine's caps ([`MAX_TRANSLATION_SPEED`], [`MAX_ROTATION_SPEED`]):
/// the linear speed keeps its direction. Speeds under the caps and non-finite ones are
/// unchanged. Used by `integrate_positions` and again at the end of the step (the relax and
/// restitution passes may speed bodies up after integration).
pub(crate) fn cap_speeds(mut v: Vec2, w: f32) -> (Vec2, f32) {
    let max_v2 = MAX_TRANSLATION_SPEED * MAX_TRANSLATION_SPEED;
    let v2 = v.length_squared();
    if v2 > max_v2 {
        if v2.is_finite() {
            v *= MAX_TRANSLATION_SPEED / v2.sqrt();
        } else if v.is_finite() {
            // `v . v` overflowed f32 (speeds above ~1.8e19 m/s): scale by the largest
            // component first, so the cap keeps the direction instead of giving
            // `MAX / inf = 0`.
            let u = v / v.abs().max_element();
            v = u * (MAX_TRANSLATION_SPEED / u.length());
        }
    }
    (v, w.clamp(-MAX_ROTATION_SPEED, MAX_ROTATION_SPEED))
}

#[cfg(test)]
mod tests {
    use super::Lanes;
    use crate::physics::body::{BodyDef, BodyKind};
    use crate::physics::joint::JointDef;
    use crate::physics::math::Vec2;
    use crate::physics::settings::{SolverKind, SolverSettings};
    use crate::physics::shape::{Geometry, Polygon, ShapeDef};
    use crate::physics::world::World;

    /// A pyramid of 15 rows on a static box, soft step, sleeping off.
    fn pyramid(lanes: Lanes) -> World {
        spaced_pyramid(lanes, 1.05)
    }

    /// `pyramid` with the boxes of a row `spacing` metres apart, centre to centre.
    fn spaced_pyramid(lanes: Lanes, spacing: f32) -> World {
        let mut world = World::new(SolverSettings {
            solver: SolverKind::SoftStep,
            sleep: false,
            ..SolverSettings::default()
        });
        world.set_lanes(lanes);
        let ground = world
            .create_body(&BodyDef::fixed(Vec2::new(0.0, -1.0)))
            .unwrap();
        let slab = Geometry::Polygon(Polygon::new_box(20.0, 1.0).unwrap());
        world.create_shape(ground, &ShapeDef::new(slab)).unwrap();
        let cube = Geometry::Polygon(Polygon::new_box(0.5, 0.5).unwrap());
        for row in 0..15 {
            for k in 0..15 - row {
                let x = (k as f32 - (14 - row) as f32 * 0.5) * spacing;
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
        let mut world = pyramid(Lanes::Auto);
        let persisted = |w: &World| w.contacts().filter(|c| c.cache().valid).count();
        for _ in 0..60 {
            world.step(1.0 / 60.0);
        }
        let cached = persisted(&world);
        let touching = world.contacts().filter(|c| c.is_touching()).count();
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
            .filter(|c| c.body_a() == top || c.body_b() == top)
            .all(|c| c.cache().valid || c.manifold().count == 0));

        let mut classic = pyramid(Lanes::Auto);
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

    /// The one-lane path, the four-lane (SSE2), the eight-lane (AVX2) and the sixteen-lane
    /// (AVX-512F) contact batches must give bitwise the same step: one kernel, lanes never
    /// interact and a colour's constraints share no moving body. (On a CPU without AVX-512F
    /// the widest run is eight wide, without AVX2 four.)
    #[test]
    fn one_four_eight_and_sixteen_lane_contact_batches_step_identically() {
        let mut worlds = [Lanes::Auto, Lanes::Four, Lanes::One, Lanes::Eight].map(pyramid);
        for _ in 0..120 {
            for w in &mut worlds {
                w.step(1.0 / 60.0);
            }
        }
        assert!(worlds[0].stats().contacts > 100);
        assert_eq!(
            worlds[2].solver.contacts.wide.overflow_count(),
            worlds[2].stats().contacts
        );
        let hashes = worlds.each_ref().map(|w| w.state_hash());
        assert_eq!(hashes[0], hashes[1], "widest vs four lanes");
        assert_eq!(hashes[0], hashes[2], "widest lanes vs one");
        assert_eq!(hashes[0], hashes[3], "widest vs eight lanes");
    }

    /// A resting pyramid's contact lanes are refreshed from the step before
    /// (`ContactBatch::refresh_lane`: the new separations, the stored impulses) rather
    /// than prepared from the contacts. Its steps must be bitwise those of a twin whose
    /// lanes are prepared afresh every step, in eight and in four lanes, through a change of
    /// contact softness, a switch to the classic solver and back, warm starting turned off
    /// and on, a shape added to a body and a halted step.
    #[test]
    fn refreshed_lanes_step_as_lanes_prepared_afresh() {
        for lanes in [Lanes::Auto, Lanes::Four] {
            // Gaps of 20 cm: no side contacts to come and go, so the constraints stay the
            // same from step to step once the pyramid has settled.
            let mut worlds = [spaced_pyramid(lanes, 1.2), spaced_pyramid(lanes, 1.2)];
            let top = worlds[0]
                .bodies()
                .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
                .max_by(|a, b| a.1.center.y.total_cmp(&b.1.center.y))
                .map(|(h, _)| h)
                .unwrap();
            let (mut refreshed, mut refreshing_steps) = (0, 0);
            for step in 0..240 {
                for w in &mut worlds {
                    let mut settings = *w.settings();
                    match step {
                        80 => settings.contact_hertz = 10.0,
                        120 => settings.solver = SolverKind::Classic,
                        125 => settings.solver = SolverKind::SoftStep,
                        150 => settings.warm_starting = false,
                        155 => settings.warm_starting = true,
                        _ => {}
                    }
                    w.set_settings(settings).unwrap();
                    if step == 200 {
                        // A halted step (its store checks the moved manifolds) between two.
                        let progress =
                            w.step_until(1.0 / 60.0, crate::physics::HaltPoint::Iteration(2));
                        assert!(progress.halted);
                    }
                    if step == 180 {
                        let weight = Geometry::Polygon(
                            Polygon::new_offset_box(0.2, 0.2, Vec2::new(0.3, 0.3), 0.0).unwrap(),
                        );
                        w.create_shape(top, &ShapeDef::new(weight)).unwrap();
                    }
                }
                worlds[1].solver.contacts.wide.forget_lanes();
                for w in &mut worlds {
                    w.step(1.0 / 60.0);
                }
                let count = worlds[0].solver.contacts.wide.refreshed_count();
                refreshed += count;
                refreshing_steps += (count > 0) as usize;
                assert_eq!(worlds[1].solver.contacts.wide.refreshed_count(), 0);
                assert_eq!(
                    worlds[0].state_hash(),
                    worlds[1].state_hash(),
                    "{lanes:?}, step {step}"
                );
                // And what the hash leaves out: the largest impulses (restitution's).
                let max_impulses = |w: &World| -> Vec<u32> {
                    w.contacts()
                        .flat_map(|c| c.manifold().points().iter())
                        .map(|p| p.max_normal_impulse.to_bits())
                        .collect()
                };
                assert_eq!(max_impulses(&worlds[0]), max_impulses(&worlds[1]));
            }
            // Every step refreshes but the first two, each step after a change of settings
            // or solver, and those whose constraints differ from the step before's (while
            // the added weight settles): 217 of the 240 (48,789 lanes) when this was
            // written.
            let contacts = worlds[0].stats().contacts;
            assert!(contacts > 200);
            assert!(
                refreshing_steps >= 200 && refreshed >= 200 * 200,
                "{lanes:?}: {refreshed} lanes refreshed in {refreshing_steps} steps"
            );
        }
    }

    /// A 12 x 12 grid of circles pinned to their neighbours above and to the left, hanging
    /// from two static bodies, soft step.
    fn joint_grid(lanes: Lanes) -> World {
        use crate::physics::joint::RevoluteJointDef;
        use crate::physics::shape::Circle;
        let mut world = World::new(SolverSettings {
            solver: SolverKind::SoftStep,
            sleep: false,
            ..SolverSettings::default()
        });
        world.set_lanes(lanes);
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

    /// As above for the free revolute pins' batches (and the balls' contacts).
    #[test]
    fn one_four_and_eight_lane_revolute_batches_step_identically() {
        let mut worlds = [Lanes::Auto, Lanes::Four, Lanes::One].map(joint_grid);
        for _ in 0..120 {
            for w in &mut worlds {
                w.step(1.0 / 60.0);
            }
        }
        assert!(worlds[0].solver.joints.pins.batched_count() > 200);
        assert_eq!(worlds[2].solver.joints.pins.batched_count(), 0);
        let hashes = worlds.each_ref().map(|w| w.state_hash());
        assert_eq!(hashes[0], hashes[1], "eight vs four lanes");
        assert_eq!(hashes[0], hashes[2], "eight lanes vs one");
    }
}
