//! Resumable matches (issue 33): a seeded, depth-limited Cubist match
//! interrupted by SIGINT (once and twice) or killed by SIGKILL, then resumed
//! with `--resume` (or fastchess's `-config file=`), gives exactly the counts,
//! the LLR and the records of the uninterrupted match; a resume under another
//! engine option or program, or from a bad state file, is refused with a
//! clear error and leaves the state as it was.

use cubist::record::{GameRecord, parse_records};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use crate::common::{CUBIST, Scratch};

/// A fresh scratch directory for one test, removed when it ends.
fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("resume-{name}"))
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// A deterministic match (the one of tests/shard.rs): Cubist at depth 2
/// against Cubist at depth 1, one thread each, random opening plies from the
/// seed, resign adjudication, and an SPRT whose LLR is compared.
fn deterministic_match(program: &str, dir: &Path) -> Vec<String> {
    words(&format!(
        "match --engine cmd={program} name=deep depth=2 --engine cmd={program} name=shallow depth=1 \
         --each option.Threads=1 option.Hash=1 --rounds 5 --random-plies 3 --maxmoves 14 \
         --resign movecount=2 score=250 --seed 11 --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 minpairs=1000 \
         --pgnout {0}/games.pgn --results-json {0}/results.json",
        dir.display()
    ))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn cubist(args: &[String]) -> Output {
    Command::new(CUBIST).args(args).output().expect("cubist runs")
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The records without what differs from run to run: the date and the time each move took.
fn canonical(dir: &Path) -> Vec<GameRecord> {
    let mut games = parse_records(&std::fs::read_to_string(dir.join("games.pgn")).unwrap()).unwrap();
    for g in &mut games {
        g.date.clear();
        for c in &mut g.move_comments {
            *c = c.rsplit_once(' ').map_or(String::new(), |(score, _)| score.to_string());
        }
    }
    games
}

/// A running `cubist`, its stderr read line by line in the background.
struct Running {
    child: Child,
    rest: std::thread::JoinHandle<Vec<String>>,
}

/// Starts `cubist` and returns once it has reported `games` finished games (or ended).
fn start_until(args: &[String], games: usize) -> Running {
    let mut child =
        Command::new(CUBIST).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("cubist starts");
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let rest = std::thread::spawn(move || {
        let mut all = Vec::new();
        for line in stderr.lines() {
            let line = line.unwrap_or_default();
            if line.starts_with("Finished game") {
                let _ = tx.send(());
            }
            all.push(line);
        }
        all
    });
    for _ in 0..games {
        if rx.recv().is_err() {
            break;
        }
    }
    Running { child, rest }
}

/// Sends SIGINT and waits: the match must end with status 130 and say how to resume; returns its stderr.
fn interrupt(running: Running) -> String {
    let pid = running.child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let out = running.child.wait_with_output().unwrap();
    let stderr = running.rest.join().unwrap().join("\n");
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    stderr
}

/// The uninterrupted match in `dir`.
fn whole(dir: &Path) -> (Value, Vec<GameRecord>) {
    let out = cubist(&deterministic_match(CUBIST, dir));
    assert!(out.status.success(), "{}", text(&out.stderr));
    (json(&dir.join("results.json")), canonical(dir))
}

/// The results of `dir` are those of the uninterrupted match: counts, SPRT state and records.
fn assert_same(dir: &Path, reference: &(Value, Vec<GameRecord>)) {
    let results = json(&dir.join("results.json"));
    for key in ["engines", "games", "scheduled", "stopped_early", "pairings", "standings", "terminations", "sprt"] {
        assert_eq!(results[key], reference.0[key], "{key}");
    }
    assert_eq!(results["fingerprint"], reference.0["fingerprint"]);
    assert_eq!(canonical(dir), reference.1);
}

/// The results JSON of an interrupted match is complete for the games kept, and the records hold just those.
fn assert_consistent_partial(dir: &Path) -> u64 {
    let results = json(&dir.join("results.json"));
    let games = results["games"].as_u64().unwrap();
    assert_eq!(games % 2, 0, "only whole game pairs are kept");
    assert_eq!(canonical(dir).len() as u64, games);
    let p = &results["pairings"][0];
    let counted: u64 = ["wins", "draws", "losses"].iter().map(|k| p[k].as_u64().unwrap()).sum();
    assert_eq!(counted, games);
    games
}

#[test]
fn interrupted_and_resumed_matches_equal_the_uninterrupted_one() {
    let reference = whole(&scratch("whole"));
    assert_eq!(reference.0["games"], 10);

    // SIGINT once after the third game, then `--resume`.
    let dir = scratch("sigint");
    let stderr = interrupt(start_until(&deterministic_match(CUBIST, &dir), 3));
    let state = dir.join("results.state");
    assert!(stderr.contains(&format!("resume with: cubist match --resume {}", state.display())), "{stderr}");
    let kept = assert_consistent_partial(&dir);
    assert!(kept < 10, "{kept} games kept");
    let out = cubist(&words(&format!("match --resume {}", state.display())));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_same(&dir, &reference);

    // SIGINT twice, the second resume spelt as fastchess does, the last with the full command line.
    let dir = scratch("sigint-twice");
    let state = dir.join("results.state");
    interrupt(start_until(&deterministic_match(CUBIST, &dir), 2));
    interrupt(start_until(&words(&format!("match -config file={}", state.display())), 3));
    assert_consistent_partial(&dir);
    let mut again = deterministic_match(CUBIST, &dir);
    again.extend(words(&format!("--resume {}", state.display())));
    let out = cubist(&again);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_same(&dir, &reference);
    // A finished match resumed plays nothing more.
    let out = cubist(&words(&format!("match --resume {}", state.display())));
    assert!(out.status.success() && text(&out.stderr).contains("nothing is left to play"), "{}", text(&out.stderr));
    assert_same(&dir, &reference);
}

#[test]
fn a_killed_match_resumes_replaying_only_the_pairs_in_progress() {
    let reference = whole(&scratch("whole-kill"));
    let dir = scratch("sigkill");
    let state = dir.join("results.state");
    for games in [3, 2] {
        let args = if state.exists() {
            words(&format!("match --resume {}", state.display()))
        } else {
            deterministic_match(CUBIST, &dir)
        };
        let mut running = start_until(&args, games);
        running.child.kill().unwrap();
        running.child.wait().unwrap();
        // The results JSON is never torn: it holds the game pairs of the last saved state (or, killed
        // between the two writes, one pair more).
        let kept = json(&dir.join("results.json"))["games"].as_u64().unwrap();
        let saved = json(&state)["progress"]["games"].as_u64().unwrap();
        assert!(kept == saved || kept == saved + 2, "{kept} games in the JSON, {saved} in the state");
    }
    let out = cubist(&words(&format!("match --resume {}", state.display())));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_same(&dir, &reference);
}

#[test]
fn a_resume_under_other_settings_or_programs_is_refused() {
    let dir = scratch("refused");
    // A copy of the engine, to change it afterwards.
    let program = dir.join("engine");
    std::fs::copy(CUBIST, &program).unwrap();
    let program = program.display().to_string();
    let state = dir.join("results.state");
    interrupt(start_until(&deterministic_match(&program, &dir), 2));
    let before = std::fs::read(&state).unwrap();
    let refused = |args: Vec<String>, message: &str| {
        let out = cubist(&args);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{args:?} ran");
        assert!(stderr.starts_with("error: ") && stderr.contains(message), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(std::fs::read(&state).unwrap(), before, "the state is left as it was");
    };
    let resume = words(&format!("--resume {}", state.display()));
    // Another engine option on the command line.
    let mut other = deterministic_match(&program, &dir);
    other.iter_mut().filter(|w| *w == "option.Hash=1").for_each(|w| *w = "option.Hash=2".into());
    other.extend(resume.clone());
    refused(other, "match.engines[0].options[1][1] is \"2\" on this command line but \"1\" in the state");
    // Another seed.
    let mut other = deterministic_match(&program, &dir);
    other.iter_mut().filter(|w| *w == "11").for_each(|w| *w = "12".into());
    other.extend(resume.clone());
    refused(other, "match.seed is 12");
    // An edited state.
    let edited = dir.join("edited.json");
    std::fs::write(&edited, text(&before).replacen("\"depth=2\"", "\"depth=3\"", 1)).unwrap();
    let out = cubist(&words(&format!("match --resume {}", edited.display())));
    assert!(!out.status.success() && text(&out.stderr).contains("was it edited?"), "{}", text(&out.stderr));
    // Bad state files.
    for (content, message) in [
        ("", "is not a match state"),
        ("{\"format\": \"something else\"}", "its format is 'something else'"),
        ("[1, 2", "is not a match state"),
    ] {
        std::fs::write(&edited, content).unwrap();
        let out = cubist(&words(&format!("match --resume {}", edited.display())));
        let stderr = text(&out.stderr);
        assert!(!out.status.success() && stderr.contains(message) && !stderr.contains("panicked"), "{stderr}");
    }
    let out = cubist(&words(&format!("match --resume {}/no-such-state.json", dir.display())));
    assert!(!out.status.success() && text(&out.stderr).contains("cannot read the match state"));
    // A fresh match does not overwrite the state of an unfinished one.
    refused(deterministic_match(&program, &dir), "holds the state of an unfinished match");
    // Another program: the engine file changed.
    std::fs::write(&program, b"#!/bin/sh\nexit 1\n").unwrap();
    refused(words(&format!("match --resume {}", state.display())), "engine 1 'deep': its program is now");
}
