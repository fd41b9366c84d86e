//! Prefix reuse across chat turns: the second turn's prompt is the first exchange plus a new
//! message, so the cache already holds most of it. Which tokens were reused, and the time to
//! first token with reuse against the same prompt from an empty cache. The finished
//! measurement is saved with the two messages, which the panel shows again with it.

use super::actions::Actions;
use super::lab::Lab;
use super::number::{ms, ratio};
use super::readout::Readout;
use super::run::{measure, Run};
use super::prompt_field::chat_prompt;
use super::saved_measurements::Measurement;
use crate::protocol::CacheMode;
use engine::Message;
use leptos::prelude::*;

const MAX_TOKENS: usize = 32;
/// The lab's name in the saved measurements.
const LAB: &str = "reuse";

#[component]
pub fn ReusePanel(lab: Lab) -> impl IntoView {
    let first_text = RwSignal::new(
        "My name is Ada and I keep bees in my garden. Greet me in one sentence.".to_string(),
    );
    let second_text = RwSignal::new("What do I keep in my garden?".to_string());
    let (first, second, cold) = (
        RwSignal::new(Run::default()),
        RwSignal::new(Run::default()),
        RwSignal::new(Run::default()),
    );
    Effect::new(move |_| {
        if let Some(Measurement::Reuse { first_message, second_message, first: a, second: b, cold: c }) = lab.take_restored(LAB) {
            if first.with_untracked(|r| r.costs.is_empty()) {
                (first_text.set(first_message), second_text.set(second_message));
                (first.set(a), second.set(b), cold.set(c));
            }
        }
    });
    let send_first = move || {
        second.set(Run::default());
        cold.set(Run::default());
        let prompt = chat_prompt(lab.engine, vec![Message::user(&first_text.get_untracked())]);
        measure(
            lab.engine,
            "turn1",
            prompt,
            CacheMode::Cold,
            MAX_TOKENS,
            first,
            |_| {},
        );
    };
    let send_second = move || {
        let (first_message, second_message) = (first_text.get_untracked(), second_text.get_untracked());
        let messages = vec![
            Message::user(&first_message),
            Message::assistant(&first.with_untracked(|r| r.text.clone())),
            Message::user(&second_message),
        ];
        cold.set(Run::default());
        let again = chat_prompt(lab.engine, messages.clone());
        // Then the same prompt from an empty cache: only its first token is needed.
        measure(
            lab.engine,
            "turn2",
            chat_prompt(lab.engine, messages),
            CacheMode::Reuse,
            MAX_TOKENS,
            second,
            move |run| {
                if run.complete() {
                    let (first_message, second_message) = (first_message.clone(), second_message.clone());
                    measure(
                        lab.engine,
                        "turn2",
                        again.clone(),
                        CacheMode::Cold,
                        1,
                        cold,
                        move |cold| {
                            // Not once the panel is gone (its turns with it).
                            let turns = first.try_get_untracked().zip(second.try_get_untracked());
                            if let (true, Some((first, second))) = (cold.complete(), turns) {
                                lab.save(Measurement::Reuse {
                                    first_message: first_message.clone(),
                                    second_message: second_message.clone(),
                                    first,
                                    second,
                                    cold: cold.clone(),
                                });
                            }
                        },
                    );
                }
            },
        );
    };
    let first_done = Signal::derive(move || first.with(Run::complete));
    let computed =
        Signal::derive(move || second.with(|r| r.costs.first().map(|c| c.computed as f64)));
    let reused =
        Signal::derive(move || second.with(|r| (!r.costs.is_empty()).then_some(r.reused as f64)));
    view! {
        <section class="lab-panel" aria-labelledby="reuse-lab">
            <h3 id="reuse-lab">"Measure it: reuse across chat turns"</h3>
            <label for="turn1-message">"First message"</label>
            <input id="turn1-message" data-testid="turn1-message" type="text" class="wide"
                prop:value=move || first_text.get() on:input=move |ev| first_text.set(event_target_value(&ev))/>
            <Actions lab=lab panel="turn1" label="Send the first message" on_run=send_first/>
            <div class="output" data-testid="turn1-output">{move || first.with(|r| r.text.clone())}</div>
            <label for="turn2-message">"Second message"</label>
            <input id="turn2-message" data-testid="turn2-message" type="text" class="wide"
                prop:value=move || second_text.get() on:input=move |ev| second_text.set(event_target_value(&ev))/>
            <Actions lab=lab panel="turn2" label="Send the second message" on_run=send_second enabled=first_done saves=LAB/>
            {move || [first, second, cold].iter().find_map(|r| r.with(|r| r.error.clone())).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <div class="readouts">
                <Readout testid="reuse-reused" label="Prompt tokens reused" value=reused format=count/>
                <Readout testid="reuse-computed" label="Prompt tokens computed" value=computed format=count/>
                <Readout testid="reuse-ttft" label="First token, with reuse" value=Signal::derive(move || second.with(Run::ttft_ms)) format=ms/>
                <Readout testid="cold-ttft" label="First token, from an empty cache" value=Signal::derive(move || cold.with(Run::ttft_ms)) format=ms/>
            </div>
            {move || {
                let (with_reuse, without) = (second.with(Run::ttft_ms)?, cold.with(Run::ttft_ms)?);
                Some(view! { <p data-testid="reuse-verdict">{format!("Reuse made the first token {} faster.", ratio(without / with_reuse))}</p> })
            }}
            <p class="token-legend"><span class="tok reused">"reused from the cache"</span>" "<span class="tok computed">"computed"</span></p>
            <p class="tokens" data-testid="reuse-tokens" role="group" aria-label="The second turn's prompt, token by token">
                {move || second.with(|r| {
                    r.prompt.iter().enumerate().map(|(i, t)| {
                        let class = if i < r.reused { "tok reused" } else { "tok computed" };
                        view! { <span class=class>{t.replace('\n', "↵")}</span> }
                    }).collect_view()
                })}
            </p>
            <div class="output" data-testid="turn2-output">{move || second.with(|r| r.text.clone())}</div>
        </section>
    }
}

fn count(v: f64) -> String {
    format!("{v:.0}")
}
