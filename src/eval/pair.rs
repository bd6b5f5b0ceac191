//! The unit of the linear evaluation: a (middle game, end game) pair of
//! centipawns, and the game-phase weight of each kind that blends the two.

/// A (middle game, end game) pair of centipawns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair(pub i32, pub i32);

impl std::ops::AddAssign for Pair {
    #[inline]
    fn add_assign(&mut self, o: Pair) {
        self.0 += o.0;
        self.1 += o.1;
    }
}

impl std::ops::Mul<i32> for Pair {
    type Output = Pair;

    /// Both halves times `n`.
    #[inline]
    fn mul(self, n: i32) -> Pair {
        Pair(self.0 * n, self.1 * n)
    }
}

impl std::ops::SubAssign for Pair {
    #[inline]
    fn sub_assign(&mut self, o: Pair) {
        self.0 -= o.0;
        self.1 -= o.1;
    }
}

/// Game-phase weight of each kind (pawns and kings count nothing).
pub const PHASE: [i32; 7] = [0, 1, 1, 2, 3, 4, 0];
