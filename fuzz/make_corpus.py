#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target (fuzz/corpus/<target>/) from the repository's
own test streams: the verifier's differential corpus (crates/ag-ui/tests/data/verify_corpus.json),
the chunk corpus (interop/chunks/corpus.jsonl), the reducer corpus (interop/apply/corpus.jsonl),
a few hand-written streams with lone UTF-16 surrogates, hostile state shapes for the reducer
(a state or activity nested one level per patch, front inserts and removes on a long array), and
the A2UI fixtures (crates/ag-ui/tests/fixtures/a2ui/). Deterministic; run from anywhere:

    python3 fuzz/make_corpus.py
"""
import hashlib
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "corpus"

SURROGATES = [
    '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
    '{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}',
    '{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x\\ud83d"}',
    '{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"\\ude00y\\ud83d"}',
    '{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","delta":"[\\"\\ud83d"}',
    '{"type":"TOOL_CALL_CHUNK","delta":"\\ude00\\"]"}',
    '{"type":"THINKING_TEXT_MESSAGE_START"}',
    '{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"\\udc00\\ud800"}',
    '{"type":"TEXT_MESSAGE_END","messageId":"a"}',
    '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}',
]

RUN = ('{"type":"RUN_STARTED","threadId":"t","runId":"r"}', '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}')
# One level deeper per patch: add /b {}, move /a to /b/a, move /b to /a.
NEST = '{"op":"add","path":"/b","value":{}},{"op":"move","from":"/a","path":"/b/a"},{"op":"move","from":"/b","path":"/a"}'


def hostile():
    """Seeds for the reducer's depth and array-shift limits."""
    nested = [RUN[0], '{"type":"STATE_SNAPSHOT","snapshot":{"a":{}}}']
    nested += ['{"type":"STATE_DELTA","delta":[%s]}' % NEST] * 12
    one_event = [RUN[0], '{"type":"STATE_SNAPSHOT","snapshot":{"a":{}}}',
                 '{"type":"STATE_DELTA","delta":[%s]}' % ",".join([NEST] * 12)]
    activity = [RUN[0], '{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"plan","content":{"a":{}}}']
    activity += ['{"type":"ACTIVITY_DELTA","messageId":"a1","activityType":"plan","patch":[%s]}' % NEST] * 12
    front = [RUN[0], '{"type":"STATE_SNAPSHOT","snapshot":{"a":[%s]}}' % ",".join(str(i) for i in range(200))]
    front += ['{"type":"STATE_DELTA","delta":[%s]}' % ",".join(['{"op":"remove","path":"/a/0"}'] * 60)]
    front += ['{"type":"STATE_DELTA","delta":[%s]}' % ",".join(['{"op":"add","path":"/a/0","value":0}'] * 60)]
    front += ['{"type":"STATE_DELTA","delta":[{"op":"move","from":"/a/0","path":"/a/-"},{"op":"copy","from":"/a","path":"/a/0"},{"op":"replace","path":"/a","value":[1,2,3]},{"op":"add","path":"/a/1","value":{}}]}']
    return ["\n".join(stream + [RUN[1]]) + "\n" for stream in (nested, one_event, activity, front)]


def compact(event):
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


def pick(items, count):
    """`count` items spread evenly over `items`."""
    if len(items) <= count:
        return list(items)
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def a2ui_seeds():
    """The A2UI target's seeds: the spec examples' messages as envelopes, the Dojo's render
    arguments (whole, and their components alone), the basic catalog, user actions."""
    fixtures = ROOT / "crates/ag-ui/tests/fixtures/a2ui"
    seeds = []
    for path in sorted((fixtures / "spec").glob("[0-9]*.json"))[:6]:
        messages = json.loads(path.read_text())["messages"]
        seeds.append(compact({"a2ui_operations": messages}))
    dojo = json.loads((fixtures / "dojo_tool_arguments.json").read_text())
    for name in ("render_a2ui_hotel-comparison", "recovery_invalid", "recovery_valid"):
        seeds.append(compact(dojo[name]))
        seeds.append(compact(dojo[name]["components"]))
    seeds.append((fixtures / "spec/basic_catalog.json").read_text())
    seeds.append(compact({"name": "book", "surfaceId": "s", "sourceComponentId": "c", "context": {"k": 1}}))
    seeds.append(compact({"intent": "update", "target_surface_id": "hotel-comparison"}))
    seeds.append(compact([{"id": "root", "component": "Card", "child": "root"},
                          {"id": "a", "component": "Text", "text": {"path": "/x~2"}}]))
    return seeds


def write(target, seeds):
    directory = OUT / target
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    for seed in seeds:
        data = seed.encode("utf-8")
        (directory / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def main():
    verify = json.loads((ROOT / "crates/ag-ui/tests/data/verify_corpus.json").read_text())
    verify_streams = [s["events"] for s in verify["streams"] if s["events"]]
    chunk_streams = [json.loads(l) for l in (ROOT / "interop/chunks/corpus.jsonl").read_text().splitlines() if l.strip()]
    apply_streams = [json.loads(l)["events"] for l in (ROOT / "interop/apply/corpus.jsonl").read_text().splitlines() if l.strip()]

    def lines(stream):
        return "\n".join(compact(e) for e in stream[:40]) + "\n"

    surrogates = "\n".join(SURROGATES) + "\n"
    write("verify", [lines(s) for s in pick(verify_streams, 30)] + [surrogates])
    write("chunks", [lines(s) for s in pick(chunk_streams, 20) + pick(verify_streams, 10)] + [surrogates])
    write("reducer", [lines(s) for s in pick(apply_streams, 25) + pick(chunk_streams, 5)] + [surrogates] + hostile())

    events = [e for s in pick(verify_streams, 60) for e in s]
    seen, singles = set(), []
    for event in events:
        if event.get("type") not in seen:
            seen.add(event.get("type"))
            singles.append(compact(event))
    write("event_from_slice", singles + SURROGATES[2:4])

    def sse(stream, piece):
        return chr(piece) + "".join(f"data: {compact(e)}\n\n" for e in stream[:20])

    write("a2ui", a2ui_seeds())
    write("sse_decoder", [sse(s, i % 16) for i, s in enumerate(pick(verify_streams, 25))]
          + [chr(3) + "".join(f"data: {l}\r\n\r\n" for l in SURROGATES)])


if __name__ == "__main__":
    main()
