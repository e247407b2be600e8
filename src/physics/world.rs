//! The world (placeholder).
pub struct World;
pub struct StepStats;
pub struct RayHit;
