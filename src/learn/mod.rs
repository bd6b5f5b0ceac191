//! Learning the evaluation from Cubist's own games: self-play data
//! generation ([`datagen`]) and the fit of the linear evaluation's weights
//! to that data ([`tune`]).

pub mod datagen;
pub mod tune;
