//! The one error type of the core: which input was wrong and what would be valid.
//!
//! The `check_*` functions are how every user number is checked: finite, the sign the caller
//! asks for, and inside the documented range of its field ([`super::limits::range_of`]).

use std::fmt;

use super::limits::{self, number};

/// An invalid argument to a constructor or a world call. `field` names the input
/// (`"density"`, `"polygon.vertices"`, `"body_b"`), `message` says what is wrong and what
/// would be valid.
#[derive(Clone, Debug, PartialEq)]
pub struct PhysicsError {
    pub field: &'static str,
    pub message: String,
}

impl PhysicsError {
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        PhysicsError {
            field,
            message: message.into(),
        }
    }
}

impl fmt::Display for PhysicsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for PhysicsError {}

/// Result of a core call.
pub type PhysicsResult<T> = Result<T, PhysicsError>;

/// `Ok` when `value` is inside the documented range of `field` (or `field` has none).
fn check_range(field: &'static str, value: f32) -> PhysicsResult<()> {
    match limits::range_of(field) {
        Some(range) if !range.contains(value) => Err(PhysicsError::new(
            field,
            format!("must be {}, got {}", range.describe(), number(value)),
        )),
        _ => Ok(()),
    }
}

/// `Ok` when `value` is finite and inside the documented range of `field`.
pub fn check_finite(field: &'static str, value: f32) -> PhysicsResult<()> {
    if !value.is_finite() {
        return Err(PhysicsError::new(
            field,
            format!("must be a finite number, got {value}"),
        ));
    }
    check_range(field, value)
}

/// `Ok` when `value` is finite, strictly positive and inside the range of `field`.
pub fn check_positive(field: &'static str, value: f32) -> PhysicsResult<()> {
    if !value.is_finite() {
        return Err(PhysicsError::new(
            field,
            format!("must be a finite number, got {value}"),
        ));
    }
    if value <= 0.0 {
        return Err(PhysicsError::new(
            field,
            format!("must be greater than zero, got {}", number(value)),
        ));
    }
    check_range(field, value)
}

/// `Ok` when `value` is finite, zero or more, and inside the range of `field`.
pub fn check_non_negative(field: &'static str, value: f32) -> PhysicsResult<()> {
    if !value.is_finite() {
        return Err(PhysicsError::new(
            field,
            format!("must be a finite number, got {value}"),
        ));
    }
    if value < 0.0 {
        return Err(PhysicsError::new(
            field,
            format!("must be zero or more, got {}", number(value)),
        ));
    }
    check_range(field, value)
}

/// `Ok` when both components are finite and inside the range of `field`.
pub fn check_finite_vec(field: &'static str, v: glam::Vec2) -> PhysicsResult<()> {
    if !(v.x.is_finite() && v.y.is_finite()) {
        return Err(PhysicsError::new(
            field,
            format!("must be finite, got ({}, {})", v.x, v.y),
        ));
    }
    match limits::range_of(field) {
        Some(range) if !(range.contains(v.x) && range.contains(v.y)) => Err(PhysicsError::new(
            field,
            format!(
                "each component must be {}, got ({}, {})",
                range.describe(),
                number(v.x),
                number(v.y)
            ),
        )),
        _ => Ok(()),
    }
}

/// A density: zero (a massless shape) or `MIN_DENSITY ..= DENSITY.max`.
pub fn check_density(field: &'static str, value: f32) -> PhysicsResult<()> {
    check_non_negative(field, value)?;
    if value > 0.0 && value < limits::MIN_DENSITY {
        return Err(PhysicsError::new(
            field,
            format!(
                "must be 0 (no mass) or {}, got {}",
                limits::Range {
                    min: limits::MIN_DENSITY,
                    ..limits::DENSITY
                }
                .describe(),
                number(value)
            ),
        ));
    }
    Ok(())
}
