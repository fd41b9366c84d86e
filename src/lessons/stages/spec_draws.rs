//! Speculative sampling keeps the target's distribution, shown rather than stated: the first
//! token of many draft-and-verify cycles from the same prompt, each with its own seed, counted
//! against the probabilities plain sampling draws it with, by Pearson's chi-square
//! (`engine::chi_square`, as Lesson 1's "Sample 1000×"); then the second token of the starts
//! whose first token was the most likely one, against plain sampling given that token, which
//! tests the drafts' history and the bonus token. Beside each, the total variation distance
//! and the distance a correct sampler shows at that many draws. The seeds are 0, 1, …, so a
//! result is repeatable: a correct sampler fails this test for about one prompt in a hundred.
//! The finished draws are saved with the prompt and settings they ran with, which the result
//! names (restored, the panel's controls may say otherwise).

use super::actions::Actions;
use super::lab::Lab;
use super::number::percent;
use super::prompt_field::chat_prompt;
use super::saved_measurements::Measurement;
use super::spec_run::{draft_name, Counted, Draws};
use crate::protocol::{Request, Response, MAX_DRAW_TRIALS};
use crate::ui::field::count_input;
use crate::ui::format::prob;
use crate::ui::token_text::visible;
use engine::speculative::Draft;
use engine::SamplerSettings;
use leptos::prelude::*;

const PANEL: &str = "spec-draws";
/// Below this p-value the counts are called unlikely under the target's distribution.
const ALPHA: f64 = 0.01;
/// Rows of the table; the test covers every token.
const ROWS: usize = 8;

/// The lab's name in the saved measurements.
const LAB: &str = "spec-draws";

#[component]
pub fn SpecDraws(
    lab: Lab,
    #[prop(into)] prompt: Signal<String>,
    #[prop(into)] draft: Signal<Option<Draft>>,
    #[prop(into)] draft_len: Signal<usize>,
    #[prop(into)] temperature: Signal<f32>,
) -> impl IntoView {
    let trials = RwSignal::new(200usize);
    let draws = RwSignal::new(None::<Draws>);
    let progress = RwSignal::new(None::<(usize, usize)>);
    let error = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(Measurement::SpecDraws { draws: saved }) = lab.take_restored(LAB) {
            if draws.with_untracked(Option::is_none) {
                draws.set(Some(saved));
            }
        }
    });
    let start = move || {
        let Some(draft) = draft.get_untracked() else { return };
        let (message, draft_len, temperature) = (prompt.get_untracked(), draft_len.get_untracked(), temperature.get_untracked());
        let request = Request::StageSpecDraws {
            prompt: chat_prompt(lab.engine, vec![engine::Message::user(&message)]),
            settings: SamplerSettings::plain(temperature, 0),
            draft,
            draft_len,
            trials: trials.get_untracked(),
        };
        (draws.set(None), error.set(None), progress.set(Some((0, trials.get_untracked()))));
        lab.engine.send(PANEL, request, move |response| match response {
            Response::StageDrawsProgress { done, total } => {
                progress.try_set(Some((done, total)));
            }
            Response::StageSpecDraws { cells, trials, first_accepted, second } => {
                progress.try_set(None);
                let done = (trials > 0).then(|| Draws { prompt: message.clone(), draft, draft_len, temperature, cells, trials, first_accepted, second });
                if let Some(done) = &done {
                    lab.save(Measurement::SpecDraws { draws: done.clone() });
                }
                draws.try_set(done);
            }
            Response::Error { message } => {
                progress.try_set(None);
                error.try_set(Some(message));
            }
            _ => {}
        });
    };
    let ready = Signal::derive(move || draft.get().is_some() && temperature.get() > 0.0);
    view! {
        <div class="spec-draws" data-testid="spec-draws">
            <h4>"Lossless under sampling: the distribution, tested"</h4>
            <p>
                "Under sampling, speculation and plain decoding draw different tokens; the accept/reject rule promises only that each token follows the target's distribution. Start speculation many times from the same prompt, each with its own seed, and count the first token each start emitted against plain sampling's probabilities, with the draft, its length and the temperature above. Then, among the starts whose first token was the most likely one, count the second token against plain sampling's probabilities given that first token: it comes from a draft accepted after another, from a bonus token, or from a second cycle, so it tests what the first token cannot."
            </p>
            <div class="controls">
                <div class="control">{count_input("spec-trials", "Cycles", trials, 100, MAX_DRAW_TRIALS)}</div>
            </div>
            <Show when=move || !ready.get()>
                <p class="hint">"Choose a draft and a temperature above 0 first."</p>
            </Show>
            <Actions lab=lab panel=PANEL label="Run the cycles" on_run=start enabled=ready/>
            {move || progress.get().map(|(done, total)| view! {
                <label class="progress-label" for="spec-draws-progress">{format!("{done} of {total} cycles")}</label>
                <progress id="spec-draws-progress" data-testid="spec-draws-progress" max=total as f64 value=done as f64></progress>
            })}
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || draws.get().map(result)}
        </div>
    }
}

fn result(d: Draws) -> impl IntoView {
    let n = d.trials as f64;
    let settings = format!(
        "These cycles ran with: the message “{}”, {}, K {}, temperature {:.2}.",
        d.prompt,
        draft_name(d.draft),
        d.draft_len,
        d.temperature
    );
    let accepted = format!(
        "The first draft was accepted in {} of {} cycles ({}); the others drew from the corrected distribution, max(0, p − q) renormalised. Together they land on p.",
        d.first_accepted,
        d.trials,
        percent(d.first_accepted as f64 / n)
    );
    let first_caption = format!("The {} most likely first tokens under plain sampling, and how often speculation emitted each", ROWS.min(d.cells.len()));
    let second = d.second().map(|counted| {
        let first = d.second.as_ref().map(|s| visible(&s.first)).unwrap_or_default();
        let caption = format!("After the first token “{first}” ({} starts): the {} most likely second tokens under plain sampling, and how often speculation emitted each", counted.trials, ROWS.min(counted.cells.len()));
        counts(counted, caption, "spec-second", "second tokens")
    });
    view! {
        <p data-testid="spec-draws-settings">{settings}</p>
        {counts(d.first(), first_caption, "spec-draws", "first tokens")}
        <p>{accepted}</p>
        {second.unwrap_or_else(|| view! { <p data-testid="spec-second-none">"No start began with the most likely token, so there are no second tokens to count: run more cycles."</p> }.into_any())}
    }
}

/// One count's table, its chi-square verdict and its distance; testids start with `prefix`.
fn counts(c: Counted<'_>, caption: String, prefix: &'static str, what: &'static str) -> AnyView {
    let fit = c.fit();
    let n = c.trials as f64;
    let verdict = match fit {
        None => ("untestable", "Plain sampling can draw only one token here: there is nothing to compare. Raise the temperature.".to_string()),
        Some(f) if f.p_value >= ALPHA => ("consistent", format!(
            "χ² = {:.2} over {} categories ({} degrees of freedom), p = {:.3}: these {} {what} are consistent with the target's own distribution.",
            f.statistic, f.categories, f.dof, f.p_value, c.trials
        )),
        Some(f) => ("inconsistent", format!(
            "χ² = {:.2} over {} categories ({} degrees of freedom), p = {:.2e}: counts this far from the target's probabilities would be unlikely (p < {ALPHA}) if speculation kept the distribution. A correct sampler shows this for about one prompt and seed range in a hundred; try more cycles.",
            f.statistic, f.categories, f.dof, f.p_value
        )),
    };
    let distance = c.distance().map(|(tvd, chance)| format!(
        "Total variation distance from the target: {tvd:.3}. A correct sampler shows {chance:.3} on average at {} draws over these {} cells, from chance alone (the expected distance of counts that follow the probabilities exactly).",
        c.trials, c.cells.len()
    ));
    view! {
        <table class="numbers" data-testid=format!("{prefix}-table")>
            <caption>{caption}</caption>
            <thead><tr><th scope="col">"Token"</th><th scope="col">"Plain sampling's probability"</th><th scope="col">"Expected"</th><th scope="col">"Emitted"</th></tr></thead>
            <tbody>
                {c.cells.iter().take(ROWS).map(|cell| view! {
                    <tr data-testid=format!("{prefix}-row") data-prob=cell.prob data-count=cell.count>
                        <td>{match cell.token {
                            Some(_) => view! { <code>{visible(&cell.text)}</code> }.into_any(),
                            None => "every other token".into_any(),
                        }}</td>
                        <td>{prob(cell.prob as f64)}</td>
                        <td>{format!("{:.1}", cell.prob as f64 * n)}</td>
                        <td>{cell.count}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
        <p class=format!("check {}", verdict.0) data-testid=format!("{prefix}-verdict") data-state=verdict.0
            data-p=fit.map(|f| f.p_value.to_string()) role="status">{verdict.1}</p>
        <p data-testid=format!("{prefix}-distance") data-tvd=c.distance().map(|d| d.0.to_string()) data-chance=c.distance().map(|d| d.1.to_string())>{distance}</p>
    }
    .into_any()
}
