//! One file per route.

pub mod generation;
pub mod glossary;
pub mod home;
pub mod not_found;
pub mod reading;
pub mod reasoning;
pub mod stages;
