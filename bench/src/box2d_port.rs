//! Box2D v3 (the C library, vendored and built by `boxdd-sys`) through the `boxdd` bindings.
//!
//! Settings: Box2D's defaults are already the benchmark's (contacts 30 Hz, damping ratio 10,
//! push-out 3 m/s, joints 60 Hz ratio 2, slop 0.005, warm starting on, stiffness doubled
//! against static bodies); we set them explicitly anyway and turn sleeping off. One worker (no
//! threads) unless a column asks for more: then Box2D's built-in scheduler runs that many
//! threads. Continuous collision stays on, as in Box2D's own benchmark.
//!
//! SIMD: this binary's Box2D is the one `boxdd-sys` compiled for it, SSE2 by default, AVX2
//! with the `box2d-avx2` feature (`SIMD` below). The other build runs in a child process
//! (`main.rs`, `child_run`).

use boxdd::{
    shapes, BodyBuilder, BodyId, BodyType, ConstraintTuning, Filter, Foundation, JointId, Position,
    ShapeDef, SurfaceMaterial, Transform, Vec2, WorkerCount, World, WorldBuilder,
};

use crate::scenes::{BodySpec, FilterSpec, JointKindSpec, JointSpec, SceneSpec, ShapeSpec};
use crate::{BuildError, Sim};

/// The SIMD path this binary's Box2D was compiled with.
pub const SIMD: &str = if cfg!(feature = "box2d-avx2") {
    "avx2"
} else {
    "sse2"
};

pub struct Box2dSim {
    world: World,
    /// Per-stage sums of `b2World_GetProfile` over the steps, when profiling.
    profile: Option<(u64, boxdd::world::Profile)>,
    bodies: Vec<BodyId>,
    dt: f32,
    substeps: i32,
    /// The scene's joints with their anchors in the bodies' frames, for the verdicts' gaps.
    joints: Vec<(JointSpec, crate::verdict_port::LocalJoint)>,
    /// Joint softness, for joints created mid-run.
    tuning: ConstraintTuning,
    /// Bodies created mid-run, by slot (rain's groups).
    spawned: Vec<Vec<BodyId>>,
    /// Steps, and the sums after each of Box2D's contact records, of the constraints in
    /// its graph's colours and of those in its overflow, for `--counts`.
    contact_records: (u64, u64, u64, u64),
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

fn v2(p: [f32; 2]) -> Vec2 {
    Vec2::new(p[0], p[1])
}

/// Create body `b` with its shapes.
fn add_body(
    world: &mut World,
    foundation: &Foundation,
    b: &BodySpec,
) -> Result<BodyId, BuildError> {
    let body_def = BodyBuilder::from(foundation.body_def())
        .body_type(if b.dynamic {
            BodyType::Dynamic
        } else if b.kinematic {
            BodyType::Kinematic
        } else {
            BodyType::Static
        })
        .position(Position::new(b.position[0], b.position[1]))
        .angle(b.angle)
        .linear_velocity(v2(b.linear_velocity))
        .angular_velocity(b.angular_velocity)
        .linear_damping(b.linear_damping)
        .angular_damping(b.angular_damping)
        .gravity_scale(b.gravity_scale)
        .enable_sleep(false)
        .build()
        .map_err(fail)?;
    let id = world.create_body(body_def).map_err(fail)?;
    let mut body = world.body(id).map_err(fail)?;
    for shape in &b.shapes {
        let material = SurfaceMaterial::new()
            .with_friction(shape.friction)
            .and_then(|m| m.with_restitution(shape.restitution))
            .map_err(fail)?;
        let shape_def = ShapeDef::builder()
            .density(shape.density)
            .material(material)
            .filter(filter(shape.filter))
            .build()
            .map_err(fail)?;
        match &shape.geometry {
            &ShapeSpec::Box { half, center } => {
                let polygon = if center == [0.0, 0.0] {
                    shapes::box_polygon(half[0], half[1])
                } else {
                    Transform::from_pos_angle(v2(center), 0.0)
                        .and_then(|xf| shapes::offset_box_polygon(half[0], half[1], xf))
                }
                .map_err(fail)?;
                body.create_polygon(&shape_def, &polygon).map_err(fail)?;
            }
            ShapeSpec::Polygon { vertices, radius } => {
                let polygon = shapes::polygon_from_points(vertices.iter().map(|&p| v2(p)), *radius)
                    .map_err(fail)?;
                body.create_polygon(&shape_def, &polygon).map_err(fail)?;
            }
            &ShapeSpec::Circle { center, radius } => {
                let circle = shapes::circle(v2(center), radius).map_err(fail)?;
                body.create_circle(&shape_def, &circle).map_err(fail)?;
            }
            &ShapeSpec::Capsule { a, b, radius } => {
                let capsule = shapes::capsule(v2(a), v2(b), radius).map_err(fail)?;
                body.create_capsule(&shape_def, &capsule).map_err(fail)?;
            }
            &ShapeSpec::Segment { a, b } => {
                let segment = shapes::segment(v2(a), v2(b)).map_err(fail)?;
                body.create_segment(&shape_def, &segment).map_err(fail)?;
            }
        }
    }
    Ok(id)
}

/// Create joint `j` between `a` and `b` with the scene's joint softness.
fn add_joint(
    world: &mut World,
    (a, b): (BodyId, BodyId),
    j: &JointSpec,
    tuning: ConstraintTuning,
) -> Result<JointId, BuildError> {
    let id: JointId = match j.kind {
        JointKindSpec::Revolute {
            motor,
            limit,
            spring,
            reference_angle,
        } => {
            let mut builder = world
                .revolute(a, b)
                .anchor_world(Position::new(j.anchor[0], j.anchor[1]))
                .collide_connected(j.collide_connected);
            if let Some(m) = motor {
                builder = builder.motor(m.max_torque, m.speed);
            }
            if let Some((lower, upper)) = limit {
                builder = builder.limit(lower, upper);
            }
            if let Some(s) = spring {
                builder = builder.spring(s.hertz, s.damping_ratio);
            }
            let id = builder.build().map_err(fail)?;
            // Box2D 3.2 (boxdd 0.6) measures the joint angle between the joints' local frames:
            // A's frame turned by the reference angle is v3.1's `referenceAngle` (the spring's
            // `targetAngle` stays 0, the reference).
            if reference_angle != 0.0 {
                let mut joint = world.joint(id).map_err(fail)?;
                let frame = joint.local_frame_a().map_err(fail)?;
                let turned = boxdd::Transform::from_pos_angle(frame.position(), reference_angle)
                    .map_err(fail)?;
                joint.set_local_frame_a(turned).map_err(fail)?;
            }
            id
        }
        JointKindSpec::Prismatic { axis, limit } => {
            let anchor = Position::new(j.anchor[0], j.anchor[1]);
            let mut builder = world
                .prismatic(a, b)
                .anchors_world(anchor, anchor)
                .axis_world(v2(axis))
                .collide_connected(j.collide_connected);
            if let Some((lower, upper)) = limit {
                builder = builder.limit(lower, upper);
            }
            builder.build().map_err(fail)?
        }
    };
    world
        .joint(id)
        .and_then(|mut joint| joint.set_constraint_tuning(tuning))
        .map_err(fail)?;
    Ok(id)
}
pub fn build(spec: &SceneSpec) -> Result<Box2dSim, BuildError> {
    build_with_workers(spec, 1, false)
}

/// The scene with `workers` threads; `profile` sums Box2D's stage timings over the steps.
pub fn build_with_workers(
    spec: &SceneSpec,
    workers: usize,
    profile: bool,
) -> Result<Box2dSim, BuildError> {
    let settings = spec.world;
    let foundation = Foundation::initialize_default().map_err(fail)?;
    let def = WorldBuilder::from(foundation.world_def())
        .gravity(v2(settings.gravity))
        .contact_hertz(settings.contact_hertz)
        .contact_damping_ratio(settings.contact_damping_ratio)
        .contact_speed(settings.contact_push_max_velocity)
        .restitution_threshold(settings.restitution_threshold)
        .enable_sleep(false)
        .worker_count(WorkerCount::new(workers as u32).map_err(fail)?)
        .build()
        .map_err(fail)?;
    let mut world = foundation.create_world(def).map_err(fail)?;
    world.enable_warm_starting(true).map_err(fail)?;

    let mut bodies = Vec::with_capacity(spec.bodies.len());
    for b in &spec.bodies {
        bodies.push(add_body(&mut world, foundation, b)?);
    }

    // Joints: constraint softness set to the scene's (Box2D's default is 60 Hz, ratio 2).
    let tuning =
        ConstraintTuning::new(settings.joint_hertz, settings.joint_damping_ratio).map_err(fail)?;
    let mut joints = Vec::with_capacity(spec.joints.len());
    for j in &spec.joints {
        add_joint(&mut world, (bodies[j.body_a], bodies[j.body_b]), j, tuning)?;
        joints.push((*j, crate::verdict_port::LocalJoint::new(j, &spec.bodies)));
    }
    Ok(Box2dSim {
        world,
        profile: profile.then(|| (0, boxdd::world::Profile::default())),
        bodies,
        dt: settings.dt,
        substeps: settings.substeps as i32,
        joints,
        tuning,
        spawned: Vec::new(),
        contact_records: (0, 0, 0, 0),
    })
}

impl Sim for Box2dSim {
    fn step(&mut self) {
        let done = self.world.step(self.dt, self.substeps).expect("box2d step");
        drop(done);
        if let Some((steps, sum)) = &mut self.profile {
            if let Ok(p) = self.world.profile() {
                *steps += 1;
                add_profile(sum, &p);
            }
        }
        if crate::PRINT_COUNTS.load(std::sync::atomic::Ordering::Relaxed) {
            self.contact_records.0 += 1;
            if let Ok(c) = self.world.counters() {
                let counts = c.color_counts.map(|n| n.max(0) as u64);
                // The last colour is Box2D's overflow (`B2_OVERFLOW_INDEX`).
                let (colored, overflow) = counts.split_at(counts.len() - 1);
                self.contact_records.1 += c.contact_count.max(0) as u64;
                self.contact_records.2 += colored.iter().sum::<u64>();
                self.contact_records.3 += overflow[0];
            }
        }
    }

    fn work_counts(&self) -> Option<String> {
        let (steps, pairs, colored, overflow) = self.contact_records;
        let per = |sum: u64| sum as f64 / steps as f64;
        (steps > 0).then(|| {
            format!(
                "per step: {:.0} pairs, {:.0} constraints in colours, {:.1} in overflow \
                 (contacts and joints)",
                per(pairs),
                per(colored),
                per(overflow)
            )
        })
    }

    fn profile(&self) -> Option<crate::StageTimes> {
        let (steps, p) = self.profile.as_ref()?;
        let n = (*steps).max(1) as f64;
        Some(
            [
                ("step", p.step),
                ("pairs", p.pairs),
                ("collide", p.collide),
                ("solve", p.solve),
                ("prepare", p.prepare_constraints),
                ("integrate v", p.integrate_velocities),
                ("warm start", p.warm_start),
                ("solve impulses", p.solve_impulses),
                ("integrate x", p.integrate_positions),
                ("relax", p.relax_impulses),
                ("restitution", p.apply_restitution),
                ("store", p.store_impulses),
                ("transforms", p.transforms),
                ("refit", p.refit),
                ("bullets", p.bullets),
                ("split islands", p.split_islands),
            ]
            .iter()
            .map(|&(name, ms)| (name.to_string(), f64::from(ms) / n))
            .collect(),
        )
    }

    fn body_y(&mut self, index: usize) -> f32 {
        self.world
            .body(self.bodies[index])
            .and_then(|b| b.position())
            .map_or(f32::NAN, |p| p.y)
    }

    fn body_x(&mut self, index: usize) -> f32 {
        self.world
            .body(self.bodies[index])
            .and_then(|b| b.position())
            .map_or(f32::NAN, |p| p.x)
    }

    fn set_velocity(&mut self, index: usize, v: [f32; 2]) {
        let _ = self
            .world
            .body(self.bodies[index])
            .and_then(|mut b| b.set_linear_velocity(v2(v)));
    }

    fn spawn(&mut self, slot: usize, bodies: &[BodySpec], joints: &[JointSpec]) {
        let foundation = Foundation::initialize_default().expect("box2d foundation");
        let ids: Vec<BodyId> = bodies
            .iter()
            .map(|b| add_body(&mut self.world, foundation, b).expect("box2d spawn"))
            .collect();
        for j in joints {
            add_joint(
                &mut self.world,
                (ids[j.body_a], ids[j.body_b]),
                j,
                self.tuning,
            )
            .expect("box2d spawn joint");
        }
        if self.spawned.len() <= slot {
            self.spawned.resize(slot + 1, Vec::new());
        }
        self.spawned[slot] = ids;
    }

    fn despawn(&mut self, slot: usize) {
        for id in self
            .spawned
            .get_mut(slot)
            .map(std::mem::take)
            .unwrap_or_default()
        {
            let _ = self.world.body(id).and_then(|b| b.destroy());
        }
    }

    fn spawned_y(&mut self) -> Vec<f32> {
        let ids: Vec<BodyId> = self.spawned.iter().flatten().copied().collect();
        ids.into_iter()
            .filter_map(|id| self.world.body(id).and_then(|b| b.position()).ok())
            .map(|p| p.y)
            .collect()
    }

    /// Touching contacts (Box2D's touching flag: a manifold with at least one point, which
    /// includes speculative points). Each touching contact is listed by both of its bodies.
    fn touching_pairs(&mut self) -> usize {
        let mut listed = 0;
        for &id in self.bodies.iter().chain(self.spawned.iter().flatten()) {
            if let Ok(body) = self.world.body(id) {
                listed += body.contact_data().map_or(0, |c| c.len());
            }
        }
        listed / 2
    }
}

impl impulse::verdicts::Judged for Box2dSim {
    fn step(&mut self) {
        Sim::step(self);
    }

    fn body(&mut self, index: usize) -> impulse::verdicts::BodyReading {
        let reading = self.world.body(self.bodies[index]).and_then(|b| {
            let p = b.position()?;
            let v = b.linear_velocity()?;
            let q = b.rotation()?;
            Ok(crate::verdict_port::reading(
                [p.x, p.y],
                q.angle(),
                [v.x, v.y],
            ))
        });
        reading.unwrap_or(crate::verdict_port::NAN_READING)
    }

    fn joint_gap(&mut self) -> f32 {
        let mut gap: f32 = 0.0;
        for k in 0..self.joints.len() {
            let (spec, local) = self.joints[k];
            let a = self.pose(spec.body_a);
            let b = self.pose(spec.body_b);
            gap = gap.max(local.gap(&spec, a, b));
        }
        gap
    }

    fn max_overlap(&mut self) -> f32 {
        let mut overlap: f32 = 0.0;
        for &id in &self.bodies {
            let Ok(body) = self.world.body(id) else {
                continue;
            };
            for c in body.contact_data().unwrap_or_default() {
                for p in c.manifold.points() {
                    overlap = overlap.max(-p.separation);
                }
            }
        }
        overlap
    }
}

impl Box2dSim {
    /// Body `index`'s origin and angle.
    fn pose(&mut self, index: usize) -> crate::verdict_port::Pose {
        use impulse::verdicts::Judged;
        let r = self.body(index);
        crate::verdict_port::Pose {
            position: [r.position.x, r.position.y],
            angle: r.angle,
        }
    }

    /// Box2D's contact records: every shape pair whose fat boxes overlap, touching or not.
    pub fn pair_records(&self) -> usize {
        self.world
            .counters()
            .map_or(0, |c| c.contact_count.max(0) as usize)
    }
}

/// `sum += p`, field by field.
fn add_profile(sum: &mut boxdd::world::Profile, p: &boxdd::world::Profile) {
    sum.step += p.step;
    sum.pairs += p.pairs;
    sum.collide += p.collide;
    sum.solve += p.solve;
    sum.prepare_constraints += p.prepare_constraints;
    sum.integrate_velocities += p.integrate_velocities;
    sum.warm_start += p.warm_start;
    sum.solve_impulses += p.solve_impulses;
    sum.integrate_positions += p.integrate_positions;
    sum.relax_impulses += p.relax_impulses;
    sum.apply_restitution += p.apply_restitution;
    sum.store_impulses += p.store_impulses;
    sum.transforms += p.transforms;
    sum.refit += p.refit;
    sum.bullets += p.bullets;
    sum.split_islands += p.split_islands;
}

/// Bytes Box2D has allocated (its own counter, process-wide).
pub fn allocated_bytes(sim: &Box2dSim) -> i64 {
    sim.world.counters().map_or(0, |c| c.byte_count)
}
