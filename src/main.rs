//! The `testbed` binary: the command line, then the window (or, later, a headless command).
//!
//! ```text
//! testbed [--scene FILE] [--frames N] [--screenshot OUT.png] [--dump-state OUT.json]
//! testbed list | check | run | bench      (not implemented yet)
//! ```
//!
//! Exit codes: 0 success; 1 a run failed (unreadable scene, unwritable output, no display);
//! 2 bad command line (clap's own code) or a command that is not implemented yet.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use impulse::app::{open_window, AppOptions};

/// Impulse: a 2D rigid-body physics engine and its interactive testbed.
#[derive(Debug, Parser)]
#[command(name = "testbed", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Scene file to open (RON). Without it, the built-in demo.
    #[arg(long, value_name = "FILE")]
    scene: Option<PathBuf>,

    /// Run this many frames, then exit (one fixed step per frame).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    frames: Option<u64>,

    /// Save a PNG screenshot after the last frame.
    #[arg(long, value_name = "OUT.png")]
    screenshot: Option<PathBuf>,

    /// Write the final world state as JSON after the last frame.
    #[arg(long, value_name = "OUT.json")]
    dump_state: Option<PathBuf>,
}

/// Headless commands. Their arguments are defined by whoever implements them; until then
/// everything after the command name is accepted and ignored.
#[derive(Debug, Subcommand)]
enum Command {
    /// List the scene catalog.
    List(PendingArgs),
    /// Load and step scene files, report problems.
    Check(PendingArgs),
    /// Run a scene headless.
    Run(PendingArgs),
    /// Benchmark the solver.
    Bench(PendingArgs),
}

#[derive(Debug, clap::Args)]
struct PendingArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    args: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse(); // bad arguments: clap prints the error and exits 2
    match cli.command {
        None => {
            let options = AppOptions {
                scene: cli.scene,
                frames: cli.frames,
                screenshot: cli.screenshot,
                dump_state: cli.dump_state,
            };
            ExitCode::from(open_window(options).clamp(0, 255) as u8)
        }
        Some(command) => {
            let name = match command {
                Command::List(_) => "list",
                Command::Check(_) => "check",
                Command::Run(_) => "run",
                Command::Bench(_) => "bench",
            };
            eprintln!("testbed {name}: not implemented yet");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn window_options_parse() {
        let cli = Cli::try_parse_from([
            "testbed",
            "--frames",
            "30",
            "--screenshot",
            "/tmp/a.png",
            "--dump-state",
            "s.json",
        ])
        .unwrap();
        assert_eq!(cli.frames, Some(30));
        assert!(cli.command.is_none());
        assert!(Cli::try_parse_from(["testbed", "--frames", "0"]).is_err());
        assert!(Cli::try_parse_from(["testbed", "--frames", "x"]).is_err());
        assert!(Cli::try_parse_from(["testbed", "--bogus"]).is_err());
        assert!(Cli::try_parse_from(["testbed", "--frames", "3", "list"]).is_err());
        let cli = Cli::try_parse_from(["testbed", "run", "a.ron", "--steps", "9"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Run(_))));
    }
}
