use cubist::search::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let idx: usize = args[1].parse().unwrap();
    let depth: u32 = args[2].parse().unwrap();
    let nodes: u64 = args.get(3).map_or(u64::MAX, |s| s.parse().unwrap());
    let pos = cubist::bench::POSITIONS[idx].position().unwrap();
    let mut e = Engine::new(Settings::default());
    e.go(
        &pos,
        Limits { depth: Some(depth), nodes: Some(nodes), ..Limits::default() },
        Box::new(|r| eprintln!("{r:?}")),
    );
    e.wait();
    eprintln!("nodes {}", e.nodes());
}
