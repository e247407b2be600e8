//! Breakable joints: every joint kind may carry a force and a torque threshold. At the end
//! of each step (`World::step`, after the solver's last sub-step, whatever the solver) a
//! joint whose reaction force or torque exceeds its threshold breaks: it is disabled (kept,
//! drawn as broken, can be re-enabled) or destroyed, per its `on_break`, and the step
//! records a [`JointEvent`] that the caller reads after `step` (`World::joint_events`,
//! Box2D v3 style: no callbacks; cleared by the next step).
//!
//! The load is the joint's accumulated impulse over the (sub-)step the solver used:
//! `|reaction_force(substeps / dt)|` against `break_force`, `|reaction_torque(substeps /
//! dt)|` against `break_torque` (the force first). A weld holding a hanging mass `m` under
//! gravity `g` carries `m g`: it breaks once `m g > break_force`. Reference: Box2D v3
//! `b2JointDef::forceThreshold` / `torqueThreshold` and `b2JointEvents`; seed 002 ("at the
//! end of each frame check the constraint force to see if it exceeded a specific maximum").

use super::{Joint, JointDef};
use crate::physics::error::{PhysicsError, PhysicsResult};
use crate::physics::limits::{self, Range};
use crate::physics::BodyHandle;
use crate::physics::JointHandle;

/// What a joint does when it breaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnBreak {
    /// Keep the joint, disabled: not solved, its bodies collide with each other; drawn as
    /// broken; `World::set_joint_enabled` re-enables it.
    #[default]
    Disable,
    /// Remove the joint from the world.
    Destroy,
}

/// Which threshold a joint broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakCause {
    /// The reaction force (N) exceeded `break_force`.
    Force,
    /// The reaction torque (N m) exceeded `break_torque`.
    Torque,
}

/// A joint broke during a step.
#[derive(Clone, Debug, PartialEq)]
pub struct JointEvent {
    /// The joint (no longer live when it was destroyed).
    pub joint: JointHandle,
    pub body_a: BodyHandle,
    pub body_b: BodyHandle,
    pub name: Option<String>,
    pub cause: BreakCause,
    /// The load that broke it: N for a force, N m for a torque (magnitudes).
    pub load: f32,
    /// The threshold it exceeded, same unit.
    pub threshold: f32,
    /// `World::step_count` after the step that broke it (1 for the first step).
    pub step: u64,
    /// True when the joint was destroyed, false when disabled.
    pub destroyed: bool,
}

/// `Ok` when a threshold (`break_force`, N, or `break_torque`, N m) is finite and within
/// `0 ..= 1e12` (the force and torque ranges of `limits`, from zero); otherwise an error
/// naming the field, the value and the range.
pub fn check_threshold(field: &'static str, value: f32) -> PhysicsResult<()> {
    let range = Range {
        min: 0.0,
        ..if field == "break_torque" {
            limits::TORQUE
        } else {
            limits::FORCE
        }
    };
    if value.is_finite() && range.contains(value) {
        return Ok(());
    }
    Err(PhysicsError::new(
        field,
        format!(
            "must be {}, got {}",
            range.describe(),
            limits::number(value)
        ),
    ))
}

/// A joint's thresholds, what breaking does, and whether it is enabled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Breaking {
    pub(crate) break_force: Option<f32>,
    pub(crate) break_torque: Option<f32>,
    pub(crate) on_break: OnBreak,
    pub(crate) enabled: bool,
}

impl Breaking {
    pub(crate) fn new(def: &JointDef) -> PhysicsResult<Breaking> {
        if let Some(f) = def.break_force {
            check_threshold("break_force", f)?;
        }
        if let Some(t) = def.break_torque {
            check_threshold("break_torque", t)?;
        }
        Ok(Breaking {
            break_force: def.break_force,
            break_torque: def.break_torque,
            on_break: def.on_break,
            enabled: def.enabled,
        })
    }

    /// True when a threshold is set (the joint is checked after each step).
    pub(crate) fn breakable(&self) -> bool {
        self.break_force.is_some() || self.break_torque.is_some()
    }
}

impl Joint {
    /// False when the joint is disabled (broken, or disabled through
    /// `World::set_joint_enabled`): it is not solved and its bodies collide.
    pub fn is_enabled(&self) -> bool {
        self.breaking.enabled
    }

    /// The force threshold, N (none: never breaks by force).
    pub fn break_force(&self) -> Option<f32> {
        self.breaking.break_force
    }

    /// The torque threshold, N m (none: never breaks by torque).
    pub fn break_torque(&self) -> Option<f32> {
        self.breaking.break_torque
    }

    pub fn on_break(&self) -> OnBreak {
        self.breaking.on_break
    }

    /// Change the thresholds (N, N m; none for never). Refused, with nothing changed, when
    /// a value is negative, not finite or above 1e12.
    pub fn set_break_thresholds(
        &mut self,
        break_force: Option<f32>,
        break_torque: Option<f32>,
    ) -> PhysicsResult<()> {
        if let Some(f) = break_force {
            check_threshold("break_force", f)?;
        }
        if let Some(t) = break_torque {
            check_threshold("break_torque", t)?;
        }
        self.breaking.break_force = break_force;
        self.breaking.break_torque = break_torque;
        Ok(())
    }

    pub fn set_on_break(&mut self, on_break: OnBreak) {
        self.breaking.on_break = on_break;
    }

    /// The threshold this step's load exceeds, if any: `(cause, load, threshold)`. `inv_dt`
    /// is the inverse of the (sub-)step the solver used, `substeps / dt`.
    pub(crate) fn exceeded_threshold(&self, inv_dt: f32) -> Option<(BreakCause, f32, f32)> {
        if let Some(threshold) = self.breaking.break_force {
            let load = self.reaction_force(inv_dt).length();
            if load > threshold {
                return Some((BreakCause::Force, load, threshold));
            }
        }
        if let Some(threshold) = self.breaking.break_torque {
            let load = self.reaction_torque(inv_dt).abs();
            if load > threshold {
                return Some((BreakCause::Torque, load, threshold));
            }
        }
        None
    }
}

impl crate::physics::World {
    /// The joints the last `step` broke, in joint slot order (empty after a step that broke
    /// none; cleared at the start of every step).
    pub fn joint_events(&self) -> &[JointEvent] {
        &self.joint_events
    }

    /// Enable or disable a joint. A disabled joint is not solved, forgets its accumulated
    /// impulses and lets its bodies collide with each other (unless it was
    /// `collide_connected` anyway); enabling it again joins them as before, from where they
    /// are now. Wakes both bodies.
    pub fn set_joint_enabled(&mut self, joint: JointHandle, enabled: bool) -> PhysicsResult<()> {
        let j = self
            .joints
            .get_mut(joint)
            .ok_or_else(|| crate::physics::error::PhysicsError::new("joint", "no such joint"))?;
        if j.breaking.enabled == enabled {
            return Ok(());
        }
        j.breaking.enabled = enabled;
        let (a, b, collide) = (j.body_a, j.body_b, j.collide_connected);
        if !enabled {
            j.zero_impulses();
        }
        if !collide {
            if enabled {
                self.contacts.remove_where(a.index(), |c| {
                    (c.body_a == a && c.body_b == b) || (c.body_a == b && c.body_b == a)
                });
            } else {
                // Their shapes may touch: let the broad phase report the pairs again.
                self.touch_body_proxies(a);
                self.touch_body_proxies(b);
            }
        }
        self.wake_body(a);
        self.wake_body(b);
        Ok(())
    }

    /// Step stage: break every enabled joint with a threshold, and an awake body, whose
    /// load exceeds it (`inv_dt = substeps / dt`), recording a `JointEvent` each. Joints
    /// without thresholds are not touched.
    pub(crate) fn break_joints(&mut self, inv_dt: f32) {
        let step = self.step_count + 1;
        for (handle, j) in self.joints.iter() {
            if !j.breaking.enabled || !j.breaking.breakable() {
                continue;
            }
            let awake = |h: BodyHandle| self.bodies.get(h).is_some_and(|b| b.awake);
            if !awake(j.body_a) && !awake(j.body_b) {
                continue;
            }
            if let Some((cause, load, threshold)) = j.exceeded_threshold(inv_dt) {
                self.joint_events.push(JointEvent {
                    joint: handle,
                    body_a: j.body_a,
                    body_b: j.body_b,
                    name: j.name.clone(),
                    cause,
                    load,
                    threshold,
                    step,
                    destroyed: j.breaking.on_break == OnBreak::Destroy,
                });
            }
        }
        for k in 0..self.joint_events.len() {
            let (joint, destroyed) = (self.joint_events[k].joint, self.joint_events[k].destroyed);
            let done = if destroyed {
                self.destroy_joint(joint)
            } else {
                self.set_joint_enabled(joint, false)
            };
            debug_assert!(done.is_ok(), "a live joint breaks");
        }
    }
}
