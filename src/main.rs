//! The `testbed` binary: the command line, then the window or a headless command.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use impulse::commands;

#[derive(Parser)]
#[command(
    name = "testbed",
    about = "Impulse: a 2D rigid-body physics engine and its testbed"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// Headless commands. Without one, the window opens.
#[derive(Subcommand)]
enum Command {
    /// Category, name and file of every scene of the library.
    List,
    /// Check scene files: silent when valid, every error otherwise (exit 1).
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Step a scene without a window and report the final state.
    Run {
        file: PathBuf,
        #[arg(long)]
        steps: u64,
        /// Override a setting: key=value, value in RON (gravity=(0,-9.8), solver=SoftStep).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// One JSON object instead of the text summary.
        #[arg(long)]
        json: bool,
        /// CSV of every named body at every step.
        #[arg(long, value_name = "OUT.csv")]
        trace: Option<PathBuf>,
        /// Write the final world as an exact scene file.
        #[arg(long, value_name = "OUT.ron")]
        export: Option<PathBuf>,
    },
    /// Median and p95 step times (every Benchmark scene when no file is given).
    Bench {
        files: Vec<PathBuf>,
        #[arg(long, default_value_t = 300)]
        steps: u64,
    },
}

fn main() {
    let cli = Cli::parse();
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let code = match cli.command {
        Some(Command::List) => commands::list(&mut out, &mut err),
        Some(Command::Check { files }) => commands::check(&files, &mut err),
        Some(Command::Run {
            file,
            steps,
            sets,
            json,
            trace,
            export,
        }) => {
            let options = commands::RunOptions {
                file,
                steps,
                sets,
                json,
                trace,
                export,
            };
            commands::run(&options, &mut out, &mut err)
        }
        Some(Command::Bench { files, steps }) => commands::bench(&files, steps, &mut out, &mut err),
        None => {
            println!("Impulse testbed: coming up.");
            0
        }
    };
    std::process::exit(code);
}
