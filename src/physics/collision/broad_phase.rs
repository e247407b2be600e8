//! Broad phase: placeholder until the dynamic AABB tree lands.
