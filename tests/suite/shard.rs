//! Sharded matches and `cubist merge` (issue 13), end to end with the built
//! binary: the shards of a depth-limited Cubist match merge into exactly the
//! unsharded match (counts, table, records up to order); a shard plays all its
//! games whatever its SPRT says; merge refuses mismatched, duplicate,
//! truncated and foreign input with a clear error.
//!
//! The ignored test runs the GNU parallel recipe of docs/sharding.md and the
//! wave driver `scripts/sprt-shards.sh`; `.ci/run` installs `parallel` and
//! runs it (`cargo test --release --test suite -- --ignored shard::`).

use cubist::record::{GameRecord, parse_records};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::{CUBIST, Scratch};

/// A fresh scratch directory for one test, removed when it ends.
fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("shard-{name}"))
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

fn fake() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/fake_engine.py").display().to_string()
}

/// A deterministic match: Cubist at depth 2 against Cubist at depth 1 (one
/// thread each), random opening plies from the seed so that every round
/// differs, resign adjudication for decisive games, and an SPRT that cannot
/// decide this early (its LLR is compared).
fn deterministic_match(seed: u64) -> Vec<String> {
    words(&format!(
        "--engine cmd={CUBIST} name=deep depth=2 --engine cmd={CUBIST} name=shallow depth=1 \
         --each option.Threads=1 option.Hash=1 --rounds 5 --random-plies 3 --maxmoves 14 --resign movecount=2 score=250 --seed {seed} \
         --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 minpairs=1000"
    ))
}

/// Runs the binary.
fn cubist(args: &[String]) -> Output {
    Command::new(CUBIST).args(args).output().expect("cubist runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `cubist match` with `extra` arguments, writing `<stem>.json` and `<stem>.pgn` in `dir`; returns the table.
fn play(dir: &Path, stem: &str, args: &[String], extra: &str) -> String {
    let mut all = vec!["match".to_string()];
    all.extend(args.iter().cloned());
    all.extend(words(extra));
    all.extend(words(&format!("--results-json {0}/{stem}.json --pgnout {0}/{stem}.pgn", dir.display())));
    let out = cubist(&all);
    assert!(out.status.success(), "{all:?}\n{}", text(&out.stderr));
    text(&out.stdout)
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn records(path: &Path) -> Vec<GameRecord> {
    parse_records(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Records in a canonical order, without what differs from run to run: the
/// date and the time each move took (`+0.35/2 0.012s` keeps `+0.35/2`).
fn canonical(mut games: Vec<GameRecord>) -> Vec<GameRecord> {
    for g in &mut games {
        g.date.clear();
        for c in &mut g.move_comments {
            *c = c.rsplit_once(' ').map_or(String::new(), |(score, _)| score.to_string());
        }
    }
    games.sort_by(|a, b| (&a.round, &a.white).cmp(&(&b.round, &b.white)));
    games
}

/// The table without the `shards:` line a merge adds.
fn without_shards_line(table: &str) -> String {
    table.lines().filter(|l| !l.starts_with("shards: ")).collect::<Vec<_>>().join("\n")
}

/// `cubist merge` with these arguments: its exit status, stdout and stderr.
fn merge(args: &[String]) -> (bool, String, String) {
    let mut all = vec!["merge".to_string()];
    all.extend(args.iter().cloned());
    let out = cubist(&all);
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

fn paths(dir: &Path, names: &[&str]) -> Vec<String> {
    names.iter().map(|n| dir.join(n).display().to_string()).collect()
}

/// Merge refuses `args` with an error that says `message`, and writes no output.
fn refused(args: Vec<String>, message: &str) {
    let (ok, stdout, stderr) = merge(&args);
    assert!(!ok, "{args:?} merged:\n{stdout}");
    assert!(stderr.starts_with("error: ") && stderr.contains(message), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Compares the merged results with the unsharded ones: counts, SPRT, table and records.
fn assert_same_as_unsharded(dir: &Path, merged_table: &str, whole_table: &str) {
    let (whole, merged) = (json(&dir.join("whole.json")), json(&dir.join("merged.json")));
    assert_eq!(merged["games"], 10);
    for key in ["engines", "games", "scheduled", "pairings", "standings", "terminations", "sprt"] {
        assert_eq!(merged[key], whole[key], "{key}");
    }
    assert_eq!(merged["shards"], serde_json::json!({"count": 4, "indices": [1, 2, 3, 4]}));
    assert_eq!(without_shards_line(merged_table), without_shards_line(whole_table));
    assert!(merged_table.contains("shards: all 4 (match "), "{merged_table}");
    let (whole_games, merged_games) = (records(&dir.join("whole.pgn")), records(&dir.join("merged.pgn")));
    // Merged records come in schedule order.
    let order: Vec<&str> = merged_games.iter().map(|r| r.round.as_str()).collect();
    assert_eq!(order, ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2", "4.1", "4.2", "5.1", "5.2"]);
    assert_eq!(canonical(merged_games), canonical(whole_games));
}

#[test]
fn shards_merge_into_exactly_the_unsharded_match() {
    let dir = scratch("exact");
    let args = deterministic_match(5);
    let whole_table = play(&dir, "whole", &args, "--concurrency 2");
    for k in 1..=4 {
        // fastchess's one-dash spelling for one of them.
        let flag = if k == 3 { "-shard" } else { "--shard" };
        let table = play(&dir, &format!("s{k}"), &args, &format!("{flag} {k}/4"));
        assert!(table.contains(&format!("shards: {k}/4 (match ")), "{table}");
        // 5 rounds in blocks of one round's pair: shard 1 gets rounds 1 and 5, the others one round.
        assert_eq!(json(&dir.join(format!("s{k}.json")))["games"], if k == 1 { 4 } else { 2 });
    }
    let fingerprints: Vec<Value> =
        (1..=4).map(|k| json(&dir.join(format!("s{k}.json")))["fingerprint"].clone()).collect();
    assert!(fingerprints.iter().all(|f| *f == fingerprints[0]));

    let mut args = paths(&dir, &["s4.json", "s2.json", "s1.json", "s3.json"]);
    args.extend(words(&format!("--results-json {0}/merged.json --pgnout {0}/merged.pgn --pgn", dir.display())));
    args.extend(paths(&dir, &["s3.pgn", "s1.pgn", "s2.pgn", "s4.pgn"]));
    let (ok, merged_table, stderr) = merge(&args);
    assert!(ok, "{stderr}");
    assert_same_as_unsharded(&dir, &merged_table, &whole_table);

    // Merges of merges: two halves, merged again, give the same.
    for (stem, a, b) in [("h1", "s1", "s3"), ("h2", "s2", "s4")] {
        let mut half = paths(&dir, &[&format!("{a}.json"), &format!("{b}.json")]);
        half.extend(words(&format!("--results-json {}/{stem}.json", dir.display())));
        let (ok, table, stderr) = merge(&half);
        assert!(ok && table.contains(&format!("shards: {}, {} of 4", &a[1..], &b[1..])), "{table}{stderr}");
    }
    let (ok, table, stderr) = merge(&paths(&dir, &["h2.json", "h1.json"]));
    assert!(ok, "{stderr}");
    assert_eq!(without_shards_line(&table), without_shards_line(&whole_table));

    // What merge refuses, each with a clear error and exit status 1.
    refused(paths(&dir, &["s1.json", "s2.json", "s1.json"]), "both hold shard 1/4");
    refused(paths(&dir, &["h1.json", "s3.json"]), "both hold shard 3/4");
    play(&dir, "seed6", &deterministic_match(6), "--shard 4/4");
    refused(paths(&dir, &["s1.json", "seed6.json"]), "its match.seed is 6, not 5");
    play(&dir, "sixth", &deterministic_match(5), "--shard 5/6");
    refused(paths(&dir, &["s1.json", "sixth.json"]), "its match.shards is 6, not 4");
    let full = std::fs::read_to_string(dir.join("s1.json")).unwrap();
    std::fs::write(dir.join("cut.json"), &full[..full.len() / 2]).unwrap();
    refused(paths(&dir, &["s2.json", "cut.json"]), "is truncated");
    std::fs::write(dir.join("empty.json"), "").unwrap();
    refused(paths(&dir, &["empty.json"]), "is empty: its match did not finish");
    refused(paths(&dir, &["no-such.json"]), "cannot read");
    std::fs::write(dir.join("list.json"), "[1, 2]").unwrap();
    refused(paths(&dir, &["list.json"]), "is not a results JSON");
    let mut old = json(&dir.join("s1.json"));
    for key in ["shards", "fingerprint", "match"] {
        old.as_object_mut().unwrap().remove(key);
    }
    std::fs::write(dir.join("old.json"), old.to_string()).unwrap();
    refused(paths(&dir, &["old.json"]), "has no match fingerprint");
    std::fs::write(dir.join("edited.json"), full.replace("\"seed\": 5", "\"seed\": 7")).unwrap();
    refused(paths(&dir, &["edited.json"]), "was it edited?");
    let mut more = json(&dir.join("s1.json"));
    more["games"] = 5.into();
    std::fs::write(dir.join("more.json"), more.to_string()).unwrap();
    refused(paths(&dir, &["more.json"]), "its pairings count 4 games but it says 5");
    // Records that are not exactly those of the merged shards.
    let mut extra = paths(&dir, &["s1.json", "s2.json"]);
    extra.extend(words(&format!("--pgnout {}/x.pgn --pgn", dir.display())));
    extra.extend(paths(&dir, &["s1.pgn", "s2.pgn", "s3.pgn"]));
    refused(extra, "not among the merged results");
    let mut twice = paths(&dir, &["s1.json", "s2.json"]);
    twice.extend(words(&format!("--pgnout {}/x.pgn --pgn", dir.display())));
    twice.extend(paths(&dir, &["s1.pgn", "s2.pgn", "s2.pgn"]));
    refused(twice, "is both in");
    let mut missing = paths(&dir, &["s1.json", "s2.json"]);
    missing.extend(words(&format!("--pgnout {}/x.pgn --pgn", dir.display())));
    missing.extend(paths(&dir, &["s1.pgn"]));
    refused(missing, "hold 4 games but the merged results count 6");
    assert!(!dir.join("x.pgn").exists(), "nothing is written when merging fails");
}

#[test]
fn a_shard_plays_all_its_games_whatever_its_sprt_says() {
    let dir = scratch("sprt");
    let f = fake();
    let args = words(&format!(
        "--engine cmd={f} name=good --engine cmd={f} name=bad arg=--garbage-at arg=1 arg=--every \
         --each depth=1 --rounds 30 --seed 3 --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 model=logistic"
    ));
    for k in 1..=2 {
        let table = play(&dir, &format!("s{k}"), &args, &format!("--shard {k}/2"));
        let j = json(&dir.join(format!("s{k}.json")));
        assert_eq!((j["games"].as_u64(), j["scheduled"].as_u64()), (Some(30), Some(30)), "{table}");
        assert_eq!(j["stopped_early"], false);
        assert_eq!(records(&dir.join(format!("s{k}.pgn"))).len(), 30);
    }
    let (ok, table, stderr) = merge(&paths(&dir, &["s1.json", "s2.json"]));
    assert!(ok, "{stderr}");
    assert!(table.contains("H1 accepted") && table.contains("60 of 60 games"), "{table}");
}

#[test]
fn bad_shards_are_clear_errors_and_an_empty_shard_still_merges() {
    let base = format!("match --engine cmd={CUBIST} depth=1 --engine cmd={CUBIST} depth=1");
    for (extra, message) in [
        ("--seed 1 --shard 0/4", "K counts from 1"),
        ("--seed 1 --shard 5/4", "K counts from 1"),
        ("--seed 1 --shard 2", "expected K/N"),
        ("--seed 1 --shard x/y", "expected K/N"),
        ("--shard 1/4", "--shard needs --seed"),
    ] {
        let out = cubist(&words(&format!("{base} {extra}")));
        let stderr = text(&out.stderr);
        assert!(!out.status.success() && stderr.contains(message), "{extra}: {stderr}");
        assert!(stderr.starts_with("error: --shard"), "{extra}: {stderr}");
    }
    let out = cubist(&words("merge"));
    assert!(!out.status.success(), "merge needs a results file");
    let out = cubist(&words("merge a.json --pgnout m.pgn"));
    assert!(!out.status.success() && text(&out.stderr).contains("--pgn"), "--pgnout needs --pgn");

    // One round, two shards: the second holds no games, says so, and merges with the first.
    let dir = scratch("empty");
    let args = words(&format!(
        "--engine cmd={CUBIST} name=a depth=1 --engine cmd={CUBIST} name=b depth=1 --rounds 1 --maxmoves 2 --seed 1"
    ));
    let mut all = vec!["match".to_string()];
    all.extend(args.iter().cloned());
    all.extend(words(&format!("--shard 2/2 --results-json {}/s2.json", dir.display())));
    let out = cubist(&all);
    assert!(out.status.success() && text(&out.stderr).contains("shard 2/2 holds no games"), "{}", text(&out.stderr));
    assert_eq!(json(&dir.join("s2.json"))["games"], 0);
    play(&dir, "s1", &args, "--shard 1/2");
    let (ok, table, stderr) = merge(&paths(&dir, &["s2.json", "s1.json"]));
    assert!(ok && table.contains("2 of 2 games") && table.contains("shards: all 2"), "{table}{stderr}");
}

/// GNU parallel, as docs/sharding.md shows it: four local shards, then merge;
/// and the wave driver `scripts/sprt-shards.sh`. Needs `parallel` (`.ci/run` installs it).
#[test]
#[ignore]
fn gnu_parallel_recipe_and_wave_driver() {
    let dir = scratch("parallel");
    let args = deterministic_match(11);
    let whole_table = play(&dir, "whole", &args, "--concurrency 2");
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let shell = |script: String| {
        let out = Command::new("bash").arg("-c").arg(&script).current_dir(&dir).output().expect("bash runs");
        assert!(out.status.success(), "{script}\n{}", text(&out.stderr));
        text(&out.stdout)
    };
    shell(format!(
        "parallel --jobs 4 --halt now,fail=1 {CUBIST} match {} --shard {{}}/4 \
         --results-json shard-{{}}.json --pgnout shard-{{}}.pgn ::: 1 2 3 4",
        quoted.join(" ")
    ));
    let table =
        shell(format!("{CUBIST} merge shard-*.json --results-json merged.json --pgnout merged.pgn --pgn shard-*.pgn"));
    assert_same_as_unsharded(&dir, &table, &whole_table);

    // The wave driver: 4 shards in waves of 2 against the greedy baseline, until merge decides or all ran.
    let out = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/sprt-shards.sh"))
        .arg("4")
        .args(words(&format!(
            "--engine cmd={CUBIST} name=search depth=2 --engine cmd={CUBIST} name=greedy option.Strategy=greedy \
             depth=1 --rounds 8 --maxmoves 20 --resign movecount=2 score=300 --random-plies 2 --sprt elo0=0 elo1=50 alpha=0.1 beta=0.1 minpairs=2"
        )))
        .env("CUBIST", CUBIST)
        .env("OUT", dir.join("waves"))
        .env("WAVE", "2")
        .env("SEED", "1")
        .output()
        .expect("the script runs");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("SPRT (normalized)") && stdout.contains("shards: "), "{stdout}");
    let merged = json(&dir.join("waves/merged.json"));
    let shards = merged["shards"]["indices"].as_array().unwrap().len();
    assert!(shards == 2 || shards == 4, "whole waves only: {merged}");
    assert!(shards == 4 || merged["sprt"]["decision"] != "Continue", "stopped before a decision: {merged}");
    assert_eq!(records(&dir.join("waves/merged.pgn")).len() as u64, merged["games"].as_u64().unwrap());
}
