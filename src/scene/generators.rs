//! Generators: pyramids, stacks, grids, chains, seeded scatters, and repeats of those, as
//! plain body and joint lists the builder then creates like hand-written ones.

use std::collections::HashMap;

use glam::Vec2;

use super::build::{check_shape, core_joint_kind};
use super::format::{BodyFile, BodyKindFile, ChainFile, Generator, GeometryFile, GridFile};
use super::format::{FilterFile, JointKindFile, MaterialFile, PyramidFile, RagdollFile};
use super::format::{RepeatFile, RevoluteFile, ScatterFile, ShapeFile, StackFile};

/// Most bodies one generator may make (a typo of a few zeros should not eat the memory).
pub const MAX_GENERATED_BODIES: u64 = 200_000;

/// A joint a generator asks for, between bodies given by creation index.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedJoint {
    pub body_a: usize,
    pub body_b: usize,
    pub kind: JointKindFile,
}

/// What a generator makes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Generated {
    pub bodies: Vec<BodyFile>,
    pub joints: Vec<GeneratedJoint>,
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny generator with good statistics whose
/// numbers are the same on every machine, so a seed names a scene.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, 24 bits.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

fn box_shape(half_size: f32, material: &MaterialFile) -> ShapeFile {
    ShapeFile {
        shape: GeometryFile::Box {
            half_width: half_size,
            half_height: half_size,
            center: Vec2::ZERO,
            angle: 0.0,
        },
        density: material.density,
        friction: material.friction,
        restitution: material.restitution,
        ..ShapeFile::default()
    }
}

fn body(kind: BodyKindFile, position: Vec2, angle: f32, shape: ShapeFile) -> BodyFile {
    BodyFile {
        kind,
        position,
        angle,
        shapes: vec![shape],
        ..BodyFile::default()
    }
}

/// What every generator does, each in its own struct's `impl`: count what it will make,
/// check its parameters, make its bodies and joints.
trait Make {
    /// How many bodies it makes (saturating).
    fn body_count(&self) -> u64;
    /// At most how many joints it makes (saturating).
    fn joint_count(&self) -> u64 {
        0
    }
    /// Push every problem with its parameters.
    fn check(&self, checks: &mut Checks);
    /// Append its bodies and joints to `out`, moved by `offset`.
    fn make(&self, at: &mut Making);
}

/// The one match from the file's enum to the struct that does the work.
fn parts(generator: &Generator) -> &dyn Make {
    match generator {
        Generator::Pyramid(g) => g,
        Generator::Stack(g) => g,
        Generator::Grid(g) => g,
        Generator::Chain(g) => g,
        Generator::Scatter(g) => g,
        Generator::Repeat(g) => g,
        Generator::Ragdoll(g) => g,
    }
}

/// How many bodies the generator makes (saturating).
pub fn body_count(generator: &Generator) -> u64 {
    parts(generator).body_count()
}

/// At most how many joints the generator makes (saturating): a grid with `joints` pins
/// each body to its right and lower neighbours, a chain pins each link to the next and its
/// ends to `start` and `end`.
pub fn joint_count(generator: &Generator) -> u64 {
    parts(generator).joint_count()
}

/// Every problem with a generator's parameters (empty when it can run). `names` are the
/// file's body names and their creation indices.
pub fn check(generator: &Generator, names: &HashMap<String, usize>) -> Vec<String> {
    let mut checks = Checks {
        errors: Vec::new(),
        names,
    };
    parts(generator).check(&mut checks);
    let n = body_count(generator);
    if n > MAX_GENERATED_BODIES {
        checks.errors.push(format!(
            "makes {n} bodies; at most {MAX_GENERATED_BODIES} per generator"
        ));
    }
    checks.errors
}

/// Make the bodies and joints. `first` is the creation index the first new body gets;
/// `names` resolve `start` / `end`. Call only when `check` found nothing.
pub fn generate(generator: &Generator, first: usize, names: &HashMap<String, usize>) -> Generated {
    let mut at = Making {
        first,
        names,
        offset: Vec2::ZERO,
        out: Generated::default(),
    };
    parts(generator).make(&mut at);
    at.out
}

/// The problems found so far and the file's body names, with the checks every generator
/// shares (same messages for the same field everywhere).
struct Checks<'a> {
    errors: Vec<String>,
    names: &'a HashMap<String, usize>,
}

impl Checks<'_> {
    fn positive(&mut self, field: &str, v: f32) {
        if !(v.is_finite() && v > 0.0) {
            self.errors.push(format!(
                "{field} must be a finite number above zero, got {v}"
            ));
        } else if let Some(m) = out_of_range(field, v) {
            self.errors.push(m);
        }
    }

    fn finite(&mut self, field: &str, v: Vec2) {
        if !v.is_finite() {
            self.errors
                .push(format!("{field} must be finite, got ({}, {})", v.x, v.y));
        } else if let Some(m) = out_of_range(field, v.x).or_else(|| out_of_range(field, v.y)) {
            self.errors.push(m);
        }
    }

    /// A finite number inside `field`'s documented range; `zero_or_more` also refuses
    /// negative values.
    fn number(&mut self, field: &str, v: f32, zero_or_more: bool) {
        if zero_or_more && !(v.is_finite() && v >= 0.0) {
            self.errors
                .push(format!("{field} must be zero or more, got {v}"));
        } else if !v.is_finite() {
            self.errors.push(format!("{field} must be finite, got {v}"));
        } else if let Some(m) = out_of_range(field, v) {
            self.errors.push(m);
        }
    }

    fn at_least_one(&mut self, field: &str, n: u32) {
        if n == 0 {
            self.errors.push(format!("{field} must be at least 1"));
        }
    }

    /// The material is a shape's: the same checks, the same messages.
    fn material(&mut self, m: &MaterialFile) {
        self.errors.extend(
            check_shape(&box_shape(1.0, m), true, "material")
                .into_iter()
                .filter(|e| {
                    e.starts_with("material: density")
                        || e.starts_with("material: friction")
                        || e.starts_with("material: restitution")
                }),
        );
    }

    fn shape(&mut self, shape: &ShapeFile, dynamic: bool) {
        self.errors.extend(check_shape(shape, dynamic, "shape"));
    }

    /// Problems of a generator's revolute joint options, as `field.option: message`.
    fn revolute(&mut self, j: &RevoluteFile, field: &str) {
        if let Err(problems) = core_joint_kind(&JointKindFile::Revolute(j.clone())) {
            self.errors
                .extend(problems.into_iter().map(|m| format!("{field}.{m}")));
        }
    }

    fn body_name(&mut self, field: &str, name: &Option<String>) {
        if let Some(name) = name {
            if !self.names.contains_key(name) {
                self.errors.push(format!(
                    "{field} body \"{name}\" does not exist; {}",
                    known_names(self.names)
                ));
            }
        }
    }
}

/// Where generated bodies go: the creation index of the first, the file's names, the
/// offset of the current copy (`Repeat`) and what was made so far.
struct Making<'a> {
    first: usize,
    names: &'a HashMap<String, usize>,
    offset: Vec2,
    out: Generated,
}

impl Making<'_> {
    /// Creation index of the next body made.
    fn next_index(&self) -> usize {
        self.first + self.out.bodies.len()
    }

    fn body(&mut self, kind: BodyKindFile, position: Vec2, angle: f32, shape: ShapeFile) {
        self.out.bodies.push(body(kind, position, angle, shape));
    }

    fn pin(&mut self, body_a: usize, body_b: usize, joint: &RevoluteFile, anchor: Vec2) {
        self.out.joints.push(GeneratedJoint {
            body_a,
            body_b,
            kind: JointKindFile::Revolute(RevoluteFile {
                anchor,
                ..joint.clone()
            }),
        });
    }
}

impl Make for PyramidFile {
    fn body_count(&self) -> u64 {
        let n = self.base as u64;
        n * (n + 1) / 2
    }

    fn check(&self, c: &mut Checks) {
        c.at_least_one("base", self.base);
        c.positive("half_size", self.half_size);
        c.finite("origin", self.origin);
        if let Some(s) = self.spacing {
            c.positive("spacing", s);
        }
        if let Some(h) = self.row_height {
            c.positive("row_height", h);
        }
        c.material(&self.material);
    }

    fn make(&self, at: &mut Making) {
        // Box2D-Lite's loop: each row starts half a spacing right of and a row above the
        // previous row's start.
        let dx = self.spacing.unwrap_or(2.0 * self.half_size);
        let dy = self.row_height.unwrap_or(2.0 * self.half_size);
        let mut x = self.origin + at.offset;
        for i in 0..self.base {
            let mut y = x;
            for _ in i..self.base {
                let shape = box_shape(self.half_size, &self.material);
                at.body(BodyKindFile::Dynamic, y, 0.0, shape);
                y += Vec2::new(dx, 0.0);
            }
            x += Vec2::new(0.5 * dx, dy);
        }
    }
}

impl Make for StackFile {
    fn body_count(&self) -> u64 {
        self.count as u64 * self.columns as u64
    }

    fn check(&self, c: &mut Checks) {
        c.at_least_one("count", self.count);
        c.at_least_one("columns", self.columns);
        c.positive("half_size", self.half_size);
        c.positive("column_spacing", self.column_spacing);
        c.finite("origin", self.origin);
        if let Some(s) = self.spacing {
            c.positive("spacing", s);
        }
        c.number("jitter", self.jitter, true);
        c.material(&self.material);
    }

    fn make(&self, at: &mut Making) {
        let dy = self.spacing.unwrap_or(2.0 * self.half_size);
        let mut rng = Rng::new(self.seed);
        for column in 0..self.columns {
            let base =
                self.origin + at.offset + Vec2::new(self.column_spacing * column as f32, 0.0);
            for i in 0..self.count {
                let dx = if self.jitter > 0.0 {
                    rng.range(-self.jitter, self.jitter)
                } else {
                    0.0
                };
                let p = base + Vec2::new(dx, dy * i as f32);
                let shape = box_shape(self.half_size, &self.material);
                at.body(BodyKindFile::Dynamic, p, 0.0, shape);
            }
        }
    }
}

impl Make for GridFile {
    fn body_count(&self) -> u64 {
        self.columns as u64 * self.rows as u64
    }

    fn joint_count(&self) -> u64 {
        match self.joints {
            Some(_) => 2 * self.body_count(),
            None => 0,
        }
    }

    fn check(&self, c: &mut Checks) {
        c.at_least_one("columns", self.columns);
        c.at_least_one("rows", self.rows);
        c.finite("origin", self.origin);
        c.finite("spacing", self.spacing);
        let dynamic = self.kind == BodyKindFile::Dynamic;
        c.shape(&self.shape, dynamic);
        for s in self.more_shapes.iter().chain(&self.alternate) {
            c.shape(s, dynamic);
        }
        c.finite("stagger", self.stagger);
        for &(col, row) in &self.fixed {
            if col >= self.columns || row >= self.rows {
                c.errors.push(format!(
                    "fixed cell ({col}, {row}) is outside the {} x {} grid",
                    self.columns, self.rows
                ));
            }
        }
        if let Some(j) = &self.joints {
            c.revolute(j, "joints");
        }
    }

    fn make(&self, at: &mut Making) {
        let base = at.next_index();
        let columns = self.columns;
        let index = |c: u32, r: u32| base + (r * columns + c) as usize;
        let cell = |offset: Vec2, c: u32, r: u32| {
            self.origin + offset + Vec2::new(self.spacing.x * c as f32, -self.spacing.y * r as f32)
        };
        let turns = 1 + self.alternate.len();
        for r in 0..self.rows {
            let stagger = if r % 2 == 0 {
                self.stagger
            } else {
                -self.stagger
            };
            for c in 0..self.columns {
                let kind = if self.fixed.contains(&(c, r)) {
                    BodyKindFile::Static
                } else {
                    self.kind
                };
                let n = (r * columns + c) as usize % turns;
                let shape = if n == 0 {
                    &self.shape
                } else {
                    &self.alternate[n - 1]
                };
                // Zero stagger adds nothing (bit for bit the grid of before).
                let mut p = cell(at.offset, c, r);
                if self.stagger != Vec2::ZERO {
                    p += stagger;
                }
                at.body(kind, p, 0.0, shape.clone());
                if let Some(b) = at.out.bodies.last_mut() {
                    b.shapes.extend(self.more_shapes.iter().cloned());
                }
            }
        }
        let Some(j) = &self.joints else {
            return;
        };
        for r in 0..self.rows {
            for c in 0..self.columns {
                let p = cell(at.offset, c, r);
                if c + 1 < self.columns {
                    let anchor = p + Vec2::new(0.5 * self.spacing.x, 0.0);
                    at.pin(index(c, r), index(c + 1, r), j, anchor);
                }
                if r + 1 < self.rows {
                    let anchor = p - Vec2::new(0.0, 0.5 * self.spacing.y);
                    at.pin(index(c, r), index(c, r + 1), j, anchor);
                }
            }
        }
    }
}

impl Make for ChainFile {
    fn body_count(&self) -> u64 {
        self.count as u64
    }

    fn joint_count(&self) -> u64 {
        self.count as u64 + 1
    }

    fn check(&self, c: &mut Checks) {
        c.at_least_one("count", self.count);
        c.finite("origin", self.origin);
        c.finite("spacing", self.spacing);
        c.shape(&self.shape, true);
        c.body_name("start", &self.start);
        c.body_name("end", &self.end);
        c.revolute(&self.joint, "joint");
    }

    fn make(&self, at: &mut Making) {
        let base = at.next_index();
        let start_point = self.origin + at.offset;
        let spacing = self.spacing;
        let start = self.start.as_ref().and_then(|n| at.names.get(n)).copied();
        let end = self.end.as_ref().and_then(|n| at.names.get(n)).copied();
        for i in 0..self.count {
            let p = start_point + spacing * i as f32;
            at.body(BodyKindFile::Dynamic, p, 0.0, self.shape.clone());
            let anchor = p - 0.5 * spacing;
            if i > 0 {
                let link = base + i as usize;
                at.pin(link - 1, link, &self.joint, anchor);
            } else if let Some(s) = start {
                at.pin(s, base, &self.joint, anchor);
            }
        }
        if let Some(e) = end {
            let last = start_point + spacing * (self.count - 1) as f32;
            let link = base + self.count as usize - 1;
            at.pin(link, e, &self.joint, last + 0.5 * spacing);
        }
    }
}

impl Make for ScatterFile {
    fn body_count(&self) -> u64 {
        self.count as u64
    }

    fn check(&self, c: &mut Checks) {
        let (min, max) = (self.min, self.max);
        c.at_least_one("count", self.count);
        c.finite("min", min);
        c.finite("max", max);
        if min.x > max.x || min.y > max.y {
            c.errors.push(format!(
                "min ({}, {}) must be below and left of max ({}, {})",
                min.x, min.y, max.x, max.y
            ));
        }
        c.number("max_angle", self.max_angle, false);
        c.shape(&self.shape, true);
    }

    fn make(&self, at: &mut Making) {
        let (min, max) = (self.min, self.max);
        let mut rng = Rng::new(self.seed);
        for _ in 0..self.count {
            let p = Vec2::new(rng.range(min.x, max.x), rng.range(min.y, max.y)) + at.offset;
            let angle = if self.max_angle != 0.0 {
                rng.range(-self.max_angle, self.max_angle)
            } else {
                0.0
            };
            at.body(BodyKindFile::Dynamic, p, angle, self.shape.clone());
        }
    }
}

impl Make for RepeatFile {
    fn body_count(&self) -> u64 {
        (self.columns as u64 * self.rows as u64).saturating_mul(body_count(&self.of))
    }

    fn joint_count(&self) -> u64 {
        (self.columns as u64 * self.rows as u64).saturating_mul(joint_count(&self.of))
    }

    fn check(&self, c: &mut Checks) {
        c.at_least_one("columns", self.columns);
        c.at_least_one("rows", self.rows);
        c.finite("step", self.step);
        let inner = check(&self.of, c.names);
        c.errors
            .extend(inner.into_iter().map(|e| format!("of: {e}")));
    }

    fn make(&self, at: &mut Making) {
        let outer = at.offset;
        for r in 0..self.rows {
            for c in 0..self.columns {
                at.offset = outer + Vec2::new(self.step.x * c as f32, self.step.y * r as f32);
                parts(&self.of).make(at);
            }
        }
        at.offset = outer;
    }
}

/// One bone of Box2D's human (`shared/human.c`, scale 1; heights above the feet, metres).
struct Bone {
    /// Height of the body origin.
    height: f32,
    /// The capsule's centres on the body's y axis and its radius.
    capsule: (f32, f32, f32),
    /// A foot polygon on this bone (the shins).
    foot: bool,
    linear_damping: f32,
    /// Index of the parent bone and the height of the pin joining them.
    parent: Option<(usize, f32)>,
    /// Joint limits, in units of pi.
    limits: (f32, f32),
    /// Scale of the joint friction torque.
    friction_scale: f32,
    /// Reference angle, in units of pi.
    reference: f32,
}

#[allow(clippy::too_many_arguments)]
const fn bone(
    height: f32,
    capsule: (f32, f32, f32),
    foot: bool,
    linear_damping: f32,
    parent: Option<(usize, f32)>,
    limits: (f32, f32),
    friction_scale: f32,
    reference: f32,
) -> Bone {
    Bone {
        height,
        capsule,
        foot,
        linear_damping,
        parent,
        limits,
        friction_scale,
        reference,
    }
}

/// Hip, torso, head, left leg (upper, lower), right leg, left arm (upper, lower), right arm:
/// Box2D's order.
const BONES: [Bone; 11] = [
    bone(
        0.95,
        (-0.02, 0.02, 0.095),
        false,
        0.0,
        None,
        (0.0, 0.0),
        1.0,
        0.0,
    ),
    bone(
        1.2,
        (-0.135, 0.135, 0.09),
        false,
        0.0,
        Some((0, 1.0)),
        (-0.25, 0.0),
        0.5,
        0.0,
    ),
    bone(
        1.475,
        (-0.038, 0.039, 0.075),
        false,
        0.1,
        Some((1, 1.4)),
        (-0.3, 0.1),
        0.25,
        0.0,
    ),
    bone(
        0.775,
        (-0.125, 0.125, 0.06),
        false,
        0.0,
        Some((0, 0.9)),
        (-0.05, 0.4),
        1.0,
        0.0,
    ),
    bone(
        0.475,
        (-0.155, 0.125, 0.045),
        true,
        0.0,
        Some((3, 0.625)),
        (-0.5, -0.02),
        0.5,
        0.0,
    ),
    bone(
        0.775,
        (-0.125, 0.125, 0.06),
        false,
        0.0,
        Some((0, 0.9)),
        (-0.05, 0.4),
        1.0,
        0.0,
    ),
    bone(
        0.475,
        (-0.155, 0.125, 0.045),
        true,
        0.0,
        Some((5, 0.625)),
        (-0.5, -0.02),
        0.5,
        0.0,
    ),
    bone(
        1.225,
        (-0.125, 0.125, 0.035),
        false,
        0.0,
        Some((1, 1.35)),
        (-0.1, 0.8),
        0.5,
        0.0,
    ),
    bone(
        0.975,
        (-0.125, 0.125, 0.03),
        false,
        0.1,
        Some((7, 1.1)),
        (-0.2, 0.3),
        0.1,
        0.25,
    ),
    bone(
        1.225,
        (-0.125, 0.125, 0.035),
        false,
        0.0,
        Some((1, 1.35)),
        (-0.1, 0.8),
        0.5,
        0.0,
    ),
    bone(
        0.975,
        (-0.125, 0.125, 0.03),
        false,
        0.1,
        Some((9, 1.1)),
        (-0.2, 0.3),
        0.1,
        0.25,
    ),
];

impl Make for RagdollFile {
    fn body_count(&self) -> u64 {
        self.count as u64 * BONES.len() as u64
    }

    fn joint_count(&self) -> u64 {
        self.count as u64 * (BONES.len() as u64 - 1)
    }

    fn check(&self, c: &mut Checks) {
        c.at_least_one("count", self.count);
        c.finite("origin", self.origin);
        c.finite("spacing", self.spacing);
        c.number("friction_torque", self.friction_torque, true);
        c.number("spring_hertz", self.spring_hertz, true);
        c.number("spring_damping_ratio", self.spring_damping_ratio, true);
    }

    fn make(&self, at: &mut Making) {
        use std::f32::consts::PI;
        for k in 0..self.count {
            let feet = self.origin + at.offset + self.spacing * k as f32;
            // Box2D's filter: ragdoll k (1-based) in group -k; bodies category 2 touching the
            // ground and other ragdolls, feet only the ground.
            let group = -(k.min(i32::MAX as u32 - 1) as i32 + 1);
            let body_filter = FilterFile {
                category_bits: 2,
                mask_bits: 1 | 2,
                group_index: group,
            };
            let foot_filter = FilterFile {
                mask_bits: 1,
                ..body_filter
            };
            let base = at.next_index();
            for bone in &BONES {
                let (y0, y1, radius) = bone.capsule;
                let mut shapes = vec![ShapeFile {
                    shape: GeometryFile::Capsule {
                        center_a: Vec2::new(0.0, y0),
                        center_b: Vec2::new(0.0, y1),
                        radius,
                    },
                    density: 1.0,
                    friction: 0.2,
                    restitution: 0.0,
                    filter: body_filter,
                }];
                if bone.foot {
                    shapes.push(ShapeFile {
                        shape: GeometryFile::Polygon {
                            vertices: vec![
                                Vec2::new(-0.03, -0.185),
                                Vec2::new(0.11, -0.185),
                                Vec2::new(0.11, -0.16),
                                Vec2::new(-0.03, -0.14),
                            ],
                            centroid: None,
                            radius: 0.015,
                        },
                        density: 1.0,
                        friction: 0.05,
                        restitution: 0.0,
                        filter: foot_filter,
                    });
                }
                at.out.bodies.push(BodyFile {
                    position: feet + Vec2::new(0.0, bone.height),
                    linear_damping: bone.linear_damping,
                    shapes,
                    ..BodyFile::default()
                });
            }
            for (i, bone) in BONES.iter().enumerate() {
                let Some((parent, pivot)) = bone.parent else {
                    continue;
                };
                let joint = RevoluteFile {
                    reference_angle: Some(bone.reference * PI),
                    enable_limit: true,
                    lower_angle: bone.limits.0 * PI,
                    upper_angle: bone.limits.1 * PI,
                    enable_motor: self.friction_torque > 0.0,
                    max_motor_torque: bone.friction_scale * self.friction_torque,
                    enable_spring: self.spring_hertz > 0.0,
                    spring_hertz: self.spring_hertz,
                    spring_damping_ratio: self.spring_damping_ratio,
                    ..RevoluteFile::default()
                };
                at.pin(
                    base + parent,
                    base + i,
                    &joint,
                    feet + Vec2::new(0.0, pivot),
                );
            }
        }
    }
}

/// "field must be between .. and .. (why), got v" when `v` is outside the documented range
/// of `field` (`physics::limits`).
fn out_of_range(field: &str, v: f32) -> Option<String> {
    let range = crate::physics::limits::range_of(field)?;
    (!range.contains(v)).then(|| {
        format!(
            "{field} must be {}, got {}",
            range.describe(),
            crate::physics::limits::number(v)
        )
    })
}

/// The list of body names for a "does not exist" message.
pub(crate) fn known_names(names: &HashMap<String, usize>) -> String {
    if names.is_empty() {
        return "the file names no bodies".to_string();
    }
    let mut list: Vec<(&usize, &String)> = names.iter().map(|(n, i)| (i, n)).collect();
    list.sort();
    let shown: Vec<String> = list
        .iter()
        .take(12)
        .map(|(_, n)| format!("\"{n}\""))
        .collect();
    let more = if list.len() > 12 { ", ..." } else { "" };
    format!("named bodies: {}{more}", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_reproducible_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..1000 {
            let x = a.range(-2.0, 3.0);
            assert_eq!(x.to_bits(), b.range(-2.0, 3.0).to_bits());
            assert!((-2.0..3.0).contains(&x));
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn pyramid_matches_box2d_lite_positions() {
        let g = Generator::Pyramid(PyramidFile {
            base: 12,
            half_size: 0.5,
            origin: Vec2::new(-6.0, 0.75),
            spacing: Some(1.125),
            row_height: Some(2.0),
            material: MaterialFile::default(),
        });
        let out = generate(&g, 1, &HashMap::new());
        assert_eq!(out.bodies.len(), 78);
        assert_eq!(out.bodies[0].position, Vec2::new(-6.0, 0.75));
        assert_eq!(
            out.bodies[11].position,
            Vec2::new(-6.0 + 11.0 * 1.125, 0.75)
        );
        assert_eq!(out.bodies[12].position, Vec2::new(-6.0 + 0.5625, 2.75));
        assert_eq!(
            out.bodies[77].position,
            Vec2::new(-6.0 + 11.0 * 0.5625, 22.75)
        );
    }

    #[test]
    fn chain_pins_links_at_midpoints() {
        let mut names = HashMap::new();
        names.insert("ground".to_string(), 0);
        let g = Generator::Chain(ChainFile {
            count: 15,
            origin: Vec2::new(-8.5, 5.0),
            spacing: Vec2::new(1.25, 0.0),
            shape: ShapeFile::default(),
            start: Some("ground".into()),
            end: Some("ground".into()),
            joint: RevoluteFile::default(),
        });
        let out = generate(&g, 1, &names);
        assert_eq!((out.bodies.len(), out.joints.len()), (15, 16));
        for (i, j) in out.joints.iter().enumerate() {
            let JointKindFile::Revolute(r) = &j.kind else {
                panic!("revolute")
            };
            // Box2D-Lite: joint i at x = -9.125 + 1.25 i.
            assert_eq!(r.anchor, Vec2::new(-9.125 + 1.25 * i as f32, 5.0));
        }
        assert_eq!((out.joints[0].body_a, out.joints[0].body_b), (0, 1));
        assert_eq!((out.joints[15].body_a, out.joints[15].body_b), (15, 0));
    }

    #[test]
    fn grid_with_joints_counts() {
        let g = Generator::Grid(GridFile {
            columns: 4,
            rows: 3,
            origin: Vec2::ZERO,
            spacing: Vec2::ONE,
            shape: ShapeFile::default(),
            kind: BodyKindFile::Dynamic,
            fixed: vec![(0, 0)],
            joints: Some(RevoluteFile::default()),
            more_shapes: Vec::new(),
            alternate: Vec::new(),
            stagger: Vec2::ZERO,
        });
        let out = generate(&g, 0, &HashMap::new());
        assert_eq!(out.bodies.len(), 12);
        // 2 N (N - 1) for a square; here rows (cols - 1) + cols (rows - 1).
        assert_eq!(out.joints.len(), 3 * 3 + 4 * 2);
        assert_eq!(out.bodies[0].kind, BodyKindFile::Static);
    }

    /// Box2D's compounds and spinner layouts: zig-zag rows, a second shape on every body,
    /// shapes taken in turn row by row.
    #[test]
    fn grid_staggers_rows_adds_shapes_and_alternates() {
        let circle = ShapeFile {
            shape: GeometryFile::Circle {
                radius: 0.3,
                center: Vec2::ZERO,
            },
            ..ShapeFile::default()
        };
        let g = Generator::Grid(GridFile {
            columns: 3,
            rows: 2,
            origin: Vec2::new(1.0, 2.0),
            spacing: Vec2::new(2.0, -3.0),
            shape: ShapeFile::default(),
            kind: BodyKindFile::Dynamic,
            fixed: Vec::new(),
            joints: None,
            more_shapes: vec![circle.clone()],
            alternate: vec![circle.clone()],
            stagger: Vec2::new(0.25, 0.0),
        });
        let out = generate(&g, 0, &HashMap::new());
        let positions: Vec<Vec2> = out.bodies.iter().map(|b| b.position).collect();
        assert_eq!(
            positions,
            vec![
                Vec2::new(1.25, 2.0),
                Vec2::new(3.25, 2.0),
                Vec2::new(5.25, 2.0),
                Vec2::new(0.75, 5.0),
                Vec2::new(2.75, 5.0),
                Vec2::new(4.75, 5.0),
            ]
        );
        for (n, b) in out.bodies.iter().enumerate() {
            assert_eq!(b.shapes.len(), 2);
            let first = if n % 2 == 0 {
                &ShapeFile::default()
            } else {
                &circle
            };
            assert_eq!(&b.shapes[0], first, "body {n}");
            assert_eq!(b.shapes[1], circle);
        }
    }

    /// Box2D's human: 11 bones, 10 sprung joints with the lower arms turned pi/4; ragdoll k in
    /// group -k; feet touch only the ground.
    #[test]
    fn ragdoll_is_box2d_human() {
        let g = Generator::Ragdoll(RagdollFile {
            count: 2,
            origin: Vec2::new(-3.0, 1.0),
            spacing: Vec2::new(0.5, 0.0),
            friction_torque: 0.05,
            spring_hertz: 5.0,
            spring_damping_ratio: 0.5,
        });
        assert_eq!((body_count(&g), joint_count(&g)), (22, 20));
        assert!(check(&g, &HashMap::new()).is_empty());
        let out = generate(&g, 4, &HashMap::new());
        assert_eq!((out.bodies.len(), out.joints.len()), (22, 20));
        // The hip of the second ragdoll stands 0.95 m above its feet.
        assert_eq!(out.bodies[11].position, Vec2::new(-2.5, 1.95));
        let quarter = std::f32::consts::FRAC_PI_4;
        let mut turned = 0;
        for j in &out.joints {
            assert!(j.body_a >= 4 && j.body_b >= 4 && j.body_a < 26 && j.body_b < 26);
            let JointKindFile::Revolute(r) = &j.kind else {
                panic!("revolute")
            };
            assert!(r.enable_spring && r.spring_hertz == 5.0 && r.spring_damping_ratio == 0.5);
            assert!(r.enable_limit && r.enable_motor && r.motor_speed == 0.0);
            if r.reference_angle == Some(quarter) {
                turned += 1;
            } else {
                assert_eq!(r.reference_angle, Some(0.0));
            }
        }
        assert_eq!(turned, 4);
        for (i, b) in out.bodies.iter().enumerate() {
            let group = -(i as i32 / 11 + 1);
            for s in &b.shapes {
                assert_eq!(s.filter.group_index, group);
                let foot = matches!(s.shape, GeometryFile::Polygon { .. });
                assert_eq!(s.filter.mask_bits, if foot { 1 } else { 3 });
            }
        }
        let bad = Generator::Ragdoll(RagdollFile {
            count: 0,
            spring_hertz: -1.0,
            ..match g {
                Generator::Ragdoll(r) => r,
                _ => unreachable!(),
            }
        });
        let errors = check(&bad, &HashMap::new());
        assert!(errors.iter().any(|e| e.starts_with("count")), "{errors:?}");
        assert!(
            errors.iter().any(|e| e.starts_with("spring_hertz")),
            "{errors:?}"
        );
    }
}
