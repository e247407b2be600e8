//! The one error type of the core: which input was wrong and what would be valid.

use std::fmt;

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

/// `Ok` when `value` is finite.
pub fn check_finite(field: &'static str, value: f32) -> PhysicsResult<()> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(PhysicsError::new(
            field,
            format!("must be a finite number, got {value}"),
        ))
    }
}

/// `Ok` when `value` is finite and strictly positive.
pub fn check_positive(field: &'static str, value: f32) -> PhysicsResult<()> {
    check_finite(field, value)?;
    if value > 0.0 {
        Ok(())
    } else {
        Err(PhysicsError::new(
            field,
            format!("must be greater than zero, got {value}"),
        ))
    }
}

/// `Ok` when `value` is finite and zero or more.
pub fn check_non_negative(field: &'static str, value: f32) -> PhysicsResult<()> {
    check_finite(field, value)?;
    if value >= 0.0 {
        Ok(())
    } else {
        Err(PhysicsError::new(
            field,
            format!("must be zero or more, got {value}"),
        ))
    }
}

/// `Ok` when both components are finite.
pub fn check_finite_vec(field: &'static str, v: glam::Vec2) -> PhysicsResult<()> {
    if v.x.is_finite() && v.y.is_finite() {
        Ok(())
    } else {
        Err(PhysicsError::new(
            field,
            format!("must be finite, got ({}, {})", v.x, v.y),
        ))
    }
}
