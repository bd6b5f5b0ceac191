//! `scripts/sprt.sh`, the test ladder's driver (issue 46), end to end with
//! fake engines: a test that crosses a bound prints its decision, and so
//! does one whose game budget runs out first (decided by the budget rule);
//! bad settings are refused before anything is built or played.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{CUBIST, Scratch};

/// An executable in `dir` that runs the fake engine with `args`.
fn fake_engine(dir: &Path, name: &str, args: &str) -> String {
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/fake_engine.py");
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\nexec python3 {} {args} \"$@\"\n", fake.display())).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path.display().to_string()
}

/// Runs the script on two prebuilt engines (hdc from the start position, the
/// fakes' scripted game) with `env` on top.
fn sprt(dir: &Path, new: &str, base: &str, env: &[(&str, &str)]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/sprt.sh");
    let mut cmd = Command::new("bash");
    cmd.arg(script).args(["new", "base"]).current_dir(dir);
    cmd.env("NEW_BIN", new).env("BASE_BIN", base).env("CUBIST", CUBIST);
    cmd.env("VARIANTS", "hdc").env("BOOK", "none").env("RANDOM_PLIES", "0").env("CONCURRENCY", "2");
    cmd.env("OUT", dir.join("t"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("bash runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_test_that_crosses_a_bound_prints_its_decision() {
    let dir = Scratch::new("sprt-script-bound");
    let good = fake_engine(&dir, "good", "");
    let bad = fake_engine(&dir, "bad", "--garbage-at 1 --every");
    let out = sprt(&dir, &good, &bad, &[("BUDGET", "400")]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("Decision hdc: accepted (H1, LLR"), "{stdout}");
    assert!(stdout.contains("stopped early by the SPRT"), "{stdout}");
    assert!(dir.join("t-hdc.json").exists() && dir.join("t-hdc.pgn").exists());
}

#[test]
fn a_test_whose_budget_runs_out_is_decided_by_the_budget_rule() {
    let dir = Scratch::new("sprt-script-budget");
    let good = fake_engine(&dir, "good", "");
    let out = sprt(&dir, &good, &good, &[("BUDGET", "4"), ("TEST", "nonreg")]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("Decision hdc: "), "{stdout}");
    assert!(last.contains("budget of 4 games spent"), "{stdout}");
    assert!(last.contains("elo0 -10"), "{stdout}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("t-hdc.json")).unwrap()).unwrap();
    assert_eq!(results["games"], 4);
    assert!(matches!(results["sprt"]["verdict"].as_str(), Some("accepted" | "rejected")), "{results}");
}

#[test]
fn bad_settings_are_refused_before_anything_runs() {
    let dir = Scratch::new("sprt-script-bad");
    let good = fake_engine(&dir, "good", "");
    for (key, value, message) in [
        ("TEST", "maybe", "TEST must be gainer or nonreg"),
        ("BUDGET", "1", "BUDGET must be at least 2"),
        ("BUDGET", "many", "BUDGET must be a whole number"),
        ("RUNG", "7", "RUNG must be 1, 2 or confirm"),
        ("VARIANTS", "chess", "unknown game 'chess'"),
    ] {
        let out = sprt(&dir, &good, &good, &[(key, value)]);
        assert_eq!(out.status.code(), Some(2), "{key}={value}");
        assert!(text(&out.stderr).contains(message), "{key}={value}: {}", text(&out.stderr));
        assert!(!dir.join("t-hdc.json").exists(), "{key}={value} played");
    }
}
