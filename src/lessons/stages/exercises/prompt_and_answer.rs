//! Which stage reads the prompt, which writes the answer, and what the KV cache keeps.

use super::check::{Check, Outcome};
use leptos::prelude::*;

const STAGES: [(&str, &str); 3] = [
    ("prefill", "Prefill"),
    ("decode", "Decode"),
    ("kv-cache", "The KV cache"),
];
const KEPT: [(&str, &str); 4] = [
    ("weights", "The model's weights"),
    (
        "keys-values",
        "The attention keys and values of earlier tokens",
    ),
    ("logits", "The logits of earlier tokens"),
    ("text", "The text of earlier answers"),
];

#[component]
pub fn PromptAndAnswer() -> impl IntoView {
    let (prompt, answer, kept) = (
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
    );
    let check = move || -> Outcome {
        let right = prompt.get_untracked() == "prefill"
            && answer.get_untracked() == "decode"
            && kept.get_untracked() == "keys-values";
        if right {
            Ok("The timeline above shows both stages: one pass over the prompt, then one token at a time.".into())
        } else {
            Err("Look at the timeline above: what happens before the first token, and what happens after it?".into())
        }
    };
    view! {
        <div class="choices">
            <Choice id="stage-for-prompt" label="Which stage processes the prompt?" options=&STAGES value=prompt/>
            <Choice id="stage-for-answer" label="Which stage generates the answer?" options=&STAGES value=answer/>
            <Choice id="cache-reuses" label="What does the KV cache reuse?" options=&KEPT value=kept/>
        </div>
        <Check id="ex-prompt-and-answer" check=check/>
    }
}

#[component]
fn Choice(
    id: &'static str,
    label: &'static str,
    options: &'static [(&'static str, &'static str)],
    value: RwSignal<String>,
) -> impl IntoView {
    view! {
        <div class="control">
            <label for=id>{label}</label>
            <select id=id data-testid=id prop:value=move || value.get() on:change=move |ev| value.set(event_target_value(&ev))>
                <option value="">"Choose…"</option>
                {options.iter().map(|&(v, text)| view! { <option value=v>{text}</option> }).collect_view()}
            </select>
        </div>
    }
}
