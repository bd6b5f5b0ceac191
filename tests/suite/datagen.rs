//! `cubist datagen` as a user runs it: reproducible games whatever the
//! thread count, shards that add up to the whole run, a file that stays
//! valid when the run is killed, and clear errors for bad arguments.

use cubist::learn::data::read_samples;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{CUBIST, Scratch};

/// A fresh scratch directory for one test, removed when it ends.
fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("datagen-{name}"))
}

/// The file `NAME.txt` in the scratch directory `dir`.
fn out_file(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.txt"))
}

/// Runs `cubist datagen` with `args` writing `out`; returns the data lines, sorted.
fn datagen(out: &PathBuf, args: &[&str]) -> Vec<String> {
    let status =
        Command::new(CUBIST).arg("datagen").arg("--out").arg(out).args(args).stderr(Stdio::null()).status().unwrap();
    assert!(status.success(), "datagen {args:?} failed");
    let text = std::fs::read_to_string(out).unwrap();
    let (samples, errors) = read_samples(&text);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(!samples.is_empty());
    let mut lines: Vec<String> = text.lines().filter(|l| !l.starts_with('#')).map(String::from).collect();
    lines.sort();
    lines
}

const SMALL: [&str; 8] = ["--games", "4", "--nodes", "600", "--max-plies", "30", "--seed", "7"];

#[test]
fn the_same_seed_plays_the_same_games_with_any_thread_count() {
    let dir = scratch("seed");
    let one = datagen(&out_file(&dir, "t1"), &[&SMALL[..], &["--threads", "1"]].concat());
    let two = datagen(&out_file(&dir, "t2"), &[&SMALL[..], &["--threads", "2"]].concat());
    assert_eq!(one, two);
    let other = datagen(&out_file(&dir, "s8"), &[&SMALL[..6], &["--seed", "8"]].concat());
    assert_ne!(one, other);
}

#[test]
fn shards_add_up_to_the_whole_run() {
    let dir = scratch("shards");
    let whole = datagen(&out_file(&dir, "whole"), &SMALL);
    let mut parts = datagen(&out_file(&dir, "k1"), &[&SMALL[..], &["--shard", "1/2"]].concat());
    parts.extend(datagen(&out_file(&dir, "k2"), &[&SMALL[..], &["--shard", "2/2"]].concat()));
    parts.sort();
    assert_eq!(whole, parts);
}

#[test]
fn a_killed_run_leaves_a_valid_file() {
    let dir = scratch("killed");
    let out = out_file(&dir, "killed");
    let mut child = Command::new(CUBIST)
        .args(["datagen", "--games", "100000", "--nodes", "200", "--max-plies", "40", "--out"])
        .arg(&out)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::fs::read_to_string(&out).map_or(0, |t| t.lines().count()) < 20
        && start.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let (samples, errors) = read_samples(&text);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(samples.len() >= 18, "{} samples", samples.len());
}

#[test]
fn bad_arguments_are_refused_with_a_clear_error() {
    let dir = scratch("bad");
    for (args, expect) in [
        (vec!["--shard", "3/2"], "must not exceed N"),
        (vec!["--shard", "x"], "K/N"),
        (vec!["--variant", "chess"], "invalid value"),
        (vec!["--game", "chess"], "invalid value"),
        (vec!["--nodes", "0"], "nodes"),
        // A negative count: the option's own message, not clap's tip to write `-- -5` (which does not work).
        (vec!["--nodes", "-5"], "invalid value '-5' for '--nodes"),
        (vec!["--games", "-1"], "invalid value '-1' for '--games"),
    ] {
        let out = out_file(&dir, "bad");
        let o = Command::new(CUBIST).arg("datagen").arg("--out").arg(&out).args(&args).output().unwrap();
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(expect), "{args:?}: {err}");
        let _ = std::fs::remove_file(out);
    }
    let o = Command::new(CUBIST).args(["datagen", "--games", "1", "--out", "/nonexistent-dir/x.txt"]).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent-dir/x.txt"));
}

/// Runs `cubist tune ARGS --data DATA [--out OUT]`.
fn tune(args: &[&str], data: &Path, out: Option<&Path>) -> Output {
    let mut cmd = Command::new(CUBIST);
    cmd.arg("tune").args(args).arg("--data").arg(data);
    if let Some(out) = out {
        cmd.arg("--out").arg(out);
    }
    cmd.output().unwrap()
}

#[test]
fn tune_fits_a_data_set_and_reports_bad_lines_by_number() {
    let dir = scratch("tune");
    let data = out_file(&dir, "tune-data");
    let status = Command::new(CUBIST)
        .args(["datagen", "--games", "6", "--nodes", "600", "--max-plies", "30", "--variant", "haberkorn", "--out"])
        .arg(&data)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let mut text = std::fs::read_to_string(&data).unwrap();
    text.push_str("haberkorn ; not a fen ; 10 ; 1\n");
    std::fs::write(&data, &text).unwrap();
    let bad_line = text.lines().count();
    let rs = out_file(&dir, "tune-out").with_extension("rs");
    let o = tune(&["--variant", "haberkorn", "--epochs", "50", "--threads", "1"], &data, Some(&rs));
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("line {bad_line}: ")) && stderr.contains("(skipped)"), "{stderr}");
    assert!(
        stdout.contains("positions of haberkorn (") && stdout.contains("K = ") && stdout.contains("epoch     50"),
        "{stdout}"
    );
    let source = std::fs::read_to_string(&rs).unwrap();
    assert!(source.contains("const HABERKORN_WEIGHTS: Weights = Weights {"), "{source}");
    // `--game` is kept as an alias of `--variant`.
    let o = tune(&["--game", "hdc"], &data, None);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no hdc positions"));
    // Fitting only some groups: an unknown group is refused by name, and nothing is written.
    let _ = std::fs::remove_file(&rs);
    let o = tune(&["--variant", "haberkorn", "--epochs", "5", "--fit", "mobility,placement"], &data, Some(&rs));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown weight group \"placement\""));
    assert!(!rs.exists());
    let o = tune(&["--variant", "haberkorn", "--epochs", "5", "--fit", "mobility,king-attack,tempo"], &data, None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn the_binary_format_holds_the_same_samples_and_converts_to_text() {
    let dir = scratch("binary");
    let text = datagen(&out_file(&dir, "as-text"), &SMALL);
    let bin = out_file(&dir, "as-bin").with_extension("bin");
    let status =
        Command::new(CUBIST).arg("datagen").args(SMALL).arg("--out").arg(&bin).stderr(Stdio::null()).status().unwrap();
    assert!(status.success());
    let bytes = std::fs::read(&bin).unwrap();
    assert!(bytes.starts_with(b"CUBDATA1"));
    // Every ply's move and score in a few bytes, where a text line takes hundreds.
    let text_bytes: usize = text.iter().map(|l| l.len() + 1).sum();
    assert!(bytes.len() * 5 < text_bytes, "{} bytes against {text_bytes}", bytes.len());
    let back = out_file(&dir, "back");
    let o = Command::new(CUBIST).arg("convert").arg(&bin).arg(&back).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut lines: Vec<String> = std::fs::read_to_string(&back).unwrap().lines().map(String::from).collect();
    lines.sort();
    assert_eq!(lines, text);
    // And back to binary: the same samples again (each a game of one position now).
    let again = out_file(&dir, "again").with_extension("bin");
    let o = Command::new(CUBIST).arg("convert").arg(&back).arg(&again).output().unwrap();
    assert!(o.status.success());
    let (samples, errors) = cubist::learn::data::read_file(&again).unwrap();
    assert!(errors.is_empty());
    let mut lines: Vec<String> = samples.iter().map(|s| s.to_string()).collect();
    lines.sort();
    assert_eq!(lines, text);
}

#[test]
fn a_killed_binary_run_keeps_every_finished_game() {
    let dir = scratch("killed-bin");
    let out = out_file(&dir, "killed-bin").with_extension("bin");
    let mut child = Command::new(CUBIST)
        .args(["datagen", "--games", "100000", "--nodes", "200", "--max-plies", "40", "--threads", "2", "--out"])
        .arg(&out)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::fs::metadata(&out).map_or(0, |m| m.len()) < 4000 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let (samples, errors) = cubist::learn::data::read_file(&out).unwrap();
    // At most the torn record a kill leaves is reported; the games before it are whole.
    assert!(errors.len() <= 1 && errors.iter().all(|e| e.reason.contains("cut short")), "{errors:?}");
    assert!(samples.len() >= 10, "{} samples", samples.len());
    // Read a game at a time, the same samples in the same order and the same errors.
    let mut pieces = Vec::new();
    let mut count = 0;
    let again = cubist::learn::data::read_file_in_pieces(&out, 1, &mut |piece| {
        count += 1;
        pieces.extend(piece);
    })
    .unwrap();
    assert_eq!(again, errors);
    assert_eq!(pieces, samples);
    assert!(count >= 2, "{count} pieces");
}

#[test]
fn a_killed_binary_run_resumed_gives_the_uninterrupted_file() {
    let dir = scratch("resume");
    let args = ["--games", "24", "--nodes", "400", "--max-plies", "40", "--seed", "11", "--threads", "1"];
    let run = |out: &Path| Command::new(CUBIST).arg("datagen").args(args).arg("--out").arg(out).output().unwrap();
    let whole = out_file(&dir, "resume-whole").with_extension("bin");
    assert!(run(&whole).status.success());
    let expect = std::fs::read(&whole).unwrap();
    let out = out_file(&dir, "resume-killed").with_extension("bin");
    let mut child =
        Command::new(CUBIST).arg("datagen").args(args).arg("--out").arg(&out).stderr(Stdio::null()).spawn().unwrap();
    let start = Instant::now();
    while std::fs::metadata(&out).map_or(0, |m| m.len() as usize) < expect.len() / 3
        && start.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let cut = std::fs::read(&out).unwrap().len();
    assert!(cut < expect.len(), "the run ended before it was killed");
    let o = run(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("resuming after"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), expect, "killed at {cut} of {} bytes", expect.len());
    // Other settings never add to the file.
    let o =
        Command::new(CUBIST).args(["datagen", "--games", "24", "--nodes", "500", "--out"]).arg(&out).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds games of other settings"));
    assert_eq!(std::fs::read(&out).unwrap(), expect);
}

/// `tune --out` into a missing folder fails at once, naming the folder,
/// before reading the data or fitting (the data file need not even exist).
#[test]
fn tune_refuses_an_out_file_in_a_missing_folder_at_once() {
    let o = tune(&["--variant", "hdc"], Path::new("/nonexistent-data.txt"), Some(Path::new("/nonexistent/w.rs")));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(stderr.contains("--out /nonexistent/w.rs: the folder /nonexistent does not exist"), "{stderr}");
}
