//! The `testbed` binary: the command line, then the window or a headless command.
//!
//! ```text
//! testbed [--scene FILE] [--compare LIST] [--threads N] [--frames N] [--screenshot OUT.png] [--dump-state OUT.json]
//! testbed list
//! testbed check FILE...
//! testbed run FILE --steps N [--set KEY=VALUE]... [--threads N] [--json] [--trace OUT.csv] [--export OUT.ron]
//! testbed bench [FILE...] [--steps N]
//! testbed verdicts
//! ```
//!
//! Exit codes: 0 success; 1 a run failed (bad scene file, unwritable output, no display);
//! 2 bad command line (clap's own code).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use impulse::app::{open_window, AppOptions};
use impulse::commands;

/// Impulse: a 2D rigid-body physics engine and its interactive testbed.
#[derive(Debug, Parser)]
#[command(
    name = "testbed",
    version,
    args_conflicts_with_subcommands = true,
    after_help = "Window: the scene menu, run controls, every solver setting, draw options and \
live statistics are in the side panel; its View section lists the keys and mouse controls.\n\n\
Environment:\n  \
IMPULSE_SCENES    the scenes folder (default: ./scenes, else the source tree's)\n  \
IMPULSE_SETTINGS  the preferences file (default: $XDG_CONFIG_HOME/impulse/impulse-settings.ron, \
else ~/.config/impulse/impulse-settings.ron; empty: none). Runs with --frames use none unless \
this is set.\n  \
IMPULSE_MSAA      antialiasing samples (default 4; 1 is much faster on software renderers)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Scene file to open (RON). Without it, the default scene.
    #[arg(long, value_name = "FILE")]
    scene: Option<PathBuf>,

    /// Run this many frames, then exit (steps per frame as set; one by default).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    frames: Option<u64>,

    /// Save a PNG screenshot after the last frame.
    #[arg(long, value_name = "OUT.png")]
    screenshot: Option<PathBuf>,

    /// Write the final world state as JSON after the last frame (the `run --json` object
    /// plus the solver settings and the testbed's state).
    #[arg(long, value_name = "OUT.json")]
    dump_state: Option<PathBuf>,

    /// Test hook: open every catalog scene in turn for --frames frames each (fewer for
    /// benchmarks) and write a screenshot and a state dump per scene into DIR.
    #[arg(long, value_name = "DIR", hide = true)]
    catalog_smoke: Option<PathBuf>,

    /// Test hook: keep a JSON file with the viewport, camera and panel widget rectangles.
    #[arg(long, value_name = "OUT.json", hide = true)]
    layout_out: Option<PathBuf>,

    /// Test hook: at most this many frames per second (Xvfb has no vsync).
    #[arg(long, value_name = "FPS", hide = true)]
    max_fps: Option<f32>,

    /// Compare mode: run the scene in 2 to 4 worlds, comma separated presets: scene,
    /// classic, soft step, "classic no warm starting", "classic no position correction",
    /// "classic no block solver", "classic increments clamped", and the other solvers:
    /// jacobi, "pgs ngs", "pgs ngs block", "pgs soft", "tgs sticky", "tgs soft", "tgs ngs",
    /// xpbd.
    #[arg(long, value_name = "LIST", value_parser = compare_list)]
    compare: Option<String>,

    /// Test hook: fire the bomb after frame N (repeatable).
    #[arg(long, value_name = "N", hide = true)]
    bomb_at: Vec<u64>,

    /// Test hook: at frame --rewind-at (default half of --frames) pause, scrub the timeline
    /// back to STEP and run on from there.
    #[arg(long, value_name = "STEP", hide = true)]
    rewind_to: Option<u64>,

    #[arg(long, value_name = "FRAME", hide = true, requires = "rewind_to")]
    rewind_at: Option<u64>,

    /// Test hook: pick the body or joint NAME, or at world point X,Y, for the Plots section
    /// (NAME[:height|speed|angle|linear|angular]).
    #[arg(long, value_name = "NAME", hide = true)]
    pick: Option<String>,

    /// Threads each world steps on (1 to 64; the results are the same for any count).
    /// Saved in the preferences, as the panel's setting.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: Option<u16>,
}

/// `--compare`'s value, checked (a bad list is a command-line error, exit 2).
fn compare_list(list: &str) -> Result<String, String> {
    impulse::app::compare::parse_compare(list).map(|_| list.to_owned())
}

/// Headless commands. Without one, the window opens.
#[derive(Debug, Subcommand)]
enum Command {
    /// Category, name and file of every scene of the library.
    List,
    /// Check scene files: silent when valid, every error otherwise (exit 1).
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Step a scene without a window and report the final state.
    Run(commands::RunOptions),
    /// Median and p95 step times (every Benchmark scene when no file is given).
    Bench {
        files: Vec<PathBuf>,
        #[arg(long, default_value_t = 300)]
        steps: u64,
    },
    /// The hard-scene verdicts: every stacking and robustness scene under the soft step, the
    /// classic solver with each toggle off and the eight other solvers, as a markdown table.
    Verdicts,
}

fn main() -> ExitCode {
    let cli = Cli::parse(); // bad arguments: clap prints the error and exits 2
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let code = match cli.command {
        None => {
            drop((out, err));
            let options = AppOptions {
                scene: cli.scene,
                frames: cli.frames,
                screenshot: cli.screenshot,
                dump_state: cli.dump_state,
                catalog_smoke: cli.catalog_smoke,
                layout_out: cli.layout_out,
                max_fps: cli.max_fps,
                compare: cli.compare,
                bomb_at: cli.bomb_at,
                rewind_to: cli.rewind_to,
                rewind_at: cli.rewind_at,
                pick: cli.pick,
                threads: cli.threads.map(usize::from),
            };
            open_window(options)
        }
        Some(Command::List) => commands::list(&mut out, &mut err),
        Some(Command::Check { files }) => commands::check(&files, &mut err),
        Some(Command::Run(options)) => commands::run(&options, &mut out, &mut err),
        Some(Command::Bench { files, steps }) => commands::bench(&files, steps, &mut out, &mut err),
        Some(Command::Verdicts) => {
            let table = impulse::verdicts::table(&impulse::verdicts::scenes_dir(), |what| {
                let _ = writeln!(err, "running {}", impulse::files::escape(what));
            });
            let _ = write!(out, "{table}");
            0
        }
    };
    ExitCode::from(code.clamp(0, 255) as u8)
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
    fn window_options_and_commands_parse() {
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
        let cli = Cli::try_parse_from(["testbed", "--compare", "classic,soft step"]).unwrap();
        assert_eq!(cli.compare.as_deref(), Some("classic,soft step"));
        assert!(Cli::try_parse_from(["testbed", "--compare", "classic,nonsense"]).is_err());
        assert!(Cli::try_parse_from(["testbed", "--frames", "3", "list"]).is_err());
        let cli = Cli::try_parse_from(["testbed", "run", "a.ron", "--steps", "9"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Run(commands::RunOptions { steps: 9, .. }))
        ));
        assert!(
            Cli::try_parse_from(["testbed", "check"]).is_err(),
            "check needs files"
        );
    }
}
