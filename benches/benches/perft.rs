//! Move-generator speed: perft with and without bulk counting, and legal
//! move generation alone, on the hdc start position and one middle game of
//! each variant (taken from the shared perft vectors).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use cubist::core::{MoveList, Position, Variant};
use cubist::perft::{perft, perft_full};
use std::hint::black_box;

/// hdc middle game (tests/data/public.vec line 35; perft(3) = 16,459,909).
const HDC_MIDDLE: &str = "4r3/pppppppp/8/8/1N6/4NP2/PPPPP2P/3R4|b7/ppppp3/8/5ppP/8/8/PPPPPP1P/8|4b3/ppppp2p/8/5p2/8/8/PPPPPPPP/R3B3|1n1q1bnr/p3nkpp/8/1P2pp2/8/4P3/1PPP1P1P/2BQ3R|4d3/2p1p1pp/8/1p1p1p2/8/8/PPPP2PP/4K3|8/p2ppppp/8/1PP5/8/7P/PPPPPPP1/4B3|4n3/p2ppppp/8/1p6/8/7N/P2P1PPP/4N3|8/ppp2ppp/8/3pr3/5P2/4P3/PPPP2PP/6R1 w - g6-II 0 32";
/// haberkorn middle game, 8 layers (tests/data/public.vec line 36; perft(3) = 7,527,225).
const HABERKORN_MIDDLE: &str = "1r6/8/8/8/8/8/8/6R1|8/8/8/8/8/8/8/8|2b2b2/2kppppp/p7/8/8/8/8/8|8/8/8/8/1Pp4q/8/8/R7|5n2/8/8/8/5P2/8/8/5K2|8/8/8/8/3P3P/8/4P3/1NBQ2N1|8/8/8/8/r1P5/8/8/8 b - - 2 15";

fn positions() -> Vec<(&'static str, Position, u64)> {
    vec![
        ("hdc start", Position::start(Variant::hdc()), 14_247_176),
        ("hdc middle", Position::from_fen(HDC_MIDDLE, Variant::hdc()).unwrap(), 16_459_909),
        ("haberkorn middle", Position::from_fen(HABERKORN_MIDDLE, Variant::haberkorn()).unwrap(), 7_527_225),
    ]
}

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft3");
    group.sample_size(10);
    for (name, pos, nodes) in positions() {
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("{name} bulk"), |b| {
            let mut p = pos.clone();
            b.iter(|| assert_eq!(perft(&mut p, black_box(3)), nodes))
        });
        group.bench_function(format!("{name} no bulk"), |b| {
            let mut p = pos.clone();
            b.iter(|| assert_eq!(perft_full(&mut p, black_box(3)), nodes))
        });
    }
    group.finish();
}

fn bench_movegen(c: &mut Criterion) {
    let mut group = c.benchmark_group("movegen");
    for (name, pos, _) in positions() {
        let n = pos.count_legal();
        group.throughput(Throughput::Elements(n));
        group.bench_function(format!("{name} list"), |b| {
            let mut list = MoveList::new();
            b.iter(|| {
                list.clear();
                black_box(&pos).generate(&mut list);
                black_box(list.len())
            })
        });
        group.bench_function(format!("{name} count"), |b| b.iter(|| black_box(&pos).count_legal()));
    }
    group.finish();
}

criterion_group!(benches, bench_perft, bench_movegen);
criterion_main!(benches);
