//! Contact constraints (placeholder).
