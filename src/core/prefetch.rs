//! A cache hint shared by every table that the search reads at random
//! (transposition table, evaluation cache, histories).

/// Starts loading the cache line holding `item` into the cache: a hint that
/// changes nothing else (a no-op off x86-64).
#[inline(always)]
pub fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults and never changes
    // memory; the pointer is that of a live value anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(item as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}
