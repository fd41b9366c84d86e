//! Markdown to HTML in three passes over pulldown-cmark's events: links within the site
//! become relative to the page's base, links to glossary terms become terms that show their
//! definition on hover and on keyboard focus, and table alignment becomes classes
//! (pulldown-cmark writes `style` attributes, which the page's CSP, style-src 'self', blocks).

use super::{glossary, parser};
use pulldown_cmark::{html, Alignment, CowStr, Event, Tag, TagEnd};

/// Where a lesson's interactive part goes.
pub const INTERACTIVE_MARKER: &str = "<!-- interactive -->";

/// `prefix` keeps the tooltip ids of one document apart from another's on the same page.
pub fn to_html(markdown: &str, prefix: &str) -> String {
    let events = aligned_by_class(glossary_terms(relative_links(parser(markdown)), prefix));
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
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
