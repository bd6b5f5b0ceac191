//! `cubist analyse` as a user runs it: a match's records come back with an
//! eval on every move, marks and better lines that the record reader reads,
//! the same whatever the thread count; a bad record is named and skipped; a
//! second run on the same output goes on after the games done; bad
//! arguments get a clear error.

use cubist::Variant;
use cubist::record::{GameRecord, GameResult, Termination, parse_records};
use std::path::Path;
use std::process::{Command, Output};

use crate::common::{CUBIST, Scratch};

/// A record of `moves` from the start of an 8-layer haberkorn game.
fn record(round: &str, moves: &[&str]) -> GameRecord {
    let variant = Variant::haberkorn_with(8, 2, 7, true, true).unwrap();
    GameRecord {
        event: "analyse test".into(),
        site: "here".into(),
        date: "2026.12.04".into(),
        round: round.into(),
        white: "a".into(),
        black: "b".into(),
        result: GameResult::Unfinished,
        variant,
        fen: variant.start_fen(),
        time_control: "nodes=1".into(),
        termination: Termination::Unterminated,
        moves: moves.iter().map(|m| m.to_string()).collect(),
        move_comments: Vec::new(),
        comment: String::new(),
        notes: Vec::new(),
        extra_tags: Vec::new(),
    }
}

/// Two short games and, between them, one that does not replay (game 2).
fn input(dir: &Path) -> std::path::PathBuf {
    let mut text = Vec::new();
    record("1", &["e2-IIe4-II", "e7-VIIe5-VII", "d1-IIh5-II", "b8-VIIc6-VII"]).write(&mut text).unwrap();
    let mut bad = Vec::new();
    record("2", &["e2-IIe4-II"]).write(&mut bad).unwrap();
    text.extend(String::from_utf8(bad).unwrap().replace("e2-IIe4-II", "e2-IIe5-II").into_bytes());
    record("3", &["d2-IId4-II", "d7-VIId5-VII", "c1-IIf4-II"]).write(&mut text).unwrap();
    let path = dir.join("games.pgn");
    std::fs::write(&path, text).unwrap();
    path
}

fn analyse(args: &[&str]) -> Output {
    Command::new(CUBIST).arg("analyse").args(args).output().expect("cubist runs")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn records_come_back_annotated_and_a_bad_one_is_skipped_by_number() {
    let dir = Scratch::new("analyse");
    let games = input(&dir);
    let (one, two) = (dir.join("one.pgn"), dir.join("two.pgn"));
    let run = |out: &Path, threads: &str| {
        analyse(&[games.to_str().unwrap(), "--out", out.to_str().unwrap(), "--nodes", "2000", "--threads", threads])
    };
    let o = run(&one, "1");
    assert!(o.status.success(), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains("skipped game 2: game 2: move 1 'e2-IIe5-II' does not replay"), "{said}");
    assert!(said.contains("2 games analysed (0 found done), 9 positions"), "{said}");
    let written = std::fs::read_to_string(&one).unwrap();
    let back = parse_records(&written).expect("the reader reads the analysis");
    assert_eq!(back.len(), 2);
    assert_eq!(back[0].moves.len(), 4);
    for rec in &back {
        assert_eq!(rec.move_comments.len(), rec.moves.len());
        assert!(rec.move_comments.iter().all(|c| c.starts_with("[%eval ")), "{:?}", rec.move_comments);
        assert!(rec.extra_tag("Annotator").is_some_and(|a| a.contains("analyse nodes=2000")));
        for side in ["White", "Black"] {
            assert!(rec.extra_tag(&format!("{side}AverageLoss")).is_some_and(|l| l.parse::<u32>().is_ok()));
            assert!(rec.extra_tag(&format!("{side}Marks")).is_some_and(|m| m.starts_with("inaccuracies ")));
        }
    }
    // Whatever is marked has its better line, and only that.
    for rec in &back {
        for (note, comment) in rec.notes.iter().zip(&rec.move_comments) {
            assert_eq!(note.mark.is_some(), !note.variation.is_empty(), "{note:?} {comment}");
        }
    }
    // Two workers give the same records: each position is searched from a cleared engine.
    let o = run(&two, "2");
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&two).unwrap(), written);
    // Run again on the same output: nothing left to do, nothing rewritten.
    let o = run(&one, "2");
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("0 games analysed (2 found done)"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&one).unwrap(), written);
}

#[test]
fn an_interrupted_output_is_resumed_and_a_foreign_one_refused() {
    let dir = Scratch::new("analyse-resume");
    let games = input(&dir);
    let (whole, part) = (dir.join("whole.pgn"), dir.join("part.pgn"));
    let run = |out: &Path| analyse(&[games.to_str().unwrap(), "-o", out.to_str().unwrap(), "--depth", "2"]);
    assert!(run(&whole).status.success());
    let written = std::fs::read_to_string(&whole).unwrap();
    // The first game only, as a run stopped after it leaves the file.
    let first_end = written.find("[Event").and_then(|s| written[s + 1..].find("[Event").map(|e| s + 1 + e)).unwrap();
    std::fs::write(&part, &written[..first_end]).unwrap();
    let o = run(&part);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("1 games analysed (1 found done)"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&part).unwrap(), written);
    // An output that holds other games is not appended to.
    let mut other = Vec::new();
    record("1", &["a2-IIa3-II"]).write(&mut other).unwrap();
    std::fs::write(&part, &other).unwrap();
    let o = run(&part);
    assert!(!o.status.success());
    assert!(text(&o).contains("not an analysis of"), "{}", text(&o));
    assert_eq!(std::fs::read(&part).unwrap(), other, "the foreign file is left as it was");
}

#[test]
fn bad_arguments_get_a_clear_error() {
    let dir = Scratch::new("analyse-args");
    let out = dir.join("out.pgn");
    let o = analyse(&["/nonexistent/games.pgn", "-o", out.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("/nonexistent/games.pgn"), "{}", text(&o));
    let empty = dir.join("empty.pgn");
    std::fs::write(&empty, "").unwrap();
    let o = analyse(&[empty.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("no game record could be read"), "{}", text(&o));
    let o = analyse(&[empty.to_str().unwrap(), "-o", out.to_str().unwrap(), "--nodes", "0"]);
    assert!(!o.status.success());
    assert!(!out.exists(), "no output is made for a run refused");
}
