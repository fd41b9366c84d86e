//! The pages that are not a lesson or the playground, one file per route.

pub mod glossary;
pub mod home;
pub mod not_found;
pub mod reading;
pub mod saved;
