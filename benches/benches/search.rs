//! Criterion benchmarks of the search's hot parts: the evaluation and a
//! fixed-depth search of one bench position per variant.

use criterion::{Criterion, criterion_group, criterion_main};
use cubist::bench::POSITIONS;
use cubist::eval;
use cubist::search::{Engine, Limits, Settings};
use std::hint::black_box;

fn evaluation(c: &mut Criterion) {
    for i in [0, 2, 7] {
        let pos = POSITIONS[i].position().expect("bench FEN");
        c.bench_function(&format!("eval {}", POSITIONS[i].name), |b| b.iter(|| eval::evaluate(black_box(&pos))));
    }
}

fn fixed_depth(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for (i, depth) in [(2, 5), (7, 6)] {
        let pos = POSITIONS[i].position().expect("bench FEN");
        group.bench_function(format!("depth {depth} {}", POSITIONS[i].name), |b| {
            b.iter(|| {
                let mut engine = Engine::new(Settings { hash_mb: 16, ..Settings::default() });
                engine.go(&pos, Limits { depth: Some(depth), ..Limits::default() }, Box::new(|_| {}));
                engine.wait();
                engine.nodes()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, evaluation, fixed_depth);
criterion_main!(benches);
