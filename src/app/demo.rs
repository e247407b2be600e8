//! A fixed picture drawn through `DebugDraw` until the `World` is plugged in: a static
//! ground, boxes, a rounded box, circles, capsules, a pendulum and labels, plus one wheel
//! that turns with the simulated time so screenshots show that frames advance.
//!
//! Delete this file once `Testbed` owns a `World` (see `testbed.rs`).

use crate::physics::{Aabb, Color, DebugDraw, Rot, Transform, Vec2};

/// Corners of a `w` x `h` box centred at `center`, turned by `angle` (counter-clockwise).
fn box_vertices(center: Vec2, w: f32, h: f32, angle: f32) -> [Vec2; 4] {
    let q = Rot::from_angle(angle);
    let (hx, hy) = (0.5 * w, 0.5 * h);
    [
        Vec2::new(-hx, -hy),
        Vec2::new(hx, -hy),
        Vec2::new(hx, hy),
        Vec2::new(-hx, hy),
    ]
    .map(|v| center + q.rotate(v))
}

/// The world box the demo occupies (m).
pub fn bounds() -> Aabb {
    Aabb::new(Vec2::new(-20.0, -1.0), Vec2::new(20.0, 14.0))
}

/// Draw the demo at simulated time `time` (s).
pub fn draw(d: &mut dyn DebugDraw, time: f32) {
    // Ground: a 40 m x 1 m static slab whose top is y = 0, and a ramp.
    d.draw_solid_polygon(
        &box_vertices(Vec2::new(0.0, -0.5), 40.0, 1.0, 0.0),
        0.0,
        Color::STATIC,
    );
    d.draw_solid_polygon(
        &[
            Vec2::new(10.0, 0.0),
            Vec2::new(18.0, 0.0),
            Vec2::new(18.0, 4.0),
        ],
        0.0,
        Color::STATIC,
    );

    // A pyramid of 1 m boxes resting on the ground.
    for row in 0..4 {
        for i in 0..(4 - row) {
            let x = -12.0 + i as f32 * 1.05 + row as f32 * 0.525;
            let y = 0.5 + row as f32;
            d.draw_solid_polygon(
                &box_vertices(Vec2::new(x, y), 1.0, 1.0, 0.0),
                0.0,
                Color::DYNAMIC,
            );
        }
    }
    d.draw_string(Vec2::new(-12.5, 5.0), "pyramid", Color::TEXT);

    // A tilted box, a rounded box and a sleeping box.
    d.draw_solid_polygon(
        &box_vertices(Vec2::new(-4.5, 1.5), 2.0, 1.0, 0.4),
        0.0,
        Color::DYNAMIC,
    );
    d.draw_solid_polygon(
        &box_vertices(Vec2::new(-2.0, 0.75), 1.0, 1.0, 0.0),
        0.25,
        Color::KINEMATIC,
    );
    d.draw_solid_polygon(
        &box_vertices(Vec2::new(1.0, 0.5), 1.5, 1.0, 0.0),
        0.0,
        Color::SLEEPING,
    );

    // Circles: a resting ball and a wheel turning with time.
    d.draw_solid_circle(Vec2::new(3.0, 0.5), 0.5, Vec2::X, Color::DYNAMIC);
    let wheel = Transform::new(Vec2::new(6.0, 1.5), -time);
    d.draw_solid_circle(wheel.p, 1.5, wheel.q.x_axis(), Color::DYNAMIC);
    d.draw_transform(wheel, 0.75);
    d.draw_string(wheel.p + Vec2::new(-0.8, 2.2), "wheel", Color::TEXT);

    // Capsules: one lying on the ground, one leaning on the ramp.
    d.draw_solid_capsule(
        Vec2::new(-7.6, 0.4),
        Vec2::new(-6.4, 0.4),
        0.4,
        Color::DYNAMIC,
    );
    d.draw_solid_capsule(
        Vec2::new(12.5, 1.6),
        Vec2::new(14.5, 2.6),
        0.3,
        Color::DYNAMIC,
    );

    // A pendulum: anchor, rod, bob; and a polygon outline showing its swing.
    let pivot = Vec2::new(0.0, 12.0);
    let angle = 0.6 * (1.7 * time).sin();
    let bob = pivot + 5.0 * Vec2::new(angle.sin(), -angle.cos());
    d.draw_segment(pivot, bob, Color::JOINT);
    d.draw_solid_circle(bob, 0.5, bob - pivot, Color::DYNAMIC);
    d.draw_point(pivot, 8.0, Color::JOINT_ANCHOR);
    d.draw_polygon(
        &[
            pivot + Vec2::new(-3.0, -4.0),
            pivot + Vec2::new(3.0, -4.0),
            pivot + Vec2::new(3.0, -6.0),
            pivot + Vec2::new(-3.0, -6.0),
        ],
        Color::AABB,
    );
    d.draw_string(pivot + Vec2::new(0.4, 0.4), "pendulum", Color::TEXT);

    // Contact-style points and the origin frame.
    d.draw_point(Vec2::new(2.6, 0.0), 5.0, Color::CONTACT_POINT);
    d.draw_point(Vec2::new(3.4, 0.0), 5.0, Color::CONTACT_NEW);
    d.draw_transform(Transform::IDENTITY, 1.0);
}
