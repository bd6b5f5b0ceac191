//! What the integration tests share: the path of the built `cubist`, a
//! scratch directory that removes itself when the test ends, passed or
//! failed (`tempfile`'s guard), so that `cargo test` leaves nothing in the
//! temporary directory, a way to start the engine and read its lines, and
//! the property tests' strategy for a variant of either game.

use cubist::core::Variant;
use proptest::prelude::*;
use std::io::{BufRead, BufReader};
use std::ops::Deref;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};

/// The `cubist` binary that this `cargo test` built.
pub const CUBIST: &str = env!("CARGO_BIN_EXE_cubist");

/// A fresh, empty directory under the temporary directory, named
/// `cubist-<name>-…`, removed with everything in it when dropped.
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    /// Makes the directory.
    pub fn new(name: &str) -> Scratch {
        let dir = tempfile::Builder::new().prefix(&format!("cubist-{name}-")).tempdir().expect("a scratch directory");
        Scratch(dir)
    }
}

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// Starts the built `cubist` with `args` (its stderr discarded) and a
/// thread that sends each line of its stdout down the returned channel, so
/// that a test can wait for a line with a timeout.
pub fn spawn_cubist(args: &[&str]) -> (Child, ChildStdin, Receiver<String>) {
    let mut child = Command::new(CUBIST)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the engine starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stdin = child.stdin.take().expect("stdin is piped");
    (child, stdin, lines)
}

/// Both games for property tests: hdc, and haberkorn on every layer count
/// with any setup layers and options.
pub fn variant() -> impl Strategy<Value = Variant> {
    prop_oneof![
        1 => Just(Variant::hdc()),
        3 => (3u8..=8, any::<u8>(), any::<u8>(), any::<bool>(), any::<bool>()).prop_map(|(layers, w, b, ep, castling)| {
            Variant::haberkorn_with(layers, w % layers + 1, b % layers + 1, ep, castling).expect("a valid haberkorn")
        }),
    ]
}
