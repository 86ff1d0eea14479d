//! Serves the hello agent. Run with: `cargo run -p ag-ui-example-hello-agent [ADDR]`.

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8001".to_owned());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("hello agent on http://{}/", listener.local_addr()?);
    // ag_ui::axum::serve rather than axum::serve: a header time-out, a connection cap, and
    // about 11 KB less memory per open run (README, Performance).
    let config = ag_ui::axum::ServeConfig::default();
    ag_ui::axum::serve(
        listener,
        ag_ui_example_hello_agent::app(),
        config,
        std::future::pending(),
    )
    .await
}
