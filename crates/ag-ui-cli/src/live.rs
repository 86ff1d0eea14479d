//! The commands that talk over HTTP: `run` (one turn against any AG-UI endpoint) and `demo`
//! (the demo agent and a run against it, in one process); `serve` is in `serve.rs`.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ag_ui::client::apply::Reducer;
use ag_ui::client::conversation::{CancelHandle, Conversation};
use ag_ui::client::http::HttpAgent;
use ag_ui::client::run::{Flow, RunError, Subscriber};
use ag_ui::{Event, Message, PROTOCOL_VERSION, ResumeEntry, RunAgentInput};

use crate::offline::Failure;
use crate::render::Renderer;
use crate::serve::demo_router;

/// What `run` sends and how it shows what comes back.
#[derive(Debug)]
pub(crate) struct RunOptions {
    pub(crate) url: String,
    pub(crate) message: Option<String>,
    pub(crate) state: Option<serde_json::Value>,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) thread: Option<String>,
    pub(crate) resume: Vec<ResumeEntry>,
    pub(crate) json: bool,
    pub(crate) color: bool,
}

fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{prefix}-{nanos:x}-{}",
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Parses `--resume ID[=JSON]`: a resolved entry with the JSON payload (`{"approved":true}`
/// when absent), or `ID=cancel` for a cancelled one.
pub(crate) fn parse_resume(arg: &str) -> Result<ResumeEntry, String> {
    let (id, payload) = arg.split_once('=').unwrap_or((arg, ""));
    if id.is_empty() {
        return Err(format!("--resume {arg:?}: expected ID or ID=JSON"));
    }
    match payload {
        "" => Ok(ResumeEntry::resolved(
            id,
            serde_json::json!({ "approved": true }),
        )),
        "cancel" => Ok(ResumeEntry::cancelled(id)),
        json => serde_json::from_str(json)
            .map(|p| ResumeEntry::resolved(id, p))
            .map_err(|e| format!("--resume {id}: the payload is not JSON: {e}")),
    }
}

/// Parses `--header K:V`.
pub(crate) fn parse_header(arg: &str) -> Result<(String, String), String> {
    match arg.split_once(':') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
        _ => Err(format!("--header {arg:?}: expected NAME:VALUE")),
    }
}

/// A spinner on standard error until the first event arrives (only on a terminal).
fn spinner(enabled: bool) -> Arc<AtomicBool> {
    let done = Arc::new(AtomicBool::new(!enabled));
    if enabled {
        let flag = Arc::clone(&done);
        tokio::spawn(async move {
            let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
            let mut i = 0;
            while !flag.load(Ordering::Relaxed) {
                eprint!("\r{} waiting for the agent…", frames[i % frames.len()]);
                i += 1;
                tokio::time::sleep(Duration::from_millis(80)).await;
            }
            eprint!("\r\x1b[2K");
        });
    }
    done
}

/// Shows a run as its events arrive: rendered, or as JSON Lines. Remembers a `RUN_ERROR` and the
/// first write error (which stops the run).
struct Printer {
    renderer: Option<Renderer<std::io::Stdout>>,
    json: Option<std::io::BufWriter<std::io::Stdout>>,
    /// Reused for each JSON line.
    line: Vec<u8>,
    waiting: Arc<AtomicBool>,
    failed_run: Option<String>,
    io_error: Option<std::io::Error>,
}

impl Printer {
    fn show(&mut self, event: &Event) -> std::io::Result<()> {
        if let Some(renderer) = &mut self.renderer {
            renderer.event(event)?;
        }
        if let Some(out) = &mut self.json {
            self.line.clear();
            event.write_json(&mut self.line);
            self.line.push(b'\n');
            out.write_all(&self.line)?;
        }
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(renderer) = &mut self.renderer {
            renderer.finish()?;
        }
        if let Some(out) = &mut self.json {
            out.flush()?;
        }
        Ok(())
    }
}

impl Subscriber for Printer {
    fn on_event(&mut self, event: &Event, _: &Reducer) -> Flow {
        self.waiting.store(true, Ordering::Relaxed);
        if let Event::RunError(e) = event {
            self.failed_run = Some(e.message.clone());
        }
        match self.show(event) {
            Ok(()) => Flow::Continue,
            Err(e) => {
                self.io_error = Some(e);
                Flow::Stop
            }
        }
    }
}

/// A pipeline failure, as the command reports it.
fn run_failure(url: &str, error: RunError) -> Failure {
    let stream =
        |position: usize, kind: &'static str, ids: Vec<String>, message: String| Failure::Stream {
            position: crate::input::Position::Event(position),
            kind,
            ids,
            message,
        };
    match error {
        RunError::Verify(v) => stream(
            v.index(),
            v.kind().as_str(),
            v.ids().to_vec(),
            v.message().to_owned(),
        ),
        RunError::Chunk(e) => stream(
            e.index(),
            e.kind().as_str(),
            e.id().map(str::to_owned).into_iter().collect(),
            e.to_string(),
        ),
        RunError::Http { status, body } => {
            Failure::Remote(format!("HTTP {status}: {}", body.trim()))
        }
        RunError::Transport(message) => Failure::Remote(format!("cannot reach {url}: {message}")),
        RunError::UnansweredInterrupt(id) => {
            Failure::Usage(format!("interrupt {id:?} needs a --resume answer"))
        }
        other => Failure::Remote(other.to_string()),
    }
}

/// `ag-ui run`: one turn of a [`Conversation`] with any AG-UI endpoint through [`HttpAgent`]
/// and the SDK's client pipeline (decoding, chunk normalization, verification, the reducer),
/// rendered live or as JSON Lines.
pub(crate) async fn run(options: RunOptions) -> Result<(), Failure> {
    let mut conversation =
        Conversation::new(options.thread.clone().unwrap_or_else(|| unique("thread")));
    if let Some(state) = options.state.clone() {
        conversation = conversation.with_state(state);
    }
    if let Some(message) = &options.message {
        conversation.add_user_message(message.as_str());
    }
    let mut agent = HttpAgent::new(options.url.as_str());
    for (name, value) in &options.headers {
        agent = agent.with_header(name, value);
    }
    let waiting = spinner(!options.json && std::io::stderr().is_terminal());
    let mut printer = Printer {
        renderer: (!options.json)
            .then(|| Renderer::new(std::io::stdout(), options.color, options.url.clone())),
        json: options
            .json
            .then(|| std::io::BufWriter::new(std::io::stdout())),
        line: Vec::new(),
        waiting: Arc::clone(&waiting),
        failed_run: None,
        io_error: None,
    };
    let resume = (!options.resume.is_empty()).then(|| options.resume.clone());
    let result = conversation
        .run_with(&agent, resume, &CancelHandle::new(), &mut printer)
        .await;
    waiting.store(true, Ordering::Relaxed);
    let finished = printer.finish();
    if let Some(e) = printer.io_error.take() {
        return Err(Failure::Output(e));
    }
    result.map_err(|e| run_failure(&options.url, e))?;
    finished?;
    match printer.failed_run {
        Some(message) => Err(Failure::RunError(message)),
        None => Ok(()),
    }
}

/// `ag-ui verify URL`: runs the endpoint once (a user message `message`) and verifies the whole
/// response as a recorded stream would be verified.
pub(crate) async fn verify_url(url: &str, message: &str, raw: bool) -> Result<String, Failure> {
    let input = RunAgentInput::new(unique("thread"), unique("run"))
        .with_protocol_version(PROTOCOL_VERSION)
        .with_messages(vec![Message::user(unique("user"), message)]);
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(&input).map_err(|e| Failure::Usage(e.to_string()))?)
        .send()
        .await
        .map_err(|e| Failure::Remote(format!("cannot reach {url}: {e}")))?;
    let status = response.status();
    let body = response
        .bytes()
        .await
        .map_err(|e| Failure::Remote(format!("the stream broke off: {e}")))?;
    if !status.is_success() {
        return Err(Failure::Remote(format!(
            "HTTP {status}: {}",
            String::from_utf8_lossy(&body).trim()
        )));
    }
    crate::offline::verify_reader(&body[..], raw)
}

/// `ag-ui demo`: the demo agent on a free local port and one rendered turn against it.
pub(crate) async fn demo(message: String, color: bool, json: bool) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(Failure::Output)?;
    let addr = listener.local_addr().map_err(Failure::Output)?;
    let pace = if json {
        Duration::ZERO
    } else {
        Duration::from_millis(25)
    };
    tokio::spawn(async move { axum::serve(listener, demo_router("/", pace)).await });
    let url = format!("http://{addr}/");
    if !json {
        let mut err = std::io::stderr().lock();
        writeln!(err, "demo agent on {url}; running one turn: {message:?}")?;
    }
    run(RunOptions {
        url,
        message: Some(message),
        state: None,
        headers: Vec::new(),
        thread: None,
        resume: Vec::new(),
        json,
        color,
    })
    .await
}
