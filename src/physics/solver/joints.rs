//! The joint family behind the step's stage interface: prepare, warm start, solve (with or
//! without bias), position correction and storing the saved state.
//!
//! In the soft step the free revolute pins leave their `Joint` for compact rows
//! (`RevoluteRow`, packed into `Pins`): the rows the colouring places are solved four or
//! eight at a time, the rest one by one first, all by the one point kernel of
//! `revolute_pin.rs`. Every other joint, and every joint of the
//! classic solver, is solved through `Joint`, whose one `match` dispatches to the joint's
//! file. The world calls each stage once and never sees the split. With several threads
//! those joints are solved level by level (`schedule_levels`), with the same result.

use super::revolute_pin::Pins;
use super::step::solver_index_of;
use super::{Softness, SolverBody, StepContext};
use crate::physics::body::Body;
use crate::physics::handle::Arena;
use crate::physics::inspect::GraphColor;
use crate::physics::joint::revolute::RevoluteRow;
use crate::physics::joint::{Joint, JointKind};
use crate::physics::math::Vec2;
use crate::physics::settings::{
    SolverKind, JOINT_POSITION_ITERATIONS, MAX_ANGULAR_CORRECTION, MAX_LINEAR_CORRECTION,
};
use crate::physics::threads::{Padded, Threads};

/// Scalar joints per thread below which they are solved in order on one thread.
const MIN_SCALAR_JOINTS_PER_THREAD: usize = 32;

/// Joint slots per thread below which the prepare stays on one thread: a joint's prepare
/// costs tens of nanoseconds, waking the team about a microsecond.
const MIN_PREPARED_JOINTS_PER_THREAD: usize = 256;

/// Most levels `schedule_levels` keeps (the team's colour limit, `Threads::by_colour_ref`).
const MAX_LEVELS: usize = 32;

/// The joints of one step, laid out for the solver. Buffers are reused.
#[derive(Clone, Debug, Default)]
pub(crate) struct JointSolver {
    /// Slots of the joints with an awake body.
    active: Vec<usize>,
    /// Scratch of `prepare`: what each part of the team prepared.
    prepared: Vec<Padded<Prepared>>,
    /// Soft step: the free revolute pins' rows, as prepared.
    revolute_rows: Vec<RevoluteRow>,
    /// Soft step: the free pins, coloured into batches (and the overflow).
    pub(crate) pins: Pins,
    /// Slots of the joints solved through `Joint` (classic: every active joint).
    scalar: Vec<usize>,
    /// With several threads: `scalar` regrouped by level (`schedule_levels`), level
    /// after level, and where each level starts (empty: solved in order on one thread).
    level_order: Vec<u32>,
    level_starts: Vec<usize>,
    /// Scratch of `schedule_levels`: per solver body, the level of its last joint.
    body_level: Vec<u32>,
    velocity_scratch: Vec<(Vec2, f32)>,
    joint_scratch: Vec<JointKind>,
    /// This step coloured the free pins (soft step).
    coloured: bool,
}

/// The joints one part of `JointSolver::prepare` prepared, in slot order: all of them, the
/// free pins' rows and the others.
#[derive(Clone, Debug, Default)]
struct Prepared {
    active: Vec<usize>,
    rows: Vec<RevoluteRow>,
    scalar: Vec<usize>,
}

impl JointSolver {
    /// Prepare every joint with an awake body; soft step: free pins go to the compact rows.
    pub(crate) fn prepare(
        &mut self,
        joints: &mut Arena<Joint>,
        bodies: &Arena<Body>,
        (solver_bodies, solver_index): (&[SolverBody], &[u32]),
        ctx: &StepContext,
        threads: &Threads,
    ) {
        // Each joint is prepared from its bodies alone, so the slots split into equal runs
        // across the team, each run listing its prepared joints; the lists are joined in
        // run order, which is slot order.
        let capacity = joints.capacity();
        let worth_it = capacity >= MIN_PREPARED_JOINTS_PER_THREAD * threads.count();
        let soft = ctx.settings.solver == SolverKind::SoftStep;
        self.coloured = soft;
        let shared = joints.shared();
        let parts = threads.runs_into(capacity, worth_it, &mut self.prepared, |run, list| {
            list.active.clear();
            list.rows.clear();
            list.scalar.clear();
            for i in run {
                // SAFETY: the parts' runs of slots are disjoint.
                let Some(joint) = (unsafe { shared.get_mut(i) }) else {
                    continue;
                };
                // A disabled (broken) joint is not solved.
                if !joint.is_enabled() {
                    continue;
                }
                let body_a = bodies.get(joint.body_a).expect("joint's body");
                let body_b = bodies.get(joint.body_b).expect("joint's body");
                if !body_a.awake && !body_b.awake {
                    continue;
                }
                joint.index_a = solver_index_of(solver_index, body_a, joint.body_a.index());
                joint.index_b = solver_index_of(solver_index, body_b, joint.body_b.index());
                joint.prepare(body_a, body_b, ctx);
                list.active.push(i);
                // Soft step: a free pin goes to the compact rows.
                let row = if soft { joint.revolute_row(i) } else { None };
                match row {
                    Some(row) => list.rows.push(row),
                    None => list.scalar.push(i),
                }
            }
        });
        if parts == 1 {
            // One part: its lists are the step's (swapped, not copied).
            let list = &mut self.prepared[0];
            std::mem::swap(&mut self.active, &mut list.active);
            std::mem::swap(&mut self.revolute_rows, &mut list.rows);
            std::mem::swap(&mut self.scalar, &mut list.scalar);
        } else {
            self.active.clear();
            self.revolute_rows.clear();
            self.scalar.clear();
            for list in &self.prepared[..parts] {
                self.active.extend_from_slice(&list.active);
                self.revolute_rows.extend_from_slice(&list.rows);
                self.scalar.extend_from_slice(&list.scalar);
            }
        }
        self.pins.build(&self.revolute_rows, solver_bodies, threads);
        self.schedule_levels(joints, solver_bodies.len(), threads);
    }

    /// Regroup the scalar joints for several threads without changing any result. In
    /// order, each joint's level is one more than the highest level of the joints before it
    /// on either of its moving bodies (the shared static body 0 is only read, never
    /// written). Joints of one level share no moving body, so they may run at once; and
    /// level after level, each body meets its joints in the order the one-thread loop
    /// does, so every velocity and impulse comes out bit for bit the same. Left empty
    /// (one thread in order) on one thread, for few joints, or when the levels are more
    /// than the team splits (a long chain: one joint a level).
    fn schedule_levels(&mut self, joints: &Arena<Joint>, body_count: usize, threads: &Threads) {
        self.level_order.clear();
        self.level_starts.clear();
        if threads.count() == 1
            || self.scalar.len() < MIN_SCALAR_JOINTS_PER_THREAD * threads.count()
        {
            return;
        }
        self.body_level.clear();
        self.body_level.resize(body_count, 0);
        // Each joint's level, kept in `level_order` until the counting sort below.
        let mut top = 0;
        for &j in &self.scalar {
            let joint = joints.at(j);
            let moving = [joint.index_a, joint.index_b].map(|i| (i != 0).then_some(i));
            let level = moving
                .iter()
                .flatten()
                .map(|&i| self.body_level[i])
                .max()
                .unwrap_or(0)
                + 1;
            for &i in moving.iter().flatten() {
                self.body_level[i] = level;
            }
            self.level_order.push(level);
            top = top.max(level as usize);
        }
        if top > MAX_LEVELS {
            self.level_order.clear();
            return;
        }
        // Counting sort by level, stable (a level's joints stay in order): entry `l` of
        // `level_starts` counts level `l` (1 to `top`), then, summed, is where level `l + 1`
        // starts; entry 0 stays 0 and the last is the end.
        let levels = std::mem::take(&mut self.level_order);
        self.level_starts.resize(top + 1, 0);
        for &level in &levels {
            self.level_starts[level as usize] += 1;
        }
        let mut sum = 0;
        for start in &mut self.level_starts {
            sum += *start;
            *start = sum;
        }
        self.level_order.resize(levels.len(), 0);
        let mut next = self.level_starts.clone();
        for (&j, &level) in self.scalar.iter().zip(&levels) {
            let at = &mut next[level as usize - 1];
            self.level_order[*at] = j as u32;
            *at += 1;
        }
    }

    /// `run(joint, bodies)` over the scalar joints: level by level across the threads when
    /// they were scheduled, else in order.
    fn each_scalar(
        &self,
        joints: &mut Arena<Joint>,
        bodies: &mut [SolverBody],
        threads: &Threads,
        run: impl Fn(&mut Joint, &mut [SolverBody]) + Sync,
    ) {
        if self.level_order.is_empty() {
            for &j in &self.scalar {
                run(joints.at_mut(j), bodies);
            }
            return;
        }
        let shared = joints.shared();
        threads.by_colour_ref(
            &self.level_order,
            &self.level_starts,
            bodies,
            |js, bodies| {
                for &j in js {
                    // SAFETY: each scalar joint is in one level and one block of it.
                    run(unsafe { shared.at_mut(j as usize) }, bodies);
                }
            },
        );
    }

    /// Warm start: the rows when warm starting is on; each other joint decides itself.
    pub(crate) fn warm_start(
        &self,
        joints: &mut Arena<Joint>,
        bodies: &mut [SolverBody],
        ctx: &StepContext,
        threads: &Threads,
    ) {
        if ctx.warm_starting() {
            self.pins.warm_start(bodies, threads);
        }
        // In order: a warm start is too short a job per joint for a wait at every level.
        for &j in &self.scalar {
            joints.at_mut(j).warm_start(bodies, ctx);
        }
    }

    /// One pass over the joints. Classic rigid joint rows carry no bias here: their position
    /// error is removed by `correct_positions`.
    pub(crate) fn solve(
        &mut self,
        joints: &mut Arena<Joint>,
        bodies: &mut [SolverBody],
        ctx: &StepContext,
        use_bias: bool,
        threads: &Threads,
    ) {
        let row_softness = if use_bias {
            ctx.joint_softness
        } else {
            Softness::RIGID
        };
        self.pins.solve(bodies, row_softness, threads);
        self.each_scalar(joints, bodies, threads, |joint, bodies| {
            joint.solve(bodies, ctx, use_bias)
        });
    }

    /// Classic: joint position correction by non-linear Gauss-Seidel (Box2D v2).
    ///
    /// Baumgarte bias inside the velocity iterations is unstable on stiff joint chains (a
    /// welded cantilever of five boxes diverges at 10 iterations: unconverged bias velocity
    /// becomes momentum). Instead each joint's position rows are solved on pseudo-velocities
    /// that start at zero, with target `-JOINT_POSITION_FRACTION * C / h`; the bodies move by
    /// `h` times the pseudo-velocity (clamped to `MAX_LINEAR_CORRECTION` and
    /// `MAX_ANGULAR_CORRECTION`) right after each joint, so the next joint sees the corrected
    /// error.
    /// The velocity solution and the accumulated impulses are kept untouched.
    pub(crate) fn correct_positions(
        &mut self,
        joints: &mut Arena<Joint>,
        bodies: &Arena<Body>,
        solver_bodies: &mut [SolverBody],
        ctx: &StepContext,
    ) {
        if !ctx.settings.position_correction || self.active.is_empty() {
            return;
        }
        let h = ctx.dt;
        self.velocity_scratch.clear();
        self.velocity_scratch
            .extend(solver_bodies.iter().map(|b| (b.v, b.w)));
        self.joint_scratch.clear();
        for &j in &self.active {
            self.joint_scratch.push(joints.at(j).kind.clone());
        }
        let mut pass = *ctx;
        pass.position_pass = true;
        pass.settings.warm_starting = false; // prepare zeroes the throwaway impulses
        for &j in &self.active {
            let (a, b) = {
                let joint = joints.at(j);
                (joint.body_a.index(), joint.body_b.index())
            };
            let joint = joints.at_mut(j);
            joint.prepare(bodies.at(a), bodies.at(b), &pass);
        }
        for sb in solver_bodies.iter_mut() {
            sb.v = Vec2::ZERO;
            sb.w = 0.0;
        }
        for _ in 0..JOINT_POSITION_ITERATIONS {
            for &j in &self.active {
                let joint = joints.at_mut(j);
                joint.solve(solver_bodies, &pass, true);
                for k in [joint.index_a, joint.index_b] {
                    if k != 0 {
                        let sb = &mut solver_bodies[k];
                        let dp = (h * sb.v).clamp_length_max(MAX_LINEAR_CORRECTION);
                        let da = (h * sb.w).clamp(-MAX_ANGULAR_CORRECTION, MAX_ANGULAR_CORRECTION);
                        sb.dp += dp;
                        sb.d_angle += da;
                        sb.dq = sb.dq.integrate(da);
                        sb.v = Vec2::ZERO;
                        sb.w = 0.0;
                    }
                }
            }
        }
        for (sb, &(v, w)) in solver_bodies.iter_mut().zip(&self.velocity_scratch) {
            sb.v = v;
            sb.w = w;
        }
        for (k, &j) in self.active.iter().enumerate() {
            joints.at_mut(j).kind = self.joint_scratch[k].clone();
        }
    }

    /// The graph colour of each joint slot (`slots` of them) in the last prepare: pins by
    /// their colour (or `Overflow`), other active joints `Overflow` (solved one at a time);
    /// `None` when this step did not colour.
    pub(crate) fn graph_colors(&self, slots: usize) -> Vec<Option<GraphColor>> {
        let mut out = vec![None; slots];
        if !self.coloured {
            return out;
        }
        let mut set = |slot: usize, color| {
            if let Some(o) = out.get_mut(slot) {
                *o = Some(color);
            }
        };
        for &j in &self.scalar {
            set(j, GraphColor::Overflow);
        }
        let rows = &self.revolute_rows;
        if rows.len() < 2 {
            for row in rows {
                set(row.joint as usize, GraphColor::Overflow);
            }
            return out;
        }
        let graph = self.pins.graph();
        for (c, list) in graph.colors.iter().enumerate() {
            for &k in list {
                if let Some(row) = rows.get(k as usize) {
                    set(row.joint as usize, GraphColor::Color(c as u8));
                }
            }
        }
        for &k in &graph.overflow {
            if let Some(row) = rows.get(k as usize) {
                set(row.joint as usize, GraphColor::Overflow);
            }
        }
        out
    }

    /// Joints keep their accumulated impulses in themselves, except the soft step's compact
    /// revolute rows, which hand theirs back here.
    pub(crate) fn store_state(&self, joints: &mut Arena<Joint>) {
        self.pins.for_each_impulse(|slot, impulse| {
            joints.at_mut(slot).store_row_impulse(impulse);
        });
    }
}
