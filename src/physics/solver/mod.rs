//! The solvers: velocity-level constraint solving over contiguous solver arrays.
//!
//! The step and its drivers:
//! - `step`: `StepSolver`, the solver's scratch buffers and the stages in the order they
//!   run (build solver bodies, integrate velocities, prepare, warm start, iterate,
//!   integrate positions, correct joint positions, restitution, store, finalize).
//! - `classic`: the classic solver's step (Box2D-Lite), as a numbered list of stages.
//! - `soft_step`: the soft step's step (Box2D v3), as a numbered list of stages.
//! - `jacobi`, `pgs_ngs`, `pgs_ngs_block`, `pgs_soft`, `tgs_sticky`, `tgs_soft`, `tgs_ngs`,
//!   `xpbd`: Solver2D's other families, each a numbered list of stages (the stages they add
//!   are in `family_stages`).
//!
//! The constraint families, each behind one stage interface (prepare, warm start, solve,
//! restitution, store), owning its scalar and SIMD paths:
//! - `contact`: `ContactSolver` and the classic solver's scalar contact kernels: prepare,
//!   warm start, solve (one point at a time or the 2x2 block solver), restitution, store.
//! - `contact_simd`: the soft step's contact kernel, one generic over the lane count
//!   (`f32`, four, eight, sixteen): the coloured contacts in batches with the one-lane overflow.
//! - `contact_kernels`: the other families' contact kernels: Jacobi accumulation with
//!   relaxation, current (TGS) anchors, the NGS position pass, and
//!   XPBD's position and velocity passes.
//! - `contact_sticky`: TGS-Sticky's kernel: current anchors and friction anchors kept
//!   across steps (`StickyAnchors`, on each contact).
//! - `joints`: `JointSolver`: every joint through `Joint`'s one `match`, and the soft step's
//!   free revolute pins as compact rows.
//! - `revolute_pin`: the revolute point constraint, one kernel generic over the lane count
//!   (`f32`, four, eight): a revolute joint's point rows, and the soft step's free pins in
//!   batches with the one-lane overflow.
//!
//! Shared parts:
//! - `SolverBody` and `StepContext` (this file): what the iterations touch, and the
//!   per-(sub)step constants.
//! - `graph`: constraint graph colouring (which constraints may share a SIMD batch).
//! - `wide`: `F32x4`, the four-lane SIMD word, and the `Wide` trait the kernels use (`f32`
//!   is its one-lane case).
//! - `wide8`: `F32x8`, the eight-lane AVX2 word (x86_64, chosen at run time).
//! - `wide16`: `F32x16`, the sixteen-lane AVX-512F word (x86_64, chosen at run time).
//! - `softness`: the soft-constraint coefficients shared by soft contacts and joints.
//!
//! The world calls the drivers from `World::step` (`world.rs`).

pub mod classic;
pub mod contact;
pub mod contact_kernels;
pub mod contact_simd;
pub mod contact_sticky;
mod family_stages;
pub mod graph;
pub mod jacobi;
pub mod joints;
pub mod pgs_ngs;
pub mod pgs_ngs_block;
pub mod pgs_soft;
pub mod revolute_pin;
pub mod soft_step;
pub mod softness;
pub mod step;
pub mod tgs_ngs;
pub mod tgs_soft;
pub mod tgs_sticky;
pub mod wide;
#[cfg(target_arch = "x86_64")]
pub mod wide16;
#[cfg(target_arch = "x86_64")]
pub mod wide8;
pub mod xpbd;

pub use softness::Softness;

use super::math::{Rot, Vec2};
use super::settings::SolverSettings;

/// What the iterations read and write for one body. Index 0 of the solver array is a
/// shared static body (zero velocity, zero inverse mass): static and sleeping bodies map
/// to it, so constraints never branch on body kind.
///
/// Layout (`repr(C)`, 48 bytes): the SIMD contact solver loads the first 16 bytes
/// `[v.x, v.y, w, d_angle]` and the next 16 `[dp.x, dp.y, dq.c, dq.s]` of four bodies and
/// transposes them into lanes (`contact_simd.rs`); keep those eight floats first and in
/// this order.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
pub struct SolverBody {
    pub v: Vec2,
    pub w: f32,
    /// Angle turned since the start of the step, radians.
    pub d_angle: f32,
    /// Displacement of the centre of mass since the start of the step (soft step).
    pub dp: Vec2,
    /// Rotation since the start of the step (soft step).
    pub dq: Rot,
    pub inv_mass: f32,
    pub inv_inertia: f32,
}

impl SolverBody {
    pub const STATIC: SolverBody = SolverBody {
        v: Vec2::ZERO,
        w: 0.0,
        d_angle: 0.0,
        dp: Vec2::ZERO,
        dq: Rot::IDENTITY,
        inv_mass: 0.0,
        inv_inertia: 0.0,
    };
}

/// Per-(sub)step constants every constraint needs.
#[derive(Clone, Copy, Debug)]
pub struct StepContext {
    /// The (sub-)step, seconds.
    pub dt: f32,
    /// 1 / dt (0 when dt is 0).
    pub inv_dt: f32,
    pub settings: SolverSettings,
    /// Soft step: softness of joints (from `joint_hertz`, `joint_damping_ratio`).
    pub joint_softness: Softness,
    /// Soft step: softness of contacts between two moving bodies.
    pub contact_softness: Softness,
    /// Soft step: softness of contacts against static bodies (twice as stiff).
    pub static_softness: Softness,
    /// Classic joint position pass (NGS): joints solve only their position rows (no motors,
    /// springs or friction) on pseudo-velocities that move the bodies and are then dropped.
    pub position_pass: bool,
}

impl StepContext {
    pub fn new(dt: f32, settings: &SolverSettings) -> StepContext {
        let inv_dt = if dt > 0.0 { 1.0 / dt } else { 0.0 };
        let contact_hertz = settings.contact_hertz.min(0.25 * inv_dt);
        let joint_hertz = settings.joint_hertz.min(0.25 * inv_dt);
        StepContext {
            dt,
            inv_dt,
            settings: *settings,
            joint_softness: Softness::new(joint_hertz, settings.joint_damping_ratio, dt),
            contact_softness: Softness::new(contact_hertz, settings.contact_damping_ratio, dt),
            static_softness: Softness::new(2.0 * contact_hertz, settings.contact_damping_ratio, dt),
            position_pass: false,
        }
    }

    /// True when impulses from the previous step are applied first.
    pub fn warm_starting(&self) -> bool {
        self.settings.warm_starting
    }

    /// The context of one of the families added beside the classic solver and the soft step
    /// (issue 13): the classic toggles do not apply to them, so impulses are always
    /// accumulated, the joint position pass always runs and the 2x2 block is used by
    /// PGS-NGS-Block only; TGS-Sticky and XPBD never warm start (Solver2D's).
    pub fn for_family(dt: f32, settings: &SolverSettings) -> StepContext {
        use crate::physics::settings::SolverKind;
        let kind = settings.solver;
        let family = SolverSettings {
            accumulate_impulses: true,
            position_correction: true,
            block_solver: kind == SolverKind::PgsNgsBlock,
            warm_starting: settings.warm_starting
                && !matches!(kind, SolverKind::TgsSticky | SolverKind::Xpbd),
            ..*settings
        };
        StepContext::new(dt, &family)
    }

    /// Classic Baumgarte factor per second: `bias_factor / dt` when position correction is
    /// on, else 0.
    pub fn baumgarte(&self) -> f32 {
        if self.settings.position_correction {
            self.settings.bias_factor * self.inv_dt
        } else {
            0.0
        }
    }
}

/// Random solver states for the tests that compare a family's scalar and wide paths.
#[cfg(test)]
pub(crate) mod test_rng {
    use super::SolverBody;
    use crate::physics::math::Rot;

    pub(crate) use crate::physics::collision::dynamic_tree::tests::Rng;

    /// `n` solver bodies after the shared static body 0: moving bodies with random
    /// velocities, motion and masses; one in eight fixed (kinematic: zero inverse masses).
    pub fn bodies(rng: &mut Rng, n: usize) -> Vec<SolverBody> {
        let mut bodies = vec![SolverBody::STATIC];
        for _ in 0..n {
            let fixed = rng.below(8) == 0;
            let angle = rng.range(-0.2, 0.2);
            bodies.push(SolverBody {
                v: rng.vec(3.0),
                w: rng.range(-2.0, 2.0),
                d_angle: angle,
                dp: rng.vec(0.05),
                dq: Rot::from_angle(angle),
                inv_mass: if fixed { 0.0 } else { rng.range(0.2, 2.0) },
                inv_inertia: if fixed { 0.0 } else { rng.range(0.5, 6.0) },
            });
        }
        bodies
    }
}
