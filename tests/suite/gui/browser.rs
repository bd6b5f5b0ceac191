//! The GUI in a real browser: headless Chromium driven through chromedriver's
//! WebDriver API. It starts a game from the page's form, selects a piece by
//! clicking, checks the highlighted targets against the rules library, moves
//! by clicking, waits for the engine's reply on the board, checks every
//! square against the rules library, and saves a screenshot. Then it
//! replays the game, has it analysed with the Analyse button, opens an
//! annotated record (the evaluation graph, the marks, clicking the graph,
//! the arrow keys) and saves a second screenshot (`GUI_SCREENSHOT_ANALYSIS`,
//! default `target/gui-analysis.png`).
//!
//! Needs `chromium` and `chromedriver` (Debian: `chromium chromium-driver`),
//! so it is ignored by default; run it with
//! `cargo test --release --test suite -- --ignored gui::`. `CHROMEDRIVER` and
//! `CHROMIUM` name other programs; the screenshot goes to `GUI_SCREENSHOT`
//! (default `target/gui-browser.png`).

use super::common::{annotated_record, cubist_engine, games_dir, http, record_text, server, wait_for};
use base64::Engine as _;
use cubist::core::notation::parse_move_text;
use cubist::core::{Position, Square, Variant};
use serde_json::{Value, json};
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};

/// chromedriver as a child process, killed on drop.
struct Driver {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One WebDriver session.
struct Browser {
    driver: Driver,
    session: String,
}

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Browser {
    fn start() -> Browser {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let program = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
        let child = Command::new(&program)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program} (install chromium-driver): {e}"));
        let driver = Driver { child, addr: SocketAddr::from(([127, 0, 0, 1], port)) };
        wait_for(30, "chromedriver", || {
            std::net::TcpStream::connect(driver.addr).ok()?;
            (http(driver.addr, "GET", "/status", None).1["value"]["ready"] == true).then_some(())
        });
        let binary = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": binary,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"]
        }}}});
        let (status, v) = http(driver.addr, "POST", "/session", Some(&caps.to_string()));
        assert_eq!(status, 200, "new session: {v}");
        let session = v["value"]["sessionId"].as_str().expect("session id").to_string();
        Browser { driver, session }
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let body = (method == "POST").then(|| body.to_string());
        let (status, v) = http(self.driver.addr, method, &format!("/session/{}{path}", self.session), body.as_deref());
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    fn goto(&self, url: &str) {
        self.call("POST", "/url", json!({"url": url}));
    }

    fn find(&self, css: &str) -> String {
        let v = self.call("POST", "/element", json!({"using": "css selector", "value": css}));
        v[ELEMENT].as_str().unwrap_or_else(|| panic!("no element {css}")).to_string()
    }

    fn click(&self, css: &str) {
        let id = self.find(css);
        self.call("POST", &format!("/element/{id}/click"), json!({}));
    }

    fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.call("POST", &format!("/element/{id}/clear"), json!({}));
        self.call("POST", &format!("/element/{id}/value"), json!({"text": text}));
    }

    fn script(&self, js: &str) -> Value {
        self.call("POST", "/execute/sync", json!({"script": js, "args": []}))
    }

    fn screenshot(&self) -> Vec<u8> {
        let v = self.call("GET", "/screenshot", Value::Null);
        base64::engine::general_purpose::STANDARD.decode(v.as_str().unwrap()).unwrap()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(self.driver.addr, "DELETE", &format!("/session/{}", self.session), None);
    }
}

/// Every piece on the page's boards: square → FEN letter.
fn page_pieces(b: &Browser) -> Vec<(String, String)> {
    let v =
        b.script("return [...document.querySelectorAll('.sq[data-piece]')].map(e => [e.dataset.sq, e.dataset.piece]);");
    let mut out: Vec<(String, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
        .collect();
    out.sort();
    out
}

/// Every piece of a position: square → FEN letter.
fn position_pieces(pos: &Position) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for i in 0..512 {
        if let Some(sq) = Square::from_index(i)
            && sq.layer() < pos.variant().layers
            && let Some(p) = pos.piece_at(sq)
        {
            out.push((sq.to_string(), p.letter().to_string()));
        }
    }
    out.sort();
    out
}

fn strings(v: Value) -> Vec<String> {
    let mut out: Vec<String> = v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
    out.sort();
    out
}

#[test]
#[ignore = "needs chromium and chromedriver; CI runs it with --ignored"]
fn play_a_move_against_the_engine_in_chromium() {
    let dir = games_dir("browser");
    let srv = server(vec![cubist_engine()], &dir);
    let browser = Browser::start();
    browser.goto(&format!("http://{}/", srv.addr()));
    wait_for(30, "the page's engine list", || {
        (browser.script("return document.querySelectorAll('select[name=engine1] option').length;") == json!(1))
            .then_some(())
    });
    // A game against Cubist, White for the human, hdc, 0.3 s per move.
    browser.type_into("input[name=movetime]", "0.3");
    browser.click("#start");
    wait_for(30, "the game", || {
        let status = browser.script("return document.getElementById('status').textContent;");
        status.as_str().is_some_and(|s| s.starts_with("White to move")).then_some(())
    });
    assert_eq!(browser.script("return document.querySelectorAll('#boards .layer').length;"), json!(8));
    let mut pos = Position::start(Variant::hdc());
    assert_eq!(page_pieces(&browser), position_pieces(&pos));
    // The knight on g1-IV: its targets, on several layers, as the rules have them.
    browser.click("[data-sq='g1-IV']");
    let from = Square::parse("g1-IV", 8).unwrap();
    let mut expected: Vec<String> =
        pos.legal_moves().into_iter().filter(|m| m.from() == from).map(|m| m.to().to_string()).collect();
    expected.sort();
    let layers: std::collections::BTreeSet<&str> = expected.iter().map(|s| s.split('-').nth(1).unwrap()).collect();
    assert!(layers.len() >= 3, "the knight reaches {layers:?}");
    let shown = wait_for(30, "the highlighted targets", || {
        let t = strings(browser.script("return [...document.querySelectorAll('.sq.target')].map(e => e.dataset.sq);"));
        (!t.is_empty()).then_some(t)
    });
    assert_eq!(shown, expected);
    assert!(
        browser.script("return document.querySelector(\"[data-sq='g1-IV']\").classList.contains('sel');")
            == json!(true)
    );
    // Move to f3-IV by clicking, and wait for the engine's reply on the board.
    browser.click("[data-sq='f3-IV']");
    pos.play("g1-IVf3-IV").unwrap();
    let moves = wait_for(60, "the engine's reply in the move list", || {
        let m =
            strings(browser.script("return [...document.querySelectorAll('#moves .mv')].map(e => e.dataset.move);"));
        (m.len() == 2).then_some(m)
    });
    assert!(moves.contains(&"g1-IVf3-IV".to_string()), "{moves:?}");
    let reply = moves.iter().find(|m| *m != "g1-IVf3-IV").unwrap().clone();
    pos.play(&reply).unwrap_or_else(|e| panic!("the engine's reply {reply} is not legal: {e}"));
    wait_for(30, "the board after the reply", || (page_pieces(&browser) == position_pieces(&pos)).then_some(()));
    let last = strings(browser.script("return [...document.querySelectorAll('.sq.last')].map(e => e.dataset.sq);"));
    let (rf, rt, _) = parse_move_text(&reply, 8).unwrap();
    let mut reply_squares = vec![rf.to_string(), rt.to_string()];
    reply_squares.sort();
    assert_eq!(last, reply_squares);
    // The engine panel shows the search that chose the reply.
    let rows = browser.script("return document.querySelectorAll('#infos tbody tr').length;");
    assert!(rows.as_u64().unwrap_or(0) >= 1, "engine panel empty");
    let status = browser.script("return document.getElementById('status').textContent;");
    assert!(status.as_str().unwrap().starts_with("White to move"), "{status}");
    let png = browser.screenshot();
    assert_eq!(&png[1..4], b"PNG");
    let out = std::env::var("GUI_SCREENSHOT")
        .unwrap_or_else(|_| format!("{}/../gui-browser.png", env!("CARGO_TARGET_TMPDIR")));
    std::fs::write(&out, png).unwrap();
    eprintln!("screenshot: {out}");

    // Replay this game's record from the games folder and step through it.
    browser.click("#replaybox summary");
    browser.click("#records option");
    browser.click("#open-record");
    let status = |b: &Browser| b.script("return document.getElementById('status').textContent;");
    wait_for(30, "the replay", || {
        status(&browser).as_str().is_some_and(|s| s.starts_with("Replay, ply 0 of 2")).then_some(())
    });
    assert_eq!(page_pieces(&browser), position_pieces(&Position::start(Variant::hdc())));
    browser.click("#rp-next");
    browser.click("#rp-next");
    assert!(status(&browser).as_str().unwrap().starts_with("Replay, ply 2 of 2"));
    assert_eq!(page_pieces(&browser), position_pieces(&pos));
    browser.click("#moves .mv[data-ply='1']");
    let mut first = Position::start(Variant::hdc());
    first.play("g1-IVf3-IV").unwrap();
    assert_eq!(page_pieces(&browser), position_pieces(&first));
    let tags = browser.script("return document.getElementById('tags').textContent;");
    assert!(tags.as_str().unwrap().contains("Cubist GUI"), "{tags}");
    // No analysis yet: no graph; the Analyse button has the server analyse the game.
    let count = |b: &Browser, css: &str| b.script(&format!("return document.querySelectorAll(\"{css}\").length;"));
    assert_eq!(browser.script("return document.getElementById('evalgraph').hasAttribute('hidden');"), json!(true));
    browser.type_into("#analyse-nodes", "2000");
    browser.click("#analyse-game");
    wait_for(120, "the analysis's graph", || (count(&browser, "#evalgraph .pt") == json!(2)).then_some(()));
    assert_eq!(browser.script("return document.getElementById('evalgraph').hasAttribute('hidden');"), json!(false));
    assert!(status(&browser).as_str().unwrap().starts_with("Replay, ply 1 of 2"), "{}", status(&browser));
    let tags = browser.script("return document.getElementById('tags').textContent;");
    assert!(tags.as_str().unwrap().contains("GUI analysis, 2000 nodes"), "{tags}");

    // An annotated record from the games folder: a point per ply, marks in the move list.
    std::fs::write(dir.join("annotated.pgn"), record_text(&annotated_record(40))).unwrap();
    browser.script("refreshGames();");
    wait_for(30, "the record in the list", || {
        (count(&browser, "#records option[value='annotated.pgn']") == json!(1)).then_some(())
    });
    browser.click("#records option[value='annotated.pgn']");
    browser.click("#open-record");
    wait_for(30, "the annotated replay", || {
        status(&browser).as_str().is_some_and(|s| s.starts_with("Replay, ply 0 of 40")).then_some(())
    });
    assert_eq!(count(&browser, "#evalgraph .pt"), json!(40));
    assert_eq!(count(&browser, "#evalgraph .pt.blunder"), json!(5));
    assert_eq!(count(&browser, "#moves .nag"), json!(15));
    let nag = browser.script("return document.querySelector(\"#moves .mv[data-ply='3'] .nag\").textContent;");
    assert_eq!(nag, json!("?!"));
    let title = browser.script("return document.querySelector(\"#moves .mv[data-ply='3']\").title;");
    assert!(title.as_str().unwrap().contains("better: 2... better-2 (0.50)"), "{title}");
    // Clicking the graph's middle shows ply 20; the arrow keys step on and move the highlight.
    browser.click("#evalgraph");
    assert!(status(&browser).as_str().unwrap().starts_with("Replay, ply 20 of 40"), "{}", status(&browser));
    assert_eq!(browser.script("return document.getElementById('evalgraph').dataset.ply;"), json!("20"));
    browser.script(
        "document.activeElement.blur(); document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));",
    );
    assert!(status(&browser).as_str().unwrap().starts_with("Replay, ply 21 of 40"), "{}", status(&browser));
    assert_eq!(browser.script("return document.getElementById('evalgraph').dataset.ply;"), json!("21"));
    // Ply 21 is a mistake: the note under the moves has its better line.
    let note = browser.script("return document.getElementById('move-note').textContent;");
    assert!(note.as_str().unwrap().contains("? mistake") && note.as_str().unwrap().contains("better-20"), "{note}");
    browser.script("window.scrollTo(0, 0);");
    let png = browser.screenshot();
    let out = std::env::var("GUI_SCREENSHOT_ANALYSIS")
        .unwrap_or_else(|_| format!("{}/../gui-analysis.png", env!("CARGO_TARGET_TMPDIR")));
    std::fs::write(&out, png).unwrap();
    eprintln!("screenshot: {out}");

    // A record from a FEN with Black to move at move 30: the move list counts
    // from 30, White's half of the first move left empty.
    let mut from_fen = annotated_record(0);
    let mut pos = Position::start(Variant::hdc());
    pos.play("g1-IVf3-IV").unwrap();
    let fen = pos.fen();
    let (rest, _move_number) = fen.rsplit_once(' ').unwrap();
    from_fen.fen = format!("{rest} 30");
    assert!(from_fen.fen.contains(" b "), "{}", from_fen.fen);
    for _ in 0..3 {
        let m = pos.legal_moves()[0].to_string();
        pos.play(&m).unwrap();
        from_fen.moves.push(m);
    }
    from_fen.move_comments = vec![String::new(); 3];
    from_fen.notes = vec![Default::default(); 3];
    std::fs::write(dir.join("from-fen.pgn"), record_text(&from_fen)).unwrap();
    browser.script("refreshGames();");
    wait_for(30, "the FEN record in the list", || {
        (count(&browser, "#records option[value='from-fen.pgn']") == json!(1)).then_some(())
    });
    browser.click("#records option[value='from-fen.pgn']");
    browser.click("#open-record");
    wait_for(30, "the FEN record's replay", || {
        status(&browser).as_str().is_some_and(|s| s.starts_with("Replay, ply 0 of 3")).then_some(())
    });
    assert_eq!(browser.script("return document.getElementById('moves').start;"), json!(30));
    let rows = browser.script("return [...document.querySelectorAll('#moves li')].map(li => li.children.length);");
    assert_eq!(rows, json!([2, 2]), "… and Black's first move, then a whole move");
    assert_eq!(browser.script("return document.querySelector('#moves li .gap') !== null;"), json!(true));
}
