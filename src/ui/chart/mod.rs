//! The charts every lab draws with, in inline SVG with colours from style-sheet classes (the
//! page's CSP allows no inline styles): round ticks, and a line chart whose every point
//! carries its numbers for screen readers and tests.

pub mod line;
pub mod ticks;
