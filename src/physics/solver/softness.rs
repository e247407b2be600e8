//! Soft constraints (Box2D v3, "Solver2D"): a constraint behaves as a spring of frequency
//! `hertz` and damping ratio `zeta`, solved implicitly.
//!
//! For a constraint with position error `C` and effective mass `m`, the impulse is
//!
//! ```text
//! impulse = -mass_scale * m * (Cdot + bias_rate * C) - impulse_scale * accumulated
//! omega = 2 pi hertz
//! a1 = 2 zeta + h omega,  a2 = h omega a1,  a3 = 1 / (1 + a2)
//! bias_rate = omega / a1,  mass_scale = a2 a3,  impulse_scale = a3
//! ```
//!
//! `hertz = 0` gives a rigid constraint (bias 0, mass scale 1, impulse scale 0).

/// Coefficients of a soft constraint for one step size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Softness {
    pub bias_rate: f32,
    pub mass_scale: f32,
    pub impulse_scale: f32,
}

impl Softness {
    pub const RIGID: Softness = Softness {
        bias_rate: 0.0,
        mass_scale: 1.0,
        impulse_scale: 0.0,
    };

    pub fn new(hertz: f32, zeta: f32, h: f32) -> Softness {
        if hertz <= 0.0 || h <= 0.0 {
            return Softness::RIGID;
        }
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_hertz_is_rigid_and_stiffness_grows_with_hertz() {
        assert_eq!(Softness::new(0.0, 1.0, 1.0 / 60.0), Softness::RIGID);
        let soft = Softness::new(5.0, 0.7, 1.0 / 60.0);
        let stiff = Softness::new(50.0, 0.7, 1.0 / 60.0);
        assert!(soft.mass_scale < stiff.mass_scale && stiff.mass_scale < 1.0);
        assert!((soft.mass_scale + soft.impulse_scale - 1.0).abs() < 1e-6);
    }
}
