//! `ag-ui verify URL`: one run of an endpoint, verified as its response arrives.
//!
//! The response is never held whole: its body is handed, piece by piece, to the same reader
//! and verifier as a file (on a blocking thread, through a channel of a few pieces), so the
//! SSE frame limit applies and a violation stops the download at once.

use std::io::Read;

use ag_ui::client::{Body as _, HttpAgent, Piece, Transport as _, TransportErrorKind};
use ag_ui::{Message, PROTOCOL_VERSION, RunAgentInput};
// The `bytes` crate's type, which reqwest hands out too.
use axum::body::Bytes;
use futures::StreamExt;
use tokio::sync::mpsc;

use crate::failure::Failure;
use crate::failure::chain;
use crate::ids::unique;
use crate::offline;

/// How many pieces of the body may wait for the verifier: the memory the download may take
/// ahead of verification is this many network reads.
const QUEUE: usize = 4;

/// The body as a [`Read`], fed by the download task. A broken download is a read error, once
/// every byte that came before it has been read.
struct Body {
    pieces: mpsc::Receiver<Result<Bytes, String>>,
    current: Bytes,
    offset: usize,
    /// The download broke off; reported by the next read that would wait.
    broken: Option<String>,
}

impl Body {
    /// Takes the next piece: waits for one when `wait`, else only one already there. `None`
    /// at the end of the body (or when `!wait` and nothing is there).
    fn next_piece(&mut self, wait: bool) -> std::io::Result<Option<()>> {
        if wait && let Some(e) = self.broken.take() {
            return Err(std::io::Error::other(e));
        }
        if self.broken.is_some() {
            return Ok(None);
        }
        let piece = if wait {
            self.pieces.blocking_recv()
        } else {
            self.pieces.try_recv().ok()
        };
        match piece {
            None => Ok(None),
            Some(Ok(piece)) => {
                self.current = piece;
                self.offset = 0;
                Ok(Some(()))
            }
            Some(Err(e)) if wait => Err(std::io::Error::other(e)),
            // Bytes already read in this call go first.
            Some(Err(e)) => {
                self.broken = Some(e);
                Ok(None)
            }
        }
    }
}

impl Read for Body {
    /// Fills `buf` with what has arrived, waiting only while nothing has: the reader then
    /// decodes the body in large pieces, whatever the size of the network's.
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut filled = 0;
        while filled < buf.len() {
            if self.offset == self.current.len() && self.next_piece(filled == 0)?.is_none() {
                break;
            }
            let n = (buf.len() - filled).min(self.current.len() - self.offset);
            buf[filled..filled + n].copy_from_slice(&self.current[self.offset..self.offset + n]);
            self.offset += n;
            filled += n;
        }
        Ok(filled)
    }
}

/// `ag-ui verify URL`: POSTs a run (one user message `message`) and verifies the response as
/// it arrives, as `ag-ui verify` verifies a file.
///
/// The request goes through [`HttpAgent`], so it has the same connect and idle timeouts, the
/// same refusal of a response that is not an event stream, and the same redirect policy (within
/// the endpoint's origin only) as `ag-ui run`.
pub(crate) async fn verify_url(
    url: &str,
    message: &str,
    raw: bool,
    partial: bool,
) -> Result<String, Failure> {
    let input = RunAgentInput::new(unique("thread"), unique("run"))
        .with_protocol_version(PROTOCOL_VERSION)
        .with_messages(vec![Message::user(unique("user"), message)]);
    let agent = HttpAgent::new(url);
    let response = agent.open(&input).await.map_err(|e| match e.kind() {
        TransportErrorKind::InvalidRequest => Failure::Usage(e.to_string()),
        _ => Failure::Remote(chain(&e)),
    })?;
    let (sender, pieces) = mpsc::channel(QUEUE);
    let mut verifier = tokio::task::spawn_blocking(move || {
        offline::verify_reader(
            Body {
                pieces,
                current: Bytes::new(),
                offset: 0,
                broken: None,
            },
            raw,
            partial,
        )
    });
    // Owns the response, so dropping it hangs up at once.
    let mut body = Box::pin(futures::stream::unfold(
        response,
        |mut response| async move {
            match response.next().await {
                Ok(None) => None,
                Ok(Some(Piece::Bytes(bytes))) => Some((Ok(bytes), response)),
                // A frame the reconnecting reader decoded: the verifier reads SSE.
                Ok(Some(Piece::Frame(data))) => Some((Ok(sse_frame(&data)), response)),
                // A frame over the reconnecting reader's limit: the stream ends there.
                Ok(Some(Piece::Refused(e))) => Some((Err(chain(&e)), response)),
                // An HTTP transport hands out bytes only.
                Ok(Some(_)) => Some((Ok(Bytes::new()), response)),
                Err(e) => Some((Err(chain(&e)), response)),
            }
        },
    ));
    // Dropped at the end of the body (the verifier then reads the end of its input).
    let mut sender = Some(sender);
    let mut broke_off = None;
    let verdict = loop {
        tokio::select! {
            // The verifier may be done before the body is (a violation, an oversized frame),
            // however long the agent keeps the stream open.
            verdict = &mut verifier => break verdict,
            piece = body.next(), if sender.is_some() => {
                let Some(to_verifier) = &sender else { continue };
                let piece = match piece {
                    None => {
                        sender = None;
                        continue;
                    }
                    Some(Ok(piece)) => Ok(piece),
                    Some(Err(e)) => {
                        let message = format!("the stream broke off: {e}");
                        broke_off = Some(message.clone());
                        Err(message)
                    }
                };
                let failed = piece.is_err();
                // An error means the verifier has stopped: it is about to answer.
                if to_verifier.send(piece).await.is_err() || failed {
                    sender = None;
                }
            }
        }
    };
    drop(body);
    let verdict = verdict.map_err(|e| Failure::Usage(format!("the verifier stopped: {e}")))?;
    match (verdict, broke_off) {
        // The reader failed because the download did: say so, not "read error".
        (Err(Failure::Input(e)), Some(message)) if e.message.contains(&message) => {
            Err(Failure::Remote(message))
        }
        (verdict, _) => verdict,
    }
}

/// The data of one frame as an SSE frame again.
fn sse_frame(data: &str) -> Bytes {
    let mut out = Vec::with_capacity(data.len() + 8);
    ag_ui::encoding::sse::write_frame(data, &mut out);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decoded_frame_reads_back_as_the_same_data() {
        for data in ["{\"type\":\"RUN_STARTED\"}", "a\n b\n", " lead", ""] {
            let mut frames = ag_ui::encoding::sse::FrameDecoder::new();
            frames.push(&sse_frame(data));
            let frame = frames.next_frame().unwrap().unwrap();
            assert_eq!(frame.text(), data);
        }
    }

    #[test]
    fn the_body_reads_every_byte_before_the_break_then_fails() {
        let (sender, pieces) = mpsc::channel(QUEUE);
        sender.try_send(Ok(Bytes::from_static(b"ab"))).unwrap();
        sender.try_send(Ok(Bytes::from_static(b"cd"))).unwrap();
        sender.try_send(Err("broke".to_owned())).unwrap();
        drop(sender);
        let mut body = Body {
            pieces,
            current: Bytes::new(),
            offset: 0,
            broken: None,
        };
        let mut buf = [0; 16];
        // What has arrived is read in one go, the break held back.
        assert_eq!(body.read(&mut buf).unwrap(), 4);
        assert_eq!(&buf[..4], b"abcd");
        let err = body.read(&mut buf).unwrap_err();
        assert_eq!(err.to_string(), "broke");
    }

    #[test]
    fn the_body_ends_when_the_download_does() {
        let (sender, pieces) = mpsc::channel(QUEUE);
        sender.try_send(Ok(Bytes::from_static(b"xyz"))).unwrap();
        drop(sender);
        let mut body = Body {
            pieces,
            current: Bytes::new(),
            offset: 0,
            broken: None,
        };
        let mut buf = [0; 2];
        assert_eq!(body.read(&mut buf).unwrap(), 2);
        assert_eq!(body.read(&mut buf).unwrap(), 1);
        assert_eq!(body.read(&mut buf).unwrap(), 0);
    }
}
