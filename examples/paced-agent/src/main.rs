//! Serves the paced agent. Run with: `cargo run --release -p ag-ui-example-paced-agent --
//! [ADDR] [--deltas K] [--every-ms P] [--max-connections N] [--resumable] [--model URL]
//! [--model-http1] [--axum-serve]` (defaults: 127.0.0.1:8002, 20, 500, 12000). Prints its
//! URL, then serves until Ctrl-C; a resumable server then prints what its log holds (`log: R
//! runs, B bytes`).
//!
//! `--resumable` serves the agent behind a resumable endpoint (a `MemoryLog` holding every
//! run); `--model URL` serves the model bridge instead, asking the OpenAI-compatible server
//! at URL (`paced-model`, e.g. `http://127.0.0.1:8003/v1`) over h2c, or over HTTP/1.1 with
//! `--model-http1`. `--axum-serve` serves with plain `axum::serve` (no header time-out, no
//! connection cap) instead of `ag_ui::axum::serve`.

use ag_ui_example_paced_agent::{Args, app, model_app, paced_log, resumable_app, serve_config};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse("127.0.0.1:8002", std::env::args().skip(1))?;
    let log = paced_log(args.connections);
    let router = match (&args.model, args.resumable) {
        (Some(url), _) => model_app(url, args.model_version),
        (None, true) => resumable_app(args.paced, log.clone()),
        (None, false) => app(args.paced),
    };
    let listener = tokio::net::TcpListener::bind(&args.addr).await?;
    println!("paced agent on http://{}/", listener.local_addr()?);
    let resumable = args.resumable && args.model.is_none();
    let shutdown = async move {
        let _ = tokio::signal::ctrl_c().await;
        if resumable {
            let stats = log.stats();
            println!("log: {} runs, {} bytes", stats.runs, stats.bytes);
        }
    };
    if args.axum_serve {
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown)
            .await
    } else {
        ag_ui::axum::serve(listener, router, serve_config(args.connections), shutdown).await
    }
}
