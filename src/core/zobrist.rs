//! Zobrist keys, drawn once from a fixed-seed generator so that keys are the
//! same on every run and machine.

use super::piece::{Color, PieceKind};
use super::square::{NUM_SQUARES, Square};
use std::sync::OnceLock;

/// The random numbers a position key is made of.
pub struct Zobrist {
    pieces: Vec<u64>,
    castling: [u64; 8],
    en_passant: Vec<u64>,
    side: u64,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Zobrist {
    /// The table, built on first use.
    pub fn get() -> &'static Zobrist {
        static KEYS: OnceLock<Zobrist> = OnceLock::new();
        KEYS.get_or_init(|| {
            let mut s = 0x3d_c0be_5eed;
            let mut next = || splitmix64(&mut s);
            Zobrist {
                pieces: (0..2 * PieceKind::COUNT * NUM_SQUARES).map(|_| next()).collect(),
                castling: std::array::from_fn(|_| next()),
                en_passant: (0..NUM_SQUARES).map(|_| next()).collect(),
                side: next(),
            }
        })
    }

    /// The key of a piece on a square.
    #[inline]
    pub fn piece(&self, color: Color, kind: PieceKind, sq: Square) -> u64 {
        self.pieces[(color.index() * PieceKind::COUNT + kind.index()) * NUM_SQUARES + sq.index()]
    }

    /// The key of a set of castling rights (xor of one key per right bit).
    #[inline]
    pub fn castling(&self, rights: u8) -> u64 {
        let mut k = 0;
        for (bit, key) in self.castling.iter().enumerate() {
            if rights >> bit & 1 != 0 {
                k ^= key;
            }
        }
        k
    }

    /// The key of an en-passant target square that a pawn can actually use.
    #[inline]
    pub fn en_passant(&self, sq: Square) -> u64 {
        self.en_passant[sq.index()]
    }

    /// The key of Black to move.
    #[inline]
    pub fn side(&self) -> u64 {
        self.side
    }
}
