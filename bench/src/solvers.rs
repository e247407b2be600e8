//! `--solvers [--steps N]`: every Impulse solver (issue 13) on the large pyramid, ms per step.
//!
//! The scene and settings are the benchmark's (`impulse_port::settings`): the sub-stepping
//! solvers (soft step, TGS-*, XPBD) at `scenes::SUBSTEPS` sub-steps, the others at one step
//! of 10 iterations, as the verdict table's columns. One run per solver, in one process:
//! the numbers compare the solvers with each other, not with the peers.

use std::fmt::Write as _;
use std::time::Instant;

use impulse::physics::{SolverKind, SolverSettings};

use crate::{impulse_port, scenes, Sim};

/// The table, markdown: solver, ms per step (median and mean over the run), top box drop.
pub fn table(steps: usize) -> Result<String, String> {
    let spec = scenes::large_pyramid();
    let top = spec.bodies.len() - 1;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### Every solver on the large pyramid ({} bodies), {steps} steps\n",
        spec.bodies.len()
    );
    let _ = writeln!(
        out,
        "| solver | median ms/step | mean ms/step | top box drop (m) |"
    );
    let _ = writeln!(out, "|---|---|---|---|");
    for kind in SolverKind::ALL {
        let mut sim = impulse_port::build(&spec, impulse_port::Solver::Classic)
            .map_err(|e| format!("{e:?}"))?;
        let base = *sim.world.settings();
        let settings = SolverSettings {
            solver: kind,
            substeps: if kind.sub_steps() {
                scenes::SUBSTEPS
            } else {
                1
            },
            iterations: if kind.sub_steps() { 1 } else { base.iterations },
            ..base
        };
        sim.world
            .set_settings(settings)
            .map_err(|e| e.to_string())?;
        let y0 = sim.body_y(top);
        let mut times = Vec::with_capacity(steps);
        for _ in 0..steps {
            let t = Instant::now();
            sim.step();
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let mean = times.iter().sum::<f64>() / steps.max(1) as f64;
        times.sort_by(f64::total_cmp);
        let median = times.get(steps / 2).copied().unwrap_or(0.0);
        let drop = y0 - sim.body_y(top);
        let _ = writeln!(
            out,
            "| {} | {median:.2} | {mean:.2} | {drop:.3} |",
            kind.label()
        );
        eprintln!("{}: {median:.2} ms/step", kind.label());
    }
    Ok(out)
}

/// `--solvers [--steps N]` (the arguments after `--solvers`).
pub fn run(args: &[String]) -> Result<String, String> {
    let mut steps = 300;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--steps" => {
                let v = it.next().ok_or("--steps needs a value")?;
                steps = v
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("--steps must be a whole number >= 1, got '{v}'"))?;
            }
            other => return Err(format!("unknown argument '{other}' after --solvers")),
        }
    }
    table(steps)
}
