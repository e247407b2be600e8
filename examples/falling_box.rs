//! The README's library example: the physics core without any GUI.
//! Run with `cargo run --example falling_box --no-default-features`.

use impulse::physics::{BodyDef, Geometry, Polygon, ShapeDef, SolverSettings, Vec2, World};

fn main() -> Result<(), impulse::physics::PhysicsError> {
    let mut world = World::new(SolverSettings::default());

    let ground = world.create_body(&BodyDef::fixed(Vec2::new(0.0, -1.0)))?;
    let slab = Geometry::Polygon(Polygon::new_box(20.0, 1.0)?);
    world.create_shape(ground, &ShapeDef::new(slab))?;

    let body = world.create_body(&BodyDef::dynamic(Vec2::new(0.0, 4.0)).name("box"))?;
    let square = Geometry::Polygon(Polygon::new_box(0.5, 0.5)?);
    world.create_shape(body, &ShapeDef::new(square).density(1.0).friction(0.6))?;

    for _ in 0..120 {
        world.step(1.0 / 60.0);
    }
    let b = world.body(body).expect("still there");
    println!("after 2 s the box rests at y = {:.3} m", b.position().y);
    Ok(())
}
