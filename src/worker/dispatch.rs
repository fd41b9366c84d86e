//! Routes each request to its handler. Every failure becomes an `Error` response for that
//! request, so the page always hears back and the worker keeps serving.

use super::{
    bench_batch::bench_batch, generate, integer_activations, kernels, lesson_one, lesson_three, lesson_two,
    lesson_two_inside, load_model, post::post, spec_draws, state,
};
use crate::protocol::{Envelope, Request, Response, Turn};
use wasm_bindgen_futures::spawn_local;

pub fn on_message(event: web_sys::MessageEvent) {
    let Envelope { id, body } =
        match serde_wasm_bindgen::from_value::<Envelope<Request>>(event.data()) {
            Ok(envelope) => envelope,
            Err(e) => {
                // Answered to the sender's id if the envelope has one, so that it hears back.
                let id = js_sys::Reflect::get(&event.data(), &"id".into())
                    .ok()
                    .and_then(|id| id.as_f64())
                    .map_or(0, |id| id as u32);
                return post(
                    id,
                    Response::Error {
                        message: format!("The worker got a message it does not understand: {e}"),
                    },
                );
            }
        };
    // Cancel acts at once, between two slices of the target's work; the target's own
    // final response reports that it stopped.
    if let Request::Cancel { target_id } = body {
        return state::with(|s| s.cancel(target_id));
    }
    spawn_local(async move {
        let response = handle(id, body)
            .await
            .unwrap_or_else(|message| Response::Error { message });
        post(id, response);
    });
}

async fn handle(id: u32, request: Request) -> Result<Response, String> {
    match request {
        Request::LoadModel { url, sha256, kernels } => load_model::load_model(id, &url, &sha256, &kernels).await,
        Request::InspectFile { file } => load_model::inspect_file(file),
        Request::LoadFile { file, kernels } => load_model::load_file(file, &kernels),
        Request::ClearCache => load_model::clear_cache().await,
        Request::SetThreads { threads, kernels: stored } => Ok(Response::Threads {
            threads: engine::parallel::set_threads(threads),
            max: engine::parallel::max_threads(),
            kernels: kernels::choose_for_loaded(&stored),
        }),
        Request::SetIntegerActivations { on } => integer_activations::set(on),
        Request::Generate {
            prompt,
            chat,
            settings,
            max_tokens,
            turn,
        } => generate::generate(id, &prompt, chat, &settings, max_tokens, &turn, true).await,
        Request::Logits { prompt, chat } => lesson_one::logits(id, &prompt, chat).await,
        Request::Step { settings } => lesson_one::step(id, None, &settings),
        Request::Force { token, settings } => lesson_one::step(id, Some(token), &settings),
        Request::Rewind { n } => lesson_one::rewind(id, n),
        Request::Vocabulary => lesson_one::vocabulary(),
        Request::Next => lesson_one::next(id).await,
        Request::Continue {
            prompt,
            chat,
            runs,
            max_tokens,
        } => lesson_one::continuations(id, &prompt, chat, &runs, max_tokens).await,
        Request::PromptText { prompt, chat } => lesson_one::prompt_text(&prompt, chat),
        Request::RunExperiment { experiment } => lesson_three::run_experiment(id, experiment).await,
        Request::Cancel { .. } => unreachable!("handled above"),
        // Lesson 2
        Request::StageShape => lesson_two::shape(),
        Request::StageMeasure {
            prompt,
            cache,
            settings,
            max_tokens,
        } => lesson_two::measure(id, &prompt, cache, &settings, max_tokens).await,
        Request::StageSpeculate {
            prompt,
            settings,
            draft,
            draft_len,
            max_tokens,
        } => lesson_two::speculate(id, &prompt, &settings, draft, draft_len, max_tokens).await,
        Request::StageSpecDraws {
            prompt,
            settings,
            draft,
            draft_len,
            trials,
        } => spec_draws::spec_draws(id, &prompt, &settings, draft, draft_len, trials).await,
        Request::StageInspect {
            prompt,
            cache,
            layer,
            settings,
            max_tokens,
        } => lesson_two_inside::inspect(id, &prompt, cache, layer, &settings, max_tokens).await,
        Request::StagePassCost { sizes, rounds } => {
            lesson_two_inside::pass_cost(id, &sizes, rounds).await
        }
        Request::StagePassAt { tokens, position, rounds } => lesson_two_inside::pass_at(id, tokens, position, rounds).await,
        Request::StagePassParts { tokens } => lesson_two_inside::pass_parts(id, tokens),
        // Benchmark
        Request::BenchGenerate {
            prompt,
            chat,
            settings,
            max_tokens,
        } => {
            let turn = Turn::default();
            generate::generate(id, &prompt, chat, &settings, max_tokens, &turn, false).await
        }
        Request::BenchStats => Ok(state::with(|s| s.bench_stats())),
        Request::BenchBatch {
            prompt,
            samples,
            max_tokens,
        } => bench_batch(id, &prompt, samples, max_tokens),
    }
}
