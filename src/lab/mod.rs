//! The solver lab, without any GUI: what the testbed window drives.
//!
//! - [`session`]: a world plus its interaction state (mouse grab, bomb). Everything a user
//!   does reaches the world as an [`Input`], so it can be recorded and replayed.
//! - [`history`]: the last seconds of a run as keyframes plus the inputs between them;
//!   scrubbing rebuilds any step exactly (stepping is deterministic), resuming drops the
//!   future.
//! - [`compare`]: several sessions of one scene with different solver settings, stepping
//!   together and receiving the same inputs.

pub mod compare;
pub mod history;
pub mod session;

pub use compare::Comparison;
pub use history::{History, Replay};
pub use session::{Input, Session};

/// Worlds shared by the tests of the lab and of the testbed.
#[cfg(test)]
pub(crate) mod fixtures {
    use crate::physics::{
        BodyDef, BodyHandle, Geometry, Polygon, ShapeDef, SolverSettings, Vec2, World,
    };

    /// A world with sleep off and a 40 m static slab whose top is at y = 0.
    pub fn ground() -> World {
        let mut world = World::new(SolverSettings {
            sleep: false,
            ..SolverSettings::default()
        });
        let slab = world
            .create_body(&BodyDef::fixed(Vec2::new(0.0, -1.0)))
            .unwrap();
        let shape = Geometry::Polygon(Polygon::new_box(20.0, 1.0).unwrap());
        world.create_shape(slab, &ShapeDef::new(shape)).unwrap();
        world
    }

    /// Add a dynamic box of half size `half` at `position`, turned by `angle`.
    pub fn add_box(world: &mut World, position: Vec2, angle: f32, half: f32) -> BodyHandle {
        let b = world
            .create_body(&BodyDef::dynamic(position).angle(angle))
            .unwrap();
        let square = Geometry::Polygon(Polygon::new_box(half, half).unwrap());
        world.create_shape(b, &ShapeDef::new(square)).unwrap();
        b
    }

    /// `count` tilted 0.6 m boxes in rows of `columns`, dropped together: a tumbling pile,
    /// chaotic enough that any difference in a replay shows in the state hash. The first box
    /// is at (-0.35 (columns - 1), 1).
    pub fn pile(count: usize, columns: usize) -> World {
        let mut world = ground();
        let left = -0.35 * (columns - 1) as f32;
        for i in 0..count {
            let p = Vec2::new(
                left + (i % columns) as f32 * 0.7,
                1.0 + (i / columns) as f32 * 1.1,
            );
            add_box(&mut world, p, 0.1 * i as f32, 0.3);
        }
        world
    }
}
