//! Helpers shared by the GUI tests: a minimal HTTP/1.0 client (enough for the
//! GUI's JSON API and for chromedriver's WebDriver API) and a server started
//! in the test process.

#![allow(dead_code)]

use cubist::core::{Position, Variant};
use cubist::gui::GuiConfig;
use cubist::gui::engine::EngineCmd;
use cubist::gui::server::{Running, start};
use cubist::record::{GameRecord, GameResult, Mark, MoveNote, Termination};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One HTTP/1.1 exchange on a fresh connection: the status code and the body
/// parsed as JSON (`Null` when it is not JSON). The body is read by its
/// `Content-Length` (chromedriver does not close the connection), chunked, or to the end.
pub fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    http_with(addr, method, path, body, "")
}

/// [`http`] with extra header lines (each ending in `\r\n`).
pub fn http_with(addr: SocketAddr, method: &str, path: &str, body: Option<&str>, headers: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let body = body.unwrap_or("");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let (status, _, raw) = read_response(&mut BufReader::new(stream)).unwrap();
    (status, serde_json::from_slice(&raw).unwrap_or(Value::Null))
}

/// One HTTP/1.1 response from `reader`: the status code (0 without a status
/// line), the head (its lines lower-cased) and the body, read by its
/// `Content-Length` (so a connection the server keeps open is not waited
/// out), chunked, or to the end.
pub fn read_response(reader: &mut impl BufRead) -> std::io::Result<(u16, String, Vec<u8>)> {
    let mut head = String::new();
    let (mut length, mut chunked) = (None, false);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        let line = line.to_ascii_lowercase();
        if let Some((name, value)) = line.split_once(':') {
            let (name, value) = (name.trim(), value.trim());
            if name == "content-length" {
                length = value.parse::<usize>().ok();
            } else if name == "transfer-encoding" && value.contains("chunked") {
                chunked = true;
            }
        }
        head.push_str(&line);
    }
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut raw = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk)?;
            raw.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = length {
        raw.resize(n, 0);
        reader.read_exact(&mut raw)?;
    } else {
        reader.read_to_end(&mut raw)?;
    }
    Ok((status, head, raw))
}

/// The `cubist` binary as the GUI's engine.
pub fn cubist_engine() -> EngineCmd {
    EngineCmd { name: "cubist".into(), cmd: env!("CARGO_BIN_EXE_cubist").into(), args: vec!["uci".into()] }
}

/// The fake engine of tests/fakes with these arguments.
pub fn fake_engine(name: &str, args: &[&str]) -> EngineCmd {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/fake_engine.py");
    let mut all = vec![script.display().to_string()];
    all.extend(args.iter().map(|a| a.to_string()));
    EngineCmd { name: name.into(), cmd: "python3".into(), args: all }
}

/// A fresh, empty folder under the target directory for one test's records.
pub fn games_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gui-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The configuration of [`server`]: a free local port, 4 games, 4 engines.
pub fn config(engines: Vec<EngineCmd>, dir: &Path) -> GuiConfig {
    GuiConfig {
        max_games: 4,
        max_engines: 4,
        ..GuiConfig::new("127.0.0.1:0".parse().unwrap(), engines, dir.to_path_buf())
    }
}

/// Starts a server on a free local port.
pub fn server(engines: Vec<EngineCmd>, dir: &Path) -> Running {
    start(config(engines, dir)).expect("server starts")
}

/// Polls `f` until it returns `Some`, or panics with `what` after `secs` seconds.
pub fn wait_for<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A game of `plies` legal hdc moves (picked by a fixed rule) annotated as
/// `cubist analyse` annotates: an `[%eval …]` on every move (a swinging curve,
/// a mate at the end), a mark and a better line on some moves, the summary tags.
pub fn annotated_record(plies: usize) -> GameRecord {
    let variant = Variant::hdc();
    let mut pos = Position::start(variant);
    let (mut moves, mut comments, mut notes) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..plies {
        let legal = pos.legal_moves();
        let m = legal[(i * 7 + 3) % legal.len()].to_string();
        pos.play(&m).unwrap();
        let eval = if i + 1 == plies { "#3".to_string() } else { format!("{:.2}", 4.0 * (i as f64 / 5.0).sin()) };
        comments.push(format!("[%eval {eval}]"));
        let mark =
            [None, None, Some(Mark::Inaccuracy), None, Some(Mark::Mistake), None, None, Some(Mark::Blunder)][i % 8];
        let variation =
            if mark.is_some() { format!("{}... better-{i} {{[%eval 0.50]}}", i / 2 + 1) } else { String::new() };
        notes.push(MoveNote { mark, variation });
        moves.push(m);
    }
    let tags = [
        ("Annotator", "test"),
        ("WhiteAverageLoss", "120"),
        ("BlackAverageLoss", "85"),
        ("WhiteMarks", "1 ?!, 1 ??"),
        ("BlackMarks", "1 ?"),
    ];
    GameRecord {
        event: "annotated".into(),
        site: "test".into(),
        date: "2026.12.04".into(),
        round: "1".into(),
        white: "alpha".into(),
        black: "beta".into(),
        result: GameResult::Unfinished,
        variant,
        fen: variant.start_fen(),
        time_control: "-".into(),
        termination: Termination::Unterminated,
        moves,
        move_comments: comments,
        comment: String::new(),
        notes,
        extra_tags: tags.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    }
}

/// A record as its file has it.
pub fn record_text(r: &GameRecord) -> String {
    let mut out = Vec::new();
    r.write(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}
