//! The paced agent over a real socket, read by the crate's own client: every delta arrives,
//! none before its time; the same under plain `axum::serve`, behind a resumable endpoint (its
//! log keeps the run) and through the model bridge before the paced model (over h2c and
//! HTTP/1.1).

use std::time::{Duration, Instant};

use ag_ui::client::{Conversation, HttpAgent};
use ag_ui::llm::HttpVersion;
use ag_ui_example_paced_agent::{
    Args, Paced, app, model, model_app, paced_log, resumable_app, serve_config,
};

const PACED: Paced = Paced {
    deltas: 4,
    every: Duration::from_millis(50),
};

/// Serves `router` on a free port; its URL.
async fn spawn(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(ag_ui::axum::serve(
        listener,
        router,
        serve_config(16),
        std::future::pending(),
    ));
    url
}

/// One run against `url`: it takes the pace, and the message is the deltas in order.
async fn run_paced(url: String) {
    let started = Instant::now();
    let mut conversation = Conversation::new("t");
    conversation.add_user_message("go");
    let summary = conversation
        .run(&HttpAgent::new(url), &mut ())
        .await
        .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(summary.new_messages.len(), 1);
    assert_eq!(
        conversation.messages().last().unwrap().text(),
        Some("Streaming one delta at ")
    );
}

#[tokio::test]
async fn streams_every_delta_at_its_pace() {
    run_paced(spawn(app(PACED)).await).await;
}

#[tokio::test]
async fn plain_axum_serve_streams_the_same() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app(PACED)).await });
    run_paced(url).await;
}

#[tokio::test]
async fn the_resumable_endpoint_streams_the_same_and_its_log_keeps_the_run() {
    let log = paced_log(4);
    run_paced(spawn(resumable_app(PACED, log.clone())).await).await;
    let stats = log.stats();
    assert_eq!(stats.runs, 1);
    // RUN_STARTED, the message's start, four deltas, its end, RUN_FINISHED.
    assert!(stats.bytes > 8 * 40, "{stats:?}");
}

#[tokio::test]
async fn the_model_bridge_streams_the_paced_model_at_its_pace() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, model::router(PACED)).await });
    for version in [HttpVersion::Http2, HttpVersion::Http1] {
        run_paced(spawn(model_app(&base, version)).await).await;
    }
}

#[test]
fn the_command_line_reads_every_flag_and_names_a_bad_one() {
    let args = |list: &[&str]| Args::parse("a:1", list.iter().map(|s| (*s).to_owned()));
    let parsed = args(&[
        "b:2",
        "--deltas",
        "3",
        "--every-ms",
        "7",
        "--resumable",
        "--model",
        "http://m/v1",
        "--model-http1",
        "--axum-serve",
    ])
    .unwrap();
    assert_eq!(parsed.addr, "b:2");
    assert_eq!(parsed.paced.deltas, 3);
    assert_eq!(parsed.paced.every, Duration::from_millis(7));
    assert!(parsed.resumable);
    assert_eq!(parsed.model.as_deref(), Some("http://m/v1"));
    assert_eq!(parsed.model_version, HttpVersion::Http1);
    assert!(parsed.axum_serve);
    let defaults = args(&[]).unwrap();
    assert_eq!(defaults.addr, "a:1");
    assert_eq!(defaults.model_version, HttpVersion::Http2);
    assert!(!defaults.axum_serve);
    let error = args(&["--deltas", "many"]).unwrap_err();
    assert!(
        error.to_string().contains("--deltas needs a number"),
        "{error}"
    );
    let error = args(&["--model"]).unwrap_err();
    assert!(
        error.to_string().contains("--model needs a value"),
        "{error}"
    );
    let error = args(&["--fast"]).unwrap_err();
    assert!(error.to_string().contains("unknown --fast"), "{error}");
}
