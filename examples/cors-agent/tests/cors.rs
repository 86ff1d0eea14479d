//! The preflight and the streamed response, as a browser on another origin sees them.

use axum::http::HeaderValue;

const FRONTEND: &str = "http://localhost:3000";

async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    let app = ag_ui_example_cors_agent::app(HeaderValue::from_static(FRONTEND));
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

async fn preflight(url: &str, origin: &str) -> reqwest::Response {
    reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, url)
        .header("Origin", origin)
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "content-type,accept")
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_allowed_origin_passes_the_preflight_and_reads_the_stream() {
    let url = serve().await;
    let answer = preflight(&url, FRONTEND).await;
    assert!(answer.status().is_success(), "{}", answer.status());
    let headers = answer.headers();
    assert_eq!(headers["access-control-allow-origin"], FRONTEND);
    assert!(
        headers["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .contains("POST")
    );
    let allowed = headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(allowed.contains("content-type") && allowed.contains("accept"));

    let response = reqwest::Client::new()
        .post(&url)
        .header("Origin", FRONTEND)
        .header("Accept", "text/event-stream")
        .header("Content-Type", "application/json")
        .body(r#"{"threadId":"t","runId":"r","messages":[]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["access-control-allow-origin"], FRONTEND);
    let body = response.text().await.unwrap();
    assert!(body.contains("Hello, browser."), "{body}");
    assert!(body.contains("RUN_FINISHED"), "{body}");
}

#[tokio::test]
async fn another_origin_is_not_allowed() {
    let url = serve().await;
    let answer = preflight(&url, "http://evil.example").await;
    // With one fixed origin the layer names that origin whoever asks; the browser compares it
    // with the page's own and refuses the response when they differ.
    let allowed = answer.headers().get("access-control-allow-origin");
    assert_ne!(
        allowed.and_then(|v| v.to_str().ok()),
        Some("http://evil.example")
    );
    assert_ne!(allowed.and_then(|v| v.to_str().ok()), Some("*"));
}
