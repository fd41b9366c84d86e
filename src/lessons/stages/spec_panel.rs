//! Speculative decoding, measured: choose a draft and its length, run plain decoding and
//! speculative decoding of the same prompt with the same settings, and compare what each
//! cycle did, the acceptance, the time split and the speed. Under greedy the two texts
//! must be identical, and the panel checks it. The finished comparison is saved with its
//! prompt and settings; restored when the lesson opens, it puts them back in the controls.

use super::actions::Actions;
use super::cycles::Cycles;
use super::lab::Lab;
use super::number::{ms, percent, ratio, tps};
use super::readout::Readout;
use super::spec_draws::SpecDraws;
use super::saved_measurements::Measurement;
use super::spec_run::{compare, Comparison, PANEL};
use crate::ui::field::count_input;
use engine::speculative::{Draft, MAX_DRAFT};
use engine::SamplerSettings;
use leptos::prelude::*;

/// Prompt lookup copies from the context: a list to repeat is its best case.
const LIST: &str = "Repeat this list exactly: apples, pears, plums, cherries, grapes, lemons, limes, oranges, peaches, apricots, melons, mangoes, figs, dates, kiwis, bananas, coconuts, papayas, guavas, lychees.";
/// Nothing to copy: the answer is new text.
const STORY: &str =
    "Write a short story about a lighthouse keeper who finds a message in a bottle.";

#[component]
pub fn SpecPanel(lab: Lab) -> impl IntoView {
    let prompt = RwSignal::new(LIST.to_string());
    let method = RwSignal::new("prompt-lookup".to_string());
    let draft_len = RwSignal::new(3usize);
    let draft_layers = RwSignal::new(8usize);
    let temperature = RwSignal::new(0.0f32);
    let max_tokens = RwSignal::new(64usize);
    let layers = move || {
        lab.shape
            .with(|s| s.as_ref().map_or(30, |s| s.config.layers))
    };
    // A comparison restored from a saved item: its prompt and settings, as it ran with them.
    let restored = Memo::new(move |_| lab.restored_by(PANEL).is_some());
    Effect::new(move |_| {
        if !restored.get() {
            return;
        }
        let c = lab.spec.get_untracked();
        let chosen = match c.draft {
            None => "none",
            Some(Draft::PromptLookup) => "prompt-lookup",
            Some(Draft::EarlyExit { layers }) => {
                draft_layers.set(layers);
                "early-exit"
            }
        };
        (prompt.set(c.prompt), method.set(chosen.into()), temperature.set(c.temperature));
        (max_tokens.set(c.max_tokens), draft_len.set(c.draft_len.max(1)));
    });
    let draft = move || match method.get().as_str() {
        "prompt-lookup" => Some(Draft::PromptLookup),
        "early-exit" => Some(Draft::EarlyExit {
            layers: draft_layers.get().min(layers() - 1),
        }),
        _ => None,
    };
    let start = move || {
        let settings = SamplerSettings::plain(temperature.get_untracked(), 0);
        let d = untrack(draft);
        compare(
            lab.engine,
            prompt.get_untracked(),
            settings,
            d,
            draft_len.get_untracked(),
            max_tokens.get_untracked(),
            lab.spec,
            move |comparison| lab.save(Measurement::Speculative { comparison }),
        );
    };
    let c = lab.spec;
    let figure = move |f: fn(&Comparison) -> Option<f64>| Signal::derive(move || c.with(f));
    view! {
        <section class="lab-panel" aria-labelledby="spec-lab">
            <h3 id="spec-lab">"Measure it: speculative decoding"</h3>
            <label for="spec-prompt">"Chat message"</label>
            <textarea id="spec-prompt" data-testid="spec-prompt" rows="3" prop:value=move || prompt.get() on:input=move |ev| prompt.set(event_target_value(&ev))></textarea>
            <div class="presets" role="group" aria-label="Example prompts">
                <button type="button" data-testid="preset-list" on:click=move |_| prompt.set(LIST.into())>"A list to repeat (prompt lookup shines)"</button>
                <button type="button" data-testid="preset-story" on:click=move |_| prompt.set(STORY.into())>"A story (nothing to copy)"</button>
            </div>
            <div class="controls">
                <div class="control">
                    <label for="spec-method">"Draft"</label>
                    <select id="spec-method" data-testid="spec-method" prop:value=move || method.get() on:change=move |ev| method.set(event_target_value(&ev))>
                        <option value="none">"None: plain decoding only"</option>
                        <option value="prompt-lookup">"Prompt lookup"</option>
                        <option value="early-exit">"Early exit (the first layers)"</option>
                    </select>
                </div>
                <div class="control">
                    // The engine's own limit: a longer draft is refused with the range.
                    {count_input("spec-draft-len", "Draft length K", draft_len, 1, MAX_DRAFT)}
                </div>
                <div class="control">
                    <label for="spec-draft-layers">"Draft layers L"</label>
                    <output for="spec-draft-layers">{move || format!("{} of {}", draft_layers.get(), layers())}</output>
                    <input id="spec-draft-layers" data-testid="spec-draft-layers" type="range" min="1" max=move || layers() - 1 step="1"
                        aria-describedby="spec-draft-layers-hint"
                        disabled=move || method.get() != "early-exit"
                        prop:value=move || draft_layers.get().to_string()
                        on:input=move |ev| { if let Ok(l) = event_target_value(&ev).parse() { draft_layers.set(l) } }/>
                    <small id="spec-draft-layers-hint">"Early exit only."</small>
                </div>
                <div class="control">
                    <label for="spec-temperature">"Temperature"</label>
                    <output for="spec-temperature">{move || format!("{:.2}", temperature.get())}</output>
                    <input id="spec-temperature" data-testid="spec-temperature" type="range" min="0" max="1.5" step="0.05"
                        aria-describedby="spec-temperature-hint"
                        prop:value=move || temperature.get().to_string()
                        on:input=move |ev| { if let Ok(t) = event_target_value(&ev).parse() { temperature.set(t) } }/>
                    <small id="spec-temperature-hint">"0 is greedy. Above, plain sampling (no cuts), seed 0."</small>
                </div>
                <div class="control">
                    {count_input("spec-max-tokens", "Tokens to generate", max_tokens, 2, 256)}
                </div>
            </div>
            <Actions lab=lab panel=PANEL label="Run plain, then speculative" on_run=start/>
            {move || c.with(|c| c.plain.error.clone().or_else(|| c.spec.error.clone())).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <div class="readouts">
                <Readout testid="plain-tps" label="Plain decoding" value=figure(|c| c.plain.decode_tps()) format=tps/>
                <Readout testid="spec-tps" label="Speculative decoding" value=figure(|c| c.spec.decode_tps()) format=tps/>
                <Readout testid="spec-speedup" label="Speed-up" value=figure(Comparison::speedup) format=ratio/>
                <Readout testid="acceptance-rate" label="Acceptance (accepted ÷ drafted)" value=figure(|c| c.spec.acceptance_rate()) format=percent/>
                <Readout testid="mean-accepted" label="Accepted per cycle" value=figure(|c| c.spec.mean_accepted()) format=decimal/>
                <Readout testid="tokens-per-cycle" label="Tokens per cycle" value=figure(|c| c.spec.tokens_per_cycle()) format=decimal/>
                <Readout testid="spec-alpha" label="α, mean Σ min(p, q)" value=figure(|c| c.spec.alpha()) format=decimal/>
                <Readout testid="predicted-tokens-per-cycle" label="Predicted from α and K" value=figure(Comparison::predicted_tokens_per_cycle) format=decimal/>
                <Readout testid="cycle-cost" label="A cycle costs, in plain steps" value=figure(Comparison::cycle_cost_in_steps) format=decimal/>
                <Readout testid="draft-ms" label="Drafting, in all" value=figure(|c| (!c.spec.cycles.is_empty()).then(|| c.spec.draft_ms())) format=ms/>
                <Readout testid="verify-ms" label="Verifying, in all" value=figure(|c| (!c.spec.cycles.is_empty()).then(|| c.spec.verify_ms())) format=ms/>
            </div>
            {move || c.with(verdict)}
            {move || c.with(prediction)}
            {move || c.with(lossless)}
            <Cycles cycles=Signal::derive(move || c.with(|c| c.spec.cycles.clone()))/>
            <div class="output" data-testid="spec-output">{move || c.with(|c| if c.draft.is_some() { c.spec.text.clone() } else { c.plain.text.clone() })}</div>
            <SpecDraws lab=lab prompt=prompt draft=Signal::derive(draft) draft_len=draft_len temperature=temperature/>
        </section>
    }
}

fn decimal(v: f64) -> String {
    format!("{v:.2}")
}

/// What the measured speed-up means, said plainly, slower included.
fn verdict(c: &Comparison) -> Option<impl IntoView> {
    let s = c.speedup()?;
    // The speed-up is exactly tokens per cycle over a cycle's cost in plain steps.
    let why = format!(
        "Each cycle yielded {:.2} tokens and cost as much time as {:.2} plain steps.",
        c.spec.tokens_per_cycle()?,
        c.cycle_cost_in_steps()?
    );
    let text = if s > 1.0 {
        format!(
            "Speculation was faster here: {} the plain speed. {why}",
            ratio(s)
        )
    } else {
        format!(
            "Speculation was slower here: {} the plain speed. {why}",
            ratio(s)
        )
    };
    Some(
        view! { <p class="verdict" data-testid="spec-verdict" data-faster=(s > 1.0).to_string()>{text}</p> },
    )
}

/// The predictor beside the measurement, with the inputs it was computed from.
fn prediction(c: &Comparison) -> Option<impl IntoView> {
    let (alpha, k) = (c.spec.alpha()?, c.draft_len);
    let (predicted, measured) = (c.predicted_tokens_per_cycle()?, c.spec.tokens_per_cycle()?);
    let text = format!(
        "If every drafted position were accepted independently with probability α = {alpha:.2}, a cycle of \
         K = {k} drafts would yield (1 − α^(K+1)) / (1 − α) = {predicted:.2} tokens (Leviathan et al. 2023, \
         eq. 1); this run measured {measured:.2}. A gap means acceptance was not independent of position: \
         a draft that is right once tends to stay right (a copied list), or cycles cut short by the \
         answer's end or its length yielded fewer."
    );
    Some(view! { <p data-testid="spec-prediction">{text}</p> })
}

/// The check, once a comparison with a draft has run to its end.
fn lossless(c: &Comparison) -> Option<impl IntoView> {
    c.speedup()?;
    let (state, text) = match c.lossless() {
        Some(true) => ("pass", "Lossless: under greedy, the speculative text is identical to plain decoding's.".to_string()),
        Some(false) => ("fail", "The texts differ under greedy: speculation should never change them. Please report this.".to_string()),
        None => (
            "sampled",
            "Under sampling the two runs draw different tokens; the accept/reject rule keeps the distribution the same, not each draw. Set the temperature to 0 to compare texts."
                .to_string(),
        ),
    };
    Some(
        view! { <p class=format!("check {state}") data-testid="spec-lossless" data-state=state role="status">{text}</p> },
    )
}
