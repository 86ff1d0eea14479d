//! Load report for the axum endpoint: RUNS concurrent streaming runs of EVENTS events each on
//! loopback, every stream checked complete and in order; prints throughput and peak memory.
//! Run it at two sizes to see that memory follows the runs in flight, not the events per run.
//!
//! Run with: `cargo run --release -p ag-ui --features axum --example load -- [RUNS] [EVENTS]`

#[path = "../tests/support/load.rs"]
mod load;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().expect("a number"));
    let runs = args.next().unwrap_or(200);
    let events = args.next().unwrap_or(10_000);
    let url = load::serve(events).await;
    let start = std::time::Instant::now();
    let total = load::load(&url, runs, events).await;
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{runs} runs x {events} events: {total} events in {seconds:.2} s ({:.0} events/s), peak RSS {} KiB",
        total as f64 / seconds,
        load::peak_rss_kib().map_or("?".to_owned(), |k| k.to_string()),
    );
}
