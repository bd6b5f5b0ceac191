//! The GUI server through its HTTP and WebSocket API: a short game against
//! the real engine, bad input refused without changing anything, resuming a
//! game from its record, engines that crash or hang, and its records in the
//! match runner's format; and (ignored unless asked for, it needs Chromium)
//! the page in a real browser, `browser.rs`.

mod abuse;
mod analysis;
mod browser;
mod common;

use common::{cubist_engine, fake_engine, games_dir, http, http_with, server, wait_for};
use cubist::core::Variant;
use cubist::record::{GameResult, Termination, parse_records};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::process::Command;

/// Haberkorn on 3 layers: White's king on a1-I is walled in by its own
/// pieces; whatever White does with the h-pawn, Black's knight mates on a2-III.
const MATE_IN_ONE: &str = "8/8/8/8/8/8/PP5P/KB6|8/8/8/8/8/8/PP6/BN6|7k/8/8/8/8/8/8/2n5 w - - 0 1";

fn new_game(addr: SocketAddr, req: Value) -> Value {
    let (status, state) = http(addr, "POST", "/api/games", Some(&req.to_string()));
    assert_eq!(status, 200, "{state}");
    state
}

/// The GUI's door to haberkorn's default setup layers: a new game on each
/// layer count starts from `tests/data/haberkorn_starts.txt`'s position (as
/// the command line, UCI, the data reader and the Python package do), and
/// `/api/config` hands the page the same layers for its form.
#[test]
fn a_new_haberkorn_game_starts_from_the_rules_default_on_every_layer_count() {
    let dir = games_dir("front-door");
    let srv = server(vec![], &dir);
    let addr = srv.addr();
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/haberkorn_starts.txt")).unwrap();
    let starts: Vec<(u8, &str)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(" ; ").map(|(n, fen)| (n.parse().unwrap(), fen)))
        .collect();
    assert_eq!(starts.len(), 6);
    let (_, cfg) = http(addr, "GET", "/api/config", None);
    for (layers, fen) in starts {
        let game = new_game(addr, json!({"variant": "haberkorn", "layers": layers}));
        assert_eq!(game["board"]["fen"], fen, "{layers} layers");
        let (white, black) = cubist::core::default_setup_layers(layers);
        assert_eq!(cfg["setup_layers"][layers.to_string()], json!([white, black]), "{cfg}");
        let (status, _) = act(addr, game["id"].as_u64().unwrap(), json!({"type": "close"}));
        assert_eq!(status, 200);
    }
}

fn act(addr: SocketAddr, id: u64, action: Value) -> (u16, Value) {
    http(addr, "POST", &format!("/api/games/{id}/action"), Some(&action.to_string()))
}

fn state(addr: SocketAddr, id: u64) -> Value {
    http(addr, "GET", &format!("/api/games/{id}"), None).1
}

fn plies(state: &Value) -> usize {
    state["moves"].as_array().map_or(0, Vec::len)
}

#[test]
fn a_short_game_against_the_engine_ends_in_mate_and_is_recorded() {
    let dir = games_dir("short-game");
    let srv = server(vec![cubist_engine()], &dir);
    let addr = srv.addr();
    let game = new_game(
        addr,
        json!({"variant": "haberkorn", "layers": 3, "white_layer": 1, "black_layer": 3, "fen": MATE_IN_ONE,
               "black": 0, "limit": {"kind": "depth", "depth": 2}}),
    );
    let id = game["id"].as_u64().unwrap();
    assert_eq!(game["players"], json!(["Human", "cubist"]));
    assert_eq!(game["variant"]["layers"], 3);
    // The pawn's targets come from the rules: one step, and one step up a layer.
    let (status, t) = act(addr, id, json!({"type": "targets", "from": "h2-I"}));
    assert_eq!(status, 200);
    let mut tos: Vec<&str> = t["targets"].as_array().unwrap().iter().map(|t| t["to"].as_str().unwrap()).collect();
    tos.sort();
    assert_eq!(tos, vec!["h3-I", "h3-II", "h4-I", "h4-II", "h4-III"]);
    let (status, after) = act(addr, id, json!({"type": "move", "move": "h2-Ih3-I"}));
    assert_eq!(status, 200, "{after}");
    let end = wait_for(60, "the engine's mate", || Some(state(addr, id)).filter(|s| s["over"] == true));
    assert_eq!(end["result"], "0-1", "{end}");
    assert_eq!(end["reason"], "checkmate");
    assert_eq!(plies(&end), 2);
    assert_eq!(end["board"]["king_in_check"], "a1-I");
    assert_eq!(end["board"]["checkers"], json!(["a2-III"]));
    // The record is in the match runner's format and replays.
    let file = dir.join(end["record"].as_str().unwrap());
    let records = parse_records(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].result, GameResult::BlackWins);
    assert_eq!(records[0].termination, Termination::Checkmate);
    assert_eq!(records[0].moves.len(), 2);
    // And it can be replayed through the API, one board per ply.
    let name = end["record"].as_str().unwrap();
    let (status, replay) = http(addr, "GET", &format!("/api/records/{name}"), None);
    assert_eq!(status, 200, "{replay}");
    assert_eq!(replay["boards"].as_array().unwrap().len(), 3);
    assert_eq!(replay["boards"][2]["last"][1], "a2-III");
    // No move after the end.
    let (status, err) = act(addr, id, json!({"type": "move", "move": "h3-Ih4-I"}));
    assert_eq!(status, 400);
    assert!(err["error"].as_str().unwrap().contains("over"), "{err}");
}

#[test]
fn bad_input_gets_an_error_and_changes_nothing() {
    let dir = games_dir("bad-input");
    let srv = server(vec![cubist_engine()], &dir);
    let addr = srv.addr();
    let game = new_game(addr, json!({"variant": "hdc"}));
    let id = game["id"].as_u64().unwrap();
    let before = state(addr, id);
    let record_before = std::fs::read_to_string(dir.join(before["record"].as_str().unwrap())).unwrap();
    let cases = [
        (json!({"type": "move", "move": "e2-IVe5-IV"}), "illegal move"),
        (json!({"type": "move", "move": "e2-IVe9-IV"}), "malformed move"),
        (json!({"type": "move", "move": "e7-IVe5-IV"}), "illegal move"),
        (json!({"type": "targets", "from": "z9-XI"}), "bad square"),
        (json!({"type": "view", "ply": 5}), "beyond"),
        (json!({"type": "fly"}), "bad request"),
        (json!({"type": "analyse", "on": true, "engine": 7}), "no engine"),
        (json!({"type": "analyse", "on": true, "multipv": 99}), "MultiPV"),
    ];
    for (action, expected) in cases {
        let (status, err) = act(addr, id, action.clone());
        assert_eq!(status, 400, "{action} → {err}");
        assert!(err["error"].as_str().unwrap().contains(expected), "{action} → {err}");
    }
    for junk in ["", "{", "[1,2]", "{\"type\": 3}"] {
        let (status, err) = http(addr, "POST", &format!("/api/games/{id}/action"), Some(junk));
        assert_eq!(status, 400, "{junk} → {err}");
        assert_eq!(err["type"], "error");
    }
    assert_eq!(state(addr, id)["board"], before["board"]);
    assert_eq!(std::fs::read_to_string(dir.join(before["record"].as_str().unwrap())).unwrap(), record_before);
    // New games: a malformed FEN is refused with the FEN's own error.
    let (status, err) =
        http(addr, "POST", "/api/games", Some(&json!({"variant": "hdc", "fen": "8/8/8 w - - 0 1"}).to_string()));
    assert_eq!(status, 400);
    assert!(err["error"].as_str().unwrap().starts_with("bad FEN: "), "{err}");
    for bad in [
        json!({"variant": "chess"}),
        json!({"variant": "haberkorn", "layers": 9}),
        json!({"variant": "hdc", "white": 5}),
        json!({"variant": "hdc", "limit": {"kind": "movetime", "ms": 0}}),
        json!({"variant": "hdc", "options": {"threads": 1, "hash": 16, "strategy": "cheat"}}),
        json!({"variant": "hdc", "engine_cmd": "/bin/sh"}),
    ] {
        let (status, err) = http(addr, "POST", "/api/games", Some(&bad.to_string()));
        assert_eq!(status, 400, "{bad} → {err}");
    }
    // Records: malformed uploads and file names outside the games folder.
    let (status, err) = http(addr, "POST", "/api/replay", Some("[Event \"x\"]\n\n1. e2-IVe5-IV 1-0\n"));
    assert_eq!(status, 400);
    assert!(err["error"].as_str().unwrap().starts_with("bad record"), "{err}");
    let (status, _) = http(addr, "GET", "/api/records/..%2F..%2Fetc%2Fpasswd", None);
    assert_eq!(status, 400);
    let (status, _) = http(addr, "GET", "/api/records/missing.pgn", None);
    assert_eq!(status, 404);
    let (status, _) = http(addr, "GET", "/api/games/999", None);
    assert_eq!(status, 404);
    // Too big a body is refused.
    let big = "x".repeat(5 << 20);
    let (status, _) = http(addr, "POST", "/api/replay", Some(&big));
    assert_eq!(status, 413);
    // Another site's page cannot drive the server from the user's browser.
    let evil = "Origin: http://evil.example\r\n";
    let move_text = json!({"type": "move", "move": "e2-IVe4-IV"}).to_string();
    let (status, err) = http_with(addr, "POST", &format!("/api/games/{id}/action"), Some(&move_text), evil);
    assert_eq!(status, 403, "{err}");
    let (status, _) = http_with(addr, "POST", "/api/games", Some(&json!({"variant": "hdc"}).to_string()), evil);
    assert_eq!(status, 403);
    assert_eq!(state(addr, id)["board"], before["board"]);
    let same = format!("Origin: http://{addr}\r\n");
    let (status, _) = http_with(addr, "POST", &format!("/api/games/{id}/action"), Some("{\"type\":\"state\"}"), &same);
    assert_eq!(status, 200);
    // The game still plays.
    let (status, _) = act(addr, id, json!({"type": "move", "move": "e2-IVe4-IV"}));
    assert_eq!(status, 200);
}

#[test]
fn the_websocket_plays_pushes_the_engine_reply_and_answers_junk_with_errors() {
    use tungstenite::Message;
    let dir = games_dir("websocket");
    let srv = server(vec![cubist_engine()], &dir);
    let addr = srv.addr();
    let game = new_game(addr, json!({"variant": "hdc", "black": 0, "limit": {"kind": "movetime", "ms": 100}}));
    let id = game["id"].as_u64().unwrap();
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/api/games/{id}/ws")).unwrap();
    assert_eq!(read_json(&mut ws)["type"], "state");
    for junk in ["hello", "{\"type\":\"move\"}", "{\"type\":\"move\",\"move\":\"a1-Ia8-I\"}"] {
        ws.send(Message::Text(junk.into())).unwrap();
        let reply = read_json(&mut ws);
        assert_eq!(reply["type"], "error", "{junk} → {reply}");
    }
    ws.send(Message::Binary(vec![1, 2, 3].into())).unwrap();
    assert_eq!(read_json(&mut ws)["type"], "error");
    ws.send(Message::Text(json!({"type": "targets", "from": "g1-IV"}).to_string().into())).unwrap();
    let t = read_json(&mut ws);
    assert_eq!(t["type"], "targets");
    assert!(!t["targets"].as_array().unwrap().is_empty());
    ws.send(Message::Text(json!({"type": "move", "move": "e2-IVe4-IV"}).to_string().into())).unwrap();
    // The engine's reply is pushed: info lines, then a state with two moves.
    let mut infos = 0;
    loop {
        let m = read_json(&mut ws);
        if m["type"] == "info" {
            infos += 1;
            assert!(m["info"]["depth"].as_u64().is_some());
        }
        if m["type"] == "state" && plies(&m) == 2 {
            break;
        }
    }
    assert!(infos > 0, "no info pushed");
}

fn read_json(ws: &mut tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<std::net::TcpStream>>) -> Value {
    loop {
        if let tungstenite::Message::Text(t) = ws.read().unwrap() {
            return serde_json::from_str(t.as_str()).unwrap();
        }
    }
}

#[test]
fn an_unfinished_game_is_resumed_from_its_record_after_a_restart() {
    let dir = games_dir("resume");
    let file = {
        let srv = server(vec![cubist_engine()], &dir);
        let addr = srv.addr();
        let game = new_game(addr, json!({"variant": "haberkorn", "layers": 4, "white_layer": 4, "black_layer": 4}));
        let id = game["id"].as_u64().unwrap();
        for m in ["e2-IVe4-IV", "e7-IVe5-IV"] {
            let (status, s) = act(addr, id, json!({"type": "move", "move": m}));
            assert_eq!(status, 200, "{s}");
        }
        game["record"].as_str().unwrap().to_string()
    };
    let srv = server(vec![cubist_engine()], &dir);
    let addr = srv.addr();
    let (_, list) = http(addr, "GET", "/api/games", None);
    let unfinished = list["unfinished"].as_array().unwrap();
    assert_eq!(unfinished.len(), 1, "{list}");
    assert_eq!(unfinished[0]["file"], file.as_str());
    assert_eq!(unfinished[0]["plies"], 2);
    let (status, s) = http(addr, "POST", "/api/resume", Some(&json!({"file": file}).to_string()));
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["moves"], json!(["e2-IVe4-IV", "e7-IVe5-IV"]));
    assert_eq!(s["variant"]["layers"], 4);
    let id = s["id"].as_u64().unwrap();
    let (status, _) = act(addr, id, json!({"type": "move", "move": "g1-IVf3-IV"}));
    assert_eq!(status, 200);
    let records = parse_records(&std::fs::read_to_string(dir.join(&file)).unwrap()).unwrap();
    assert_eq!(records[0].moves.len(), 3);
    assert_eq!(records[0].result, GameResult::Unfinished);
    let (status, err) = http(addr, "POST", "/api/resume", Some(&json!({"file": "../resume.pgn"}).to_string()));
    assert_eq!(status, 400, "{err}");
    // Adjourned: off the server, listed as unfinished, refused until resumed.
    let (status, closed) = act(addr, id, json!({"type": "close"}));
    assert_eq!((status, closed["type"].as_str()), (200, Some("closed")));
    let (status, _) = act(addr, id, json!({"type": "move", "move": "b8-Vc6-V"}));
    assert_eq!(status, 404);
    let (_, list) = http(addr, "GET", "/api/games", None);
    assert_eq!(list["live"], json!([]));
    assert_eq!(list["unfinished"][0]["plies"], 3);
    let (status, s) = http(addr, "POST", "/api/resume", Some(&json!({"file": file}).to_string()));
    assert_eq!(status, 200, "{s}");
    assert_eq!(plies(&s), 3);
}

#[test]
fn an_engine_that_crashes_or_hangs_is_reported_and_restarted() {
    let dir = games_dir("crash");
    let hung = dir.join("hung").display().to_string();
    let engines = vec![
        cubist_engine(),
        fake_engine("crash-at-2", &["--crash-at", "2"]),
        // Hangs once: the process started after it plays on (each hang waits out the grace).
        fake_engine("hang-at-2", &["--slow-at", "2", "--sleep", "30", "--fault-once", &hung]),
        fake_engine("always-crash", &["--crash-at", "1"]),
    ];
    let srv = server(engines, &dir);
    let addr = srv.addr();
    // The fakes play Black's pawns of layers VIII and VII; White pushes layer I's.
    let white = ["a2-Ia3-I", "b2-Ib3-I", "c2-Ic3-I"];
    for engine in [1, 2] {
        let g = new_game(addr, json!({"variant": "hdc", "black": engine, "limit": {"kind": "movetime", "ms": 100}}));
        let id = g["id"].as_u64().unwrap();
        for (i, m) in white.iter().enumerate() {
            wait_for(60, "the engine's move", || Some(state(addr, id)).filter(|s| plies(s) == 2 * i));
            let (status, s) = act(addr, id, json!({"type": "move", "move": m}));
            assert_eq!(status, 200, "{s}");
            if i == 1 {
                // The second search fails; the page is told, and a new process answers.
                let failed = wait_for(30, "the failure report", || {
                    Some(state(addr, id)).filter(|s| s["error"].as_str().is_some_and(|e| e.contains("restarting")))
                });
                assert!(failed["over"] == false, "{failed}");
            }
        }
        let end = wait_for(60, "the engine's third move", || Some(state(addr, id)).filter(|s| plies(s) == 6));
        assert_eq!(end["over"], false);
        assert_eq!(end["error"], Value::Null);
    }
    // An engine that never works ends the game as a crash; the server goes on.
    let g = new_game(addr, json!({"variant": "hdc", "white": 3}));
    let id = g["id"].as_u64().unwrap();
    let end = wait_for(60, "the crash", || Some(state(addr, id)).filter(|s| s["over"] == true));
    assert_eq!(end["reason"], "crash");
    assert_eq!(end["result"], "0-1");
    assert!(end["error"].as_str().unwrap().contains("exited"), "{end}");
    let g = new_game(addr, json!({"variant": "hdc", "white": 0, "limit": {"kind": "depth", "depth": 1}}));
    let id = g["id"].as_u64().unwrap();
    wait_for(60, "cubist's move", || Some(state(addr, id)).filter(|s| plies(s) == 1));
}

#[test]
fn two_engines_play_each_other_and_the_cap_on_games_holds() {
    let dir = games_dir("engines");
    let srv = server(vec![cubist_engine(), fake_engine("fake", &[])], &dir);
    let addr = srv.addr();
    let g = new_game(addr, json!({"variant": "hdc", "white": 1, "black": 1, "limit": {"kind": "movetime", "ms": 50}}));
    let id = g["id"].as_u64().unwrap();
    wait_for(60, "ten plies", || Some(state(addr, id)).filter(|s| plies(s) >= 10));
    let (status, err) = act(addr, id, json!({"type": "move", "move": "a2-Ia3-I"}));
    assert_eq!(status, 400, "{err}");
    let (status, err) = act(addr, id, json!({"type": "analyse", "on": true}));
    assert_eq!(status, 400, "{err}");
    // The server holds 4 games in progress at most.
    for _ in 0..3 {
        new_game(addr, json!({"variant": "hdc"}));
    }
    let (status, err) = http(addr, "POST", "/api/games", Some(&json!({"variant": "hdc"}).to_string()));
    assert_eq!(status, 429, "{err}");
}

#[test]
fn analysis_reports_lines_for_the_position_shown() {
    let dir = games_dir("analysis");
    let srv = server(vec![cubist_engine()], &dir);
    let addr = srv.addr();
    let g = new_game(addr, json!({"variant": "haberkorn", "layers": 3, "white_layer": 1, "black_layer": 3}));
    let id = g["id"].as_u64().unwrap();
    let (status, s) = act(addr, id, json!({"type": "analyse", "on": true, "multipv": 2}));
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["analysis"]["multipv"], 2);
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/api/games/{id}/ws")).unwrap();
    let mut seen = [false; 2];
    while !(seen[0] && seen[1]) {
        let m = read_json(&mut ws);
        if m["type"] == "info" && m["analysis"] == true {
            let k = m["info"]["multipv"].as_u64().unwrap() as usize;
            seen[k - 1] = true;
            assert!(!m["info"]["pv"].as_array().unwrap().is_empty());
        }
    }
    let (status, s) = act(addr, id, json!({"type": "analyse", "on": false}));
    assert_eq!(status, 200);
    assert_eq!(s["analysis"], Value::Null);
}

#[test]
fn games_end_by_time_resignation_and_the_draw_rules_with_their_reason() {
    let dir = games_dir("endings");
    let srv = server(vec![cubist_engine()], &dir);
    let addr = srv.addr();
    // The human's clock runs out.
    let g = new_game(addr, json!({"variant": "hdc", "black": 0, "limit": {"kind": "clock", "base_s": 1, "inc_s": 0}}));
    let id = g["id"].as_u64().unwrap();
    assert_eq!(g["clocks_ms"][0].as_u64().map(|ms| ms <= 1000), Some(true));
    let end = wait_for(10, "the flag", || Some(state(addr, id)).filter(|s| s["over"] == true));
    assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("0-1"), Some("time forfeit")));
    // Resignation (human vs human: the side to move resigns).
    let g = new_game(addr, json!({"variant": "haberkorn", "layers": 3}));
    let id = g["id"].as_u64().unwrap();
    let (status, s) = act(addr, id, json!({"type": "move", "move": "e2-IIe3-II"}));
    assert_eq!(status, 200, "{s}");
    let (status, s) = act(addr, id, json!({"type": "resign"}));
    assert_eq!(status, 200, "{s}");
    assert_eq!((s["result"].as_str(), s["reason"].as_str()), (Some("1-0"), Some("resignation")));
    let records = parse_records(&std::fs::read_to_string(dir.join(s["record"].as_str().unwrap())).unwrap()).unwrap();
    assert_eq!(records[0].termination, Termination::Resignation);
    // Positions set up from a FEN that are already drawn.
    let empty = "8/8/8/8/8/8/8/8";
    let cases = [
        (format!("k7/8/8/8/8/8/8/7K|{empty}|{empty} w - - 0 1"), "dead material"),
        (format!("k7/8/8/8/8/8/8/6QK|{empty}|{empty} w - - 100 80"), "fifty moves"),
    ];
    for (fen, reason) in cases {
        let s = new_game(addr, json!({"variant": "haberkorn", "layers": 3, "fen": fen}));
        assert_eq!(
            (s["over"].as_bool(), s["result"].as_str(), s["reason"].as_str()),
            (Some(true), Some("1/2-1/2"), Some(reason))
        );
    }
}

#[test]
fn a_promotion_offers_its_pieces_and_needs_one() {
    let dir = games_dir("promotion");
    let srv = server(vec![cubist_engine()], &dir);
    let addr = srv.addr();
    let empty = "8/8/8/8/8/8/8/8";
    let fen = format!("8/4P3/8/8/8/8/8/k6K|{empty}|{empty} w - - 0 1");
    let g = new_game(addr, json!({"variant": "haberkorn", "layers": 3, "fen": fen}));
    let id = g["id"].as_u64().unwrap();
    let (_, t) = act(addr, id, json!({"type": "targets", "from": "e7-I"}));
    let e8 = t["targets"].as_array().unwrap().iter().find(|t| t["to"] == "e8-I").cloned().unwrap();
    let mut letters = strings_of(&e8["promotions"]);
    letters.sort();
    assert_eq!(letters, vec!["b", "n", "q", "r"]);
    assert_eq!(e8["move"], "e7-Ie8-I");
    let (status, err) = act(addr, id, json!({"type": "move", "move": "e7-Ie8-I"}));
    assert_eq!(status, 400, "a promotion without its piece: {err}");
    let (status, err) = act(addr, id, json!({"type": "move", "move": "e7-Ie8-Id"}));
    assert_eq!(status, 400, "no Duke in haberkorn: {err}");
    let (status, s) = act(addr, id, json!({"type": "move", "move": "e7-Ie8-In"}));
    assert_eq!(status, 200, "{s}");
    assert!(s["board"]["fen"].as_str().unwrap().starts_with("4N3/"), "{s}");
}

fn strings_of(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// Haberkorn on 4 layers, both armies on layer II, en passant on: Black's
/// double step d7-IId5-II is taken en passant (e5-IId6-II), then the knights
/// go out and back twice, so the position after the capture stands for the
/// third time after 13 plies.
const EN_PASSANT_GAME: [&str; 13] = [
    "e2-IIe4-II",
    "a7-IIa6-II",
    "e4-IIe5-II",
    "d7-IId5-II",
    "e5-IId6-II",
    "g8-IIf6-II",
    "g1-IIf3-II",
    "f6-IIg8-II",
    "f3-IIg1-II",
    "g8-IIf6-II",
    "g1-IIf3-II",
    "f6-IIg8-II",
    "f3-IIg1-II",
];

/// A record's text without the tags that say where, when and in which round it
/// was played (`Event`, `Site`, `Date`, `Round`) and without `{…}` comments
/// (the match runner's engine reports, timed), as tag lines and move-text words.
fn without_source(text: &str) -> (Vec<String>, Vec<String>) {
    let (tags, moves) = text.split_once("\n\n").expect("tags, a blank line, the moves");
    let tags = tags
        .lines()
        .filter(|l| !["[Event ", "[Site ", "[Date ", "[Round "].iter().any(|t| l.starts_with(t)))
        .map(String::from)
        .collect();
    let mut bare = String::new();
    let mut depth = 0;
    for c in moves.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => bare.push(c),
            _ => {}
        }
    }
    (tags, bare.split_whitespace().map(String::from).collect())
}

/// The same game played by the same two scripted engines in the GUI and in
/// `cubist match` gives the same record: one writer, the same tags (`SetUp`,
/// `EnPassant`, `Castling`, `PlyCount` included) and the same move text,
/// apart from where, when, the round and the match's timed engine reports.
#[test]
fn a_gui_record_and_a_match_record_of_the_same_game_agree() {
    let dir = games_dir("same-game");
    let script = EN_PASSANT_GAME.join(",");
    let gui = {
        let engines = vec![fake_engine("alpha", &["--moves", &script]), fake_engine("beta", &["--moves", &script])];
        let srv = server(engines, &dir);
        let addr = srv.addr();
        let game = new_game(
            addr,
            json!({"variant": "haberkorn", "layers": 4, "white_layer": 2, "black_layer": 2, "en_passant": true,
                   "white": 0, "black": 1, "limit": {"kind": "movetime", "ms": 100}}),
        );
        let id = game["id"].as_u64().unwrap();
        let end = wait_for(60, "the scripted game", || Some(state(addr, id)).filter(|s| s["over"] == true));
        assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("1/2-1/2"), Some("threefold repetition")));
        std::fs::read_to_string(dir.join(end["record"].as_str().unwrap())).unwrap()
    };
    let pgn = dir.join("match.pgn");
    let fake = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/fake_engine.py");
    let engine = |name: &str| {
        [format!("cmd={}", fake.display()), format!("name={name}"), "arg=--moves".into(), format!("arg={script}")]
    };
    let out = Command::new(env!("CARGO_BIN_EXE_cubist"))
        .arg("match")
        .arg("--engine")
        .args(engine("alpha"))
        .arg("--engine")
        .args(engine("beta"))
        .args(["--each", "st=0.1", "--variant", "haberkorn", "--layers", "4", "--white-layer", "2"])
        .args(["--black-layer", "2", "--en-passant", "--games", "1", "--pgnout"])
        .arg(&pgn)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let matched = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(parse_records(&matched).unwrap().len(), 1, "{matched}");
    for tag in ["[EnPassant \"on\"]", "[Castling \"off\"]", "[SetUp \"1\"]", "[PlyCount \"13\"]"] {
        assert!(gui.contains(tag), "{tag} in the GUI's record:\n{gui}");
    }
    assert!(matched.contains("{"), "the match records its engines' reports:\n{matched}");
    assert_eq!(without_source(&gui), without_source(&matched), "GUI:\n{gui}\nmatch:\n{matched}");
    // The match's record with the GUI's Event, Site, Date and Round and
    // without its engines' reports, written again, is the GUI's byte for byte.
    let gui_record = parse_records(&gui).unwrap().remove(0);
    let mut bare = parse_records(&matched).unwrap().remove(0);
    (bare.event, bare.site, bare.date, bare.round) =
        (gui_record.event, gui_record.site, gui_record.date, gui_record.round);
    bare.move_comments.clear();
    let mut rewritten = Vec::new();
    bare.write(&mut rewritten).unwrap();
    assert_eq!(String::from_utf8(rewritten).unwrap(), gui);
}

/// A GUI record of a haberkorn game with en passant and castling on, read by
/// the match runner's reader, gives back the variant, the moves and the result.
#[test]
fn a_gui_record_reads_back_through_the_match_runners_reader() {
    let dir = games_dir("gui-record-reads-back");
    let srv = server(vec![], &dir);
    let addr = srv.addr();
    let game = new_game(
        addr,
        json!({"variant": "haberkorn", "layers": 5, "white_layer": 2, "black_layer": 3, "en_passant": true,
               "castling": true}),
    );
    let id = game["id"].as_u64().unwrap();
    // White's two-path double step e2-IIe4-III passes over e3-II and e3-III;
    // Black's pawn on d4-III takes it en passant on e3-III.
    let moves = ["a2-IIa3-II", "d7-IIId5-III", "a3-IIa4-II", "d5-IIId4-III", "e2-IIe4-III", "d4-IIIe3-III"];
    for m in moves {
        let (status, s) = act(addr, id, json!({"type": "move", "move": m}));
        assert_eq!(status, 200, "{m}: {s}");
    }
    let (status, s) = act(addr, id, json!({"type": "resign"}));
    assert_eq!(status, 200, "{s}");
    let file = s["record"].as_str().unwrap().to_string();
    let text = std::fs::read_to_string(dir.join(&file)).unwrap();
    let records = parse_records(&text).unwrap();
    assert_eq!(records.len(), 1, "{text}");
    let r = &records[0];
    assert_eq!(r.variant, Variant::haberkorn_with(5, 2, 3, true, true).unwrap());
    assert_eq!(r.moves, moves);
    assert_eq!((r.result, r.termination), (GameResult::BlackWins, Termination::Resignation));
    assert_eq!(r.fen, r.variant.start_fen());
    // The replay view shows the record's own tags.
    let (status, replay) = http(addr, "GET", &format!("/api/records/{file}"), None);
    assert_eq!(status, 200, "{replay}");
    let tags: Vec<(String, String)> = replay["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t[0].as_str().unwrap().to_string(), t[1].as_str().unwrap().to_string()))
        .collect();
    let expected: Vec<(String, String)> = r.tags().into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    assert_eq!(tags, expected);
    assert!(tags.contains(&("EnPassant".into(), "on".into())) && tags.contains(&("PlyCount".into(), "6".into())));
}

/// A port in use: `cubist gui` names the address it cannot listen on and
/// leaves no games folder behind; `--host localhost` is a host it accepts.
#[test]
fn a_port_in_use_is_named_and_localhost_is_accepted() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let dir = games_dir("port-in-use").join("records");
    let out = Command::new(env!("CARGO_BIN_EXE_cubist"))
        .args(["gui", "--port", &port, "--games-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("error: cannot listen on 127.0.0.1:{port}: ")), "{stderr}");
    assert!(!dir.exists(), "the games folder was created though the bind failed");
    // `--host localhost` resolves, so the refusal is again about the port, not the host.
    let out = Command::new(env!("CARGO_BIN_EXE_cubist"))
        .args(["gui", "--host", "localhost", "--port", &port, "--games-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot listen on") && stderr.contains(&format!(":{port}: ")), "{stderr}");
    assert!(!stderr.contains("not an IP address"), "{stderr}");
    drop(taken);
    let args = cubist::gui::GuiOptions {
        host: "localhost".into(),
        port: 0,
        engine: Vec::new(),
        games_dir: dir.clone(),
        max_games: 1,
        max_engines: 1,
        max_hash: 64,
        max_records: 10,
        request_timeout: 10,
        tb: None,
    };
    let config = args.config().expect("localhost is accepted");
    assert!(config.addr.ip().is_loopback(), "{}", config.addr);
}

/// `cubist gui --engine CMD` checks each engine at start: one that cannot
/// start, or ends without `uciok`, is refused with its command named.
#[test]
fn a_dead_extra_engine_is_refused_at_start_by_its_command() {
    let dir = games_dir("dead-engine").join("records");
    for (engine, why) in [("/nonexistent/engine --x", "cannot start it"), ("true", "it ended without answering `uci`")]
    {
        let out = Command::new(env!("CARGO_BIN_EXE_cubist"))
            .args(["gui", "--port", "0", "--engine", engine, "--games-dir"])
            .arg(&dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(stderr.contains(&format!("error: --engine \"{engine}\": {why}")), "{stderr}");
        assert!(!dir.exists());
    }
    let cubist = cubist::gui::engine::EngineCmd::parse(&format!("{} uci", env!("CARGO_BIN_EXE_cubist"))).unwrap();
    cubist::gui::check_engine(&cubist, cubist::gui::ENGINE_CHECK_TIMEOUT).expect("cubist answers uciok");
}
