//! Markdown to HTML in four passes over pulldown-cmark's events: section headings get ids,
//! links within the site
//! become relative to the page's base, links to glossary terms become terms that show their
//! definition on hover and on keyboard focus, and table alignment becomes classes
//! (pulldown-cmark writes `style` attributes, which the page's CSP, style-src 'self', blocks).

use super::{glossary, parser};
use pulldown_cmark::{html, Alignment, CowStr, Event, HeadingLevel, Tag, TagEnd};

/// Where a lesson's interactive part goes.
pub const INTERACTIVE_MARKER: &str = "<!-- interactive -->";

/// `prefix` keeps the tooltip ids of one document apart from another's on the same page.
pub fn to_html(markdown: &str, prefix: &str) -> String {
    let events = section_ids(parser(markdown), prefix);
    let events = aligned_by_class(glossary_terms(relative_links(events.into_iter()), prefix));
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

/// Gives each section heading (level 2) without an id of its own one made from its text,
/// `{prefix}-{words-of-the-heading}`, so that a lesson's contents (`ui::toc`) can link to it.
fn section_ids<'a>(events: impl Iterator<Item = Event<'a>>, prefix: &str) -> Vec<Event<'a>> {
    let mut events: Vec<Event<'a>> = events.collect();
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { level: HeadingLevel::H2, id: None, .. }) = &events[i] {
            let text: String = events[i + 1..]
                .iter()
                .take_while(|e| !matches!(e, Event::End(TagEnd::Heading(_))))
                .filter_map(|e| match e {
                    Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                    _ => None,
                })
                .collect();
            if let Event::Start(Tag::Heading { id, .. }) = &mut events[i] {
                *id = Some(CowStr::from(format!("{prefix}-{}", slug(&text))));
            }
        }
        i += 1;
    }
    events
}

/// "Cutting the tail: top-k, top-p" → "cutting-the-tail-top-k-top-p".
fn slug(text: &str) -> String {
    let mut slug = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_string()
}

/// Content links to the site from its root ("/glossary#kv-cache"); the page resolves a
/// relative "glossary#kv-cache" against its `<base href>`, so the link works wherever the
/// site is served (`trunk build --public-url /deep/sub/`).
fn relative_links<'a>(events: impl Iterator<Item = Event<'a>>) -> impl Iterator<Item = Event<'a>> {
    events.map(|event| match event {
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let relative = match dest_url.strip_prefix('/') {
                Some("") => Some("./".to_string()),
                Some(rest) if !rest.starts_with('/') => Some(rest.to_string()),
                _ => None,
            };
            let dest_url = relative.map_or(dest_url, CowStr::from);
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            })
        }
        event => event,
    })
}

fn glossary_terms<'a>(
    events: impl Iterator<Item = Event<'a>>,
    prefix: &str,
) -> impl Iterator<Item = Event<'a>> {
    let prefix = prefix.to_string();
    let mut tips = 0;
    let mut closing: Option<String> = None;
    events.map(move |event| {
        if let Event::Start(Tag::Link { dest_url, .. }) = &event {
            if let Some(term) = term_of(dest_url) {
                tips += 1;
                let tip_id = format!("{prefix}-tip-{tips}");
                closing = Some(format!(
                    r#"</a><span class="term-tip" role="tooltip" id="{tip_id}"><strong>{}</strong> {}</span></span>"#,
                    escape(&term.title),
                    escape(&term.definition)
                ));
                let open = format!(r#"<span class="term"><a href="{}" aria-describedby="{tip_id}">"#, escape(dest_url));
                return Event::InlineHtml(CowStr::from(open));
            }
        }
        match (&event, closing.take()) {
            (Event::End(TagEnd::Link), Some(close)) => Event::InlineHtml(CowStr::from(close)),
            (_, still_open) => {
                closing = still_open;
                event
            }
        }
    })
}

/// Writes table cells itself, with `class="align-…"` where pulldown-cmark would put a style.
fn aligned_by_class<'a>(
    events: impl Iterator<Item = Event<'a>>,
) -> impl Iterator<Item = Event<'a>> {
    let mut alignments: Vec<Alignment> = Vec::new();
    let (mut in_head, mut column) = (false, 0);
    events.map(move |event| {
        match &event {
            Event::Start(Tag::Table(a)) => alignments = a.clone(),
            Event::Start(Tag::TableHead) => (in_head, column) = (true, 0),
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) => column = 0,
            Event::Start(Tag::TableCell) => {
                let class = match alignments.get(column) {
                    Some(Alignment::Left) => r#" class="align-left""#,
                    Some(Alignment::Center) => r#" class="align-center""#,
                    Some(Alignment::Right) => r#" class="align-right""#,
                    _ => "",
                };
                let cell = if in_head { "th" } else { "td" };
                return Event::InlineHtml(CowStr::from(format!("<{cell}{class}>")));
            }
            Event::End(TagEnd::TableCell) => {
                column += 1;
                return Event::InlineHtml(CowStr::from(if in_head { "</th>" } else { "</td>" }));
            }
            _ => {}
        }
        event
    })
}

/// The glossary term a (relative) link points to, if it is one (`glossary#kv-cache`).
fn term_of(dest: &str) -> Option<&'static glossary::Term> {
    dest.strip_prefix("glossary#").and_then(glossary::find)
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    #[wasm_bindgen_test]
    fn section_headings_get_ids_from_their_text_and_keep_their_own() {
        let html = to_html(
            "## Cutting the tail: `top-k`, top-p\n\nText.\n\n## Kept {#mine}\n\n### Not a section\n",
            "l1",
        );
        assert!(html.contains(r#"<h2 id="l1-cutting-the-tail-top-k-top-p">"#), "{html}");
        assert!(html.contains(r#"<h2 id="mine">"#), "{html}");
        assert!(html.contains("<h3>Not a section</h3>"), "{html}");
    }

    #[wasm_bindgen_test]
    fn every_section_of_every_lesson_has_a_distinct_id() {
        for (markdown, prefix) in [
            (crate::content::GENERATION.as_str(), "generation"),
            (crate::content::STAGES.as_str(), "stages"),
            (crate::content::REASONING.as_str(), "reasoning"),
        ] {
            let html = to_html(markdown, prefix);
            let ids: Vec<&str> = html
                .split("<h2 id=\"")
                .skip(1)
                .map(|rest| rest.split('"').next().unwrap_or_default())
                .collect();
            assert_eq!(ids.len(), html.matches("<h2").count(), "{prefix}: a section without an id");
            let mut unique = ids.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), ids.len(), "{prefix}: two sections share an id: {ids:?}");
        }
    }
}
