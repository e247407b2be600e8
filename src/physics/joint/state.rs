//! The saved state of a joint: what it carries from step to step beyond its definition
//! (exact local anchors, axes, reference angles and lengths computed at creation, offsets,
//! targets, and the accumulated impulses that warm start the next step). Scene export saves
//! it so that a loaded scene continues bit for bit; `World::state_hash` hashes it.
//!
//! Each joint file declares its own saved state with `saved_state!`; `joint/mod.rs` holds
//! the one `JointState` enum over them.

/// A number a joint state holds: checked finite on restore, fed to the state hash.
pub(crate) trait StateValue: Copy {
    fn is_finite_value(self) -> bool;
    fn push_bits(self, out: &mut Vec<u32>);
    /// The value held inside `-max ..= max` (each component); NaN stays NaN.
    fn held(self, max: f32) -> Self;
    /// Its numbers, to write (tests).
    #[cfg(test)]
    fn parts(&mut self) -> Vec<&mut f32>;
}

/// `v` held inside `-max ..= max`; NaN stays NaN (the quarantine looks for it).
fn held(v: f32, max: f32) -> f32 {
    if v > max {
        max
    } else if v < -max {
        -max
    } else {
        v
    }
}

impl StateValue for f32 {
    fn is_finite_value(self) -> bool {
        self.is_finite()
    }
    fn push_bits(self, out: &mut Vec<u32>) {
        out.push(self.to_bits());
    }
    fn held(self, max: f32) -> Self {
        held(self, max)
    }
    #[cfg(test)]
    fn parts(&mut self) -> Vec<&mut f32> {
        vec![self]
    }
}

/// An accumulated impulse of a part that most joints of their kind leave off (a revolute
/// joint's spring). Zero adds nothing to the state hash, so the hashes of worlds that never
/// use the part are those of before it existed; any other value is hashed like an `f32`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OptionalImpulse(pub f32);

impl From<f32> for OptionalImpulse {
    fn from(v: f32) -> Self {
        OptionalImpulse(v)
    }
}

impl From<OptionalImpulse> for f32 {
    fn from(v: OptionalImpulse) -> Self {
        v.0
    }
}

impl StateValue for OptionalImpulse {
    fn is_finite_value(self) -> bool {
        self.0.is_finite()
    }
    fn push_bits(self, out: &mut Vec<u32>) {
        if self.0.to_bits() != 0 {
            out.push(self.0.to_bits());
        }
    }
    fn held(self, max: f32) -> Self {
        OptionalImpulse(held(self.0, max))
    }
    #[cfg(test)]
    fn parts(&mut self) -> Vec<&mut f32> {
        vec![&mut self.0]
    }
}

impl StateValue for glam::Vec2 {
    fn is_finite_value(self) -> bool {
        self.is_finite()
    }
    fn push_bits(self, out: &mut Vec<u32>) {
        out.push(self.x.to_bits());
        out.push(self.y.to_bits());
    }
    fn held(self, max: f32) -> Self {
        glam::Vec2::new(held(self.x, max), held(self.y, max))
    }
    #[cfg(test)]
    fn parts(&mut self) -> Vec<&mut f32> {
        vec![&mut self.x, &mut self.y]
    }
}

/// The place of a saved field in its joint: `j.field`, or `j.path` for a field declared
/// `field: Type = path` (a value kept in a part such as `limit.lower_impulse`).
macro_rules! state_place {
    ($j:ident, $field:ident) => {
        $j.$field
    };
    ($j:ident, $field:ident, $($place:ident).+) => {
        $j.$($place).+
    };
}

/// Declares a joint's saved state in its own file:
///
/// ```text
/// saved_state! {
///     /// doc
///     RevoluteState for RevoluteJoint {
///         local_anchor_a: Vec2,                    // kept in `j.local_anchor_a`
///         motor_impulse: f32 = motor.impulse,      // kept in `j.motor.impulse`
///     }
/// }
/// ```
///
/// gives the struct `RevoluteState` (fields named as declared, in that order: the order of
/// the state hash), `RevoluteState::bits`, and `RevoluteJoint::state` /
/// `RevoluteJoint::restore_state` (refused, with nothing changed, when a number is not
/// finite; the error names the field).
macro_rules! saved_state {
    ($(#[$doc:meta])* $state:ident for $joint:ident {
        $($field:ident: $ty:ty $(= $($place:ident).+)?),* $(,)?
    }) => {
        $(#[$doc])*
        #[doc(hidden)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $state {
            $(pub $field: $ty),*
        }

        impl $state {
            /// Every number's bits, in field order (for `World::state_hash`).
            pub(crate) fn bits(&self, out: &mut Vec<u32>) {
                $($crate::physics::joint::state::StateValue::push_bits(self.$field, out);)*
            }
        }

        impl $joint {
            /// The joint's saved state.
            pub(crate) fn state(&self) -> $state {
                let j = self;
                $state {
                    $($field: $crate::physics::joint::state::state_place!(
                        j, $field $(, $($place).+)?
                    )),*
                }
            }

            /// Put back a saved state; refused (nothing changed) when a number is not
            /// finite.
            pub(crate) fn restore_state(
                &mut self,
                state: &$state,
            ) -> $crate::physics::error::PhysicsResult<()> {
                $(
                    if !$crate::physics::joint::state::StateValue::is_finite_value(state.$field) {
                        return Err($crate::physics::error::PhysicsError::new(
                            stringify!($field),
                            format!("must be finite, got {:?}", state.$field),
                        ));
                    }
                )*
                let j = self;
                $($crate::physics::joint::state::state_place!(j, $field $(, $($place).+)?)
                    = state.$field;)*
                Ok(())
            }

            /// Every accumulated impulse of the state (the fields named `*impulse`) held
            /// inside `-max ..= max`; values inside are unchanged. False when one was not
            /// finite.
            pub(crate) fn hold_impulses(&mut self, max: f32) -> bool {
                let j = self;
                let mut finite = true;
                $(
                    if stringify!($field).ends_with("impulse") {
                        let place = &mut $crate::physics::joint::state::state_place!(
                            j, $field $(, $($place).+)?
                        );
                        finite &= $crate::physics::joint::state::StateValue::is_finite_value(
                            *place,
                        );
                        *place = $crate::physics::joint::state::StateValue::held(*place, max);
                    }
                )*
                finite
            }

            /// Every number of every accumulated impulse, to write (tests).
            #[cfg(test)]
            pub(crate) fn impulses_mut(&mut self) -> Vec<&mut f32> {
                let j = self;
                let mut out = Vec::new();
                $(
                    if stringify!($field).ends_with("impulse") {
                        out.extend($crate::physics::joint::state::StateValue::parts(
                            &mut $crate::physics::joint::state::state_place!(
                                j, $field $(, $($place).+)?
                            ),
                        ));
                    }
                )*
                out
            }
        }
    };
}

pub(crate) use saved_state;
pub(crate) use state_place;
