//! The writer's Markdown (src/content/*.md, compiled in) turned into HTML at run time.
//!
//! Conventions the content follows:
//! - a glossary term is a level-2 heading with an id, `## KV cache {#kv-cache}`, and its
//!   first paragraph is the short definition shown in tooltips;
//! - a link to `/glossary#id` becomes a term with that definition on hover and focus;
//! - raw HTML, MathML included, passes through unchanged;
//! - in a lesson, `<!-- interactive -->` marks where its interactive part goes.

pub mod exercises;
pub mod glossary;
pub mod render;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_SMART_PUNCTUATION
}

pub fn parser(markdown: &str) -> Parser<'_> {
    Parser::new_ext(markdown, options())
}

/// The text of the first heading: a document's title.
pub fn first_heading(markdown: &str) -> String {
    let mut title = String::new();
    let mut inside = false;
    for event in parser(markdown) {
        match event {
            Event::Start(Tag::Heading { .. }) => inside = true,
            Event::End(TagEnd::Heading(_)) => break,
            Event::Text(t) | Event::Code(t) if inside => title.push_str(&t),
            _ => {}
        }
    }
    title
}
