//! Where a token without the cache costs twice as much as with it, from the KV panel's
//! two latest runs.

use super::check::{Check, Outcome};
use crate::lessons::stages::cache_panel::{comparable, rows};
use crate::lessons::stages::lab::Lab;
use crate::lessons::stages::run::Run;
use leptos::prelude::*;

#[component]
pub fn CacheOff(lab: Lab) -> impl IntoView {
    let answer = RwSignal::new(String::new());
    let check = move || -> Outcome {
        let (on, off) = (lab.cache_on.get_untracked(), lab.cache_off.get_untracked());
        if !comparable(&on, &off) {
            return Err("Generate the same prompt in the KV panel twice, once with the cache and once without.".into());
        }
        let Ok(guess) = answer.get_untracked().trim().parse::<usize>() else {
            return Err(
                "Type a position: a whole number, as on the chart's horizontal axis.".into(),
            );
        };
        let Some(found) = doubling(&on, &off) else {
            return Err("In these runs no token without the cache cost twice as much: generate more tokens.".into());
        };
        // Timings are noisy: a position near the measured one is right.
        let tolerance = (found / 5).max(2);
        if guess.abs_diff(found) <= tolerance {
            Ok(format!("Measured: from position {found}, a token without the cache cost at least twice the usual cached token."))
        } else if guess < found {
            Err(format!("At position {guess} the uncached token does not yet cost twice as much. Look further right."))
        } else {
            Err(format!(
                "By position {guess} it costs more than twice as much already. Look further left."
            ))
        }
    };
    view! {
        <div class="control">
            <label for="doubling-position">"Position where a token costs twice as much without the cache"</label>
            <input id="doubling-position" data-testid="doubling-position" type="number" min="1" inputmode="numeric"
                prop:value=move || answer.get() on:input=move |ev| answer.set(event_target_value(&ev))/>
        </div>
        <Check id="ex-cache-off" check=check/>
    }
}

/// The first position from which a token without the cache costs at least twice the
/// typical cached token (the median: with the cache the cost is flat), two positions
/// running so that one slow step alone does not count.
fn doubling(on: &Run, off: &Run) -> Option<usize> {
    let mut cached: Vec<f64> = rows(on, off).iter().map(|r| r.1).collect();
    cached.sort_by(f64::total_cmp);
    let typical = *cached.get(cached.len() / 2)?;
    let uncached: Vec<(usize, f64)> = rows(on, off).iter().map(|r| (r.0, r.2)).collect();
    uncached
        .windows(2)
        .find(|w| w.iter().all(|&(_, ms)| ms >= 2.0 * typical))
        .map(|w| w[0].0)
}
