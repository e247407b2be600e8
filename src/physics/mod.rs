//! The physics core: rigid bodies, shapes, collision, contacts, joints and the solvers.
//!
//! Depends on glam and std only (the optional `parallel` feature's threads are std threads).
//!
//! **Units**: metres, kilograms, seconds, radians. **Frame**: x right, y up, angles
//! counter-clockwise. Objects between 0.1 m and 10 m behave best (the tolerances in
//! [`settings`] are tuned for that range). Contact normals point from shape A to shape B.
//!
//! Table of contents:
//! - [`math`]: `Vec2` (glam), `Rot`, `Transform`, cross helpers, `Aabb`.
//! - [`trig`]: the engine's own cosine, sine and arc tangent (no libm: the same bits on
//!   every machine), and the list of float functions the core may use.
//! - [`handle`]: generational handles and the arena that checks them.
//! - [`error`]: `PhysicsError`, what every constructor returns on bad input.
//! - [`limits`]: the documented range of every number a user can give.
//! - [`settings`]: `SolverSettings` and every tolerance, with units and defaults.
//! - [`body`], [`shape`]: definitions and stored state.
//! - [`collision`]: narrow phase (manifolds), GJK distance, ray casts, broad phase.
//! - [`contact`]: the contact set: pairs kept across steps, the narrow phase, feature-id
//!   matching and manifold recycling.
//! - [`growth`]: how the per-contact arrays grow (by an eighth, not doubling).
//! - [`island`]: islands, sleep and waking.
//! - [`quarantine`]: after the driver, speeds held to the caps, impulses to the saved range,
//!   and a body whose state went non-finite frozen and reported.
//! - [`solver`]: the step's stages and the solvers (classic sequential impulses with the
//!   block solver; the soft step), each constraint family with its scalar and SIMD paths.
//! - [`joint`]: one file per joint type, dispatched by one `match`.
//! - [`threads`]: the world's worker threads (feature `parallel`): the narrow phase and the
//!   colour-by-colour solve split across threads, results identical for any count.
//! - [`world`]: `World` owns everything: create, destroy, accessors, step.
//! - [`query`]: point, box and ray queries, shape distance.
//! - [`inspect`]: what the solver left in each contact point, joint and body (errors,
//!   impulse changes, graph colours, islands); with `World::step_until` (a halt point inside
//!   the step) the testbed's view of the solver at work.
//! - [`snapshot`]: the state hash and the exact restore API (export, rewind).
//! - [`debug_draw`]: the `DebugDraw` trait the app implements, and `World::debug_draw`.

pub mod body;
pub mod collision;
pub mod contact;
pub mod debug_draw;
pub mod error;
pub mod growth;
pub mod handle;
pub mod inspect;
pub mod island;
pub mod joint;
pub mod limits;
pub mod math;
mod pair_set;
#[cfg(feature = "parallel")]
mod pool;
pub mod quarantine;
pub mod query;
pub mod settings;
pub mod shape;
pub mod snapshot;
pub mod solver;
pub mod threads;
pub mod trig;
pub mod world;

pub use body::{Body, BodyDef, BodyKind};
pub use collision::{Manifold, ManifoldPoint};
pub use debug_draw::{Color, DebugDraw, DrawFlags, DrawKind};
pub use error::{PhysicsError, PhysicsResult};
pub use handle::{Arena, Handle};
pub use inspect::{BodyIsland, ContactPointReport, GraphColor, JointReport};
pub use joint::{
    BreakCause, Joint, JointDef, JointDefKind, JointEvent, JointKind, JointState, OnBreak,
};
pub use math::{Aabb, Rot, Transform, Vec2};
pub use query::RayHit;
pub use settings::{SolverKind, SolverSettings};
pub use shape::{Capsule, Circle, Filter, Geometry, MassData, Polygon, Segment, Shape, ShapeDef};
pub use snapshot::BodyState;
pub use solver::step::Lanes;
pub use solver::step::{HaltPoint, StepProgress};
pub use world::{SolverStageTimes, StepStats, World};

/// Handle of a body in a `World`.
pub type BodyHandle = Handle<Body>;
/// Handle of a shape in a `World`.
pub type ShapeHandle = Handle<Shape>;
/// Handle of a joint in a `World`.
pub type JointHandle = Handle<Joint>;
