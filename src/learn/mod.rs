//! Learning the evaluation from Cubist's own games: the data files
//! ([`data`]), self-play data generation ([`datagen`]), the training of an
//! evaluation network ([`train`]), the fit of the linear evaluation's
//! weights ([`tune`]) and what the commands that run them share
//! ([`driver`]).

pub mod data;
pub mod datagen;
pub mod driver;
pub mod train;
pub mod tune;
