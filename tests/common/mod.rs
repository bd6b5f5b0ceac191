//! Helpers shared by the GUI tests: a minimal HTTP/1.0 client (enough for the
//! GUI's JSON API and for chromedriver's WebDriver API) and a server started
//! in the test process.

#![allow(dead_code)]

use cubist::gui::GuiConfig;
use cubist::gui::engine::EngineCmd;
use cubist::gui::server::{Running, start};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One HTTP exchange: the status code and the body parsed as JSON (`Null` when it is not JSON).
pub fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let body = body.unwrap_or("");
    let request = format!(
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
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

/// Starts a server on a free local port.
pub fn server(engines: Vec<EngineCmd>, dir: &Path) -> Running {
    start(GuiConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        engines,
        games_dir: dir.to_path_buf(),
        max_games: 4,
        max_engines: 4,
    })
    .expect("server starts")
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
