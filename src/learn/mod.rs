//! Learning the evaluation from Cubist's own games: the data files
//! ([`data`]), self-play data generation ([`datagen`]) and the fit of the
//! linear evaluation's weights to that data ([`tune`]).

pub mod data;
pub mod datagen;
pub mod train;
pub mod tune;
