//! `/playground`: a prompt, every generation setting, and the streamed answer with its speed.

use crate::app::set_title;
use crate::bridge::{Bridge, ModelStatus};
use super::controls::{playground_defaults, SamplerControls};
use crate::protocol::{Request, Response};
use engine::StopReason;
use leptos::prelude::*;

/// Live speed: tokens after the first, over the engine's time for them (the first one's
/// time is mostly the prompt, which the summary reports separately).
#[derive(Debug, Clone, Copy, Default)]
struct Speed {
    tokens: usize,
    decode_tokens: usize,
    decode_ms: f64,
}

impl Speed {
    fn add(&mut self, ms: f64) {
        if self.tokens > 0 {
            self.decode_tokens += 1;
            self.decode_ms += ms;
        }
        self.tokens += 1;
    }

    fn text(&self) -> String {
        let rate = match self.decode_ms > 0.0 {
            true => format!("{:.1}", self.decode_tokens as f64 * 1000.0 / self.decode_ms),
            false => "–".into(),
        };
        format!("{} tokens · {rate} tokens/s", self.tokens)
    }
}

#[component]
pub fn Playground() -> impl IntoView {
    set_title("Playground");
    let bridge = expect_context::<Bridge>();
    let prompt = RwSignal::new(String::new());
    let chat = RwSignal::new(true);
    let settings = RwSignal::new(playground_defaults());
    let max_tokens = RwSignal::new(128usize);
    let output = RwSignal::new(String::new());
    let speed = RwSignal::new(Speed::default());
    let summary = RwSignal::new(None::<String>);
    let problem = RwSignal::new(None::<String>);
    // The running request's id, 0 while none runs.
    let running = RwSignal::new(0u32);
    let ready = move || matches!(bridge.status().get(), ModelStatus::Ready(_));

    let generate = move || {
        // A second press before the button is disabled (effects run a tick later) is ignored.
        if running.get_untracked() != 0 {
            return;
        }
        let text = prompt.get_untracked();
        if text.trim().is_empty() {
            problem.set(Some(
                "Type a prompt first: the model needs some text to answer or continue.".into(),
            ));
            return;
        }
        problem.set(None);
        summary.set(None);
        output.set(String::new());
        speed.set(Speed::default());
        let request = Request::Generate {
            prompt: text,
            chat: chat.get_untracked(),
            settings: settings.get_untracked(),
            max_tokens: max_tokens.get_untracked(),
        };
        // The page may be left mid-generation: the signals may be gone when a token arrives.
        let id = bridge.send(request, move |response| match response {
            Response::Token { piece, ms, .. } => {
                output.try_update(|o| o.push_str(&piece));
                speed.try_update(|s| s.add(ms));
            }
            Response::Done {
                tokens,
                ttft_ms,
                prefill_tps,
                decode_tps,
                stop,
                ..
            } => {
                running.try_set(0);
                summary.try_set(Some(summarise(
                    tokens,
                    ttft_ms,
                    prefill_tps,
                    decode_tps,
                    stop,
                )));
            }
            Response::Error { message } => {
                running.try_set(0);
                problem.try_set(Some(message));
            }
            _ => {}
        });
        // If the request could not even be sent, its handler has already said so.
        if problem.get_untracked().is_none() {
            running.set(id);
        }
    };
    let stop = move || {
        let id = running.get_untracked();
        if id != 0 {
            bridge.cancel(id);
        }
    };
    on_cleanup(move || {
        if let Some(id) = running.try_get_untracked().filter(|&id| id != 0) {
            bridge.cancel(id);
        }
    });

    view! {
        <article class="playground">
            <h1>"Playground"</h1>
            <p class="lead">
                "Write a prompt, choose the settings, and watch the model answer one token at a time. Everything runs in this tab."
            </p>
            <form
                class="generate-form"
                on:submit=move |ev| {
                    ev.prevent_default();
                    generate();
                }
            >
                <label for="prompt">"Prompt"</label>
                <textarea
                    id="prompt"
                    data-testid="prompt"
                    rows="4"
                    placeholder="What is the capital of France?"
                    aria-describedby="prompt-hint"
                    prop:value=move || prompt.get()
                    on:input=move |ev| prompt.set(event_target_value(&ev))
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                            ev.prevent_default();
                            generate();
                        }
                    }
                ></textarea>
                <small id="prompt-hint">"Ctrl+Enter generates."</small>
                <fieldset class="mode">
                    <legend>"The prompt is"</legend>
                    <label>
                        <input type="radio" name="mode" data-testid="mode-chat" prop:checked=move || chat.get() on:change=move |_| chat.set(true)/>
                        " a chat message: the model answers as an assistant"
                    </label>
                    <label>
                        <input type="radio" name="mode" data-testid="mode-raw" prop:checked=move || !chat.get() on:change=move |_| chat.set(false)/>
                        " raw text: the model continues it. Written-out control tokens such as <|im_start|> count as such, so you can write the chat template yourself."
                    </label>
                </fieldset>
                <SamplerControls settings=settings max_tokens=max_tokens/>
                <div class="actions">
                    <button type="submit" data-testid="generate" disabled=move || !ready() || running.get() != 0>
                        "Generate"
                    </button>
                    <button type="button" data-testid="stop" disabled=move || running.get() == 0 on:click=move |_| stop()>
                        "Stop"
                    </button>
                    <output data-testid="tokens-per-second" class="speed" aria-label="Generation speed">
                        {move || speed.get().text()}
                    </output>
                </div>
                <Show when=move || !ready()>
                    <p class="hint">"Generate is available once the model is ready (see above)."</p>
                </Show>
            </form>
            {move || problem.get().map(|p| view! { <p class="error" role="alert" data-testid="playground-error">{p}</p> })}
            <section class="answer" aria-label="Output">
                <h2>"Output"</h2>
                <div class="output" data-testid="output" aria-busy=move || (running.get() != 0).to_string()>
                    {move || output.get()}
                </div>
                {move || summary.get().map(|s| view! { <p class="summary" data-testid="summary" role="status">{s}</p> })}
            </section>
        </article>
    }
}

fn summarise(
    tokens: usize,
    ttft_ms: f64,
    prefill_tps: f64,
    decode_tps: f64,
    stop: StopReason,
) -> String {
    let why = match stop {
        StopReason::EndOfTurn => "the model ended its answer",
        StopReason::MaxTokens => "the maximum number of tokens was reached",
        StopReason::Cancelled => "stopped by you",
        StopReason::ContextFull => "the context is full",
    };
    if ttft_ms > 0.0 {
        format!(
            "{tokens} tokens; {why}. First token after {ttft_ms:.0} ms; prompt read at {prefill_tps:.0} tokens/s; answer written at {decode_tps:.1} tokens/s."
        )
    } else {
        format!("{tokens} tokens; {why}.")
    }
}
