//! Generators: pyramids, stacks, grids, chains, seeded scatters, and repeats of those, as
//! plain body and joint lists the builder then creates like hand-written ones.

use std::collections::HashMap;

use glam::Vec2;

use super::build::{check_shape, core_joint_kind};
use super::format::{BodyFile, BodyKindFile, Generator, GeometryFile, MaterialFile, RevoluteFile};
use super::format::{JointKindFile, ShapeFile};

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

/// How many bodies the generator makes (saturating).
pub fn body_count(generator: &Generator) -> u64 {
    match generator {
        Generator::Pyramid { base, .. } => {
            let n = *base as u64;
            n * (n + 1) / 2
        }
        Generator::Stack { count, columns, .. } => *count as u64 * *columns as u64,
        Generator::Chain { count, .. } | Generator::Scatter { count, .. } => *count as u64,
        Generator::Grid { columns, rows, .. } => *columns as u64 * *rows as u64,
        Generator::Repeat {
            columns, rows, of, ..
        } => (*columns as u64 * *rows as u64).saturating_mul(body_count(of)),
    }
}

/// At most how many joints the generator makes (saturating): a grid with `joints` pins
/// each body to its right and lower neighbours, a chain pins each link to the next and its
/// ends to `start` and `end`.
pub fn joint_count(generator: &Generator) -> u64 {
    match generator {
        Generator::Grid {
            columns,
            rows,
            joints: Some(_),
            ..
        } => 2 * *columns as u64 * *rows as u64,
        Generator::Chain { count, .. } => *count as u64 + 1,
        Generator::Repeat {
            columns, rows, of, ..
        } => (*columns as u64 * *rows as u64).saturating_mul(joint_count(of)),
        _ => 0,
    }
}

/// Every problem with a generator's parameters (empty when it can run). `names` are the
/// file's body names and their creation indices.
pub fn check(generator: &Generator, names: &HashMap<String, usize>) -> Vec<String> {
    let mut errors = Vec::new();
    let positive = |errors: &mut Vec<String>, field: &str, v: f32| {
        if !(v.is_finite() && v > 0.0) {
            errors.push(format!(
                "{field} must be a finite number above zero, got {v}"
            ));
        } else if let Some(m) = out_of_range(field, v) {
            errors.push(m);
        }
    };
    let finite = |errors: &mut Vec<String>, field: &str, v: Vec2| {
        if !v.is_finite() {
            errors.push(format!("{field} must be finite, got ({}, {})", v.x, v.y));
        } else if let Some(m) = out_of_range(field, v.x).or_else(|| out_of_range(field, v.y)) {
            errors.push(m);
        }
    };
    // The material is a shape's: the same checks, the same messages.
    let material = |errors: &mut Vec<String>, m: &MaterialFile| {
        errors.extend(
            check_shape(&box_shape(1.0, m), true, "material")
                .into_iter()
                .filter(|e| {
                    e.starts_with("material: density")
                        || e.starts_with("material: friction")
                        || e.starts_with("material: restitution")
                }),
        );
    };
    let at_least_one = |errors: &mut Vec<String>, field: &str, n: u32| {
        if n == 0 {
            errors.push(format!("{field} must be at least 1"));
        }
    };
    match generator {
        Generator::Pyramid {
            base,
            half_size,
            origin,
            spacing,
            row_height,
            material: m,
        } => {
            at_least_one(&mut errors, "base", *base);
            positive(&mut errors, "half_size", *half_size);
            finite(&mut errors, "origin", *origin);
            if let Some(s) = spacing {
                positive(&mut errors, "spacing", *s);
            }
            if let Some(h) = row_height {
                positive(&mut errors, "row_height", *h);
            }
            material(&mut errors, m);
        }
        Generator::Stack {
            count,
            half_size,
            origin,
            spacing,
            jitter,
            columns,
            column_spacing,
            material: m,
            ..
        } => {
            at_least_one(&mut errors, "count", *count);
            at_least_one(&mut errors, "columns", *columns);
            positive(&mut errors, "half_size", *half_size);
            positive(&mut errors, "column_spacing", *column_spacing);
            finite(&mut errors, "origin", *origin);
            if let Some(s) = spacing {
                positive(&mut errors, "spacing", *s);
            }
            if !(jitter.is_finite() && *jitter >= 0.0) {
                errors.push(format!("jitter must be zero or more, got {jitter}"));
            } else if let Some(m) = out_of_range("jitter", *jitter) {
                errors.push(m);
            }
            material(&mut errors, m);
        }
        Generator::Grid {
            columns,
            rows,
            origin,
            spacing,
            shape,
            kind,
            fixed,
            joints,
        } => {
            at_least_one(&mut errors, "columns", *columns);
            at_least_one(&mut errors, "rows", *rows);
            finite(&mut errors, "origin", *origin);
            finite(&mut errors, "spacing", *spacing);
            errors.extend(check_shape(shape, *kind == BodyKindFile::Dynamic, "shape"));
            for &(c, r) in fixed {
                if c >= *columns || r >= *rows {
                    errors.push(format!(
                        "fixed cell ({c}, {r}) is outside the {columns} x {rows} grid"
                    ));
                }
            }
            if let Some(j) = joints {
                errors.extend(check_revolute(j, "joints"));
            }
        }
        Generator::Chain {
            count,
            origin,
            spacing,
            shape,
            start,
            end,
            joint,
        } => {
            at_least_one(&mut errors, "count", *count);
            finite(&mut errors, "origin", *origin);
            finite(&mut errors, "spacing", *spacing);
            errors.extend(check_shape(shape, true, "shape"));
            for (field, name) in [("start", start), ("end", end)] {
                if let Some(name) = name {
                    if !names.contains_key(name) {
                        errors.push(format!(
                            "{field} body \"{name}\" does not exist; {}",
                            known_names(names)
                        ));
                    }
                }
            }
            errors.extend(check_revolute(joint, "joint"));
        }
        Generator::Scatter {
            count,
            min,
            max,
            shape,
            max_angle,
            ..
        } => {
            at_least_one(&mut errors, "count", *count);
            finite(&mut errors, "min", *min);
            finite(&mut errors, "max", *max);
            if min.x > max.x || min.y > max.y {
                errors.push(format!(
                    "min ({}, {}) must be below and left of max ({}, {})",
                    min.x, min.y, max.x, max.y
                ));
            }
            if !max_angle.is_finite() {
                errors.push(format!("max_angle must be finite, got {max_angle}"));
            } else if let Some(m) = out_of_range("max_angle", *max_angle) {
                errors.push(m);
            }
            errors.extend(check_shape(shape, true, "shape"));
        }
        Generator::Repeat {
            columns,
            rows,
            step,
            of,
        } => {
            at_least_one(&mut errors, "columns", *columns);
            at_least_one(&mut errors, "rows", *rows);
            finite(&mut errors, "step", *step);
            errors.extend(check(of, names).into_iter().map(|e| format!("of: {e}")));
        }
    }
    let n = body_count(generator);
    if n > MAX_GENERATED_BODIES {
        errors.push(format!(
            "makes {n} bodies; at most {MAX_GENERATED_BODIES} per generator"
        ));
    }
    errors
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

/// Problems of a generator's revolute joint options, as `field.option: message`.
fn check_revolute(j: &RevoluteFile, field: &str) -> Vec<String> {
    match core_joint_kind(&JointKindFile::Revolute(j.clone())) {
        Ok(_) => Vec::new(),
        Err(problems) => problems
            .into_iter()
            .map(|m| format!("{field}.{m}"))
            .collect(),
    }
}

/// Make the bodies and joints. `first` is the creation index the first new body gets;
/// `names` resolve `start` / `end`. Call only when `check` found nothing.
pub fn generate(generator: &Generator, first: usize, names: &HashMap<String, usize>) -> Generated {
    let mut out = Generated::default();
    generate_into(generator, first, names, Vec2::ZERO, &mut out);
    out
}

fn generate_into(
    generator: &Generator,
    first: usize,
    names: &HashMap<String, usize>,
    offset: Vec2,
    out: &mut Generated,
) {
    let dynamic = BodyKindFile::Dynamic;
    match generator {
        Generator::Pyramid {
            base,
            half_size,
            origin,
            spacing,
            row_height,
            material,
        } => {
            // Box2D-Lite's loop: each row starts half a spacing right of and a row above
            // the previous row's start.
            let dx = spacing.unwrap_or(2.0 * half_size);
            let dy = row_height.unwrap_or(2.0 * half_size);
            let mut x = *origin + offset;
            for i in 0..*base {
                let mut y = x;
                for _ in i..*base {
                    out.bodies
                        .push(body(dynamic, y, 0.0, box_shape(*half_size, material)));
                    y += Vec2::new(dx, 0.0);
                }
                x += Vec2::new(0.5 * dx, dy);
            }
        }
        Generator::Stack {
            count,
            half_size,
            origin,
            spacing,
            jitter,
            seed,
            columns,
            column_spacing,
            material,
        } => {
            let dy = spacing.unwrap_or(2.0 * half_size);
            let mut rng = Rng::new(*seed);
            for column in 0..*columns {
                let base = *origin + offset + Vec2::new(column_spacing * column as f32, 0.0);
                for i in 0..*count {
                    let dx = if *jitter > 0.0 {
                        rng.range(-jitter, *jitter)
                    } else {
                        0.0
                    };
                    let p = base + Vec2::new(dx, dy * i as f32);
                    out.bodies
                        .push(body(dynamic, p, 0.0, box_shape(*half_size, material)));
                }
            }
        }
        Generator::Grid {
            columns,
            rows,
            origin,
            spacing,
            shape,
            kind,
            fixed,
            joints,
        } => {
            let base = first + out.bodies.len();
            let index = |c: u32, r: u32| base + (r * columns + c) as usize;
            for r in 0..*rows {
                for c in 0..*columns {
                    let p =
                        *origin + offset + Vec2::new(spacing.x * c as f32, -spacing.y * r as f32);
                    let k = if fixed.contains(&(c, r)) {
                        BodyKindFile::Static
                    } else {
                        *kind
                    };
                    out.bodies.push(body(k, p, 0.0, shape.clone()));
                }
            }
            if let Some(j) = joints {
                for r in 0..*rows {
                    for c in 0..*columns {
                        let p = *origin
                            + offset
                            + Vec2::new(spacing.x * c as f32, -spacing.y * r as f32);
                        if c + 1 < *columns {
                            out.joints.push(GeneratedJoint {
                                body_a: index(c, r),
                                body_b: index(c + 1, r),
                                kind: JointKindFile::Revolute(RevoluteFile {
                                    anchor: p + Vec2::new(0.5 * spacing.x, 0.0),
                                    ..j.clone()
                                }),
                            });
                        }
                        if r + 1 < *rows {
                            out.joints.push(GeneratedJoint {
                                body_a: index(c, r),
                                body_b: index(c, r + 1),
                                kind: JointKindFile::Revolute(RevoluteFile {
                                    anchor: p - Vec2::new(0.0, 0.5 * spacing.y),
                                    ..j.clone()
                                }),
                            });
                        }
                    }
                }
            }
        }
        Generator::Chain {
            count,
            origin,
            spacing,
            shape,
            start,
            end,
            joint,
        } => {
            let base = first + out.bodies.len();
            let start_point = *origin + offset;
            let pin = |a: usize, b: usize, anchor: Vec2| GeneratedJoint {
                body_a: a,
                body_b: b,
                kind: JointKindFile::Revolute(RevoluteFile {
                    anchor,
                    ..joint.clone()
                }),
            };
            for i in 0..*count {
                let p = start_point + *spacing * i as f32;
                out.bodies.push(body(dynamic, p, 0.0, shape.clone()));
                if i == 0 {
                    if let Some(&s) = start.as_ref().and_then(|n| names.get(n)) {
                        out.joints.push(pin(s, base, p - 0.5 * *spacing));
                    }
                } else {
                    out.joints.push(pin(
                        base + i as usize - 1,
                        base + i as usize,
                        p - 0.5 * *spacing,
                    ));
                }
            }
            if let Some(&e) = end.as_ref().and_then(|n| names.get(n)) {
                let last = start_point + *spacing * (*count - 1) as f32;
                out.joints
                    .push(pin(base + *count as usize - 1, e, last + 0.5 * *spacing));
            }
        }
        Generator::Scatter {
            count,
            seed,
            min,
            max,
            shape,
            max_angle,
        } => {
            let mut rng = Rng::new(*seed);
            for _ in 0..*count {
                let p = Vec2::new(rng.range(min.x, max.x), rng.range(min.y, max.y)) + offset;
                let angle = if *max_angle != 0.0 {
                    rng.range(-max_angle, *max_angle)
                } else {
                    0.0
                };
                out.bodies.push(body(dynamic, p, angle, shape.clone()));
            }
        }
        Generator::Repeat {
            columns,
            rows,
            step,
            of,
        } => {
            for r in 0..*rows {
                for c in 0..*columns {
                    let shift = offset + Vec2::new(step.x * c as f32, step.y * r as f32);
                    generate_into(of, first, names, shift, out);
                }
            }
        }
    }
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
        let g = Generator::Pyramid {
            base: 12,
            half_size: 0.5,
            origin: Vec2::new(-6.0, 0.75),
            spacing: Some(1.125),
            row_height: Some(2.0),
            material: MaterialFile::default(),
        };
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
        let g = Generator::Chain {
            count: 15,
            origin: Vec2::new(-8.5, 5.0),
            spacing: Vec2::new(1.25, 0.0),
            shape: ShapeFile::default(),
            start: Some("ground".into()),
            end: Some("ground".into()),
            joint: RevoluteFile::default(),
        };
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
        let g = Generator::Grid {
            columns: 4,
            rows: 3,
            origin: Vec2::ZERO,
            spacing: Vec2::ONE,
            shape: ShapeFile::default(),
            kind: BodyKindFile::Dynamic,
            fixed: vec![(0, 0)],
            joints: Some(RevoluteFile::default()),
        };
        let out = generate(&g, 0, &HashMap::new());
        assert_eq!(out.bodies.len(), 12);
        // 2 N (N - 1) for a square; here rows (cols - 1) + cols (rows - 1).
        assert_eq!(out.joints.len(), 3 * 3 + 4 * 2);
        assert_eq!(out.bodies[0].kind, BodyKindFile::Static);
    }
}
