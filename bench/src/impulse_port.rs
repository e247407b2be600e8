//! Impulse: the scenes built through the public API of the `impulse` crate.

use impulse::physics::{
    BodyDef, BodyHandle, BodyKind, Capsule, Circle, Filter, Geometry, Polygon, Segment, ShapeDef,
    SolverKind, SolverSettings, Vec2, World,
};

use crate::scenes::{
    BodySpec, FilterSpec, JointKindSpec, JointSpec, SceneSpec, ShapeSpec, WorldSpec,
};
use crate::{BuildError, Sim};

/// Which of Impulse's solvers runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// Box2D v3's soft step: 4 sub-steps, soft contacts (30 Hz, ratio 10), relax pass.
    SoftStep,
    /// Box2D-Lite's sequential impulses: 10 iterations, 1 sub-step, Baumgarte (reference only).
    Classic,
}

/// The settings of a benchmark scene's `world`: the same numbers the Box2D and Rapier
/// ports give their worlds (the benchmark scenes only: the verdict table runs Impulse's own
/// scene files).
pub fn settings(solver: Solver, world: &WorldSpec) -> SolverSettings {
    let common = SolverSettings {
        gravity: Vec2::from_array(world.gravity),
        sleep: false,
        warm_starting: true,
        allowed_penetration: world.linear_slop,
        contact_hertz: world.contact_hertz,
        contact_damping_ratio: world.contact_damping_ratio,
        contact_push_max_velocity: world.contact_push_max_velocity,
        joint_hertz: world.joint_hertz,
        joint_damping_ratio: world.joint_damping_ratio,
        restitution_threshold: world.restitution_threshold,
        step_hz: 1.0 / world.dt,
        ..SolverSettings::default()
    };
    match solver {
        Solver::SoftStep => SolverSettings {
            solver: SolverKind::SoftStep,
            substeps: world.substeps,
            // One solve and one relax pass per sub-step, as Box2D v3 (the soft step
            // ignores this today; set so that it stays right if it stops ignoring it).
            iterations: 1,
            ..common
        },
        Solver::Classic => SolverSettings {
            solver: SolverKind::Classic,
            substeps: 1,
            iterations: 10,
            ..common
        },
    }
}

pub struct ImpulseSim {
    pub world: World,
    /// The scene's step, s.
    dt: f32,
    bodies: Vec<BodyHandle>,
    /// Sums over the steps of `StepStats` counters, for `--counts`.
    totals: WorkTotals,
    /// Bodies created mid-run, by slot (rain's groups).
    spawned: Vec<Vec<BodyHandle>>,
}

#[derive(Default)]
struct WorkTotals {
    steps: u64,
    pairs: u64,
    contacts: u64,
    proxies_moved: u64,
    overlaps_found: u64,
    pairs_created: u64,
    reused: u64,
    broad_ms: f64,
    narrow_ms: f64,
    solve_ms: f64,
    integrate_ms: f64,
    total_ms: f64,
    /// `StepStats::solver_stages`, summed: prepare .. finalize.
    stages: [f64; 9],
    finish_ms: f64,
    /// Steps that ran on one thread of several (`StepStats::threads_used`).
    steps_alone: u64,
}

fn v(p: [f32; 2]) -> Vec2 {
    Vec2::from_array(p)
}

fn filter(f: FilterSpec) -> Filter {
    Filter {
        category_bits: f.category,
        mask_bits: f.mask,
        group_index: 0,
    }
}

fn geometry(shape: &ShapeSpec) -> Result<Geometry, impulse::physics::PhysicsError> {
    Ok(match shape {
        &ShapeSpec::Box { half, center } => {
            Geometry::Polygon(Polygon::new_offset_box(half[0], half[1], v(center), 0.0)?)
        }
        ShapeSpec::Polygon { vertices, radius } => {
            let points: Vec<Vec2> = vertices.iter().map(|&p| v(p)).collect();
            let mut polygon = Polygon::new(&points)?;
            polygon.radius = *radius;
            Geometry::Polygon(polygon)
        }
        &ShapeSpec::Circle { center, radius } => Geometry::Circle(Circle::new(v(center), radius)?),
        &ShapeSpec::Capsule { a, b, radius } => {
            Geometry::Capsule(Capsule::new(v(a), v(b), radius)?)
        }
        &ShapeSpec::Segment { a, b } => Geometry::Segment(Segment::new(v(a), v(b))?),
    })
}

/// Create body `b` with its shapes.
fn add_body(world: &mut World, b: &BodySpec) -> Result<BodyHandle, BuildError> {
    let err = |e: impulse::physics::PhysicsError| BuildError::Failed(e.to_string());
    let kind = if b.dynamic {
        BodyKind::Dynamic
    } else if b.kinematic {
        BodyKind::Kinematic
    } else {
        BodyKind::Static
    };
    let mut def = BodyDef::new(kind, v(b.position));
    def.angle = b.angle;
    def.linear_velocity = v(b.linear_velocity);
    def.angular_velocity = b.angular_velocity;
    def.linear_damping = b.linear_damping;
    def.angular_damping = b.angular_damping;
    def.gravity_scale = b.gravity_scale;
    def.enable_sleep = false;
    let handle = world.create_body(&def).map_err(err)?;
    for s in &b.shapes {
        let mut shape = ShapeDef::new(geometry(&s.geometry).map_err(err)?)
            .density(s.density)
            .friction(s.friction)
            .restitution(s.restitution);
        shape.filter = filter(s.filter);
        world.create_shape(handle, &shape).map_err(err)?;
    }
    Ok(handle)
}

pub fn build(spec: &SceneSpec, solver: Solver) -> Result<ImpulseSim, BuildError> {
    build_with_threads(spec, solver, 1)
}

/// As `build`, stepping on `threads` threads (the results are the same for any count).
pub fn build_with_threads(
    spec: &SceneSpec,
    solver: Solver,
    threads: usize,
) -> Result<ImpulseSim, BuildError> {
    let mut world = World::new(settings(solver, &spec.world));
    world
        .set_thread_count(threads)
        .map_err(|e| BuildError::Failed(e.to_string()))?;
    if world.thread_count() != threads {
        return Err(BuildError::Failed(format!(
            "{threads} threads asked, {} given (the `parallel` feature is off)",
            world.thread_count()
        )));
    }
    let mut bodies = Vec::with_capacity(spec.bodies.len());
    for b in &spec.bodies {
        bodies.push(add_body(&mut world, b)?);
    }
    for j in &spec.joints {
        create_joint(&mut world, bodies[j.body_a], bodies[j.body_b], j)?;
    }
    Ok(ImpulseSim {
        world,
        dt: spec.world.dt,
        bodies,
        totals: WorkTotals::default(),
        spawned: Vec::new(),
    })
}

/// Impulse's joint for the spec: revolute (with its motor and limit) or prismatic.
fn create_joint(
    world: &mut World,
    body_a: BodyHandle,
    body_b: BodyHandle,
    j: &JointSpec,
) -> Result<(), BuildError> {
    use impulse::physics::joint::{JointDef, PrismaticJointDef, RevoluteJointDef};
    let def = match j.kind {
        JointKindSpec::Revolute {
            motor,
            limit,
            spring,
            reference_angle,
        } => {
            let mut def = RevoluteJointDef {
                anchor: v(j.anchor),
                reference_angle: Some(reference_angle),
                ..Default::default()
            };
            if let Some(s) = spring {
                def.enable_spring = true;
                def.spring_hertz = s.hertz;
                def.spring_damping_ratio = s.damping_ratio;
            }
            if let Some(m) = motor {
                def.enable_motor = true;
                def.motor_speed = m.speed;
                // Box2D's spinner asks for an unlimited torque (FLT_MAX); Impulse refuses
                // torques past its documented range, whose top (1e12 N m) never binds here.
                def.max_motor_torque = m.max_torque.min(impulse::physics::limits::TORQUE.max);
            }
            if let Some((lower, upper)) = limit {
                def.enable_limit = true;
                def.lower_angle = lower;
                def.upper_angle = upper;
            }
            JointDef::new(body_a, body_b, def)
        }
        JointKindSpec::Prismatic { axis, limit } => {
            let mut def = PrismaticJointDef {
                anchor: v(j.anchor),
                axis: v(axis),
                ..Default::default()
            };
            if let Some((lower, upper)) = limit {
                def.enable_limit = true;
                def.lower_translation = lower;
                def.upper_translation = upper;
            }
            JointDef::new(body_a, body_b, def)
        }
    }
    .collide_connected(j.collide_connected);
    world
        .create_joint(&def)
        .map(|_| ())
        .map_err(|e| BuildError::Failed(e.to_string()))
}

impl Sim for ImpulseSim {
    fn step(&mut self) {
        self.world.step(self.dt);
        let s = self.world.stats();
        let t = &mut self.totals;
        t.steps += 1;
        t.pairs += s.pairs as u64;
        t.contacts += s.contacts as u64;
        t.proxies_moved += s.proxies_moved as u64;
        t.overlaps_found += s.overlaps_found as u64;
        t.pairs_created += s.pairs_created as u64;
        t.reused += s.manifolds_reused as u64;
        t.broad_ms += f64::from(s.broad_phase_ms);
        t.narrow_ms += f64::from(s.narrow_phase_ms);
        t.solve_ms += f64::from(s.solve_ms);
        t.integrate_ms += f64::from(s.integrate_ms);
        t.total_ms += f64::from(s.total_ms);
        let g = &s.solver_stages;
        let stages = [
            g.prepare,
            g.integrate_velocities,
            g.warm_start,
            g.solve,
            g.integrate_positions,
            g.relax,
            g.restitution,
            g.store,
            g.finalize,
        ];
        for (sum, ms) in t.stages.iter_mut().zip(stages) {
            *sum += f64::from(ms);
        }
        t.finish_ms += f64::from(s.finish_ms);
        if s.threads_used < self.world.thread_count() {
            t.steps_alone += 1;
        }
    }

    fn share_alone(&self) -> Option<f64> {
        (self.world.thread_count() > 1)
            .then(|| self.totals.steps_alone as f64 / self.totals.steps.max(1) as f64)
    }

    /// `StepStats`' stage times, averaged over the steps.
    fn profile(&self) -> Option<crate::StageTimes> {
        let t = &self.totals;
        let n = t.steps.max(1) as f64;
        Some(
            [
                ("step", t.total_ms),
                ("broad phase", t.broad_ms),
                ("narrow phase", t.narrow_ms),
                ("solve", t.solve_ms),
                ("integrate", t.integrate_ms),
                ("prepare", t.stages[0]),
                ("integrate v", t.stages[1]),
                ("warm start", t.stages[2]),
                ("solve impulses", t.stages[3]),
                ("integrate x", t.stages[4]),
                ("relax", t.stages[5]),
                ("restitution", t.stages[6]),
                ("store", t.stages[7]),
                ("finalize", t.stages[8]),
                ("quarantine, breaking, sleep", t.finish_ms),
            ]
            .iter()
            .map(|&(name, ms)| (name.to_string(), ms / n))
            .collect(),
        )
    }

    fn work_counts(&self) -> Option<String> {
        let t = &self.totals;
        let per = |x: u64| x as f64 / t.steps.max(1) as f64;
        Some(format!(
            "per step: {:.0} pairs, {:.0} touching, {:.1} proxies moved, {:.0} overlaps found, \
             {:.1} pairs created, {:.0} manifolds reused; ms: broad {:.3}, narrow {:.3}, solve {:.3}",
            per(t.pairs),
            per(t.contacts),
            per(t.proxies_moved),
            per(t.overlaps_found),
            per(t.pairs_created),
            per(t.reused),
            t.broad_ms / t.steps.max(1) as f64,
            t.narrow_ms / t.steps.max(1) as f64,
            t.solve_ms / t.steps.max(1) as f64,
        ))
    }

    fn body_y(&mut self, index: usize) -> f32 {
        self.world
            .body(self.bodies[index])
            .map_or(f32::NAN, |b| b.position().y)
    }

    fn body_x(&mut self, index: usize) -> f32 {
        self.world
            .body(self.bodies[index])
            .map_or(f32::NAN, |b| b.position().x)
    }

    fn set_velocity(&mut self, index: usize, velocity: [f32; 2]) {
        let _ = self
            .world
            .set_linear_velocity(self.bodies[index], v(velocity));
    }

    fn spawn(&mut self, slot: usize, bodies: &[BodySpec], joints: &[JointSpec]) {
        let handles: Vec<BodyHandle> = bodies
            .iter()
            .map(|b| add_body(&mut self.world, b).expect("impulse spawn"))
            .collect();
        for j in joints {
            create_joint(&mut self.world, handles[j.body_a], handles[j.body_b], j)
                .expect("impulse spawn joint");
        }
        if self.spawned.len() <= slot {
            self.spawned.resize(slot + 1, Vec::new());
        }
        self.spawned[slot] = handles;
    }

    fn despawn(&mut self, slot: usize) {
        for h in self
            .spawned
            .get_mut(slot)
            .map(std::mem::take)
            .unwrap_or_default()
        {
            let _ = self.world.destroy_body(h);
        }
    }

    fn spawned_y(&mut self) -> Vec<f32> {
        let world = &self.world;
        self.spawned
            .iter()
            .flatten()
            .filter_map(|&h| world.body(h).map(|b| b.position().y))
            .collect()
    }

    /// Pairs with at least one manifold point.
    fn touching_pairs(&mut self) -> usize {
        self.world.stats().contacts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes;

    /// Each scene's world settings reach Impulse's world, as they reach Box2D's and Rapier's:
    /// smash runs in zero gravity (the port once gave every scene the default gravity, and
    /// smash's wall fell while Box2D's floated).
    #[test]
    fn the_scene_world_settings_reach_the_world() {
        for name in scenes::SCENE_NAMES {
            let spec = scenes::by_name(name).expect("a bench scene");
            let sim = build(&spec, Solver::SoftStep).expect("builds");
            let got = sim.world.settings();
            let w = &spec.world;
            assert_eq!(got.gravity, Vec2::from_array(w.gravity), "{name}");
            assert_eq!(got.substeps, w.substeps, "{name}");
            assert_eq!(got.step_hz, 1.0 / w.dt, "{name}");
            assert_eq!(got.contact_hertz, w.contact_hertz, "{name}");
            assert_eq!(got.restitution_threshold, w.restitution_threshold, "{name}");
            assert_eq!(sim.dt, w.dt, "{name}");
        }
    }

    /// Smash's wall floats until the box arrives (about 1.1 s): a box in its far corner has
    /// not moved after 20 steps (in gravity it would have fallen 0.56 m).
    #[test]
    fn smash_wall_floats_before_the_impact() {
        let spec = scenes::smash();
        let mut sim = build(&spec, Solver::SoftStep).expect("builds");
        let corner = *sim.bodies.last().expect("bodies");
        let start = sim.world.body(corner).expect("body").position();
        for _ in 0..20 {
            sim.step();
        }
        let end = sim.world.body(corner).expect("body").position();
        assert!((end - start).length() < 1e-3, "{start} -> {end}");
    }
}
