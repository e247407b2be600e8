//! Contact pairs (placeholder).
