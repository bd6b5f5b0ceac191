//! The bench signature: `cubist bench` with its defaults searches exactly
//! `bench::SIGNATURE` nodes. A change that alters it is a functional change
//! (it needs an SPRT, and its commit message ends with `Bench: <nodes>`).

use cubist::bench::{DEFAULT_DEPTH, DEFAULT_HASH_MB, SIGNATURE, run};

#[test]
fn the_default_bench_searches_exactly_the_signature_node_count() {
    let mut out = Vec::new();
    let result = run(DEFAULT_DEPTH, 1, DEFAULT_HASH_MB, &mut out);
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains(&format!("Nodes searched  : {SIGNATURE}")), "{text}");
    assert_eq!(result.nodes, SIGNATURE, "bench signature changed: update bench::SIGNATURE, README and `Bench:`");
}
