//! `/playground`: a chat (or raw text) with every setting the engine has.

pub mod controls;
pub mod page;
