//! The GUI server under load: 200 WebSocket clients on 8 games (6 Cubist
//! against Cubist at 100 ms a move, 2 analysis boards with Cubist searching),
//! while `GET /` is timed and the server's memory sampled (README's figure).
//!
//! `cargo build --release && cargo run --release --example gui_load`
//! (`CUBIST` names another binary; `SECONDS`, default 20, `CLIENTS`, default 200).

use cubist::gui::GuiConfig;
use cubist::gui::engine::EngineCmd;
use cubist::gui::server::start;
use serde_json::json;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("send");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("read");
    let status = text.split_whitespace().nth(1).and_then(|w| w.parse().ok()).unwrap_or(0);
    (status, text.split_once("\r\n\r\n").map_or(String::new(), |(_, b)| b.to_string()))
}

/// The server's resident memory in MiB (this process: the server runs in it).
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let seconds = env_or("SECONDS", 20);
    let clients = env_or("CLIENTS", 200) as usize;
    let binary =
        std::env::var("CUBIST").unwrap_or_else(|_| format!("{}/target/release/cubist", env!("CARGO_MANIFEST_DIR")));
    let dir = std::env::temp_dir().join(format!("cubist-gui-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let engines = vec![EngineCmd { name: "cubist".into(), cmd: binary, args: vec!["uci".into()] }];
    let config = GuiConfig {
        max_games: 8,
        max_engines: 16,
        ..GuiConfig::new("127.0.0.1:0".parse().unwrap(), engines, dir.clone())
    };
    let server = start(config).expect("the server starts");
    let addr = server.addr();
    let rss_idle = rss_mib();
    let mut ids = Vec::new();
    for i in 0..8 {
        let game = if i < 6 {
            json!({"variant": "hdc", "white": 0, "black": 0, "limit": {"kind": "movetime", "ms": 100}})
        } else {
            json!({"variant": "hdc"})
        };
        let (status, body) = request(addr, "POST", "/api/games", &game.to_string());
        assert_eq!(status, 200, "{body}");
        let id = serde_json::from_str::<serde_json::Value>(&body).unwrap()["id"].as_u64().unwrap();
        if i >= 6 {
            let on = json!({"type": "analyse", "on": true, "multipv": 2}).to_string();
            assert_eq!(request(addr, "POST", &format!("/api/games/{id}/action"), &on).0, 200);
        }
        ids.push(id);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let messages = Arc::new(AtomicU64::new(0));
    let threads: Vec<_> = (0..clients)
        .map(|i| {
            let url = format!("ws://{addr}/api/games/{}/ws", ids[i % ids.len()]);
            let (stop, messages) = (stop.clone(), messages.clone());
            std::thread::spawn(move || {
                let (mut ws, _) = tungstenite::connect(&url).expect("a client connects");
                if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_mut() {
                    let _ = s.set_read_timeout(Some(Duration::from_millis(250)));
                }
                while !stop.load(Ordering::Relaxed) {
                    if ws.read().is_ok() {
                        messages.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    let mut times = Vec::new();
    let (mut rss_max, mut rss_sum, mut samples) = (0f64, 0f64, 0u32);
    let started = Instant::now();
    let mut next_sample = started;
    while started.elapsed() < Duration::from_secs(seconds) {
        let t = Instant::now();
        assert_eq!(request(addr, "GET", "/", "").0, 200);
        times.push(t.elapsed());
        if Instant::now() >= next_sample {
            let rss = rss_mib();
            rss_max = rss_max.max(rss);
            rss_sum += rss;
            samples += 1;
            next_sample += Duration::from_millis(250);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let mut plies = 0;
    for id in &ids {
        let (_, body) = request(addr, "GET", &format!("/api/games/{id}"), "");
        let state: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        plies += state["moves"].as_array().map_or(0, Vec::len);
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    println!(
        "{clients} WebSocket clients on 8 games for {seconds} s: {} plies played, {} messages pushed",
        plies,
        messages.load(Ordering::Relaxed)
    );
    println!("GET /: {} requests, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms", times.len(), at(0.5), at(0.99), at(1.0));
    println!(
        "server memory (RSS): {rss_idle:.0} MiB idle, {:.0} MiB mean and {rss_max:.0} MiB peak under load",
        rss_sum / f64::from(samples.max(1))
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
