//! Move generation and make/unmake never allocate on the heap per node.
//!
//! A counting global allocator (this test binary only) wraps the system
//! allocator and counts every allocation made while the checked code runs.

use cubist::core::{MoveList, Position, Variant};
use cubist::perft::perft;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the wrapper only bumps an atomic counter. The tests
// below run allocations through it (the vector growth in `warm_up`), so the
// forwarding is exercised.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn the_allocator_counts() {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let v: Vec<u64> = (0..100).collect();
    assert_eq!(v.len(), 100);
    assert!(ALLOCATIONS.load(Ordering::Relaxed) > before);
}

#[test]
fn perft_allocates_nothing_per_node() {
    for variant in [Variant::hdc(), Variant::haberkorn()] {
        let mut pos = Position::start(variant);
        // The first run grows the key history to its working size.
        perft(&mut pos, 3);
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        let nodes = perft(&mut pos, 3);
        let mut list = MoveList::new();
        pos.generate(&mut list);
        let used = ALLOCATIONS.load(Ordering::Relaxed) - before;
        // Other test threads may allocate meanwhile, but nowhere near once per node.
        assert!(used < 16, "{used} allocations for {nodes} nodes");
    }
}
