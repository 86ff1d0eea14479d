//! Serves every AG-UI Dojo feature route.
//!
//! Run with: `cargo run -p ag-ui-dojo [ADDR] [--pace FACTOR]` (default `127.0.0.1:8000`; the
//! pace, a factor on the reference's pauses, from `--pace`, else `AG_UI_DOJO_PACE`, else `1`).

use std::process::ExitCode;

use ag_ui::axum::ServeConfig;
use ag_ui_dojo::{Config, PACE_ENV, Pace, router};

const USAGE: &str = "usage: ag-ui-dojo [ADDR] [--pace FACTOR]";

/// The address and the configuration, from the arguments and the value of `AG_UI_DOJO_PACE`.
fn parse(
    mut args: impl Iterator<Item = String>,
    pace_env: Option<String>,
) -> Result<(String, Config), String> {
    let mut addr = None;
    let mut pace = None;
    while let Some(arg) = args.next() {
        if arg == "--pace" {
            let value = args.next().ok_or("--pace needs a value")?;
            pace = Some(value.parse::<Pace>().map_err(|e| format!("--pace: {e}"))?);
        } else if let Some(value) = arg.strip_prefix("--pace=") {
            pace = Some(value.parse::<Pace>().map_err(|e| format!("--pace: {e}"))?);
        } else if arg.starts_with('-') || addr.is_some() {
            return Err(format!("unexpected argument {arg:?}"));
        } else {
            addr = Some(arg);
        }
    }
    let pace = match pace {
        Some(pace) => pace,
        None => match pace_env {
            Some(value) => value.parse().map_err(|e| format!("{PACE_ENV}: {e}"))?,
            None => Pace::default(),
        },
    };
    let addr = addr.unwrap_or_else(|| "127.0.0.1:8000".to_owned());
    Ok((addr, Config::with_pace(pace)))
}

#[tokio::main]
async fn main() -> ExitCode {
    let (addr, config) = match parse(std::env::args().skip(1), std::env::var(PACE_ENV).ok()) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(&addr).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match listener.local_addr() {
        Ok(local) => println!(
            "AG-UI Dojo routes on http://{local}/ (pace {})",
            config.pace.factor()
        ),
        Err(e) => eprintln!("listening, address unknown: {e}"),
    }
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match ag_ui::axum::serve(listener, router(config), ServeConfig::default(), ctrl_c).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("serving failed: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> impl Iterator<Item = String> {
        list.iter()
            .map(|s| (*s).to_owned())
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn the_flag_wins_over_the_environment_and_both_are_checked() {
        let (addr, config) = parse(args(&[]), None).unwrap();
        assert_eq!(addr, "127.0.0.1:8000");
        assert_eq!(config.pace, Pace::REFERENCE);

        let (addr, config) = parse(args(&["0.0.0.0:9000"]), Some("0".into())).unwrap();
        assert_eq!(addr, "0.0.0.0:9000");
        assert_eq!(config.pace, Pace::INSTANT);

        let (_, config) = parse(args(&["--pace", "0.5"]), Some("0".into())).unwrap();
        assert_eq!(config.pace.factor(), 0.5);
        let (_, config) = parse(args(&["--pace=2"]), None).unwrap();
        assert_eq!(config.pace.factor(), 2.0);

        for (list, env) in [
            (&["--pace"][..], None),
            (&["--pace", "-1"][..], None),
            (&["--pace", "fast"][..], None),
            (&["--pace", "inf"][..], None),
            (&["--pace", "1000"][..], None),
            (&["--speed", "1"][..], None),
            (&["a:1", "b:2"][..], None),
            (&[][..], Some("NaN")),
        ] {
            assert!(
                parse(args(list), env.map(str::to_owned)).is_err(),
                "{list:?} {env:?}"
            );
        }
    }
}
