//! Box2D v3 (the C library, vendored and built by `boxdd-sys`) through the `boxdd` bindings.
//!
//! Settings: Box2D's defaults are already the benchmark's (contacts 30 Hz, damping ratio 10,
//! push-out 3 m/s, joints 60 Hz ratio 2, slop 0.005, warm starting on, stiffness doubled
//! against static bodies); we set them explicitly anyway, turn sleeping off and run one
//! worker (no threads). Continuous collision stays on, as in Box2D's own benchmark.

use boxdd::{
    shapes, BodyBuilder, BodyId, BodyType, Filter, Foundation, Position, ShapeDef, SurfaceMaterial,
    Transform, Vec2, WorkerCount, World, WorldBuilder,
};

use crate::scenes::{self, FilterSpec, SceneSpec, ShapeSpec};
use crate::{BuildError, Sim};

pub struct Box2dSim {
    world: World,
    bodies: Vec<BodyId>,
}

fn fail(e: boxdd::Error) -> BuildError {
    BuildError::Failed(format!("box2d: {e}"))
}

fn filter(f: FilterSpec) -> Filter {
    Filter {
        category_bits: f.category as u64,
        // Widen the mask so that "all bits" stays all bits in Box2D's 64-bit filter.
        mask_bits: if f.mask == u32::MAX {
            u64::MAX
        } else {
            f.mask as u64 | (u64::MAX << 32)
        },
        group_index: 0,
    }
}

pub fn build(spec: &SceneSpec) -> Result<Box2dSim, BuildError> {
    let foundation = Foundation::initialize_default().map_err(fail)?;
    let def = WorldBuilder::from(foundation.world_def())
        .gravity(Vec2::new(scenes::GRAVITY[0], scenes::GRAVITY[1]))
        .contact_hertz(scenes::CONTACT_HERTZ)
        .contact_damping_ratio(scenes::CONTACT_DAMPING_RATIO)
        .contact_speed(scenes::CONTACT_PUSH_MAX_VELOCITY)
        .enable_sleep(false)
        .worker_count(WorkerCount::new(1).map_err(fail)?)
        .build()
        .map_err(fail)?;
    let mut world = foundation.create_world(def).map_err(fail)?;
    world.enable_warm_starting(true).map_err(fail)?;

    let material = SurfaceMaterial::new()
        .with_friction(scenes::FRICTION)
        .and_then(|m| m.with_restitution(scenes::RESTITUTION))
        .map_err(fail)?;

    let mut bodies = Vec::with_capacity(spec.bodies.len());
    for b in &spec.bodies {
        let body_def = BodyBuilder::from(foundation.body_def())
            .body_type(if b.dynamic {
                BodyType::Dynamic
            } else {
                BodyType::Static
            })
            .position(Position::new(b.position[0], b.position[1]))
            .enable_sleep(false)
            .build()
            .map_err(fail)?;
        let id = world.create_body(body_def).map_err(fail)?;
        let shape_def = ShapeDef::builder()
            .density(b.density)
            .material(material)
            .filter(filter(b.filter))
            .build()
            .map_err(fail)?;
        let mut body = world.body(id).map_err(fail)?;
        for s in &b.shapes {
            match *s {
                ShapeSpec::Box { half, center } => {
                    let polygon = if center == [0.0, 0.0] {
                        shapes::box_polygon(half[0], half[1])
                    } else {
                        Transform::from_pos_angle(Vec2::new(center[0], center[1]), 0.0)
                            .and_then(|xf| shapes::offset_box_polygon(half[0], half[1], xf))
                    }
                    .map_err(fail)?;
                    body.create_polygon(&shape_def, &polygon).map_err(fail)?;
                }
                ShapeSpec::Circle { radius } => {
                    let circle = shapes::circle(Vec2::new(0.0, 0.0), radius).map_err(fail)?;
                    body.create_circle(&shape_def, &circle).map_err(fail)?;
                }
                ShapeSpec::Segment { a, b } => {
                    let segment = shapes::segment(Vec2::new(a[0], a[1]), Vec2::new(b[0], b[1]))
                        .map_err(fail)?;
                    body.create_segment(&shape_def, &segment).map_err(fail)?;
                }
            }
        }
        bodies.push(id);
    }

    // Joints: the default joint tuning is already 60 Hz, damping ratio 2.
    for j in &spec.joints {
        let mut builder = world
            .revolute(bodies[j.body_a], bodies[j.body_b])
            .anchor_world(Position::new(j.anchor[0], j.anchor[1]))
            .collide_connected(false);
        if let Some(m) = j.motor {
            builder = builder.motor(m.max_torque, m.speed);
        }
        builder.build().map_err(fail)?;
    }
    Ok(Box2dSim { world, bodies })
}

impl Sim for Box2dSim {
    fn step(&mut self) {
        let done = self
            .world
            .step(scenes::DT, scenes::SUBSTEPS as i32)
            .expect("box2d step");
        drop(done);
    }

    fn body_y(&mut self, index: usize) -> f32 {
        self.world
            .body(self.bodies[index])
            .and_then(|b| b.position())
            .map_or(f32::NAN, |p| p.y)
    }

    /// Touching contacts (Box2D's touching flag: a manifold with at least one point, which
    /// includes speculative points). Each touching contact is listed by both of its bodies.
    fn touching_pairs(&mut self) -> usize {
        let mut listed = 0;
        for &id in &self.bodies {
            if let Ok(body) = self.world.body(id) {
                listed += body.contact_data().map_or(0, |c| c.len());
            }
        }
        listed / 2
    }
}

impl Box2dSim {
    /// Box2D's contact records: every shape pair whose fat boxes overlap, touching or not.
    pub fn pair_records(&self) -> usize {
        self.world
            .counters()
            .map_or(0, |c| c.contact_count.max(0) as usize)
    }
}

/// Bytes Box2D has allocated (its own counter, process-wide).
pub fn allocated_bytes(sim: &Box2dSim) -> i64 {
    sim.world.counters().map_or(0, |c| c.byte_count)
}
