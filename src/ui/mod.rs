//! What two or more features share: fields, the header and the model status, numbers and
//! token texts as the pages print them, prose, settings in the URL, the saved-work store, which model the labs measured on.

pub mod address_bar;
pub mod chart;
pub mod download;
pub mod exercise;
pub mod field;
pub mod format;
pub mod header;
pub mod lab;
pub mod measured_on;
pub mod model_picker;
pub mod model_status;
pub mod prefill_progress;
pub mod prose;
pub mod settings_query;
pub mod store;
pub mod stage_order;
pub mod toc;
pub mod token_text;
