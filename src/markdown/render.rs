//! Markdown to HTML, with links to glossary terms turned into terms that show their
//! definition on hover and on keyboard focus.

use super::{glossary, parser};
use pulldown_cmark::{html, CowStr, Event, Tag, TagEnd};

/// Where a lesson's interactive part goes.
pub const INTERACTIVE_MARKER: &str = "<!-- interactive -->";

/// `prefix` keeps the tooltip ids of one document apart from another's on the same page.
pub fn to_html(markdown: &str, prefix: &str) -> String {
    let mut tips = 0;
    let mut open_tip: Option<String> = None;
    let events = parser(markdown).map(|event| {
        if let Event::Start(Tag::Link { dest_url, .. }) = &event {
            if let Some(term) = term_of(dest_url) {
                tips += 1;
                let tip_id = format!("{prefix}-tip-{tips}");
                open_tip = Some(format!(
                    r#"</a><span class="term-tip" role="tooltip" id="{tip_id}"><strong>{}</strong> {}</span></span>"#,
                    escape(&term.title),
                    escape(&term.definition)
                ));
                let open = format!(r#"<span class="term"><a href="{}" aria-describedby="{tip_id}">"#, escape(dest_url));
                return Event::InlineHtml(CowStr::from(open));
            }
        }
        if let (Event::End(TagEnd::Link), Some(close)) = (&event, open_tip.as_ref()) {
            let close = CowStr::from(close.clone());
            open_tip = None;
            return Event::InlineHtml(close);
        }
        event
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

/// The glossary term a link points to, if it is one (`/glossary#kv-cache`).
fn term_of(dest: &str) -> Option<&'static glossary::Term> {
    dest.strip_prefix("/glossary#").and_then(glossary::find)
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
