//! The GUI server under abuse and load (loopback only, every loop bounded):
//! records that would kill it, DNS rebinding, links and FIFOs in the games
//! folder, replay amplification, slow clients, a low descriptor limit, a full
//! engine cap, unbounded watchers, records and Hash, the page's headers, and
//! `GET /` latency while games, analysis and WebSocket clients run.

use super::common::{config, cubist_engine, fake_engine, games_dir, http, read_response, wait_for};
use cubist::core::Variant;
use cubist::gui::server::{MAX_PLIES, MAX_WATCHERS, start};
use cubist::record::{GameRecord, GameResult, Termination};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One raw request on a fresh connection, its answer read within `secs`:
/// the status, the head and the body (`None`: no complete answer in time).
fn raw(addr: SocketAddr, request: &str, secs: u64) -> Option<(u16, String, String)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(secs)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(secs))).ok()?;
    stream.write_all(request.as_bytes()).ok()?;
    // By its length: a refused upgrade's connection may be kept open a while.
    let (status, head, body) = read_response(&mut BufReader::new(stream)).ok()?;
    (status != 0).then(|| (status, head, String::from_utf8_lossy(&body).into_owned()))
}

fn get(addr: SocketAddr, path: &str, host: &str, secs: u64) -> Option<(u16, String, String)> {
    raw(addr, &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"), secs)
}

fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, Value) {
    http(addr, "POST", path, Some(body))
}

/// `cubist gui` as a child process (killed on drop), its address read from its first line.
struct GuiProcess {
    child: Child,
    addr: SocketAddr,
    /// Where the process writes its standard error.
    stderr: PathBuf,
}

impl GuiProcess {
    /// Starts `cubist gui --port 0 --games-dir DIR ARGS…`, under `ulimit -n` when given,
    /// its standard error into `DIR.stderr`.
    fn start(dir: &Path, args: &[&str], descriptors: Option<u32>) -> GuiProcess {
        let limit = descriptors.map_or(String::new(), |n| format!("ulimit -n {n}; "));
        let stderr = dir.with_extension("stderr");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("{limit}exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_cubist"))
            .args(["gui", "--port", "0", "--games-dir"])
            .arg(dir)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        GuiProcess { child, addr, stderr }
    }

    /// Whether the process still runs and nothing in it panicked: the release
    /// profile unwinds, so a panic in a request's task would not end the
    /// process, only print its message.
    fn alive(&mut self) -> bool {
        let log = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        assert!(!log.contains("panicked"), "the server panicked:\n{log}");
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for GuiProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A GUI record's text.
fn record(white: &str, black: &str, time_control: &str, comment: &str, moves: &[String]) -> String {
    let variant = Variant::hdc();
    let r = GameRecord {
        event: "Cubist GUI".into(),
        site: "Cubist GUI".into(),
        date: "2026.01.01".into(),
        round: "1".into(),
        white: white.into(),
        black: black.into(),
        result: GameResult::Unfinished,
        variant,
        fen: variant.start_fen(),
        time_control: time_control.into(),
        termination: Termination::Unterminated,
        moves: moves.to_vec(),
        move_comments: Vec::new(),
        notes: Vec::new(),
        extra_tags: Vec::new(),
        comment: comment.into(),
    };
    let mut out = Vec::new();
    r.write(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// `plies` knight moves out and back on layer IV.
fn knight_dance(plies: usize) -> Vec<String> {
    let cycle = ["g1-IVf3-IV", "g8-IVf6-IV", "f3-IVg1-IV", "f6-IVg8-IV"];
    (0..plies).map(|i| cycle[i % 4].to_string()).collect()
}

/// A record with absurd limits (an engine to move) is refused on resume as a
/// new game with those limits would be, and the process lives on without a
/// panic.
#[test]
fn a_record_with_absurd_limits_is_refused_and_the_server_lives() {
    let dir = games_dir("abuse-limits");
    let cases = [
        ("18446744073709551615+0", ""),
        ("depth=4294967295", ""),
        ("st=1e300", ""),
        ("0+0", ""),
        ("60+0", "clocks 18446744073709551615 5"),
        ("banana", ""),
    ];
    for (i, (tc, comment)) in cases.iter().enumerate() {
        std::fs::write(dir.join(format!("gui-1-{i}.pgn")), record("cubist", "Human", tc, comment, &[])).unwrap();
    }
    let mut gui = GuiProcess::start(&dir, &[], None);
    for (i, (tc, _)) in cases.iter().enumerate() {
        for _ in 0..2 {
            let (status, err) = post(gui.addr, "/api/resume", &json!({"file": format!("gui-1-{i}.pgn")}).to_string());
            assert_eq!(status, 400, "{tc}: {err}");
            std::thread::sleep(Duration::from_millis(100));
            assert!(gui.alive(), "the server died resuming TimeControl {tc}");
        }
    }
    let (status, _) = http(gui.addr, "GET", "/api/config", None);
    assert_eq!(status, 200);
    // A sound record still resumes and its engine plays.
    std::fs::write(dir.join("gui-2-1.pgn"), record("cubist", "Human", "st=0.05", "", &[])).unwrap();
    let (status, s) = post(gui.addr, "/api/resume", &json!({"file": "gui-2-1.pgn"}).to_string());
    assert_eq!(status, 200, "{s}");
    let id = s["id"].as_u64().unwrap();
    wait_for(30, "the engine's move", || {
        Some(http(gui.addr, "GET", &format!("/api/games/{id}"), None).1)
            .filter(|s| s["moves"].as_array().is_some_and(|m| m.len() == 1))
    });
    assert!(gui.alive());
}

/// DNS rebinding: a request naming another host is refused (with that host's
/// own `Origin` too), WebSocket upgrades included; the loopback names are answered.
#[test]
fn only_this_servers_host_names_are_answered() {
    let dir = games_dir("abuse-host");
    let srv = start(config(vec![cubist_engine()], &dir)).unwrap();
    let addr = srv.addr();
    let port = addr.port();
    let (_, game) = post(addr, "/api/games", &json!({"variant": "hdc"}).to_string());
    let id = game["id"].as_u64().unwrap();
    let evil = format!("evil.example:{port}");
    let origin = format!("Origin: http://{evil}\r\n");
    let new_game = json!({"variant": "hdc"}).to_string();
    let requests = [
        format!("GET /api/games HTTP/1.1\r\nHost: {evil}\r\n{origin}Connection: close\r\n\r\n"),
        format!(
            "POST /api/games HTTP/1.1\r\nHost: {evil}\r\n{origin}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{new_game}",
            new_game.len()
        ),
        format!(
            "GET /api/games/{id}/ws HTTP/1.1\r\nHost: {evil}\r\n{origin}Connection: Upgrade\r\nUpgrade: websocket\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        ),
        format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n", port.wrapping_add(1)),
        "GET / HTTP/1.1\r\nConnection: close\r\n\r\n".to_string(),
    ];
    for request in &requests {
        let (status, _, body) = raw(addr, request, 10).expect("an answer");
        assert_eq!(status, 403, "{request} → {body}");
    }
    let (_, list) = http(addr, "GET", "/api/games", None);
    assert_eq!(list["live"].as_array().unwrap().len(), 1, "{list}");
    for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")] {
        let (status, _, body) = get(addr, "/api/config", &host, 10).expect("an answer");
        assert_eq!(status, 200, "{host} → {body}");
    }
}

/// Links to files outside the folder are neither read nor replayed nor
/// written through, FIFOs are never waited on, and what they hold never shows.
#[cfg(unix)]
#[test]
fn links_and_fifos_in_the_games_folder_are_refused() {
    use std::os::unix::fs::symlink;
    let dir = games_dir("abuse-links");
    let outside = games_dir("abuse-links-outside");
    let secret = outside.join("passwd");
    std::fs::write(&secret, "root:x:0:0:secret-line\n").unwrap();
    let foreign = outside.join("foreign.pgn");
    std::fs::write(&foreign, record("Human", "Human", "st=1", "", &knight_dance(2))).unwrap();
    let victim = outside.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    symlink(&secret, dir.join("passwd.pgn")).unwrap();
    symlink(&secret, dir.join("gui-1-1.pgn")).unwrap();
    symlink(&foreign, dir.join("gui-1-2.pgn")).unwrap();
    for fifo in ["gui-1-3.pgn", "fifo.pgn"] {
        assert!(Command::new("mkfifo").arg(dir.join(fifo)).status().unwrap().success());
    }
    let srv = start(config(vec![cubist_engine()], &dir)).unwrap();
    let addr = srv.addr();
    let host = addr.to_string();
    for file in ["passwd.pgn", "gui-1-1.pgn", "gui-1-2.pgn", "gui-1-3.pgn", "fifo.pgn"] {
        let (status, _, body) = get(addr, &format!("/api/records/{file}"), &host, 10).expect("an answer in time");
        assert_eq!(status, 400, "{file} → {body}");
        assert!(!body.contains("secret") && !body.contains("root"), "{file} → {body}");
        let (status, err) = post(addr, "/api/resume", &json!({"file": file}).to_string());
        assert_eq!(status, 400, "{file} → {err}");
        assert!(!err.to_string().contains("secret"), "{file} → {err}");
    }
    // Two listings at once (each would open every gui-*.pgn) answer, and the page still loads.
    let listings: Vec<_> =
        (0..2).map(|_| std::thread::spawn(move || get(addr, "/api/games", &addr.to_string(), 5))).collect();
    for l in listings {
        let (status, _, body) = l.join().unwrap().expect("GET /api/games answers in time");
        assert_eq!(status, 200);
        assert!(body.contains("\"unfinished\":[]"), "{body}");
    }
    assert_eq!(get(addr, "/", &host, 5).map(|r| r.0), Some(200));
    let (_, records) = http(addr, "GET", "/api/records", None);
    assert_eq!(records["records"], json!([]), "{records}");
    // Links planted at every temporary name the next games could use write nothing through.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    for secs in now - 1..now + 10 {
        for id in 1..=3 {
            symlink(&victim, dir.join(format!("gui-{secs}-{id}.pgn.tmp"))).unwrap();
        }
    }
    for _ in 0..2 {
        let (status, game) = post(addr, "/api/games", &json!({"variant": "hdc"}).to_string());
        assert_eq!(status, 200, "{game}");
        let file = dir.join(game["record"].as_str().unwrap());
        assert!(std::fs::symlink_metadata(&file).unwrap().is_file());
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

/// A record past the ply cap is refused for replay; one under it gets an
/// answer proportionate to its plies.
#[test]
fn a_replay_past_the_ply_cap_is_refused_and_answers_stay_proportionate() {
    let dir = games_dir("abuse-replay");
    let srv = start(config(vec![], &dir)).unwrap();
    let addr = srv.addr();
    let long = record("Human", "Human", "st=1", "", &knight_dance(MAX_PLIES + 2));
    let (status, err) = post(addr, "/api/replay", &long);
    assert_eq!(status, 400, "{err}");
    assert!(err["error"].as_str().unwrap().contains(&format!("at most {MAX_PLIES}")), "{err}");
    std::fs::write(dir.join("gui-1-1.pgn"), &long).unwrap();
    let (status, err) = post(addr, "/api/resume", &json!({"file": "gui-1-1.pgn"}).to_string());
    assert_eq!(status, 400, "{err}");
    let plies = 1000;
    let text = record("Human", "Human", "st=1", "", &knight_dance(plies));
    let request = format!(
        "POST /api/replay HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    let (status, _, body) = raw(addr, &request, 30).unwrap();
    assert_eq!(status, 200);
    assert!(body.len() < 500 * plies, "{} bytes for {plies} plies", body.len());
}

/// Idle sockets, partial heads and partial bodies are closed after the
/// request timeout; a connection over the cap is closed at once.
#[test]
fn slow_clients_time_out_and_connections_are_capped() {
    let dir = games_dir("abuse-slow");
    let mut cfg = config(vec![], &dir);
    cfg.request_timeout = Duration::from_secs(1);
    cfg.max_connections = 24;
    let srv = start(cfg).unwrap();
    let addr = srv.addr();
    let mut sockets = Vec::new();
    for i in 0..24 {
        let mut s = TcpStream::connect(addr).unwrap();
        match i % 3 {
            0 => {}
            1 => s.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\n").as_bytes()).unwrap(),
            _ => s
                .write_all(
                    format!("POST /api/replay HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 100\r\n\r\n[Ev").as_bytes(),
                )
                .unwrap(),
        }
        sockets.push(s);
    }
    std::thread::sleep(Duration::from_millis(200));
    // The cap is full: one more is closed at once.
    let mut over = TcpStream::connect(addr).unwrap();
    over.set_read_timeout(Some(Duration::from_millis(900))).unwrap();
    let _ = over.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes());
    let mut buf = [0u8; 256];
    let closed = matches!(over.read(&mut buf), Ok(0)) || matches!(over.read(&mut buf), Ok(0) | Err(_));
    assert!(closed, "a connection over the cap was kept");
    // Every slow one is answered (408) or closed after the timeout.
    let since = Instant::now();
    for (i, s) in sockets.iter_mut().enumerate() {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut all = Vec::new();
        let end = s.read_to_end(&mut all);
        assert!(
            end.is_ok()
                || !matches!(
                    end.as_ref().unwrap_err().kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ),
            "socket {i} still open after {:?}",
            since.elapsed()
        );
        if i % 3 == 2 && !all.is_empty() {
            assert!(String::from_utf8_lossy(&all).starts_with("HTTP/1.1 408"), "{}", String::from_utf8_lossy(&all));
        }
    }
    assert!(since.elapsed() < Duration::from_secs(4), "{:?}", since.elapsed());
    assert_eq!(get(addr, "/", &addr.to_string(), 5).map(|r| r.0), Some(200));
}

/// Under `ulimit -n 256`, 300 idle sockets leave room for an engine: once
/// they time out, a new engine game plays instead of ending as a crash.
#[test]
fn a_low_descriptor_limit_leaves_room_for_engines() {
    let dir = games_dir("abuse-descriptors");
    let mut gui = GuiProcess::start(&dir, &["--request-timeout", "2"], Some(256));
    let sockets: Vec<TcpStream> =
        (0..300).filter_map(|_| TcpStream::connect_timeout(&gui.addr, Duration::from_secs(1)).ok()).collect();
    let game = json!({"variant": "hdc", "white": 0, "limit": {"kind": "depth", "depth": 1}}).to_string();
    let (status, s) = wait_for(20, "the server to take requests again", || {
        let r = raw(
            gui.addr,
            &format!(
                "POST /api/games HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{game}",
                gui.addr,
                game.len()
            ),
            5,
        )?;
        Some((r.0, serde_json::from_str::<Value>(&r.2).ok()?))
    });
    assert_eq!(status, 200, "{s}");
    let id = s["id"].as_u64().unwrap();
    let end = wait_for(30, "the engine's move", || {
        Some(http(gui.addr, "GET", &format!("/api/games/{id}"), None).1)
            .filter(|s| s["over"] == true || s["moves"].as_array().is_some_and(|m| !m.is_empty()))
    });
    assert_eq!(end["over"], false, "{end}");
    // Every idle socket was closed by the server.
    for mut s in sockets {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = [0u8; 16];
        assert!(!matches!(s.read(&mut buf), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock));
    }
    assert!(gui.alive());
}

/// With the engine cap full, a human's move against an engine waits for a
/// place (the page is told) instead of losing the game as a crash.
#[test]
fn a_full_engine_cap_makes_the_engine_wait_instead_of_losing() {
    let dir = games_dir("abuse-engine-cap");
    let mut cfg = config(vec![fake_engine("fake", &[])], &dir);
    cfg.max_engines = 1;
    let srv = start(cfg).unwrap();
    let addr = srv.addr();
    let state = |id: u64| http(addr, "GET", &format!("/api/games/{id}"), None).1;
    let plies = |s: &Value| s["moves"].as_array().map_or(0, Vec::len);
    let mut ids = Vec::new();
    for _ in 0..2 {
        let (_, g) = post(
            addr,
            "/api/games",
            &json!({"variant": "hdc", "black": 0, "limit": {"kind": "movetime", "ms": 50}}).to_string(),
        );
        ids.push(g["id"].as_u64().unwrap());
    }
    let action = |id: u64, a: Value| post(addr, &format!("/api/games/{id}/action"), &a.to_string());
    assert_eq!(action(ids[0], json!({"type": "move", "move": "a2-Ia3-I"})).0, 200);
    wait_for(30, "the first engine's move", || Some(state(ids[0])).filter(|s| plies(s) == 2));
    assert_eq!(action(ids[1], json!({"type": "move", "move": "a2-Ia3-I"})).0, 200);
    let waiting = wait_for(30, "the wait report", || {
        Some(state(ids[1])).filter(|s| s["error"].as_str().is_some_and(|e| e.contains("waits for a place")))
    });
    assert_eq!(waiting["over"], false, "{waiting}");
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(state(ids[1])["over"], false);
    // The first game is adjourned: its engine quits and the second one's plays.
    assert_eq!(action(ids[0], json!({"type": "close"})).0, 200);
    let moved = wait_for(30, "the second engine's move", || Some(state(ids[1])).filter(|s| plies(s) == 2));
    assert_eq!((moved["over"].as_bool(), moved["error"].as_str()), (Some(false), None), "{moved}");
}

/// Watchers per game, records on disk and Hash are bounded; the page may not be framed.
#[test]
fn watchers_records_and_hash_are_bounded_and_the_page_unframed() {
    let dir = games_dir("abuse-bounds");
    let mut cfg = config(vec![], &dir);
    cfg.max_records = 3;
    cfg.max_hash = 64;
    let srv = start(cfg).unwrap();
    let addr = srv.addr();
    let (_, g) = post(addr, "/api/games", &json!({"variant": "hdc"}).to_string());
    let id = g["id"].as_u64().unwrap();
    let url = format!("ws://{addr}/api/games/{id}/ws");
    let watchers: Vec<_> =
        (0..MAX_WATCHERS).map(|i| tungstenite::connect(&url).unwrap_or_else(|e| panic!("{i}: {e}"))).collect();
    match tungstenite::connect(&url) {
        Err(tungstenite::Error::Http(response)) => assert_eq!(response.status().as_u16(), 429),
        other => panic!("watcher {} was not refused: {:?}", MAX_WATCHERS + 1, other.map(|_| ())),
    }
    drop(watchers);
    // Records: three in the folder, a fourth game is refused with the reason.
    for _ in 0..2 {
        let (status, g) = post(addr, "/api/games", &json!({"variant": "hdc"}).to_string());
        assert_eq!(status, 200, "{g}");
        let gid = g["id"].as_u64().unwrap();
        assert_eq!(post(addr, &format!("/api/games/{gid}/action"), &json!({"type": "resign"}).to_string()).0, 200);
    }
    let (status, err) = post(addr, "/api/games", &json!({"variant": "hdc"}).to_string());
    assert_eq!(status, 429, "{err}");
    assert!(err["error"].as_str().unwrap().contains("--max-records"), "{err}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3);
    // Hash: more than all engines may hold together is refused.
    let options = json!({"threads": 1, "hash": 128, "strategy": "search"});
    let (status, err) = post(addr, "/api/games", &json!({"variant": "hdc", "options": options}).to_string());
    assert_eq!(status, 400, "{err}");
    assert!(err["error"].as_str().unwrap().contains("--max-hash"), "{err}");
    // The page: no framing, its own script and style only.
    let (status, head, _) = get(addr, "/", &addr.to_string(), 10).unwrap();
    assert_eq!(status, 200);
    assert!(head.contains("x-frame-options: deny"), "{head}");
    assert!(head.contains("content-security-policy:") && head.contains("frame-ancestors 'none'"), "{head}");
}

/// Load: WebSocket clients on games with engines moving and an analysis
/// running; `GET /` stays quick throughout (the full figure for README is
/// `cargo run --release --example gui_load`).
#[test]
fn get_stays_quick_under_websocket_clients_moves_and_analysis() {
    let dir = games_dir("abuse-load");
    let mut cfg = config(vec![cubist_engine(), fake_engine("fake", &[])], &dir);
    cfg.max_engines = 8;
    let srv = start(cfg).unwrap();
    let addr = srv.addr();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let g = json!({"variant": "hdc", "white": 1, "black": 1, "limit": {"kind": "movetime", "ms": 20}});
        ids.push(post(addr, "/api/games", &g.to_string()).1["id"].as_u64().unwrap());
    }
    let (_, g) = post(addr, "/api/games", &json!({"variant": "hdc"}).to_string());
    let board = g["id"].as_u64().unwrap();
    let (status, a) =
        post(addr, &format!("/api/games/{board}/action"), &json!({"type": "analyse", "on": true}).to_string());
    assert_eq!(status, 200, "{a}");
    ids.push(board);
    for &id in &ids[..3] {
        wait_for(60, "the engines' first moves", || {
            Some(http(addr, "GET", &format!("/api/games/{id}"), None).1)
                .filter(|s| s["moves"].as_array().is_some_and(|m| m.len() >= 2))
        });
    }
    let before: Vec<usize> = ids[..3]
        .iter()
        .map(|id| http(addr, "GET", &format!("/api/games/{id}"), None).1["moves"].as_array().map_or(0, Vec::len))
        .collect();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..40)
        .map(|i| {
            let url = format!("ws://{addr}/api/games/{}/ws", ids[i % ids.len()]);
            let stop = stop.clone();
            std::thread::spawn(move || {
                let (mut ws, _) = tungstenite::connect(&url).expect("a watcher connects");
                if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_mut() {
                    s.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
                }
                let mut messages = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    if ws.read().is_ok() {
                        messages += 1;
                    }
                }
                messages
            })
        })
        .collect();
    let mut times = Vec::new();
    let until = Instant::now() + Duration::from_secs(4);
    while Instant::now() < until {
        let t = Instant::now();
        assert_eq!(get(addr, "/", &addr.to_string(), 10).map(|r| r.0), Some(200));
        times.push(t.elapsed());
        std::thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let heard: Vec<u64> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    assert!(heard.iter().all(|&n| n > 0), "a watcher heard nothing: {heard:?}");
    times.sort();
    let p = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    eprintln!("GET / under load: {} requests, p50 {:?}, p99 {:?}", times.len(), p(0.5), p(0.99));
    assert!(p(0.99) < Duration::from_secs(1), "p50 {:?}, p99 {:?}", p(0.5), p(0.99));
    // The games went on meanwhile (or ended).
    for (id, n) in ids[..3].iter().zip(before) {
        let s = http(addr, "GET", &format!("/api/games/{id}"), None).1;
        assert!(s["over"] == true || s["moves"].as_array().is_some_and(|m| m.len() > n), "{s}");
    }
}
