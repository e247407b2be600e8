//! What `F` frames: the part of a world the user is watching, not the bounds of every shape.
//!
//! A scene's ground is often far larger than what stands on it (Box2D-Lite's demos put a
//! 100 m ground under a 14 m pyramid), so framing every shape shows the bodies as dots. The
//! region framed is:
//!
//! 1. every shape of a dynamic or kinematic body, awake or asleep, and the world anchors of
//!    the joints that hold such a body (a pendulum's pivot, a bridge's end posts);
//! 2. plus each static shape that lies *wholly* within that box grown by [`STATIC_REACH`]
//!    times its larger side: static pieces of the bodies' own scale (the ramps under sliding
//!    boxes, a container's walls, a cantilever's wall, the terrain under a wheel) are kept,
//!    while a ground much wider than the bodies is left out (the bodies resting on it touch
//!    it, so its surface still shows in the camera's margin);
//! 3. with no dynamic or kinematic body at all, every static shape.
//!
//! Static shapes are kept or left out whole rather than clipped: a ground clipped to a
//! neighbourhood of the bodies would add that neighbourhood on every side it reaches, however
//! little of it there is to see. The camera adds its own margin (`camera::FRAME_MARGIN`).
//! Computed from the public `World` API only.

use crate::physics::{Aabb, Body, BodyKind, Vec2, World};

/// How far a static shape may stick out of the moving bodies' box and still be framed, as a
/// fraction of that box's larger side (on every side), so the static pieces near the bodies
/// at most enlarge the region 1.8 times. At 0.4 the ramps of Box2D-Lite's varying-friction
/// demo and a container's walls are kept, and a ground only where the bodies span most of it
/// (the long bridge); Box2D-Lite's 100 m grounds, the shape scenes' 40 m grounds (they stick
/// out about 0.7) and the large pyramid's 200 m ground under its 100 m pyramid (0.5) are left
/// out. At 0.25 the lower ramps drop out.
pub const STATIC_REACH: f32 = 0.4;

/// The world box `F` frames (before the camera's margin), or `None` for an empty world.
pub fn frame_region(world: &World) -> Option<Aabb> {
    let mut moving: Option<Aabb> = None;
    for (_, body) in world.bodies() {
        if body.kind() != BodyKind::Static {
            moving = union(moving, body_box(world, body));
        }
    }
    let Some(moving) = moving.map(|m| with_joint_anchors(world, m)) else {
        // Nothing moves: the scene is its static geometry.
        return world
            .bodies()
            .filter_map(|(_, body)| body_box(world, body))
            .reduce(|a, b| a.union(&b));
    };
    let size = moving.max - moving.min;
    let near = moving.extended(STATIC_REACH * size.x.max(size.y));
    let mut region = moving;
    for (_, body) in world.bodies() {
        if body.kind() != BodyKind::Static {
            continue;
        }
        for aabb in shape_boxes(world, body) {
            if near.contains(&aabb) {
                region = region.union(&aabb);
            }
        }
    }
    Some(region)
}

/// `moving` grown by the world anchors of every joint with a dynamic or kinematic body.
fn with_joint_anchors(world: &World, moving: Aabb) -> Aabb {
    let mut region = moving;
    for (_, joint) in world.joints() {
        let (Some(a), Some(b)) = (world.body(joint.body_a()), world.body(joint.body_b())) else {
            continue;
        };
        if a.kind() == BodyKind::Static && b.kind() == BodyKind::Static {
            continue;
        }
        for p in [joint.anchor_a(a), joint.anchor_b(b)] {
            if p.is_finite() {
                region = region.union(&Aabb::around(p, Vec2::ZERO));
            }
        }
    }
    region
}

/// The boxes of a body's shapes at its current transform.
fn shape_boxes<'w>(world: &'w World, body: &'w Body) -> impl Iterator<Item = Aabb> + 'w {
    let xf = body.transform();
    body.shapes()
        .iter()
        .filter_map(move |&s| world.shape(s))
        .map(move |s| s.geometry().aabb(&xf))
        .filter(Aabb::is_valid)
}

/// The box around all of a body's shapes, `None` for a body without shapes.
fn body_box(world: &World, body: &Body) -> Option<Aabb> {
    shape_boxes(world, body).reduce(|a, b| a.union(&b))
}

fn union(a: Option<Aabb>, b: Option<Aabb>) -> Option<Aabb> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.union(&b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use macroquad::math::Rect;

    use super::*;
    use crate::app::camera::Camera;

    fn world(ron: &str) -> World {
        crate::scene::load_str(ron, "test.ron")
            .unwrap_or_else(|e| panic!("{e}"))
            .world
    }

    /// Every dynamic body's box.
    fn dynamic_boxes(world: &World) -> Vec<Aabb> {
        world
            .bodies()
            .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
            .filter_map(|(_, b)| body_box(world, b))
            .collect()
    }

    /// `F` used to frame every shape: on Box2D-Lite's demos, whose ground is 100 m wide, the
    /// bodies became dots. With a 200 m ground under a 4 m pyramid, the region (and the view
    /// the camera frames from it) must be a few metres across and hold every box.
    #[test]
    fn f_frames_the_pyramid_not_the_200_m_ground() {
        let mut w = world(
            "Scene(name: \"pyramid\", bodies: [
                (name: \"ground\", kind: Static, position: (0.0, -1.0),
                 shapes: [(shape: Box(half_width: 100.0, half_height: 1.0))]),
             ],
             generators: [Pyramid(base: 4, half_size: 0.5, origin: (-1.5, 0.5))])",
        );
        assert_eq!(w.bounds().map(|b| b.max.x - b.min.x), Some(200.0));
        for steps in [0, 120] {
            for _ in 0..steps {
                w.step(1.0 / 60.0);
            }
            let region = frame_region(&w).unwrap();
            let size = region.max - region.min;
            assert!(
                size.x < 6.0 && size.y < 6.0 && size.min_element() > 3.0,
                "after {steps} steps: {region:?}"
            );
            let boxes = dynamic_boxes(&w);
            assert_eq!(boxes.len(), 10);
            let mut camera = Camera::new(Vec2::ZERO, 25.0, Rect::new(0.0, 0.0, 960.0, 720.0));
            camera.frame(region);
            let view = camera.visible_aabb();
            for b in &boxes {
                assert!(region.contains(b), "{b:?} outside {region:?}");
                assert!(view.contains(b), "{b:?} outside the view {view:?}");
            }
            assert!(camera.view_height() < 8.0, "{}", camera.view_height());
        }
    }

    /// A pendulum's pivot (a joint anchor on the ground), the ramp under a box and the
    /// walls of a small container are framed; the wide ground is not.
    #[test]
    fn joint_anchors_and_static_pieces_near_the_bodies_are_framed() {
        let w = world(
            "Scene(name: \"pieces\", bodies: [
                (name: \"ground\", kind: Static, position: (0.0, -10.0),
                 shapes: [(shape: Box(half_width: 50.0, half_height: 10.0))]),
                (name: \"ramp\", kind: Static, position: (0.0, 3.0), angle: -0.25,
                 shapes: [(shape: Box(half_width: 3.0, half_height: 0.125))]),
                (name: \"box\", position: (-2.0, 4.5),
                 shapes: [(shape: Box(half_width: 0.25, half_height: 0.25))]),
                (name: \"bob\", position: (4.0, 8.0),
                 shapes: [(shape: Box(half_width: 0.25, half_height: 0.25))]),
             ],
             joints: [(body_a: \"ground\", body_b: \"bob\", kind: Revolute(anchor: (0.0, 8.0)))])",
        );
        let region = frame_region(&w).unwrap();
        let ramp = w
            .bodies()
            .find(|(_, b)| b.name() == Some("ramp"))
            .and_then(|(_, b)| body_box(&w, b))
            .unwrap();
        assert!(
            region.contains(&ramp),
            "{region:?} misses the ramp {ramp:?}"
        );
        assert!(
            region.contains_point(Vec2::new(0.0, 8.0)),
            "{region:?}: pivot"
        );
        assert!(
            region.min.y > -1.0 && region.max.x - region.min.x < 10.0,
            "{region:?}"
        );
    }

    /// Nothing moves: the static geometry is the scene. Nothing at all: nothing to frame.
    #[test]
    fn only_static_shapes_are_framed_whole_and_an_empty_world_not_at_all() {
        let w = world(
            "Scene(name: \"terrain\", bodies: [
                (name: \"ground\", kind: Static, position: (0.0, -1.0),
                 shapes: [(shape: Box(half_width: 100.0, half_height: 1.0))]),
                (name: \"post\", kind: Static, position: (3.0, 2.0),
                 shapes: [(shape: Box(half_width: 0.5, half_height: 2.0))]),
             ])",
        );
        assert_eq!(frame_region(&w), w.bounds());
        assert_eq!(frame_region(&world("Scene(name: \"empty\")")), None);
    }
}
