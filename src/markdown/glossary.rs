//! The glossary's terms, read from glossary.md: `## Title {#id}` and a first paragraph.

use super::parser;
use crate::content::GLOSSARY;
use pulldown_cmark::{Event, HeadingLevel, Tag, TagEnd};
use std::sync::OnceLock;

#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    pub id: String,
    pub title: String,
    /// The first paragraph, as plain text.
    pub definition: String,
}

pub fn terms() -> &'static [Term] {
    static TERMS: OnceLock<Vec<Term>> = OnceLock::new();
    TERMS.get_or_init(|| parse(&GLOSSARY))
}

pub fn find(id: &str) -> Option<&'static Term> {
    terms().iter().find(|t| t.id == id)
}

pub fn parse(markdown: &str) -> Vec<Term> {
    enum In {
        Nothing,
        Title,
        Definition,
    }
    let mut terms: Vec<Term> = Vec::new();
    let mut at = In::Nothing;
    for event in parser(markdown) {
        match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H2,
                id: Some(id),
                ..
            }) => {
                terms.push(Term {
                    id: id.to_string(),
                    title: String::new(),
                    definition: String::new(),
                });
                at = In::Title;
            }
            Event::Start(Tag::Heading { .. }) => at = In::Nothing,
            Event::Start(Tag::Paragraph) => {
                if let Some(term) = terms.last() {
                    if term.definition.is_empty() {
                        at = In::Definition
                    }
                }
            }
            Event::End(TagEnd::Heading(_) | TagEnd::Paragraph) => at = In::Nothing,
            Event::Text(t) | Event::Code(t) => {
                if let Some(term) = terms.last_mut() {
                    match at {
                        In::Title => term.title.push_str(&t),
                        In::Definition => term.definition.push_str(&t),
                        In::Nothing => {}
                    }
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let (In::Definition, Some(term)) = (&at, terms.last_mut()) {
                    term.definition.push(' ')
                }
            }
            _ => {}
        }
    }
    terms
}
