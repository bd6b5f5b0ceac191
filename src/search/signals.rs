//! The flags that the protocol thread and a running search share.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Flags shared between the protocol thread and a running search.
#[derive(Default, Debug)]
pub struct Signals {
    /// Set by `stop` (and by the search itself when a limit is reached).
    pub stop: AtomicBool,
    /// Set while pondering; cleared by `ponderhit`.
    pub pondering: AtomicBool,
    /// Set while `go infinite`: `bestmove` waits for `stop` even after the search ends.
    pub infinite: AtomicBool,
}

impl Signals {
    /// Whether the search must stop now.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Waits until neither pondering nor infinite mode holds back the `bestmove`.
    pub fn wait_for_release(&self) {
        while !self.stopped() && (self.pondering.load(Ordering::Relaxed) || self.infinite.load(Ordering::Relaxed)) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
