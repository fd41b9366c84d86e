//! Pieces shared by several pages.

pub mod address_bar;
pub mod digits;
pub mod field;
pub mod header;
pub mod lesson1;
pub mod lesson2;
pub mod lesson3;
pub mod model_status;
pub mod prose;
pub mod settings_query;
