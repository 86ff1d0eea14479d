use super::*;
use ag_ui::TextMessageRole;

fn drain(rx: &mut mpsc::Receiver<Bytes>) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    while let Ok(bytes) = rx.try_recv() {
        let text = std::str::from_utf8(&bytes).unwrap();
        let json = text.strip_prefix("data: ").unwrap().trim_end();
        out.push(serde_json::from_str(json).unwrap());
    }
    out
}

#[test]
fn events_changes_and_the_violation_reach_the_page_with_their_indexes() {
    let (tx, mut rx) = mpsc::channel(1024);
    let mut forwarder = Forwarder::new(tx);
    let mut pipeline = Pipeline::new(Reducer::new());
    let events = [
        Event::run_started("t", "r"),
        Event::text_message_start("m", TextMessageRole::Assistant),
        Event::text_message_content("m", "hi"),
        Event::text_message_end("m"),
        Event::text_message_content("m", "late"),
    ];
    let mut error = None;
    for event in events {
        if let Err(e) = pipeline.push_event(event, &mut forwarder) {
            error = Some(e);
            break;
        }
    }
    forwarder.send_failure(&error.expect("a violation").into(), json!([]));
    let sent = drain(&mut rx);
    let indexes: Vec<_> = sent
        .iter()
        .filter(|m| m["t"] == "ev")
        .map(|m| m["i"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, [0, 1, 2, 3]);
    let finished = sent.iter().rfind(|m| m["t"] == "msg").expect("the message");
    assert_eq!(finished["m"]["content"], "hi");
    let violation = sent.last().unwrap();
    assert_eq!(violation["t"], "violation");
    assert_eq!(violation["i"], 4);
    assert!(
        violation["kind"].as_str().unwrap().contains('-'),
        "{violation}"
    );
}

/// The session token of the inspectors these tests start.
const TOKEN: &str = "00112233445566778899aabbccddeeff";

async fn spawn(max_upload: usize, pace: Duration) -> String {
    spawn_with(max_upload, pace, ServeConfig::default()).await
}

async fn spawn_with(max_upload: usize, pace: Duration, config: ServeConfig) -> String {
    let inspector = Inspector::new(
        Target::InProcess(InProcess {
            handler: Runner::new(DemoAgent::new().with_pace(pace)).with_input_echo(true),
        }),
        "demo".to_owned(),
        max_upload,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = router(inspector, Guard::with_token(addr, TOKEN.to_owned()));
    tokio::spawn(ag_ui::axum::serve(
        listener,
        app,
        config,
        std::future::pending(),
    ));
    format!("http://{addr}")
}

/// A client that sends the session token, as the page does.
fn client() -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(guard::TOKEN_HEADER, TOKEN.parse().unwrap());
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_its_assets_are_served_from_the_binary() {
    let base = spawn(1024, Duration::ZERO).await;
    for (path, content_type, needle) in [
        ("/", "text/html; charset=utf-8", "/inspector.js"),
        (
            "/inspector.js",
            "text/javascript; charset=utf-8",
            "sessionJsonl",
        ),
        ("/inspector.css", "text/css; charset=utf-8", "#timeline"),
    ] {
        let response = reqwest::get(format!("{base}{path}")).await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["content-type"], content_type, "{path}");
        let body = response.text().await.unwrap();
        assert!(body.contains(needle), "{path}");
        if path == "/" {
            assert!(body.contains(TOKEN), "the page carries the session token");
        }
    }
    // Nothing the page loads comes from elsewhere: it works offline.
    for asset in [PAGE, SCRIPT, STYLE] {
        assert!(!asset.contains("http://") && !asset.contains("https://"));
    }
    let info: serde_json::Value = serde_json::from_str(
        &reqwest::get(format!("{base}/api/info"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(info["inProcess"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_json_errors_with_their_status() {
    let base = spawn(64, Duration::ZERO).await;
    let client = client();
    let cases = [
        ("/api/run", "not json".to_owned(), 400, "invalid-request"),
        (
            "/api/run",
            r#"{"thread":""}"#.to_owned(),
            400,
            "invalid-request",
        ),
        (
            "/api/run",
            r#"{"thread":"t","extra":1}"#.to_owned(),
            400,
            "invalid-request",
        ),
        ("/api/load", "x".repeat(65), 413, "payload-too-large"),
    ];
    for (path, body, status, kind) in cases {
        let response = client
            .post(format!("{base}{path}"))
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), status, "{path} {body}");
        assert_eq!(response.headers()["content-type"], "application/json");
        let json: serde_json::Value =
            serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(json["error"]["kind"], kind, "{json}");
    }
    // A recording that is not events: the stream says so, naming where.
    let text = client
        .post(format!("{base}/api/load"))
        .body("{\"type\":\"RUN_STARTED\"}\n")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains(r#""t":"error""#) && text.contains("line 1"),
        "{text}"
    );
    // A recording that stops inside its run is incomplete, not finished.
    let text = client
        .post(format!("{base}/api/load"))
        .body("{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains(r#""kind":"run.incomplete""#), "{text}");
    // A protobuf recording cut inside its second frame names that frame.
    let mut frames = ag_ui::encoding::proto::encode(&Event::run_started("t", "r"));
    frames.extend_from_slice(&[0, 0, 0, 9, 0x7a]);
    let text = client
        .post(format!("{base}/api/load"))
        .body(frames)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains(r#""t":"error""#) && text.contains("event 1: protobuf"),
        "{text}"
    );
    assert!(!text.contains(r#""t":"end""#), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_run_on_a_busy_thread_is_refused_and_the_thread_count_is_bounded() {
    // Paced, so the first run is still going when the second asks.
    let paced = spawn(64, Duration::from_millis(20)).await;
    let base = spawn(64, Duration::ZERO).await;
    let client = client();
    let busy = |thread: &str| {
        client
            .post(format!("{paced}/api/run"))
            .body(json!({ "thread": thread, "message": "hi" }).to_string())
            .send()
    };
    let run = |thread: String| {
        client
            .post(format!("{base}/api/run"))
            .body(json!({ "thread": thread, "message": "hi" }).to_string())
            .send()
    };
    // The first run holds the thread while its response is open and unread.
    let first = busy("busy").await.unwrap();
    assert_eq!(first.status(), 200);
    let second = busy("busy").await.unwrap();
    assert_eq!(second.status(), 409);
    let first = first.text().await.unwrap();
    assert!(first.contains(r#""t":"end""#), "{first}");
    for n in 0..MAX_THREADS {
        let response = run(format!("t{n}")).await.unwrap();
        assert_eq!(response.status(), 200);
        response.text().await.unwrap();
    }
    // A thread waiting on an interrupt takes no new message until it is answered.
    let interrupted = client
        .post(format!("{base}/api/run"))
        .body(json!({ "thread": "t0", "message": "please confirm" }).to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(interrupted.contains("Shall I save"), "{interrupted}");
    let refused = run("t0".to_owned()).await.unwrap();
    assert_eq!(refused.status(), 409);
    let json: serde_json::Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
    assert_eq!(json["error"]["kind"], "unanswered-interrupt");
    let over = run("one-too-many".to_owned()).await.unwrap();
    assert_eq!(over.status(), 429);
    let json: serde_json::Value = serde_json::from_str(&over.text().await.unwrap()).unwrap();
    assert_eq!(json["error"]["kind"], "too-many-threads");
}

#[test]
fn a_page_that_went_away_stops_the_run() {
    let (tx, rx) = mpsc::channel(1);
    drop(rx);
    let mut forwarder = Forwarder::new(tx);
    assert_eq!(
        forwarder.on_event(&Event::run_started("t", "r"), &Reducer::new()),
        Flow::Stop
    );
}

#[test]
fn a_slow_page_makes_the_run_wait_without_queueing_more() {
    let (tx, mut rx) = mpsc::channel(2);
    let reader = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        let mut n = 0;
        while rx.blocking_recv().is_some() {
            n += 1;
        }
        n
    });
    let mut forwarder = Forwarder::new(tx);
    for _ in 0..10 {
        assert_eq!(
            forwarder.on_event(&Event::run_started("t", "r"), &Reducer::new()),
            Flow::Continue
        );
    }
    assert!(forwarder.waited >= Duration::from_millis(20));
    drop(forwarder);
    assert_eq!(reader.join().unwrap(), 10);
}

/// Sends `request` as it is over a fresh connection and returns the whole answer.
async fn raw(base: &str, request: String) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let addr = base.strip_prefix("http://").unwrap();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
        .await
        .expect("the server answers and closes")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

fn refused_as(answer: &str, kind: &str) {
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    assert!(answer.contains("application/json"), "{answer}");
    assert!(answer.contains(&format!(r#""kind":"{kind}""#)), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_sites_and_rebinding_hosts_cannot_drive_the_inspector() {
    let base = spawn(1024, Duration::ZERO).await;
    let authority = base.strip_prefix("http://").unwrap().to_owned();
    let port = authority.rsplit_once(':').unwrap().1.to_owned();
    let run = r#"{"thread":"t","message":"hi"}"#;
    let post = |path: &str, host: &str, extra: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n{extra}\r\n{run}",
            run.len()
        )
    };
    let token = format!("{}: {TOKEN}\r\n", guard::TOKEN_HEADER);
    // A page elsewhere posting to the inspector: its origin is refused, token or not.
    for extra in [
        "Origin: http://evil.example\r\n".to_owned(),
        format!("Origin: http://evil.example\r\n{token}"),
        format!("Origin: null\r\n{token}"),
        format!("Origin: https://{authority}\r\n{token}"),
    ] {
        refused_as(
            &raw(&base, post("/api/run", &authority, &extra)).await,
            "forbidden-origin",
        );
    }
    // A DNS-rebinding page: same IP and port, its own name in Host; even a GET of the page (and
    // so of the token) is refused.
    let rebound = format!("evil.example:{port}");
    refused_as(
        &raw(&base, post("/api/run", &rebound, &token)).await,
        "forbidden-host",
    );
    refused_as(
        &raw(
            &base,
            format!("GET / HTTP/1.1\r\nHost: {rebound}\r\nConnection: close\r\n\r\n"),
        )
        .await,
        "forbidden-host",
    );
    // A same-origin post without the token, or with a wrong one.
    for extra in [
        String::new(),
        format!("{}: {}\r\n", guard::TOKEN_HEADER, "0".repeat(32)),
    ] {
        refused_as(
            &raw(&base, post("/api/run", &authority, &extra)).await,
            "missing-token",
        );
        refused_as(
            &raw(&base, post("/api/load", &authority, &extra)).await,
            "missing-token",
        );
    }
    // The inspector's own page: its origin, `localhost` or the IP, and the token.
    for host in [authority.clone(), format!("localhost:{port}")] {
        let answer = raw(
            &base,
            post(
                "/api/run",
                &host,
                &format!("Origin: http://{host}\r\n{token}"),
            ),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains(r#""t":"end""#), "{answer}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_request_head_is_cut_off_at_the_header_timeout() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let config = ServeConfig::default().with_header_timeout(Duration::from_millis(300));
    let base = spawn_with(1024, Duration::ZERO, config).await;
    let mut stream = tokio::net::TcpStream::connect(base.strip_prefix("http://").unwrap())
        .await
        .unwrap();
    let started = std::time::Instant::now();
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: x")
        .await
        .unwrap();
    let mut buf = [0u8; 256];
    let closed = tokio::time::timeout(Duration::from_secs(3), async {
        loop {
            // Keep trickling, as a slowloris client does; the server closes regardless.
            let _ = stream.write_all(b"x").await;
            // Anything read (the end of the stream, most likely) means the server acted.
            let read = tokio::time::timeout(Duration::from_millis(50), stream.read(&mut buf));
            if read.await.is_ok() {
                break;
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the connection was not closed");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_recording_is_read_at_a_time() {
    let base = spawn(1 << 20, Duration::ZERO).await;
    let client = client();
    let mut recording =
        String::from("{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n");
    for i in 0..5000 {
        recording.push_str(&format!(
            "{{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{{\"n\":{i}}}}}\n"
        ));
    }
    recording.push_str("{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n");
    // The first load's answer is left unread: its run waits for the page, holding the slot.
    let first = client
        .post(format!("{base}/api/load"))
        .body(recording.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 200);
    let second = client
        .post(format!("{base}/api/load"))
        .body(recording.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 429);
    let json: serde_json::Value = serde_json::from_str(&second.text().await.unwrap()).unwrap();
    assert_eq!(json["error"]["kind"], "load-in-progress");
    let first = first.text().await.unwrap();
    assert!(first.contains(r#""t":"end""#), "the first load finishes");
    // Once it is read, the next load is served (the slot is released when the reading ends).
    let mut third = None;
    for _ in 0..50 {
        let response = client
            .post(format!("{base}/api/load"))
            .body(recording.clone())
            .send()
            .await
            .unwrap();
        if response.status() == 200 {
            third = Some(response.text().await.unwrap());
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(third.expect("served again").contains(r#""t":"end""#));
}
