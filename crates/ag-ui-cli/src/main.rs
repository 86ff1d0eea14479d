//! `ag-ui`: serve a demo agent, talk to any AG-UI agent, verify and transform event streams.

mod input;
mod offline;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use offline::{Encoding, Failure};

/// The AG-UI command: serve a demo agent, talk to any AG-UI agent, verify and transform
/// event streams (JSON Lines, JSON arrays or SSE, detected).
#[derive(Debug, Parser)]
#[command(name = "ag-ui", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check a stream against every ordering rule of AG-UI 1.0.
    Verify {
        /// A file, or `-` for standard input.
        input: Option<String>,
        /// Verify the events as they are, without expanding chunk events first.
        #[arg(long)]
        raw: bool,
    },
    /// Expand *_CHUNK events into explicit START / CONTENT / END events.
    Normalize {
        /// A file, or `-` for standard input.
        input: Option<String>,
        /// Write SSE frames instead of JSON Lines.
        #[arg(long)]
        sse: bool,
    },
    /// Rebuild the conversation a client would hold: messages, state, pending interrupts.
    Apply {
        /// A file, or `-` for standard input.
        input: Option<String>,
        /// Apply the events without verifying their order first.
        #[arg(long)]
        no_verify: bool,
    },
    /// Re-encode a stream.
    Convert {
        /// The output encoding.
        #[arg(long, value_enum)]
        to: Encoding,
        /// A file, or `-` for standard input.
        input: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Verify { input, raw } => {
            offline::verify(input.as_deref(), raw).and_then(|line| print_line(&line))
        }
        Command::Normalize { input, sse } => offline::normalize(
            input.as_deref(),
            if sse { Encoding::Sse } else { Encoding::Jsonl },
        ),
        Command::Apply { input, no_verify } => offline::apply(input.as_deref(), !no_verify)
            .and_then(|value| {
                print_line(&serde_json::to_string_pretty(&value).unwrap_or_default())
            }),
        Command::Convert { to, input } => offline::convert(input.as_deref(), to),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`ag-ui normalize big.jsonl | head`) is not an error.
        Err(Failure::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(failure) => report(&failure),
    }
}

fn print_line(line: &str) -> Result<(), Failure> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
}

fn report(failure: &Failure) -> ExitCode {
    match failure {
        Failure::Stream { .. } => eprintln!("violation: {failure}"),
        _ => eprintln!("error: {failure}"),
    }
    ExitCode::from(failure.exit_code())
}
