//! The commands that talk over HTTP: `run` (one turn against any AG-UI endpoint) and `demo`
//! (the demo agent and a run against it, in one process); `serve` is in `serve.rs`.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ag_ui::Timeouts;
use ag_ui::client::{
    CancelToken, Conversation, Flow, HttpAgent, PeerVersion, Reducer, RunError, RunErrorKind,
    Subscriber, TransportErrorKind, Warning, WarningKind,
};
use ag_ui::{Context, Event, Message, ResumeEntry, Tool};

use crate::failure::{Failure, chain};
use crate::ids::unique;
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
    pub(crate) connect_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    /// The whole run's bound (`--timeout`), reconnects included; `None`: none.
    pub(crate) timeout: Option<Duration>,
    /// Ask for the binary transport (`application/vnd.ag-ui.event+proto`); the body is read as
    /// its content type says either way.
    pub(crate) proto: bool,
    /// The agent's version, when it is pinned to an older one (`--peer-version`).
    pub(crate) peer_version: Option<PeerVersion>,
    /// The conversation to start from (`--input FILE`).
    pub(crate) input: Option<StartingInput>,
}

/// A conversation read from a file (`--input FILE`): the corpus's `input` shape (`messages`,
/// `tools`, `context`, `forwardedProps`), or a whole fixture of the corpus, whose `input` and
/// `client.maxProtocolVersion` are taken.
#[derive(Debug, Default)]
pub(crate) struct StartingInput {
    pub(crate) messages: Vec<Message>,
    pub(crate) tools: Vec<Tool>,
    pub(crate) context: Vec<Context>,
    pub(crate) forwarded_props: Option<serde_json::Value>,
    /// A fixture's `client.maxProtocolVersion`.
    pub(crate) peer_version: Option<PeerVersion>,
}

/// The largest `--input` file read, in bytes.
const MAX_INPUT_FILE: u64 = 16 * 1024 * 1024;

/// Reads `--input FILE` (see [`StartingInput`]), bounded; every problem is a usage error naming
/// the file.
pub(crate) fn read_input(path: &str) -> Result<StartingInput, String> {
    use std::io::Read;
    let fail = |what: String| format!("--input {path}: {what}");
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > MAX_INPUT_FILE {
        return Err(fail(format!("over {MAX_INPUT_FILE} bytes")));
    }
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| fail(format!("not JSON: {e}")))?;
    let (input, peer) = if value.get("stream").is_some() {
        let fixture =
            ag_ui_conformance::Fixture::from_value(&value).map_err(|e| fail(e.to_string()))?;
        let peer = fixture
            .max_protocol_version
            .as_deref()
            .map(|v| v.parse::<PeerVersion>().map_err(|e| fail(e.to_string())))
            .transpose()?;
        let input = fixture.input;
        let mut object = serde_json::Map::new();
        object.insert("messages".into(), input.messages.into());
        object.insert("tools".into(), input.tools.into());
        object.insert("context".into(), input.context.into());
        if let Some(props) = input.forwarded_props {
            object.insert("forwardedProps".into(), props);
        }
        (serde_json::Value::Object(object), peer)
    } else {
        (value, None)
    };
    let serde_json::Value::Object(map) = input else {
        return Err(fail(
            "not a JSON object (messages, tools, context, forwardedProps)".into(),
        ));
    };
    for key in map.keys() {
        if !matches!(
            key.as_str(),
            "messages" | "tools" | "context" | "forwardedProps"
        ) {
            return Err(fail(format!(
                "{:?} is not a member of a run's input here (messages, tools, context, forwardedProps)",
                ag_ui::excerpt(key, ag_ui::EXCERPT_BYTES)
            )));
        }
    }
    let field = |key: &str| {
        map.get(key)
            .cloned()
            .unwrap_or(serde_json::Value::Array(Vec::new()))
    };
    Ok(StartingInput {
        messages: serde_json::from_value(field("messages"))
            .map_err(|e| fail(format!("messages: {e}")))?,
        tools: serde_json::from_value(field("tools")).map_err(|e| fail(format!("tools: {e}")))?,
        context: serde_json::from_value(field("context"))
            .map_err(|e| fail(format!("context: {e}")))?,
        forwarded_props: map.get("forwardedProps").cloned(),
        peer_version: peer,
    })
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

/// Shows a run as its events arrive: rendered, or as JSON Lines. Remembers the first write
/// error (which stops the run).
struct Printer {
    renderer: Option<Renderer<std::io::Stdout>>,
    json: Option<std::io::BufWriter<std::io::Stdout>>,
    /// Reused for each JSON line.
    line: Vec<u8>,
    waiting: Arc<AtomicBool>,
    io_error: Option<std::io::Error>,
    /// The kinds of warning already printed (one line per kind).
    warned: Vec<WarningKind>,
    /// Warnings not printed: their kind was.
    more_warnings: u64,
}

impl Printer {
    /// Prints the first warning of each kind on standard error, as `apply` prints its
    /// warnings; the rest are counted.
    fn warn(&mut self, warning: &Warning) {
        if self.warned.contains(&warning.kind()) {
            self.more_warnings += 1;
            return;
        }
        self.warned.push(warning.kind());
        let line = crate::terminal::visible(&warning.to_string(), false).into_owned();
        let _ = writeln!(std::io::stderr().lock(), "warning: {line}");
    }

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
    fn on_warning(&mut self, warning: &Warning) -> Flow {
        self.warn(warning);
        Flow::Continue
    }

    fn on_event(&mut self, event: &Event, _: &Reducer) -> Flow {
        self.waiting.store(true, Ordering::Relaxed);
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
fn run_failure(error: RunError) -> Failure {
    let stream =
        |position: usize, kind: &'static str, ids: Vec<String>, message: String| Failure::Stream {
            position: crate::input::Position::Event(position),
            kind,
            ids,
            message,
        };
    if error.kind() == RunErrorKind::UnansweredInterrupt {
        let id = error.interrupt_id().unwrap_or_default();
        return Failure::Usage(format!("interrupt {id:?} needs a --resume answer"));
    }
    if let Some(pipeline) = error.pipeline() {
        if let Some(v) = pipeline.violation() {
            return stream(
                v.index(),
                v.kind().as_str(),
                v.ids().to_vec(),
                v.message().to_owned(),
            );
        }
        if let Some(e) = pipeline.chunk() {
            return stream(
                e.index(),
                e.kind().as_str(),
                e.id().map(str::to_owned).into_iter().collect(),
                e.to_string(),
            );
        }
    }
    if let Some(failure) = error.agent_error() {
        return Failure::RunError {
            message: failure.message().to_owned(),
            code: failure.code().map(str::to_owned),
        };
    }
    match error.transport() {
        Some(transport) if transport.kind() == TransportErrorKind::Connection => {
            let message = transport.message().unwrap_or_default();
            Failure::Remote(match std::error::Error::source(transport) {
                Some(source) => format!("{message}: {}", chain(source)),
                None => message.to_owned(),
            })
        }
        Some(transport) if transport.kind() == TransportErrorKind::InvalidRequest => {
            Failure::Usage(transport.message().unwrap_or_default().to_owned())
        }
        _ => Failure::Remote(chain(&error)),
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
    let mut peer_version = options.peer_version;
    if let Some(input) = &options.input {
        conversation = conversation
            .with_messages(input.messages.clone())
            .with_tools(input.tools.clone())
            .with_context(input.context.clone());
        if let Some(props) = &input.forwarded_props {
            conversation = conversation.with_forwarded_props(props.clone());
        }
        peer_version = peer_version.or(input.peer_version);
    }
    if let Some(message) = &options.message {
        conversation.add_user_message(message.as_str());
    }
    let mut agent = HttpAgent::new(options.url.as_str())
        .with_timeouts(
            Timeouts::default()
                .with_connect(options.connect_timeout)
                .with_idle(options.idle_timeout),
        )
        .with_proto(options.proto)
        .with_peer_version(peer_version)
        // A resumable stream that drops is reconnected; one line on stderr says so (stdout,
        // the rendering or the JSON Lines, stays the run's events, each once).
        .with_on_reconnect(|reconnection| {
            let _ = writeln!(std::io::stderr().lock(), "ag-ui: {reconnection}");
        });
    for (name, value) in &options.headers {
        agent = agent
            .try_with_header(name, value)
            .map_err(|e| Failure::Usage(e.to_string()))?;
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
        io_error: None,
        warned: Vec::new(),
        more_warnings: 0,
    };
    let resume = (!options.resume.is_empty()).then(|| options.resume.clone());
    let cancel = CancelToken::new();
    let running = conversation.run_with(&agent, resume, &cancel, &mut printer);
    // One bound on the whole run: an agent that keeps the stream alive with keep-alive comments
    // (or reconnects) never trips the idle timeout.
    let result = match options.timeout {
        Some(limit) => tokio::time::timeout(limit, running).await.ok(),
        None => Some(running.await),
    };
    waiting.store(true, Ordering::Relaxed);
    let finished = printer.finish();
    if printer.more_warnings > 0 {
        let _ = writeln!(
            std::io::stderr().lock(),
            "warning: {} more of the kinds above",
            printer.more_warnings
        );
    }
    if let Some(e) = printer.io_error.take() {
        return Err(Failure::Output(e));
    }
    let Some(result) = result else {
        let limit = options.timeout.unwrap_or_default();
        return Err(Failure::Remote(format!(
            "the run took longer than {limit:?} (--timeout); stopped"
        )));
    };
    result.map_err(run_failure)?;
    finished?;
    Ok(())
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
    // The same server as `ag-ui serve` (header timeout, connection limit); it stops with the
    // process once the turn is rendered.
    tokio::spawn(ag_ui::axum::serve(
        listener,
        demo_router("/", pace),
        ag_ui::axum::ServeConfig::default(),
        std::future::pending(),
    ));
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
        connect_timeout: ag_ui::DEFAULT_CONNECT_TIMEOUT,
        idle_timeout: ag_ui::DEFAULT_IDLE_TIMEOUT,
        timeout: None,
        proto: false,
        peer_version: None,
        input: None,
    })
    .await
}
