//! `cubist spsa` end to end with the built binary: two processes on one
//! state file share the run (every iteration played once, counted once,
//! logged once), a finished run plays nothing more, other settings and bad
//! parameter files are refused with the state left as it was, and
//! `--print-params` writes a parameter file the tuner reads back.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::{CUBIST, Scratch};

/// A fresh scratch directory for one test, removed when it ends.
fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("spsa-{name}"))
}

/// The arguments of a tiny run: Cubist at depth 1, two options tuned.
fn run_args(dir: &Path, seed: u64) -> Vec<String> {
    let params = dir.join("params.txt");
    std::fs::write(
        &params,
        "# tuned options\nMove Overhead, int, 100, 0, 5000, 20, 0.002\nMultiPV, int, 1, 1, 3, 1, 0.002\n",
    )
    .unwrap();
    let mut args: Vec<String> = ["spsa", "--state"].iter().map(|s| s.to_string()).collect();
    args.push(dir.join("run.json").display().to_string());
    args.extend(["--params".to_string(), params.display().to_string()]);
    let rest = format!(
        "--engine cmd={CUBIST} depth=1 option.Threads=1 option.Hash=1 --iterations 4 --maxmoves 8 \
         --random-plies 2 --concurrency 1 --seed {seed}"
    );
    args.extend(rest.split_whitespace().map(String::from));
    args
}

fn cubist(args: &[String]) -> Output {
    Command::new(CUBIST).args(args).output().expect("cubist runs")
}

fn state(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap()
}

#[test]
fn openings_none_plays_random_plies_from_the_start_and_a_book_is_checked() {
    /// The tiny run with one iteration, no `--random-plies`, and `extra`.
    fn args_with(dir: &Path, extra: &[&str]) -> Vec<String> {
        let mut args = run_args(dir, 5);
        let i = args.iter().position(|a| a == "--iterations").unwrap();
        args[i + 1] = "1".into();
        let r = args.iter().position(|a| a == "--random-plies").unwrap();
        args.drain(r..r + 2);
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    }
    for (name, extra) in [("none", &["--openings", "none"][..]), ("five", &["--variant", "haberkorn", "--layers", "5"])]
    {
        let dir = scratch(name);
        let out = cubist(&args_with(&dir, extra));
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let s = state(&dir);
        assert_eq!(s["config"]["openings"], Value::Null, "{name}: no book");
        assert_eq!(s["config"]["random_plies"], 4, "{name}: 4 random plies without a book");
    }
    let dir = scratch("builtin-5");
    let out = cubist(&args_with(&dir, &["--variant", "haberkorn", "--layers", "5", "--openings", "file=builtin"]));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no built-in book for haberkorn on 5 layers"), "{err}");
}

#[test]
fn two_processes_share_one_run_and_a_finished_run_plays_nothing_more() {
    let dir = scratch("shared");
    let args = run_args(&dir, 3);
    let workers: Vec<_> = (0..2)
        .map(|_| Command::new(CUBIST).args(&args).stdout(std::process::Stdio::piped()).spawn().unwrap())
        .collect();
    for w in workers {
        let out = w.wait_with_output().unwrap();
        assert!(out.status.success());
    }
    let s = state(&dir);
    assert_eq!(s["done"], 4);
    assert_eq!(s["claimed"], 4);
    assert_eq!(s["config"]["openings"]["file"], "builtin", "the built-in book by default");
    assert_eq!(s["config"]["random_plies"], 2);
    assert_eq!(s["returned"].as_array().unwrap().len(), 0);
    let games = s["wins"].as_u64().unwrap() + s["draws"].as_u64().unwrap() + s["losses"].as_u64().unwrap();
    assert_eq!(games, 8, "one game pair per iteration");
    let log = std::fs::read_to_string(dir.join("run.json.csv")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[0], "iteration,done,wins,draws,losses,Move Overhead,MultiPV");
    let mut iterations: Vec<u64> = lines[1..].iter().map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
    iterations.sort();
    assert_eq!(iterations, [1, 2, 3, 4], "each iteration logged once");
    assert!(!dir.join("run.json.lock").exists());

    let again = cubist(&args);
    assert!(again.status.success());
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(text.contains("4 of 4 iterations done"), "{text}");
    assert!(!text.contains("iteration 5"), "{text}");
    assert_eq!(state(&dir), s, "a finished run plays nothing more");

    let mut print = args.clone();
    print.push("--print-params".into());
    let printed = cubist(&print);
    let lines = String::from_utf8_lossy(&printed.stdout).into_owned();
    assert!(lines.starts_with("Move Overhead, int, "), "{lines}");
    assert_eq!(lines.lines().count(), 2);
}

#[test]
fn other_settings_and_bad_parameter_files_are_refused_and_change_nothing() {
    let dir = scratch("refused");
    let args = run_args(&dir, 3);
    assert!(cubist(&args).status.success());
    let before = state(&dir);

    let other = run_args(&dir, 4);
    let out = cubist(&other);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--seed differs"), "{err}");
    assert_eq!(state(&dir), before);

    std::fs::write(dir.join("bad.txt"), "Move Overhead, int, 9000, 0, 5000, 20, 0.002\n").unwrap();
    let mut bad = args.clone();
    let at = bad.iter().position(|a| a == "--params").unwrap();
    bad[at + 1] = dir.join("bad.txt").display().to_string();
    let out = cubist(&bad);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("outside [0, 5000]"), "{err}");
    assert_eq!(state(&dir), before);
}

#[test]
fn the_default_parameters_print_as_a_file_the_tuner_reads() {
    let dir = scratch("print");
    let state = dir.join("none.json").display().to_string();
    let out = cubist(&[
        "spsa".into(),
        "--state".into(),
        state,
        "--variant".into(),
        "haberkorn".into(),
        "--print-params".into(),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.lines().any(|l| l.starts_with("lost_margin_haberkorn, int, 1000, 200, 30000, ")), "{text}");
    let params = cubist::spsa::parse_params(&text).unwrap();
    assert_eq!(params.len(), cubist::search::TUNABLES.len());
    assert!(!dir.join("none.json").exists(), "printing creates no run");
}
