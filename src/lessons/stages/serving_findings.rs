//! The lesson's three results on this device's measured costs (`engine::serving_sim::findings`):
//! each with the workload and servers that produce it and one sentence, written from the run's
//! numbers, that says what it shows, or that it did not show it here.

use super::number::{mb, ms, percent};
use super::serving_inputs::Assumptions;
use engine::serving_sim::findings::{self, Comparison, MAX_TOKENS};
use engine::serving_sim::MeasuredCosts;
use leptos::prelude::*;

#[derive(PartialEq)]
struct Finding {
    key: &'static str,
    title: &'static str,
    inputs: String,
    sentence: String,
}

fn paging(c: &Comparison, block_size: usize) -> Finding {
    let ((server, contiguous), (_, paged)) = (&c.before, &c.after);
    let answers = c.requests.iter().map(|r| r.answer_tokens).sum::<usize>() as f64 / c.requests.len() as f64;
    let held = paged.peak_batch > contiguous.peak_batch && paged.tokens_per_s > contiguous.tokens_per_s;
    Finding {
        key: "paging",
        title: "1. Paged memory against contiguous reservation",
        inputs: format!("60 requests at once, prompts of 50 to 400 tokens, answers of 10 to 300 under a max_tokens of {MAX_TOKENS}; {} of cache (8 requests' prompt + max_tokens); batch limit 32; continuous batching; blocks of {block_size} positions.", mb(server.memory_bytes)),
        sentence: format!(
            "Simulated: in the same memory, paged blocks ran up to {} requests at once against {} with contiguous reservation, {:.1} tokens/s against {:.1}, with {} preemptions. Answers averaged {answers:.0} tokens of their {MAX_TOKENS} maximum, so at its peak contiguous reservation had written only {} of what it held. {}",
            paged.peak_batch,
            contiguous.peak_batch,
            paged.tokens_per_s,
            contiguous.tokens_per_s,
            paged.preemptions,
            percent(contiguous.peak_used_bytes / contiguous.peak_reserved_bytes),
            if held { "Paging sustained the larger batch and the higher throughput." } else { "Here paging did not sustain both a larger batch and a higher throughput." }
        ),
    }
}

fn chunking(c: &Comparison, chunk: usize) -> Finding {
    let ((_, whole), (_, chunked)) = (&c.before, &c.after);
    let every = c.requests.get(1).map_or(0.0, |r| r.arrival_ms);
    let held = chunked.gap_p95_ms < whole.gap_p95_ms;
    Finding {
        key: "chunking",
        title: "2. Chunked prefill against whole prompts",
        inputs: format!("40 requests, one every {}, in turn a user with a 20-token prompt and a 50-token answer, and a 3,000-token prompt with a 2-token answer (so a long prompt arrives each time a whole one's prefill and 10 decode passes have taken); memory for all; batch limit 32; continuous batching; chunks of {chunk} prompt tokens per pass.", ms(every)),
        sentence: format!(
            "Simulated: prefill in chunks of {chunk} tokens {} the 95th-percentile gap between a decoding user's tokens from {} to {} (the longest from {} to {}); the cost is time to first token, whose 95th percentile went from {} to {}.",
            if held { "cut" } else { "did not cut" },
            ms(whole.gap_p95_ms),
            ms(chunked.gap_p95_ms),
            ms(whole.gap_max_ms),
            ms(chunked.gap_max_ms),
            ms(whole.ttft_p95_ms),
            ms(chunked.ttft_p95_ms)
        ),
    }
}

fn batching(c: &Comparison) -> Finding {
    let ((server, fixed), (_, continuous)) = (&c.before, &c.after);
    let held = continuous.tokens_per_s > fixed.tokens_per_s;
    Finding {
        key: "batching",
        title: "3. Continuous batching against static",
        inputs: format!("The same 60 requests at once; {} of cache (20 requests' prompt + max_tokens), contiguous; batch limit 8.", mb(server.memory_bytes)),
        sentence: format!(
            "Simulated: in the same memory, continuous batching gave {:.1} tokens/s against static batching's {:.1}: {}",
            continuous.tokens_per_s,
            fixed.tokens_per_s,
            if held { "a static batch waits for its longest answer before anyone behind it starts, a continuous one fills each place as it frees." } else { "here static batching did as well." }
        ),
    }
}

#[component]
pub fn ServingFindings(costs: Signal<Option<MeasuredCosts>>, a: Assumptions) -> impl IntoView {
    let found = Memo::new(move |_| {
        let measured = costs.get()?;
        let (block, chunk) = (a.block_size.get(), a.chunk.get());
        Some((|| -> Result<Vec<Finding>, String> {
            let costs = measured.costs()?;
            let kv = measured.kv_bytes_per_position;
            Ok(vec![
                paging(&findings::paging(&costs, kv, block)?, block),
                chunking(&findings::chunking(&costs, kv, chunk)?, chunk),
                batching(&findings::batching(&costs, kv)?),
            ])
        })())
    });
    move || {
        found.with(|f| match f {
            None => ().into_any(),
            Some(Err(e)) => view! { <p class="error" role="alert" data-testid="serving-findings-error">{e.clone()}</p> }.into_any(),
            Some(Ok(list)) => view! {
                <div data-testid="serving-findings">
                    <h4>"Three results, simulated on this device's costs"</h4>
                    {list.iter().map(|f| view! {
                        <div class="finding" data-testid=format!("serving-finding-{}", f.key)>
                            <h5>{f.title}</h5>
                            <p data-testid=format!("serving-finding-{}-sentence", f.key)>{f.sentence.clone()}</p>
                            <p class="hint">{format!("Inputs: {}", f.inputs)}</p>
                        </div>
                    }).collect_view()}
                </div>
            }
            .into_any(),
        })
    }
}
