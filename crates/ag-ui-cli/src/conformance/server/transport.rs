//! The transport checks: protobuf negotiation and keep-alive comments.

use ag_ui::encoding::{PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE};

use super::super::{Runner, Verdict};
use super::probe::Streamed;
use super::{Answered, Target, framing, input, on_main};

/// Runs the transport checks; `main` is the core group's plain run.
pub(crate) async fn checks(
    target: &Target,
    runner: &mut Runner,
    main: Option<&Result<Answered, String>>,
) {
    runner.group(super::super::Group::Transport);
    let run = input("hello");
    let body = serde_json::to_vec(&run.value).unwrap_or_default();
    let accept = format!("{PROTO_MEDIA_TYPE}, {SSE_MEDIA_TYPE};q=0.5");
    let answer = target.post_streamed(&target.url, body, &accept, Streamed::plain());
    let reply = tokio::time::timeout(runner.budget(), answer).await.ok();
    let media = match &reply {
        Some(Ok((reply, _))) => Some(reply.media_type()),
        _ => None,
    };
    runner
        .check(
            "transport.accept-protobuf",
            "a run asking for protobuf is answered in protobuf or SSE, never anything else",
            std::future::ready(match &reply {
                None => Verdict::Fail("no answer in time".to_owned()),
                Some(Err(e)) => Verdict::Fail(e.clone()),
                Some(Ok((reply, _))) if !reply.ok() => Verdict::Fail(reply.describe()),
                Some(Ok((reply, _))) => match reply.media_type().as_str() {
                    PROTO_MEDIA_TYPE | SSE_MEDIA_TYPE => Verdict::Pass,
                    _ => Verdict::Fail(reply.describe()),
                },
            }),
        )
        .await;
    runner
        .check(
            "transport.protobuf-stream",
            "a protobuf answer decodes with ag_ui::encoding::proto into a valid, framed run",
            std::future::ready(match (&reply, media.as_deref()) {
                (Some(Ok((_, Some(analysis)))), Some(PROTO_MEDIA_TYPE)) => {
                    match analysis.problem() {
                        Some(problem) => Verdict::Fail(problem.to_owned()),
                        None => framing(analysis, &run.thread, &run.run),
                    }
                }
                (Some(Ok(_)), Some(other)) => {
                    Verdict::Skip(format!("the server answered {other}, not protobuf"))
                }
                _ => Verdict::Skip("no protobuf answer to decode".to_owned()),
            }),
        )
        .await;
    runner
        .check(
            "transport.keep-alive",
            "keep-alive comments, if the server sends any, sit between frames and carry nothing",
            std::future::ready(on_main(main, |a| {
                if a.analysis.protobuf || a.analysis.comments == 0 {
                    Verdict::Skip("the plain run carried no SSE comment".to_owned())
                } else if let Some(problem) = a.analysis.problem() {
                    Verdict::Fail(format!(
                        "with {} comment lines the stream did not read: {problem}",
                        a.analysis.comments
                    ))
                } else {
                    Verdict::Pass
                }
            })),
        )
        .await;
}
