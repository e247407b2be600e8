//! World queries: picking, box queries, ray casts, shape distance.

mod common;

use common::*;
use impulse::physics::*;

fn world_with_shapes() -> (World, BodyHandle, BodyHandle, BodyHandle) {
    let mut world = World::new(awake_settings());
    let g = ground(&mut world, 0.6);
    let boxed = dynamic_box(&mut world, Vec2::new(0.0, 2.0), Vec2::splat(0.5), 1.0, 0.6);
    let ball = dynamic_circle(&mut world, Vec2::new(3.0, 2.0), 0.5, 0.0);
    (world, g, boxed, ball)
}

#[test]
fn picking_prefers_the_dynamic_body_under_the_point() {
    let (world, g, boxed, ball) = world_with_shapes();
    assert_eq!(world.body_at_point(Vec2::new(0.2, 2.3)), Some(boxed));
    assert_eq!(world.body_at_point(Vec2::new(3.3, 2.3)), Some(ball));
    // The ball's bounding box corner is outside the disc.
    assert_eq!(world.body_at_point(Vec2::new(3.45, 2.45)), None);
    assert_eq!(world.body_at_point(Vec2::new(10.0, -1.0)), Some(g));
    assert_eq!(world.body_at_point(Vec2::new(10.0, 5.0)), None);
    assert_eq!(world.body_at_point(Vec2::new(f32::NAN, 0.0)), None);
}

#[test]
fn aabb_query_returns_each_overlapping_body_once() {
    let (world, g, boxed, ball) = world_with_shapes();
    let hits = world.query_aabb(Aabb::new(Vec2::new(-1.0, 1.0), Vec2::new(4.0, 3.0)));
    assert_eq!(hits.len(), 2);
    assert!(hits.contains(&boxed) && hits.contains(&ball));
    let hits = world.query_aabb(Aabb::new(Vec2::new(-1.0, -0.5), Vec2::new(0.5, 1.6)));
    assert_eq!(hits, {
        let mut v = vec![g, boxed];
        v.sort();
        v
    });
}

#[test]
fn ray_cast_finds_the_closest_hit() {
    let (world, _, boxed, ball) = world_with_shapes();
    // From the left along y = 2: the box's left face at x = -0.5 comes first.
    let hit = world
        .ray_cast(Vec2::new(-5.0, 2.0), Vec2::new(10.0, 0.0))
        .expect("hit");
    assert_eq!(hit.body, boxed);
    assert!((hit.point.x + 0.5).abs() < 1e-4 && (hit.fraction - 0.45).abs() < 1e-4);
    assert!((hit.normal - Vec2::new(-1.0, 0.0)).length() < 1e-4);
    // From the right: the ball at x = 3.5.
    let hit = world
        .ray_cast(Vec2::new(8.0, 2.0), Vec2::new(-10.0, 0.0))
        .expect("hit");
    assert_eq!(hit.body, ball);
    assert!((hit.point.x - 3.5).abs() < 1e-4);
    // Straight down from above the gap: the ground's top at y = 0.
    let hit = world
        .ray_cast(Vec2::new(1.5, 5.0), Vec2::new(0.0, -10.0))
        .expect("hit");
    assert!(hit.point.y.abs() < 1e-4 && (hit.fraction - 0.5).abs() < 1e-4);
    assert!(world
        .ray_cast(Vec2::new(1.5, 5.0), Vec2::new(0.0, 2.0))
        .is_none());
}

#[test]
fn shape_distance_between_two_bodies() {
    let (world, _, boxed, ball) = world_with_shapes();
    let a = world.body(boxed).unwrap().shapes()[0];
    let b = world.body(ball).unwrap().shapes()[0];
    let d = world.shape_distance(a, b).unwrap();
    // Box face at x = 0.5, ball surface at x = 2.5.
    assert!((d.distance - 2.0).abs() < 1e-4, "distance {}", d.distance);
}

#[test]
fn step_statistics_count_what_is_there() {
    let mut world = World::new(awake_settings());
    ground(&mut world, 0.6);
    for i in 0..5 {
        dynamic_box(
            &mut world,
            Vec2::new(i as f32 * 2.0, 0.5),
            Vec2::splat(0.5),
            1.0,
            0.6,
        );
    }
    run(&mut world, 0.5);
    let stats = world.stats();
    assert_eq!(stats.bodies, 6);
    assert_eq!(stats.contacts, 5);
    assert_eq!(stats.manifold_points, 10);
    assert!(stats.max_penetration < 0.01);
    assert!(stats.kinetic_energy < 1e-3);
    assert!(stats.total_ms >= stats.solve_ms);
}
