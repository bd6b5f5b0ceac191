//! A game's analysis in the replay: each move's eval, mark and better line
//! in the replay data, and `POST /api/analyse` annotating a game as
//! `cubist analyse` does, at a bounded cost.

use super::common::{annotated_record, games_dir, http, record_text, server};
use cubist::record::parse_records;
use serde_json::{Value, json};

fn analysis(replay: &Value) -> &Vec<Value> {
    replay["analysis"].as_array().expect("analysis per move")
}

#[test]
fn a_replay_carries_each_moves_eval_mark_and_better_line() {
    let dir = games_dir("replay-analysis");
    let srv = server(vec![], &dir);
    let addr = srv.addr();
    let rec = annotated_record(12);
    let (status, replay) = http(addr, "POST", "/api/replay", Some(&record_text(&rec)));
    assert_eq!(status, 200, "{replay}");
    let a = analysis(&replay);
    assert_eq!(a.len(), 12);
    assert_eq!(a[0], json!({"eval": 0.0, "mate": null, "chances": 0.0, "mark": null, "better": "", "tablebase": null}));
    assert_eq!(a[1]["eval"], json!(0.79));
    // White's chances on the curve of `cubist analyse` (hdc: 75% at 614 cp, chances 0.5).
    let c = a[1]["chances"].as_f64().unwrap();
    assert!(c > 0.0 && c < 0.5, "{c}");
    assert_eq!(
        (a[2]["mark"].as_str(), a[4]["mark"].as_str(), a[7]["mark"].as_str()),
        (Some("?!"), Some("?"), Some("??"))
    );
    assert_eq!(a[2]["better"], "2... better-2 {[%eval 0.50]}");
    assert_eq!((a[11]["eval"].clone(), a[11]["mate"].clone()), (Value::Null, json!(3)));
    assert_eq!(a[11]["chances"], json!(1.0));
    assert_eq!(replay["summary"]["white_average_loss"], "120");
    assert_eq!(replay["summary"]["black_marks"], "1 ?");
    assert!(replay["chance_slope"].as_f64().unwrap() > 0.0);
    let tags = replay["tags"].as_array().unwrap();
    assert!(tags.contains(&json!(["Annotator", "test"])), "{tags:?}");

    // A record without analysis: nothing per move, no summary.
    let mut bare = rec.clone();
    bare.move_comments.clear();
    bare.notes.clear();
    bare.extra_tags.clear();
    let (status, replay) = http(addr, "POST", "/api/replay", Some(&record_text(&bare)));
    assert_eq!(status, 200, "{replay}");
    assert!(
        analysis(&replay)
            .iter()
            .all(|m| m["eval"].is_null() && m["mate"].is_null() && m["chances"].is_null() && m["mark"].is_null())
    );
    assert!(replay["summary"].is_null());
}

#[test]
fn the_analyse_route_annotates_a_game_and_refuses_absurd_requests() {
    let dir = games_dir("analyse-route");
    let srv = server(vec![], &dir);
    let addr = srv.addr();
    let mut rec = annotated_record(6);
    rec.move_comments.clear();
    rec.notes.clear();
    rec.extra_tags.clear();
    let text = record_text(&rec);
    let (status, out) = http(addr, "POST", "/api/analyse", Some(&json!({"text": text, "nodes": 2000}).to_string()));
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["type"], "replay");
    assert_eq!(out["nodes"], 2000);
    let a = analysis(&out);
    assert_eq!(a.len(), 6);
    assert!(a.iter().all(|m| m["eval"].is_number() || m["mate"].is_number()), "{a:?}");
    assert!(out["summary"]["annotator"].as_str().unwrap().contains("GUI analysis, 2000 nodes"), "{out}");
    assert_eq!(out["boards"].as_array().unwrap().len(), 7);
    // The annotated record comes back as text, every move with its eval.
    let back = parse_records(out["record"].as_str().unwrap()).unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].moves, rec.moves);
    assert!(back[0].move_comments.iter().all(|c| c.starts_with("[%eval ")), "{:?}", back[0].move_comments);

    // A file of the games folder, left as it is; a game's index.
    let two = format!("{text}{text}");
    std::fs::write(dir.join("two.pgn"), &two).unwrap();
    let (status, out) = http(addr, "POST", "/api/analyse", Some(r#"{"file": "two.pgn", "game": 1, "nodes": 500}"#));
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["game"], 1);
    assert_eq!(out["games"].as_array().unwrap().len(), 2);
    let back = parse_records(out["record"].as_str().unwrap()).unwrap();
    assert!(back[0].move_comments.is_empty() && !back[1].move_comments.is_empty());
    assert_eq!(std::fs::read_to_string(dir.join("two.pgn")).unwrap(), two);

    // Refused: no record or two, nodes out of range, over the budget, a missing game or file, junk.
    let text = json!(text);
    for (body, status, words) in [
        (json!({"nodes": 100}), 400, "not both"),
        (json!({"text": text, "file": "two.pgn"}), 400, "not both"),
        (json!({"text": text, "nodes": 0}), 400, "nodes 0"),
        (json!({"text": text, "nodes": 5_000_000}), 400, "nodes 5000000"),
        (json!({"text": text, "game": 3}), 400, "no game 4"),
        (json!({"file": "missing.pgn"}), 404, "missing.pgn"),
        (json!({"file": "../two.pgn"}), 400, "not a record file name"),
        (json!({"text": "[Event \"x\"]\n\n1. e2-IVe5-IV 1-0\n"}), 400, ""),
        (json!({"text": text, "depth": 3}), 400, "unknown field"),
    ] {
        let (got, out) = http(addr, "POST", "/api/analyse", Some(&body.to_string()));
        assert_eq!(got, status, "{body}: {out}");
        assert!(out["error"].as_str().unwrap().contains(words), "{body}: {out}");
    }
    // Over the budget: 41 positions at 1,000,000 nodes.
    let long = record_text(&annotated_record(40));
    let (got, out) = http(addr, "POST", "/api/analyse", Some(&json!({"text": long, "nodes": 1_000_000}).to_string()));
    assert_eq!(got, 400, "{out}");
    assert!(out["error"].as_str().unwrap().contains("fewer nodes"), "{out}");
}
