//! Serves the paced agent. Run with: `cargo run --release -p ag-ui-example-paced-agent --
//! [ADDR] [--deltas K] [--every-ms P] [--max-connections N]` (defaults: 127.0.0.1:8002, 20,
//! 500, 12000). Prints its URL, then serves until Ctrl-C.

use std::time::Duration;

use ag_ui_example_paced_agent::{Paced, app, serve_config};

fn usage(problem: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("{problem}; usage: [ADDR] [--deltas K] [--every-ms P] [--max-connections N]"),
    )
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut addr = "127.0.0.1:8002".to_owned();
    let mut paced = Paced::default();
    let mut connections = 12_000;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> std::io::Result<u64> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| usage(&format!("{name} needs a number")))
        };
        match arg.as_str() {
            "--deltas" => paced.deltas = number("--deltas")? as usize,
            "--every-ms" => paced.every = Duration::from_millis(number("--every-ms")?),
            "--max-connections" => connections = number("--max-connections")? as usize,
            flag if flag.starts_with("--") => return Err(usage(&format!("unknown {flag}"))),
            other => other.clone_into(&mut addr),
        }
    }
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("paced agent on http://{}/", listener.local_addr()?);
    ag_ui::axum::serve(listener, app(paced), serve_config(connections), async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
}
