use super::*;
use futures::StreamExt;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

#[test]
fn a_tail_replays_then_follows_live_until_the_end() {
    rt().block_on(async {
        let log = MemoryLog::default();
        let mut w = log.open("r").await.unwrap();
        w.append(b"1");
        w.append(b"2");
        w.flush();
        let mut tail = log.read("r", 1).await.unwrap();
        assert_eq!(tail.next().await.unwrap().unwrap().seq, 2);
        let reader = tokio::spawn(async move {
            let mut seen = Vec::new();
            while let Some(entry) = tail.next().await {
                seen.push(entry.unwrap().seq);
            }
            seen
        });
        tokio::task::yield_now().await;
        w.append(b"3");
        w.flush();
        tokio::task::yield_now().await;
        w.append(b"4");
        w.finish();
        assert_eq!(reader.await.unwrap(), vec![3, 4]);
        assert_eq!(
            log.open("r").await.unwrap_err().kind(),
            LogErrorKind::Conflict
        );
        assert_eq!(
            log.read("nope", 0).await.err().unwrap().kind(),
            LogErrorKind::UnknownRun
        );
        assert_eq!(
            log.read("r", 5).await.err().unwrap().kind(),
            LogErrorKind::FutureCursor
        );
    });
}

#[test]
fn byte_caps_drop_the_oldest_events_and_old_cursors_expire() {
    rt().block_on(async {
        let per_event = 10 + ENTRY_OVERHEAD;
        let cap = per_event * 3 + CHUNK_OVERHEAD;
        let log = MemoryLog::new(MemoryLogConfig::default().with_max_run_bytes(cap));
        let mut w = log.open("r").await.unwrap();
        // Stored in one chunk (one flush): the cap still drops event by event.
        for _ in 0..10 {
            w.append(b"0123456789");
        }
        w.flush();
        let stats = log.stats();
        assert_eq!(stats.bytes, cap);
        assert_eq!(
            log.read("r", 6).await.err().unwrap().kind(),
            LogErrorKind::Expired
        );
        let mut tail = log.read("r", 7).await.unwrap();
        assert_eq!(tail.next().await.unwrap().unwrap().seq, 8);
        // Then in chunks of one: the partly dropped chunk goes with its last event, and each
        // chunk's bookkeeping counts: under the same cap one-event chunks keep fewer events.
        for i in 0..5u8 {
            w.append(&[b'a' + i; 10]);
            w.flush();
        }
        assert_eq!(log.stats().bytes, per_event + CHUNK_OVERHEAD);
        assert_eq!(
            log.read("r", 13).await.err().unwrap().kind(),
            LogErrorKind::Expired
        );
        let mut tail = log.read("r", 14).await.unwrap();
        let entry = tail.next().await.unwrap().unwrap();
        assert_eq!((entry.seq, &entry.data[..]), (15, &b"eeeeeeeeee"[..]));
    });
}

/// A full write as a resumable endpoint makes it: `events` frames of 100 bytes in a buffer
/// from `spare_buffer`, with their JSON ranges.
fn full_write(w: &mut Box<dyn RunWriter>, events: usize) -> (Bytes, *const u8) {
    let mut buffer = w.spare_buffer(80 * 1024);
    let mut ranges = Vec::new();
    for _ in 0..events {
        buffer.extend_from_slice(b"id: r:1\ndata: ");
        let start = buffer.len() as u32;
        buffer.extend_from_slice(&[b'7'; 83]);
        ranges.push((start, buffer.len() as u32));
        buffer.extend_from_slice(b"\n\n");
    }
    let at = buffer.as_ptr();
    let bytes = Bytes::from(buffer);
    w.append_shared(&bytes, &ranges);
    (bytes, at)
}

#[test]
fn no_spares_are_kept_until_a_writer_asks_for_one() {
    rt().block_on(async {
        let log = MemoryLog::new(MemoryLogConfig::default().with_retention(Duration::ZERO));
        let mut w = log.open("r").await.unwrap();
        // A full write from elsewhere, and copied appends past 64 KiB in one chunk.
        let frames = Bytes::from(vec![b'1'; 100 * 1024]);
        w.append_shared(&frames, &[(0, 100 * 1024)]);
        drop(frames);
        for _ in 0..100 {
            w.append(&[b'2'; 1000]);
        }
        w.finish();
        let stats = log.stats();
        assert_eq!((stats.runs, stats.spare_bytes), (0, 0));
    });
}

#[test]
fn full_writes_nothing_else_holds_come_back_as_spare_buffers_within_the_caps() {
    rt().block_on(async {
        let log = MemoryLog::new(
            MemoryLogConfig::default()
                .with_max_run_bytes(1 << 20)
                .with_max_total_bytes(4 << 20)
                .with_retention(Duration::ZERO),
        );
        // Run a: one full write (kept), one still held by its socket, one small one.
        let mut a = log.open("a").await.unwrap();
        let (full, full_at) = full_write(&mut a, 700);
        drop(full);
        let (held, _) = full_write(&mut a, 700);
        a.append(b"{}");
        a.flush();
        let stats = log.stats();
        assert_eq!(
            (stats.runs, stats.spare_bytes),
            (1, 0),
            "kept while the run is"
        );
        a.finish();
        // The run is forgotten (retention zero): its unshared full write becomes a spare;
        // the one a socket still holds is left to it, unchanged.
        let stats = log.stats();
        assert_eq!((stats.runs, stats.bytes), (0, 0));
        assert_eq!(stats.spare_bytes, 80 * 1024);
        assert_eq!(&held[14..97], &[b'7'; 83][..]);
        // The next run writes into that memory.
        let mut b = log.open("b").await.unwrap();
        let spare = b.spare_buffer(80 * 1024);
        assert_eq!((spare.as_ptr(), spare.len()), (full_at, 0));
        assert_eq!(log.stats().spare_bytes, 0);
        // Asking for more room than a spare has gives a new buffer.
        drop(spare);
        assert!(b.spare_buffer(1 << 20).capacity() >= 1 << 20);
        // A long run past its cap: its dropped writes become spares for its next ones, so
        // it goes on in the same memory.
        let mut seen = HashSet::new();
        for _ in 0..40 {
            seen.insert(full_write(&mut b, 700).1 as usize);
            b.flush();
            let stats = log.stats();
            assert!(stats.bytes <= (1 << 20) + 70_000, "{stats:?}");
            assert!(stats.bytes + stats.spare_bytes <= 4 << 20, "{stats:?}");
        }
        assert!(seen.len() <= 17, "{} buffers for 40 writes", seen.len());
        // Forgotten, the run leaves at most one run's bytes of spares.
        b.finish();
        let spare = log.stats().spare_bytes;
        assert!((10 * 80 * 1024..=1 << 20).contains(&spare), "{spare}");
        // Events need the room: the spares go first.
        let mut live = Vec::new();
        for run in ["c", "d", "e", "f"] {
            let mut w = log.open(run).await.unwrap();
            for _ in 0..10 {
                for _ in 0..100 {
                    w.append(&[b'1'; 1000]);
                }
                w.flush();
                let stats = log.stats();
                assert!(stats.bytes + stats.spare_bytes <= 4 << 20, "{stats:?}");
            }
            live.push(w);
        }
        let stats = log.stats();
        assert_eq!(stats.runs, 4);
        assert!(stats.spare_bytes < spare, "{stats:?}");
    });
}

#[test]
fn shared_buffers_are_kept_whole_and_read_by_range_in_order_with_copies() {
    rt().block_on(async {
        let log = MemoryLog::default();
        let mut w = log.open("r").await.unwrap();
        assert_eq!(w.append(b"{\"a\":1}"), 1);
        let frames = Bytes::from_static(b"id: r:2\ndata: {\"b\":2}\n\nid: r:3\ndata: {}\n\n");
        assert_eq!(w.append_shared(&frames, &[(14, 21), (37, 39)]), 3);
        assert_eq!(w.append(b"[4]"), 4);
        w.flush();
        // Counted: the copied JSON, and the shared buffer whole (what it holds in memory).
        // Three chunks: the copy before the shared buffer, the shared buffer, the copy after.
        assert_eq!(
            log.stats().bytes,
            7 + frames.len() + 3 + 4 * ENTRY_OVERHEAD + 3 * CHUNK_OVERHEAD
        );
        let mut tail = log.read("r", 0).await.unwrap();
        let mut read = Vec::new();
        for _ in 0..4 {
            let entry = tail.next().await.unwrap().unwrap();
            read.push((entry.seq, String::from_utf8(entry.data.to_vec()).unwrap()));
        }
        assert_eq!(
            read,
            [
                (1, r#"{"a":1}"#.to_owned()),
                (2, r#"{"b":2}"#.to_owned()),
                (3, "{}".to_owned()),
                (4, "[4]".to_owned())
            ]
        );
    });
}

#[test]
fn the_total_cap_forgets_finished_runs_first() {
    rt().block_on(async {
        let per_event = 10 + ENTRY_OVERHEAD;
        let cap = per_event * 4 + 2 * CHUNK_OVERHEAD;
        let log = MemoryLog::new(MemoryLogConfig::default().with_max_total_bytes(cap));
        let mut a = log.open("a").await.unwrap();
        a.append(b"0123456789");
        a.append(b"0123456789");
        a.finish();
        let mut b = log.open("b").await.unwrap();
        for _ in 0..3 {
            b.append(b"0123456789");
            b.flush();
        }
        assert_eq!(log.stats().runs, 1, "a was forgotten to make room");
        assert_eq!(
            log.read("a", 0).await.err().unwrap().kind(),
            LogErrorKind::Expired
        );
        for _ in 0..10 {
            b.append(b"0123456789");
            b.flush();
        }
        assert!(log.stats().bytes <= cap);
    });
}

#[test]
fn finished_runs_expire_after_the_retention() {
    rt().block_on(async {
        let log = MemoryLog::new(MemoryLogConfig::default().with_retention(Duration::ZERO));
        let mut w = log.open("r").await.unwrap();
        w.append(b"{}");
        w.flush();
        let mut live = log.read("r", 0).await.unwrap();
        drop(w); // dropping the writer finishes the run
        assert_eq!(
            log.read("r", 0).await.err().unwrap().kind(),
            LogErrorKind::Expired
        );
        // A reader holding the run learns it went away.
        let error = live.next().await.unwrap().unwrap_err();
        assert_eq!(error.kind(), LogErrorKind::Expired);
        assert!(live.next().await.is_none());
        assert_eq!(
            log.stats(),
            MemoryLogStats {
                runs: 0,
                bytes: 0,
                largest_run_bytes: 0,
                spare_bytes: 0,
            }
        );
    });
}

#[test]
fn the_count_follows_what_is_kept_write_after_write_without_drift() {
    rt().block_on(async {
        // One SSE frame per write, as a paced run's: its framing after the JSON included.
        let frame = |seq: u64| Bytes::from(format!("id: r:{seq}\ndata: {{\"n\":{seq}}}\n\n"));
        let counted = |frame: &Bytes| frame.len() + ENTRY_OVERHEAD + CHUNK_OVERHEAD;
        let first = frame(1);
        // Room for two writes (the frames grow by a digit at 10 and 100: room to spare).
        let cap = 2 * counted(&frame(100)) + 1;
        let log = MemoryLog::new(MemoryLogConfig::default().with_max_run_bytes(cap));
        let mut w = log.open("r").await.unwrap();
        let json = |frame: &Bytes| {
            let start = frame.iter().position(|&b| b == b'{').unwrap() as u32;
            (start, frame.len() as u32 - 2)
        };
        w.append_shared(&first, &[json(&first)]);
        w.flush();
        assert_eq!(log.stats().bytes, counted(&first));
        for seq in 2..=500 {
            let frame = frame(seq);
            w.append_shared(&frame, &[json(&frame)]);
            w.flush();
        }
        // The two newest writes, exactly: every dropped write took its framing and its
        // chunk's bookkeeping with it.
        assert_eq!(
            log.stats().bytes,
            counted(&frame(499)) + counted(&frame(500))
        );
        let mut tail = log.read("r", 498).await.unwrap();
        let entry = tail.next().await.unwrap().unwrap();
        assert_eq!((entry.seq, &entry.data[..]), (499, &b"{\"n\":499}"[..]));
    });
}
