//! Native tests that the content's glossary links resolve: every "(/glossary#id)" names a
//! heading `{#id}` of glossary.md, and Lesson 3 links each of its terms. (The markdown
//! renderer that turns these links into terms is wasm32-only; the text is checked here.)

use super::FILES;

fn file(name: &str) -> &'static str {
    FILES
        .iter()
        .find(|(f, _)| *f == name)
        .map(|(_, t)| *t)
        .expect("a content file")
}

/// The ids of a text's links to the glossary, "(/glossary#id)".
fn linked(text: &str) -> Vec<&str> {
    text.split("](/glossary#")
        .skip(1)
        .filter_map(|after| after.split_once(')').map(|(id, _)| id))
        .collect()
}

/// The glossary's term ids: its second-level headings' `{#id}`.
fn terms() -> Vec<&'static str> {
    file("glossary.md")
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter_map(|h| h.rsplit_once("{#").and_then(|(_, id)| id.strip_suffix('}')))
        .collect()
}

#[test]
fn every_glossary_link_in_the_content_names_a_term() {
    let terms = terms();
    assert!(terms.contains(&"kv-cache"), "{terms:?}");
    for (name, text) in FILES {
        for id in linked(text) {
            assert!(
                terms.contains(&id),
                "{name} links to glossary#{id}, which is no term"
            );
        }
    }
}

#[test]
fn lesson_three_links_each_of_its_terms() {
    let (terms, linked) = (terms(), linked(file("reasoning.md")));
    for id in [
        "self-consistency",
        "pass-at-k",
        "majority-at-k",
        "deep-thinking-ratio",
        "logit-lens",
        "jensen-shannon-divergence",
        "faithfulness",
        "mcnemar-test",
    ] {
        assert!(terms.contains(&id), "no glossary term {id}");
        assert!(
            linked.contains(&id),
            "reasoning.md does not link glossary#{id}"
        );
    }
}
