//! The bench signature: `cubist bench` with its defaults searches exactly
//! `bench::SIGNATURE` nodes. A change that alters it is a functional change
//! (it needs an SPRT, and its commit message ends with `Bench: <nodes>`).

use cubist::bench::{DEFAULT_DEPTH, DEFAULT_HASH_MB, SIGNATURE, run};

use crate::common::CUBIST;

#[test]
fn the_default_bench_searches_exactly_the_signature_node_count() {
    let mut out = Vec::new();
    let result = run(DEFAULT_DEPTH, 1, DEFAULT_HASH_MB, &mut out);
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains(&format!("Nodes searched  : {SIGNATURE}")), "{text}");
    assert_eq!(result.nodes, SIGNATURE, "bench signature changed: update bench::SIGNATURE, README and `Bench:`");
}

/// Stockfish's order: `cubist bench 16 1 6` is 16 MiB, one thread, depth 6,
/// the same search as `hash=16 threads=1 depth=6` (and a lone number is the hash).
#[test]
fn bench_numbers_come_in_stockfish_order_hash_threads_depth() {
    let bench = |args: &[&str]| {
        let out = std::process::Command::new(CUBIST).arg("bench").args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let nodes = |text: &str| text.lines().find_map(|l| l.strip_prefix("Nodes searched  : ")).map(str::to_string);
    let positional = bench(&["16", "1", "6"]);
    assert_eq!(positional.lines().next(), Some("Bench: hash 16 MiB, 1 thread, depth 6"), "{positional}");
    let expected = run(6, 1, 16, &mut std::io::sink()).nodes.to_string();
    assert_eq!(nodes(&positional).as_deref(), Some(expected.as_str()), "{positional}");
    let named = bench(&["depth=6", "threads=1", "hash=16"]);
    assert_eq!(named.lines().next(), positional.lines().next());
    assert_eq!(nodes(&named), nodes(&positional));
    let lone = bench(&["2", "threads=1", "depth=1"]);
    assert_eq!(lone.lines().next(), Some("Bench: hash 2 MiB, 1 thread, depth 1"), "{lone}");
}
