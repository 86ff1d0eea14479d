//! Serves the paced model: an OpenAI-compatible Chat Completions endpoint streaming K
//! content chunks, one every P ms. Run with: `cargo run --release -p
//! ag-ui-example-paced-agent --bin paced-model -- [ADDR] [--deltas K] [--every-ms P]`
//! (defaults: 127.0.0.1:8003, 20, 500). Prints its base URL (`…/v1`), then serves until
//! Ctrl-C.

use ag_ui_example_paced_agent::{Args, model};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse("127.0.0.1:8003", std::env::args().skip(1))?;
    let listener = tokio::net::TcpListener::bind(&args.addr).await?;
    println!("paced model on http://{}/v1", listener.local_addr()?);
    axum::serve(listener, model::router(args.paced))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
