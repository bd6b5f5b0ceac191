//! The processor check: which instruction-set extensions this build was
//! compiled to use (`.cargo/config.toml` asks for x86-64-v3) that the
//! processor running it lacks. Such a build would die of an illegal
//! instruction at its first bitboard operation, so the binary and the
//! Python package stop with a message instead.

/// The extensions this build uses that the processor lacks (empty when it can run).
pub fn missing_features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut missing = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! need {
            ($($f:tt),*) => {$(
                if cfg!(target_feature = $f) && !std::arch::is_x86_feature_detected!($f) {
                    missing.push($f);
                }
            )*};
        }
        need!(
            "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt",
            "movbe"
        );
    }
    missing
}
