//! Builders shared by the scenario tests.
#![allow(dead_code)]

use impulse::physics::*;

pub const DT: f32 = 1.0 / 60.0;

/// Defaults with sleep off, so that a test watches every body all the way.
pub fn awake_settings() -> SolverSettings {
    SolverSettings {
        sleep: false,
        ..SolverSettings::default()
    }
}

/// Box2D-Lite's ground: a static 100 x 20 box whose top is at y = 0.
pub fn ground(world: &mut World, friction: f32) -> BodyHandle {
    let g = world
        .create_body(&BodyDef::fixed(Vec2::new(0.0, -10.0)).name("ground"))
        .unwrap();
    world
        .create_shape(
            g,
            &ShapeDef::new(Geometry::Polygon(Polygon::new_box(50.0, 10.0).unwrap()))
                .friction(friction),
        )
        .unwrap();
    g
}

pub fn dynamic_box(
    world: &mut World,
    position: Vec2,
    half: Vec2,
    density: f32,
    friction: f32,
) -> BodyHandle {
    let b = world.create_body(&BodyDef::dynamic(position)).unwrap();
    world
        .create_shape(
            b,
            &ShapeDef::new(Geometry::Polygon(Polygon::new_box(half.x, half.y).unwrap()))
                .density(density)
                .friction(friction),
        )
        .unwrap();
    b
}

pub fn dynamic_circle(
    world: &mut World,
    position: Vec2,
    radius: f32,
    restitution: f32,
) -> BodyHandle {
    let b = world.create_body(&BodyDef::dynamic(position)).unwrap();
    world
        .create_shape(
            b,
            &ShapeDef::new(Geometry::Circle(Circle::new(Vec2::ZERO, radius).unwrap()))
                .restitution(restitution),
        )
        .unwrap();
    b
}

/// Box2D-Lite demo 5's pyramid (12 wide, 1 m boxes of 10 kg, friction 0.2, 1.125 m apart),
/// built at rest: row i's boxes sit on row i - 1.
pub fn pyramid(world: &mut World, base: usize) -> Vec<BodyHandle> {
    let mut bodies = Vec::new();
    let mut x = Vec2::new(-6.0, 0.5);
    for i in 0..base {
        let mut y = x;
        for _ in i..base {
            bodies.push(dynamic_box(world, y, Vec2::splat(0.5), 10.0, 0.2));
            y.x += 1.125;
        }
        x += Vec2::new(0.5625, 1.0);
    }
    bodies
}

/// Box2D-Lite's vertical stack: ten 1 m boxes (density 1, friction 0.6) one on another,
/// resting on the ground at y = 0. Returns the boxes, bottom first.
pub fn stack_of_ten_boxes(world: &mut World) -> Vec<BodyHandle> {
    (0..10)
        .map(|i| {
            dynamic_box(
                world,
                Vec2::new(0.0, 0.5 + i as f32),
                Vec2::splat(0.5),
                1.0,
                0.6,
            )
        })
        .collect()
}

pub fn run(world: &mut World, seconds: f32) {
    let steps = (seconds / DT).round() as usize;
    for _ in 0..steps {
        world.step(DT);
    }
}

pub fn pos(world: &World, b: BodyHandle) -> Vec2 {
    world.body(b).unwrap().position()
}
