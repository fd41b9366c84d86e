//! Each speculative cycle as a row of tokens: drafts the target accepted (green), the first
//! it rejected (red) and any drafted after it (struck, never checked), then the target's
//! own token.

use super::number::ms;
use crate::protocol::CycleReport;
use leptos::prelude::*;

#[component]
pub fn Cycles(#[prop(into)] cycles: Signal<Vec<CycleReport>>) -> impl IntoView {
    view! {
        <ol class="cycles" data-testid="spec-cycles" aria-label="Draft-and-verify cycles">
            {move || cycles.get().into_iter().map(|c| view! { <Cycle cycle=c/> }).collect_view()}
        </ol>
    }
}

#[component]
fn Cycle(cycle: CycleReport) -> impl IntoView {
    let drafts = cycle
        .drafted
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let (class, what) = match i.cmp(&cycle.accepted) {
                std::cmp::Ordering::Less => ("tok accepted", "accepted"),
                std::cmp::Ordering::Equal => ("tok rejected", "rejected"),
                std::cmp::Ordering::Greater => ("tok unchecked", "not checked"),
            };
            view! { <span class=class title=what>{shown(t)}<span class="sr-only">{format!(" ({what})")}</span></span> }
        })
        .collect_view();
    let all_accepted = cycle.accepted == cycle.drafted.len() && !cycle.drafted.is_empty();
    let target = cycle.target.as_ref().map(|t| {
        let what = if cycle.drafted.is_empty() {
            "nothing drafted; the target's token"
        } else if all_accepted {
            "every draft accepted; the target's bonus token"
        } else {
            "the target's token in place of the rejected one"
        };
        view! { <span class="tok target" title=what>{shown(t)}<span class="sr-only">{format!(" ({what})")}</span></span> }
    });
    view! {
        <li class="cycle" data-accepted=cycle.accepted data-drafted=cycle.drafted.len()>
            <span class="tokens">{drafts}" → "{target}</span>
            <small>{format!("{} accepted of {} · draft {} · verify {}", cycle.accepted, cycle.drafted.len(), ms(cycle.draft_ms), ms(cycle.verify_ms))}</small>
        </li>
    }
}

/// Spaces and newlines made visible, so that every token has a width.
fn shown(token: &str) -> String {
    token.replace(' ', "·").replace('\n', "↵")
}
