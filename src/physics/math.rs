//! Small math on top of `glam::Vec2`: rotations, rigid transforms, 2D cross products and
//! axis-aligned bounding boxes.
//!
//! Conventions: angles in radians, counter-clockwise positive; y up.

pub use glam::Vec2;

/// A rotation stored as its cosine and sine, so rotating a vector costs four multiplies.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Rot {
    pub c: f32,
    pub s: f32,
}

impl Default for Rot {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Rot {
    pub const IDENTITY: Rot = Rot { c: 1.0, s: 0.0 };

    /// The rotation by `angle` radians, by the engine's own `cos_sin` (`trig.rs`): the same
    /// bits on every machine, correctly rounded but for rare double roundings, so
    /// `c^2 + s^2` is 1 within one ulp.
    pub fn from_angle(angle: f32) -> Rot {
        let (c, s) = super::trig::cos_sin(angle);
        Rot { c, s }
    }

    /// The angle in [-pi, pi] (`trig::atan2`, deterministic).
    pub fn angle(self) -> f32 {
        super::trig::atan2(self.s, self.c)
    }

    /// Rotate `v` by this rotation.
    #[inline]
    pub fn rotate(self, v: Vec2) -> Vec2 {
        Vec2::new(self.c * v.x - self.s * v.y, self.s * v.x + self.c * v.y)
    }

    /// Rotate `v` by the inverse of this rotation.
    #[inline]
    pub fn inv_rotate(self, v: Vec2) -> Vec2 {
        Vec2::new(self.c * v.x + self.s * v.y, -self.s * v.x + self.c * v.y)
    }

    /// `self * other`: first `other`, then `self`.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn mul(self, other: Rot) -> Rot {
        Rot {
            c: self.c * other.c - self.s * other.s,
            s: self.s * other.c + self.c * other.s,
        }
    }

    /// `inverse(self) * other`.
    #[inline]
    pub fn inv_mul(self, other: Rot) -> Rot {
        Rot {
            c: self.c * other.c + self.s * other.s,
            s: self.c * other.s - self.s * other.c,
        }
    }

    /// The unit x axis of this frame.
    #[inline]
    pub fn x_axis(self) -> Vec2 {
        Vec2::new(self.c, self.s)
    }

    /// Integrate an angle change `d_angle` and renormalise (first order, as Box2D v3 does).
    #[inline]
    pub fn integrate(self, d_angle: f32) -> Rot {
        let c = self.c - d_angle * self.s;
        let s = self.s + d_angle * self.c;
        let mag = (c * c + s * s).sqrt();
        let inv = if mag > 0.0 { 1.0 / mag } else { 0.0 };
        Rot {
            c: c * inv,
            s: s * inv,
        }
    }
}

/// A rigid transform: rotation `q` then translation `p`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Transform {
    pub p: Vec2,
    pub q: Rot,
}

impl Transform {
    pub const IDENTITY: Transform = Transform {
        p: Vec2::ZERO,
        q: Rot::IDENTITY,
    };

    pub fn new(p: Vec2, angle: f32) -> Transform {
        Transform {
            p,
            q: Rot::from_angle(angle),
        }
    }

    /// Local point to world point.
    #[inline]
    pub fn apply(&self, v: Vec2) -> Vec2 {
        self.q.rotate(v) + self.p
    }

    /// World point to local point.
    #[inline]
    pub fn inv_apply(&self, v: Vec2) -> Vec2 {
        self.q.inv_rotate(v - self.p)
    }

    /// `self * other`.
    #[inline]
    pub fn mul(&self, other: &Transform) -> Transform {
        Transform {
            p: self.q.rotate(other.p) + self.p,
            q: self.q.mul(other.q),
        }
    }

    /// `inverse(self) * other`: `other` expressed in this frame.
    #[inline]
    pub fn inv_mul(&self, other: &Transform) -> Transform {
        Transform {
            p: self.q.inv_rotate(other.p - self.p),
            q: self.q.inv_mul(other.q),
        }
    }
}

/// 2D cross product of two vectors: the z component of `a x b`.
#[inline]
pub fn cross(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// Cross product of a vector and a scalar (z axis): `v x s`.
#[inline]
pub fn cross_vs(v: Vec2, s: f32) -> Vec2 {
    Vec2::new(s * v.y, -s * v.x)
}

/// Cross product of a scalar (z axis) and a vector: `s x v`. Angular velocity `w` gives the
/// velocity of a point at `r` as `cross_sv(w, r)`.
#[inline]
pub fn cross_sv(s: f32, v: Vec2) -> Vec2 {
    Vec2::new(-s * v.y, s * v.x)
}

/// True when every component is finite.
#[inline]
pub fn is_finite_vec(v: Vec2) -> bool {
    v.x.is_finite() && v.y.is_finite()
}

/// An axis-aligned bounding box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: Vec2,
    pub max: Vec2,
}

impl Aabb {
    pub fn new(min: Vec2, max: Vec2) -> Aabb {
        Aabb { min, max }
    }

    /// The box around a point with half extents `h`.
    pub fn around(center: Vec2, h: Vec2) -> Aabb {
        Aabb {
            min: center - h,
            max: center + h,
        }
    }

    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        !(other.min.x > self.max.x
            || other.min.y > self.max.y
            || self.min.x > other.max.x
            || self.min.y > other.max.y)
    }

    /// True when `other` lies entirely inside this box.
    #[inline]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.x <= other.min.x
            && self.min.y <= other.min.y
            && other.max.x <= self.max.x
            && other.max.y <= self.max.y
    }

    #[inline]
    pub fn contains_point(&self, p: Vec2) -> bool {
        p.x >= self.min.x && p.x <= self.max.x && p.y >= self.min.y && p.y <= self.max.y
    }

    #[inline]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Perimeter, the surface-area heuristic's cost in 2D.
    #[inline]
    pub fn perimeter(&self) -> f32 {
        2.0 * ((self.max.x - self.min.x) + (self.max.y - self.min.y))
    }

    /// This box grown by `margin` on every side.
    #[inline]
    pub fn extended(&self, margin: f32) -> Aabb {
        let m = Vec2::splat(margin);
        Aabb {
            min: self.min - m,
            max: self.max + m,
        }
    }

    #[inline]
    pub fn center(&self) -> Vec2 {
        0.5 * (self.min + self.max)
    }

    #[inline]
    pub fn extents(&self) -> Vec2 {
        0.5 * (self.max - self.min)
    }

    pub fn is_valid(&self) -> bool {
        is_finite_vec(self.min) && is_finite_vec(self.max) && self.min.cmple(self.max).all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_round_trip() {
        let q = Rot::from_angle(0.7);
        let v = Vec2::new(1.5, -2.0);
        let back = q.inv_rotate(q.rotate(v));
        assert!((back - v).length() < 1e-6);
        assert!((q.angle() - 0.7).abs() < 1e-6);
        assert!((q.mul(Rot::from_angle(0.3)).angle() - 1.0).abs() < 1e-6);
        assert!((q.inv_mul(Rot::from_angle(0.3)).angle() + 0.4).abs() < 1e-6);
    }

    #[test]
    fn transform_composition() {
        let a = Transform::new(Vec2::new(1.0, 2.0), 0.5);
        let b = Transform::new(Vec2::new(-3.0, 0.5), -1.2);
        let p = Vec2::new(0.3, 0.9);
        let ab = a.mul(&b);
        assert!((ab.apply(p) - a.apply(b.apply(p))).length() < 1e-5);
        let rel = a.inv_mul(&ab);
        assert!((rel.p - b.p).length() < 1e-5);
        assert!((a.inv_apply(a.apply(p)) - p).length() < 1e-6);
    }

    #[test]
    fn cross_products_match_3d() {
        let r = Vec2::new(2.0, 1.0);
        // w x r with w = 3 about z: (-3*1, 3*2)
        assert_eq!(cross_sv(3.0, r), Vec2::new(-3.0, 6.0));
        assert_eq!(cross_vs(r, 3.0), -cross_sv(3.0, r));
        assert_eq!(cross(Vec2::X, Vec2::Y), 1.0);
    }

    #[test]
    fn aabb_relations() {
        let a = Aabb::new(Vec2::ZERO, Vec2::ONE);
        let b = Aabb::new(Vec2::splat(0.5), Vec2::splat(2.0));
        let c = Aabb::new(Vec2::splat(1.5), Vec2::splat(2.0));
        assert!(a.overlaps(&b) && !a.overlaps(&c));
        assert!(a.union(&c).contains(&b));
        assert_eq!(a.perimeter(), 4.0);
        assert!(a.extended(0.1).contains(&a));
    }
}
