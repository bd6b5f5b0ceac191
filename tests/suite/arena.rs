//! `cubist match` end to end: matches between fake engines (tests/fakes/)
//! that inject one fault each, adjudication, bad arguments, and a short
//! Cubist-vs-Cubist match.
//!
//! The fakes are Python 3 scripts. Without `--wrap` they play a fixed script
//! of legal hdc pawn moves and need no Cubist; with `--wrap <cubist>` they
//! pass a real engine through and inject the same faults.

use cubist::record::{GameRecord, GameResult, Termination, parse_records};
use std::path::Path;
use std::process::Command;

/// The engine played in the Cubist tests: this build, or another UCI build
/// named by `CUBIST_TEST_ENGINE` (the runner is always this build).
fn engine() -> String {
    std::env::var("CUBIST_TEST_ENGINE").unwrap_or_else(|_| CUBIST.to_string())
}

fn fake() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/fake_engine.py").display().to_string()
}

use crate::common::{CUBIST, Scratch};

/// A fresh scratch directory for one test, removed when it ends.
fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("arena-{name}"))
}

/// What a finished `cubist match` left behind.
struct Outcome {
    ok: bool,
    stdout: String,
    stderr: String,
    records: Vec<GameRecord>,
    json: serde_json::Value,
}

/// Runs `cubist match` with the arguments plus `--pgnout` and `--results-json`.
fn run_match(name: &str, args: &[String]) -> Outcome {
    let dir = scratch(name);
    let (pgn, json) = (dir.join("games.pgn"), dir.join("results.json"));
    let out = Command::new(CUBIST)
        .arg("match")
        .args(args)
        .arg("--pgnout")
        .arg(&pgn)
        .arg("--results-json")
        .arg(&json)
        .output()
        .expect("cubist runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let records = match std::fs::read_to_string(&pgn) {
        Ok(text) => parse_records(&text).unwrap_or_else(|e| panic!("records parse back: {e}\n{text}")),
        Err(_) => Vec::new(),
    };
    let json = std::fs::read_to_string(&json)
        .ok()
        .map(|t| serde_json::from_str(&t).expect("valid JSON"))
        .unwrap_or(serde_json::Value::Null);
    Outcome { ok: out.status.success(), stdout, stderr, records, json }
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// Checks that the records, the JSON summary and the table agree.
fn results_add_up(o: &Outcome, games: usize) {
    assert!(o.ok, "match failed:\n{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.records.len(), games, "{}", o.stderr);
    assert_eq!(o.json["games"], games);
    let first = o.json["engines"][0].as_str().unwrap().to_string();
    let p = &o.json["pairings"][0];
    let (mut w, mut d, mut l) = (0, 0, 0);
    for r in &o.records {
        match (r.result, r.white == first) {
            (GameResult::Draw, _) => d += 1,
            (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => w += 1,
            _ => l += 1,
        }
    }
    assert_eq!((p["wins"].as_u64(), p["draws"].as_u64(), p["losses"].as_u64()), (Some(w), Some(d), Some(l)));
    assert_eq!(p["games"], games);
    let pairs: u64 = p["penta"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(pairs as usize, games / 2);
    assert!(o.stdout.contains(&format!("{games} of {games} games")), "{}", o.stdout);
}

/// A two-game match of a well-behaved fake against one with `fault` (fake
/// arguments); `engine` is either the scripted fake or a wrapped Cubist.
fn fault_match(name: &str, fault: &str, limits: &str, wrap: bool) -> Outcome {
    let wrap_args = if wrap { format!(" arg=--wrap arg={}", engine()) } else { String::new() };
    let bad_args: String = words(fault).iter().map(|w| format!(" arg={w}")).collect();
    // A short wait only where the fault is silence: on a loaded machine a
    // Python fake can take seconds to answer its first `uci` (at 3 s the
    // mid-game case once lost before its first move beside a four-engine
    // match on two cores, most likely a late answer taken for silence).
    let timeout = if fault.contains("--noready") { " readytimeout=6" } else { "" };
    let mut args = words(&format!(
        "--engine cmd={f} name=good{wrap_args} --engine cmd={f} name=bad{bad_args}{wrap_args}{timeout}",
        f = fake()
    ));
    args.extend(words(&format!("--each {limits} --maxmoves 6 --rounds 1 --concurrency 1 --seed 1")));
    let o = run_match(name, &args);
    results_add_up(&o, 2);
    o
}

/// The game `bad` lost by `fault`, and whether it was the first game.
fn assert_fault(o: &Outcome, fault: Termination, both_games: bool) {
    for (i, r) in o.records.iter().enumerate() {
        if i == 0 || both_games {
            assert_eq!(r.termination, fault, "game {} of {:?}", i + 1, o.records);
            let bad_lost = if r.white == "bad" { GameResult::BlackWins } else { GameResult::WhiteWins };
            assert_eq!(r.result, bad_lost);
        } else {
            assert_eq!(r.termination, Termination::MaxMoves, "the match goes on normally");
        }
    }
}

#[test]
fn scripted_fakes_play_a_match_that_adds_up() {
    let args = words(&format!(
        "--engine cmd={f} name=a --engine cmd={f} name=b --each depth=1 --maxmoves 8 --rounds 3 --concurrency 2",
        f = fake()
    ));
    let o = run_match("scripted", &args);
    results_add_up(&o, 6);
    for r in &o.records {
        assert_eq!(r.termination, Termination::MaxMoves);
        assert_eq!(r.moves.len(), 16);
        assert_eq!(r.time_control, "depth=1");
    }
}

#[test]
fn fake_crash_loses_and_the_engine_is_restarted() {
    // The crash comes on the process's 3rd `go`: the restarted engine crashes again.
    let o = fault_match("crash", "--crash-at 3", "depth=1", false);
    assert_fault(&o, Termination::Crash, true);
}

#[test]
fn fake_illegal_move_loses() {
    let o = fault_match("illegal", "--illegal-at 3", "depth=1", false);
    assert_fault(&o, Termination::IllegalMove, false);
    assert!(o.records[0].comment.contains("a1-Ia8-I"));
}

#[test]
fn fake_garbage_loses() {
    let o = fault_match("garbage", "--garbage-at 3", "depth=1", false);
    assert_fault(&o, Termination::MalformedMove, false);
}

/// Plays fault matches side by side (each mostly waits out an engine's
/// silence, so running them at once costs the machine little and the
/// suite several seconds less): one [`fault_match`] per `(name, fault,
/// limits, wrap)`, the outcomes in order.
fn fault_matches(cases: &[(&str, &str, &str, bool)]) -> Vec<Outcome> {
    std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|&(name, fault, limits, wrap)| s.spawn(move || fault_match(name, fault, limits, wrap)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("a fault match")).collect()
    })
}

#[test]
fn fake_over_the_clock_loses_on_time() {
    // tc=1+0: the fake sleeps 1.5 s on its 3rd move; the restarted one does it again.
    let o = fault_match("slow", "--slow-at 3 --sleep 1.5", "tc=1+0 timemargin=100", false);
    assert_fault(&o, Termination::TimeForfeit, true);
    assert_eq!(o.records[0].time_control, "1");
}

#[test]
fn resign_and_draw_adjudication() {
    let f = fake();
    let resign = words(&format!(
        "--engine cmd={f} name=hopeless arg=--score arg=-700 --engine cmd={f} name=b arg=--score arg=700 \
         --each depth=1 --resign movecount=3 score=600 --rounds 1 --no-repeat"
    ));
    let o = run_match("resign", &resign);
    results_add_up(&o, 1);
    let r = &o.records[0];
    assert_eq!((r.termination, r.result, r.moves.len()), (Termination::Resign, GameResult::BlackWins, 5));
    let draw = words(&format!(
        "--engine cmd={f} name=a arg=--score arg=3 --engine cmd={f} name=b arg=--score arg=-2 \
         --each depth=1 --draw movenumber=4 movecount=2 score=10 --rounds 1 --no-repeat"
    ));
    let o = run_match("draw", &draw);
    let r = &o.records[0];
    assert_eq!((r.termination, r.result), (Termination::DrawAdjudication, GameResult::Draw));
    // Plies counted from the one that reaches move 4 (the 6th ply leaves move number 4): plies 6..=9.
    assert_eq!(r.moves.len(), 9);
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let f = fake();
    let args = words(&format!(
        "--engine cmd={f} name=good --engine cmd={f} name=bad arg=--garbage-at arg=1 arg=--every \
         --each depth=1 --rounds 200 --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 model=logistic"
    ));
    let o = run_match("sprt", &args);
    assert!(o.ok, "{}", o.stderr);
    assert_eq!(o.json["stopped_early"], true);
    assert_eq!(o.json["sprt"]["decision"], "H1");
    assert_eq!(o.json["sprt"]["verdict"], "accepted");
    let games = o.json["games"].as_u64().unwrap();
    assert!(games < 400 && games as usize == o.records.len());
    // Not before the minimum of game pairs (10 by default), however lopsided.
    assert!(games >= 20, "decided after {games} games");
    assert_eq!(o.json["sprt"]["min_pairs"], 10);
    assert!(o.stdout.contains("H1 accepted"));
}

#[test]
fn bad_arguments_are_clear_errors() {
    let f = fake();
    let cases = [
        (format!("--engine name=x depth=1 --engine cmd={f} depth=1"), "cmd= is required"),
        (format!("--engine cmd={f} --engine cmd={f}"), "no limit"),
        (format!("--engine cmd={f} depth=1"), "at least two"),
        (format!("--engine cmd={f} depth=1 --engine cmd=/no/such/engine depth=1"), "cmd=/no/such/engine: the program"),
        (
            format!("--engine cmd={f} depth=1 --engine cmd={f} depth=1 --sprt elo0=5 elo1=0 alpha=0.05 beta=0.05"),
            "elo0 < elo1",
        ),
        (format!("--engine cmd={f} depth=1 --engine cmd={f} depth=1 --constellations"), "haberkorn"),
        (format!("--engine cmd={f} depth=1 --engine cmd={f} depth=1 --openings file=/no/such/file"), "cannot read"),
        (format!("--engine cmd={f} tc=fast --engine cmd={f} depth=1"), "bad value 'fast'"),
    ];
    for (args, message) in cases {
        let out = Command::new(CUBIST).arg("match").args(words(&args)).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args}");
        assert!(stderr.contains(message), "{args}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args}: {stderr}");
    }
}

#[test]
fn opening_file_and_constellations() {
    let dir = scratch("openings-file");
    let book = dir.join("book.epd");
    let start = cubist::core::Variant::hdc().start_fen();
    let epd: Vec<&str> = start.split_whitespace().take(4).collect();
    std::fs::write(&book, format!("# one opening\n{} id \"start\";\n", epd.join(" "))).unwrap();
    let f = fake();
    let args = words(&format!(
        "--engine cmd={f} name=a --engine cmd={f} name=b --each depth=1 --maxmoves 2 --rounds 2 \
         --openings file={} format=epd order=sequential",
        book.display()
    ));
    let o = run_match("openings", &args);
    results_add_up(&o, 4);
    assert!(o.records.iter().all(|r| r.fen == start));
}

// ---- with Cubist's UCI loop -------------------------------------------------

#[test]
fn cubist_vs_cubist_depth_1() {
    let args = words(&format!(
        "--engine cmd={e} name=one --engine cmd={e} name=two --each depth=1 \
         --games 4 --concurrency 2 --maxmoves 40",
        e = engine()
    ));
    let o = run_match("cubist-depth1", &args);
    results_add_up(&o, 4);
    let table_total: u64 = ["wins", "draws", "losses"].iter().map(|k| o.json["pairings"][0][k].as_u64().unwrap()).sum();
    assert_eq!(table_total, 4);
}

#[test]
fn cubist_in_haberkorn_constellations() {
    let args = words(&format!(
        "--engine cmd={e} name=one --engine cmd={e} name=two option.Strategy=random --each depth=1 \
         --variant haberkorn --layers 3 --constellations --rounds 3 --random-plies 2 --maxmoves 20",
        e = engine()
    ));
    let o = run_match("cubist-constellations", &args);
    results_add_up(&o, 6);
    let layers: Vec<(u8, u8)> = o.records.iter().map(|r| (r.variant.white_layer, r.variant.black_layer)).collect();
    assert_eq!(layers, [(0, 0), (0, 0), (0, 1), (0, 1), (0, 2), (0, 2)]);
}

#[test]
fn silent_and_wrapped_faults_lose() {
    // The fake without `readyok`: silent from the start, and answering
    // three times, then silent in the middle of the first game. Then a
    // wrapped Cubist (the fake relays to it) with each fault. The silent
    // ones wait longest (the ready timeout, twice): all run side by side.
    let cases = [
        ("noready", "--noready", "depth=1", Termination::NoReadyok, true, false),
        ("noready-mid", "--noready --ready-answers 3", "depth=1", Termination::NoReadyok, true, false),
        ("w-noready", "--noready --ready-answers 3", "depth=1", Termination::NoReadyok, true, true),
        ("w-crash", "--crash-at 3", "depth=1", Termination::Crash, true, true),
        ("w-illegal", "--illegal-at 3", "depth=1", Termination::IllegalMove, false, true),
        ("w-garbage", "--garbage-at 3", "depth=1", Termination::MalformedMove, false, true),
    ];
    let runs: Vec<(&str, &str, &str, bool)> = cases.iter().map(|c| (c.0, c.1, c.2, c.5)).collect();
    let outcomes = fault_matches(&runs);
    for (o, c) in outcomes.iter().zip(&cases) {
        assert_fault(o, c.3, c.4);
    }
    assert!(outcomes[0].records.iter().all(|r| r.moves.is_empty()), "silent from the start");
    assert!(!outcomes[1].records[0].moves.is_empty(), "silent in the middle");
    // Timed: alone, so that no other match takes its clock's time.
    let o = fault_match("w-slow", "--slow-at 3 --sleep 1.5", "tc=1+0", true);
    assert_fault(&o, Termination::TimeForfeit, true);
}

// ---- issue 12: fastchess spelling, records, outputs, lazy schedule --------

/// A command line shaped like fastchess's README example
/// (`-engine cmd=… name=… -engine … -each tc=10+0.1 -rounds 200 -repeat -concurrency 4`),
/// shortened, with fastchess's `-recover`, `-randomseed`, `-pgnout file=` and `-log file=`.
#[test]
fn fastchess_command_lines_run_unchanged() {
    let dir = scratch("fastchess");
    let (pgn, log, err) = (dir.join("games.pgn"), dir.join("match.log"), dir.join("engine2.err"));
    let line = format!(
        "match -engine cmd={e} name=Engine1 -engine cmd={e} name=Engine2 stderr={err} -each tc=0:05+0.05 \
         option.Hash=8 -rounds 1 -repeat -concurrency 2 -recover -randomseed -maxmoves 4 -pgnout file={pgn} \
         notation=san -log file={log}",
        e = engine(),
        err = err.display(),
        pgn = pgn.display(),
        log = log.display()
    );
    let out = Command::new(CUBIST).args(words(&line)).env("RUST_LOG", "cubist::uci=debug").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    let records = parse_records(&text).unwrap();
    assert_eq!(records.len(), 2);
    assert!(text.contains("[SetUp \"1\"]\n[FEN \""), "{text}");
    for r in &records {
        assert_eq!(r.time_control, "5+0.05");
        assert_eq!(r.move_comments.len(), r.moves.len(), "{text}");
        for c in &r.move_comments {
            // cutechess's form: `+0.35/12 0.101s` (just the time when a search ended before any report).
            let (score, time) = c.split_once(' ').unwrap_or(("", c));
            if !score.is_empty() {
                let (value, depth) = score.split_once('/').unwrap_or_else(|| panic!("comment {c:?}"));
                assert!(value.starts_with(['+', '-']) && depth.parse::<u32>().is_ok(), "{c}");
            }
            assert!(time.ends_with('s') && time.trim_end_matches('s').parse::<f64>().is_ok(), "{c}");
        }
        assert!(r.move_comments.iter().any(|c| c.contains('/')), "{text}");
    }
    let log = std::fs::read_to_string(&log).unwrap();
    for needle in ["] Engine1 > uci", "] Engine2 < uciok", "] Engine1 > go wtime", "] Engine2 < bestmove "] {
        assert!(log.contains(needle), "{needle} missing from the log:\n{log}");
    }
    assert!(log.lines().all(|l| l.len() > 14 && l.as_bytes()[0] == b'[' && &l[13..15] == "] "), "{log}");
    let engine_err = std::fs::read_to_string(&err).unwrap();
    assert!(engine_err.contains("<< uci"), "the engine's stderr is kept: {engine_err}");
}

#[test]
fn an_output_path_that_cannot_be_written_stops_the_match_before_any_game() {
    let f = fake();
    for flag in ["--results-json", "--pgnout", "--log"] {
        let args = words(&format!(
            "match --engine cmd={f} name=a --engine cmd={f} name=b --each depth=1 --rounds 3 {flag} /no/such/dir/out"
        ));
        let start = std::time::Instant::now();
        let out = Command::new(CUBIST).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flag}");
        assert!(stderr.contains("cannot write '/no/such/dir/out'"), "{flag}: {stderr}");
        assert!(!stderr.contains("Finished game"), "{flag}: a game was played first: {stderr}");
        assert!(start.elapsed() < std::time::Duration::from_secs(30));
    }
}

/// `cubist match … | true`: the summary meets a closed stdout; the program ends quietly.
#[test]
fn a_closed_stdout_ends_match_and_perft_quietly() {
    let f = fake();
    let runs = [
        words(&format!("match --engine cmd={f} name=a --engine cmd={f} name=b --each depth=1 --maxmoves 2")),
        words("perft 2 --divide"),
        words("bench depth=1"),
        words("tb generate --variant haberkorn --layers 3 --material KvK"),
    ];
    for args in runs {
        let mut child = Command::new(CUBIST)
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

/// `--rounds 4294967295` used to allocate the whole schedule up front and abort.
#[test]
fn a_huge_number_of_rounds_is_scheduled_lazily() {
    let f = fake();
    let args = words(&format!(
        "--engine cmd={f} name=good --engine cmd={f} name=bad arg=--garbage-at arg=1 arg=--every \
         --each depth=1 --rounds 4294967295 --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 minpairs=3"
    ));
    let o = run_match("huge-rounds", &args);
    assert!(o.ok, "{}", o.stderr);
    assert_eq!(o.json["scheduled"], 2 * u64::from(u32::MAX));
    assert_eq!(o.json["stopped_early"], true);
}

/// A program that cannot be found is named first, before the missing limit,
/// and before any engine is started.
#[test]
fn a_missing_program_is_reported_before_a_missing_limit() {
    for (args, message) in [
        (
            "--engine cmd=/nonexistent --engine cmd=/nonexistent",
            "--engine cmd=/nonexistent: the program does not exist",
        ),
        (
            "--engine cmd=cubist-no-such-program --engine cmd=cubist-no-such-program",
            "--engine cmd=cubist-no-such-program: the program is not on the PATH",
        ),
    ] {
        let out = Command::new(CUBIST).arg("match").args(words(args)).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args}");
        assert!(stderr.starts_with("error: ") && stderr.contains(message), "{args}: {stderr}");
        assert!(!stderr.contains("no limit"), "{args}: {stderr}");
    }
}

#[test]
fn errors_in_each_name_each() {
    let f = fake();
    let out = Command::new(CUBIST)
        .args(words(&format!("match --engine cmd={f} --engine cmd={f} --each depth=x")))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--each: bad value 'x' for depth"), "{stderr}");
    let out = Command::new(CUBIST)
        .args(words(&format!("match --engine cmd={f} --engine cmd={f} depth=x --each depth=1")))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--engine: bad value 'x' for depth"));
}

/// `--constellations --layers 4` failed on the default setup layers (V is
/// beyond 4 layers): the constellations choose the layers themselves.
#[test]
fn constellations_on_four_layers_choose_their_own_setup_layers() {
    let args = words(&format!(
        "--engine cmd={e} name=one --engine cmd={e} name=two option.Strategy=random --each depth=1 \
         --variant haberkorn --layers 4 --constellations --rounds 5 --maxmoves 2",
        e = engine()
    ));
    let o = run_match("constellations-4", &args);
    results_add_up(&o, 10);
    let layers: Vec<(u8, u8)> =
        o.records.iter().step_by(2).map(|r| (r.variant.white_layer, r.variant.black_layer)).collect();
    assert_eq!(layers, [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]);
    assert!(o.records.iter().all(|r| r.variant.layers == 4));
}

// ---- issue 32: engine options checked, error reports counted -----------

/// An `option.X=V` the engine does not announce, or a value outside its
/// range, stops the match before its first game with a one-line error.
#[test]
fn engine_option_errors_stop_the_match_before_its_first_game() {
    let (f, e) = (fake(), engine());
    let cases = [
        (
            format!("--engine cmd={e} name=cubist-dev option.Nonsense=1 --engine cmd={f} name=b"),
            "error: engine 'cubist-dev': option 'Nonsense' is not one of its options (",
        ),
        (format!("--engine cmd={f} name=a --engine cmd={e} name=c option.Hash=0"), "option Hash=0 is out of range 1.."),
        (format!("--engine cmd={f} name=a option.Style=odd --engine cmd={f} name=b"), "is not one of its values"),
        (format!("--engine cmd={f} name=a option.Hash=0 --engine cmd={f} name=b"), "engine 'a': option Hash=0"),
    ];
    for (args, message) in cases {
        let o = run_match("bad-option", &words(&format!("{args} --each depth=1 --rounds 2 --maxmoves 4")));
        assert!(!o.ok, "{args}");
        assert!(o.stderr.contains(message), "{args}: {}", o.stderr);
        assert_eq!(o.stderr.lines().count(), 1, "{args}: one line: {}", o.stderr);
        assert!(o.records.is_empty() && !o.stderr.contains("Finished game"), "{args}: a game was played");
    }
    // Valid options (any case of the name) still play.
    let o = run_match(
        "good-option",
        &words(&format!(
            "--engine cmd={f} name=a option.hash=64 option.Style=WILD --engine cmd={e} name=c option.Hash=8 \
             --each depth=1 --rounds 1 --maxmoves 4 --seed 1"
        )),
    );
    assert!(o.ok, "{}", o.stderr);
    assert_eq!(o.records.len(), 2);
}

/// `info string error…` lines are shown on stderr with the engine's name and counted per engine.
#[test]
fn engine_error_reports_are_shown_and_counted() {
    let f = fake();
    let args = words(&format!(
        "--engine cmd={f} name=a --engine cmd={f} name=noisy arg=--error-line --each depth=1 --rounds 1 \
         --maxmoves 3 --seed 1"
    ));
    let o = run_match("error-lines", &args);
    results_add_up(&o, 2);
    let shown = o.stderr.lines().filter(|l| l.starts_with("noisy: info string error")).count();
    assert!(shown >= 2, "{}", o.stderr);
    let count = |name: &str| {
        o.json["standings"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()["error_lines"].as_u64()
    };
    assert_eq!(count("noisy"), Some(shown as u64));
    assert_eq!(count("a"), Some(0));
}

// ---- issue 32: fastchess / cutechess-cli spellings ----------------------

/// A cutechess-cli command line: `-output format=cutechess`, `-wait`, `-event`,
/// `-site`, `-noswap`, `-ratinginterval`, `-scoreinterval`, `-report penta=…`,
/// `-pgnout FILE min`, and the engine keys `plies=`, `args="…"`, `dir=` and `restart=on`.
#[test]
fn cutechess_command_lines_run_unchanged() {
    let dir = scratch("cutechess");
    let pgn = dir.join("games.pgn");
    let mut line = words(&format!(
        "match -engine cmd={f} name=a dir={d} restart=on -engine cmd={f} name=b plies=1 -each depth=1 -rounds 2 \
         -maxmoves 4 -seed 1 -output format=cutechess -wait 10 -event Test-Event -site Here -noswap \
         -ratinginterval 2 -scoreinterval 1 -report penta=true -pgnout {p} min",
        f = fake(),
        d = dir.display(),
        p = pgn.display()
    ));
    // One argument, as the shell hands `args="--touch starts.txt --score 7"` over.
    line.insert(6, "args=--touch starts.txt --score 7".into());
    let out = Command::new(CUBIST).args(&line).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let records = parse_records(&std::fs::read_to_string(&pgn).unwrap()).unwrap();
    assert_eq!(records.len(), 4);
    for r in &records {
        assert_eq!((r.event.as_str(), r.site.as_str(), r.white.as_str()), ("Test-Event", "Here", "a"), "-noswap");
        assert_eq!(r.time_control, "depth=1");
    }
    // args= reached the engine (its scores), dir= is its working directory, restart=on a process per game.
    assert!(records[0].move_comments.iter().any(|c| c.starts_with("+0.07/1")), "{:?}", records[0].move_comments);
    let starts = std::fs::read_to_string(dir.join("starts.txt")).unwrap();
    assert_eq!(starts.lines().count(), 1 + records.len(), "the check before the match, then one per game");
    let score_lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Score of a vs b: ")).collect();
    assert_eq!(score_lines.len(), 4, "{stderr}");
    assert!(score_lines[3].ends_with("] 4") && score_lines[3].contains(" - "), "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("Elo difference: ")).count(), 2, "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("Ptnml(0-2): [")).count(), 2, "{stderr}");
}

/// fastchess's format (the default, also by name) prints its results every `-scoreinterval` games.
#[test]
fn fastchess_output_format_and_intervals() {
    let line = words(&format!(
        "match -engine cmd={f} name=a -engine cmd={f} name=b -each depth=1 -rounds 2 -maxmoves 4 -seed 1 \
         -output format=fastchess -scoreinterval 2 -ratinginterval 4 -report penta=false",
        f = fake()
    ));
    let out = Command::new(CUBIST).args(&line).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("Results of a vs b: Games: ")).count(), 2, "{stderr}");
    let elo: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Elo: ")).collect();
    assert_eq!(elo.len(), 1, "{stderr}");
    assert!(!elo[0].contains("Ptnml"), "penta=false: {stderr}");
    assert!(!stderr.contains("Score of"), "{stderr}");
}

/// Options without meaning here are refused by the name the user typed, before any game.
#[test]
fn options_without_meaning_are_refused_by_their_own_name() {
    let f = fake();
    let base = format!("match -engine cmd={f} name=a -engine cmd={f} name=b -each depth=1");
    for (extra, message) in [
        ("-tournament knockout", "error: '-tournament knockout': cubist match has no such option"),
        ("-config outname=x.json", "error: '-config outname=x.json': only -config file=FILE"),
        ("-output format=xml", "--output: bad value 'xml'"),
        ("-report penta=maybe", "--report: bad value 'maybe'"),
    ] {
        let out = Command::new(CUBIST).args(words(&format!("{base} {extra}"))).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra}");
        assert!(stderr.contains(message), "{extra}: {stderr}");
        assert!(!stderr.contains("'-t'") && !stderr.contains("Finished game"), "{extra}: {stderr}");
    }
}
