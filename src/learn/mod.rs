//! Learning the evaluation from Cubist's own games: the data files
//! ([`data`]), self-play data generation ([`datagen`]), the training of an
//! evaluation network ([`train`], the driver: its positions in [`dataset`],
//! the network in floating point in [`model`], AdamW in [`optimiser`]), the
//! fit of the linear evaluation's weights ([`tune`]) and what the commands
//! that run them share ([`driver`]).

pub mod data;
pub mod datagen;
pub mod dataset;
pub mod driver;
pub mod model;
pub mod optimiser;
pub mod train;
pub mod tune;
