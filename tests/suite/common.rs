//! What the integration tests share: a scratch directory that removes
//! itself when the test ends, passed or failed (`tempfile`'s guard), so
//! that `cargo test` leaves nothing in the temporary directory.

use std::ops::Deref;
use std::path::Path;

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
