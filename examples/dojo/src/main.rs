//! Serves every AG-UI Dojo feature route.
//!
//! Run with: `cargo run -p ag-ui-dojo [ADDR] [--scripted] [--pace FACTOR] [--old-clients
//! VERSION]` (default `127.0.0.1:8000`). Model-driven unless `--scripted`: the model from
//! `OPENAI_BASE_URL` (default OpenAI's), `OPENAI_API_KEY` and `MODEL` (default `gpt-4o`). The
//! pace, a factor on the scripts' pauses and the agents' simulated work, from `--pace`, else
//! `AG_UI_DOJO_PACE`, else `1`. `--old-clients 0.0.57` when every pre-1.0 client is 0.0.57 or
//! newer (`@copilotkit/runtime` 1.75 is 0.0.59): reasoning then reaches them as `REASONING_*`.

use std::process::ExitCode;

use ag_ui::axum::ServeConfig;
use ag_ui::server::downgrade::ClientVersion;
use ag_ui_dojo::model::ModelConfig;
use ag_ui_dojo::{Backend, Config, PACE_ENV, Pace, router};

const USAGE: &str = "usage: ag-ui-dojo [ADDR] [--scripted] [--pace FACTOR] [--old-clients VERSION]";

/// The address and the configuration, from the arguments and the environment (read through
/// `env`).
fn parse(
    mut args: impl Iterator<Item = String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(String, Config), String> {
    let mut addr = None;
    let mut pace = None;
    let mut scripted = false;
    let mut oldest_client = None;
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value)),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            match inline {
                Some(value) => Ok(value.to_owned()),
                None => args.next().ok_or(format!("{name} needs a value")),
            }
        };
        match flag.as_str() {
            "--pace" => {
                let text = value("--pace")?;
                pace = Some(text.parse::<Pace>().map_err(|e| format!("--pace: {e}"))?);
            }
            "--old-clients" => {
                let text = value("--old-clients")?;
                oldest_client = Some(
                    text.parse::<ClientVersion>()
                        .map_err(|e| format!("--old-clients: {e}"))?,
                );
            }
            "--scripted" if inline.is_none() => scripted = true,
            _ if arg.starts_with('-') || addr.is_some() => {
                return Err(format!("unexpected argument {arg:?}"));
            }
            _ => addr = Some(arg),
        }
    }
    let pace = match pace {
        Some(pace) => pace,
        None => match env(PACE_ENV) {
            Some(value) => value.parse().map_err(|e| format!("{PACE_ENV}: {e}"))?,
            None => Pace::default(),
        },
    };
    let backend = if scripted {
        Backend::Scripted
    } else {
        Backend::Model(ModelConfig::from_env(env))
    };
    let addr = addr.unwrap_or_else(|| "127.0.0.1:8000".to_owned());
    let config = Config::default()
        .with_backend(backend)
        .with_pace(pace)
        .with_oldest_client(oldest_client);
    Ok((addr, config))
}

#[tokio::main]
async fn main() -> ExitCode {
    let (addr, config) = match parse(std::env::args().skip(1), |name| std::env::var(name).ok()) {
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
    let backend = match &config.backend {
        Backend::Model(model) => format!("{} at {}", model.model, model.base_url),
        _ => "scripted".to_owned(),
    };
    match listener.local_addr() {
        Ok(local) => println!(
            "AG-UI Dojo routes on http://{local}/ ({backend}, pace {})",
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

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn the_flag_wins_over_the_environment_and_both_are_checked() {
        let (addr, config) = parse(args(&[]), env(&[])).unwrap();
        assert_eq!(addr, "127.0.0.1:8000");
        assert_eq!(config.pace, Pace::REFERENCE);

        let (addr, config) = parse(args(&["0.0.0.0:9000"]), env(&[(PACE_ENV, "0")])).unwrap();
        assert_eq!(addr, "0.0.0.0:9000");
        assert_eq!(config.pace, Pace::INSTANT);

        let (_, config) = parse(args(&["--pace", "0.5"]), env(&[(PACE_ENV, "0")])).unwrap();
        assert_eq!(config.pace.factor(), 0.5);
        let (_, config) = parse(args(&["--pace=2"]), env(&[])).unwrap();
        assert_eq!(config.pace.factor(), 2.0);

        for (list, vars) in [
            (&["--pace"][..], &[][..]),
            (&["--pace", "-1"][..], &[][..]),
            (&["--pace", "fast"][..], &[][..]),
            (&["--pace", "inf"][..], &[][..]),
            (&["--pace", "1000"][..], &[][..]),
            (&["--speed", "1"][..], &[][..]),
            (&["--scripted=yes"][..], &[][..]),
            (&["--old-clients", "0.0"][..], &[][..]),
            (&["--old-clients"][..], &[][..]),
            (&["a:1", "b:2"][..], &[][..]),
            (&[][..], &[(PACE_ENV, "NaN")][..]),
        ] {
            assert!(parse(args(list), env(vars)).is_err(), "{list:?} {vars:?}");
        }
    }

    #[test]
    fn model_driven_by_default_from_the_environment_scripted_when_asked() {
        let vars = &[
            ("OPENAI_BASE_URL", "http://127.0.0.1:4010/v1"),
            ("OPENAI_API_KEY", "sk-test"),
            ("MODEL", "gpt-4o-mini"),
        ];
        let (_, config) = parse(args(&[]), env(vars)).unwrap();
        let Backend::Model(model) = &config.backend else {
            panic!("model-driven by default: {config:?}")
        };
        assert_eq!(model.base_url, "http://127.0.0.1:4010/v1");
        assert_eq!(model.api_key.as_deref(), Some("sk-test"));
        assert_eq!(model.model, "gpt-4o-mini");
        assert_eq!(config.oldest_client, None);

        let (_, config) = parse(
            args(&["--scripted", "--old-clients=0.0.57", "127.0.0.1:0"]),
            env(vars),
        )
        .unwrap();
        assert!(matches!(config.backend, Backend::Scripted));
        assert_eq!(config.oldest_client, Some(ClientVersion::new(0, 0, 57)));
    }
}
