//! Whether each exercise is solved by the live state: the settings on screen and the
//! distribution they give on the model's current logits, or the runs the base and instruct
//! panel holds. Each verdict says why.

use crate::ui::format::{count, prob};
use super::base_instruct_runs::{ModelRuns, Runs};
use super::snapshot::Snapshot;
use crate::ui::exercise::Verdict;
use engine::sampler::SamplerSettings;

/// How many repeated draws show that a seed reproduces its output.
pub const REPEATS_NEEDED: usize = 3;

/// The check for exercise `id`, or `None` for an exercise this page does not know or whose
/// distribution is not there yet.
pub fn check(id: &str, s: &SamplerSettings, snap: Option<&Snapshot>, repeats: usize, runs: &Runs) -> Option<Verdict> {
    let verdict = match (id, snap) {
        ("ex-base-and-instruct", _) => base_and_instruct(runs),
        ("ex-deterministic", Some(_)) => deterministic(s, repeats),
        ("ex-varied-but-plausible", Some(snap)) => varied(s, snap),
        ("ex-top-k-three", Some(snap)) => top_k_three(s, snap),
        ("ex-top-p-ninety", Some(snap)) => top_p_ninety(s, snap),
        _ => return None,
    };
    Some(Verdict::from(verdict))
}

/// The varied-but-plausible task: at least this many candidates keep a share…
pub const MIN_KEPT: usize = 5;
/// …and none of them is drawn with less than this probability.
pub const FLOOR: f64 = 0.02;

fn varied(s: &SamplerSettings, snap: &Snapshot) -> Result<String, String> {
    if s.temperature == 0.0 {
        return Err("T = 0 is greedy: it leaves one candidate. Raise the temperature.".into());
    }
    let cuts: Vec<&str> = [(s.top_k > 0, "top-k"), (s.top_p < 1.0, "top-p"), (s.min_p > 0.0, "min-p")]
        .into_iter()
        .filter(|c| c.0)
        .map(|c| c.1)
        .collect();
    let [cut] = cuts[..] else {
        let now = if cuts.is_empty() { "none is on".to_string() } else { format!("{} are on", cuts.join(" and ")) };
        return Err(format!("Use temperature and exactly one cut (top-k, top-p or min-p): {now}."));
    };
    if snap.eligible < MIN_KEPT {
        return Err(format!(
            "{} candidates keep a share; the task asks for at least {MIN_KEPT}. Loosen {cut}, or raise the temperature if {cut} weighs probabilities.",
            count(snap.eligible)
        ));
    }
    if snap.least_final_prob < FLOOR {
        return Err(format!(
            "The least likely of the {} kept candidates is drawn with {}, below the floor of {FLOOR}. Tighten {cut} to drop the implausible tail, or raise the temperature to share the probability more evenly among those kept.",
            count(snap.eligible),
            prob(snap.least_final_prob)
        ));
    }
    Ok(format!(
        "{} candidates keep a share and the least likely is drawn with {} (floor {FLOOR}): {cut} removed the {} implausible ones, and T = {:.2} set how evenly the kept ones share the probability.",
        count(snap.eligible),
        prob(snap.least_final_prob),
        count(snap.vocab - snap.eligible),
        s.temperature
    ))
}

fn deterministic(s: &SamplerSettings, repeats: usize) -> Result<String, String> {
    if s.temperature == 0.0 {
        return Ok("T = 0 is greedy: every Step takes the most likely token, so the output is always the same.".into());
    }
    if repeats >= REPEATS_NEEDED {
        return Ok(format!("{repeats} tokens drawn again with the same context, settings and seed came out the same."));
    }
    Err(format!(
        "T = {:.2} samples at random. Set T = 0, or Step a few tokens, Rewind and Step again with the same seed ({repeats} of {REPEATS_NEEDED} repeated draws so far).",
        s.temperature
    ))
}

fn top_k_three(s: &SamplerSettings, snap: &Snapshot) -> Result<String, String> {
    if s.temperature == 0.0 {
        return Err(
            "T = 0 is greedy: it leaves one candidate, whatever top-k says. Raise the temperature."
                .into(),
        );
    }
    if s.top_p < 1.0 || s.min_p > 0.0 {
        return Err(format!(
            "Top-k only: turn top-p off (1, now {:.2}) and min-p off (0, now {:.2}).",
            s.top_p, s.min_p
        ));
    }
    if s.top_k != 3 || snap.eligible != 3 {
        let k = if s.top_k == 0 {
            "off".to_string()
        } else {
            s.top_k.to_string()
        };
        return Err(format!(
            "Top-k is {k}, and {} candidates are eligible.",
            count(snap.eligible)
        ));
    }
    Ok("Top-k = 3 alone leaves exactly 3 candidates, renormalised to sum to 1.".into())
}

fn top_p_ninety(s: &SamplerSettings, snap: &Snapshot) -> Result<String, String> {
    if s.temperature == 0.0 {
        return Err("T = 0 is greedy: it leaves one candidate before top-p is asked. Raise the temperature.".into());
    }
    if s.top_k > 0 || s.min_p > 0.0 {
        return Err(format!(
            "Top-p only: turn top-k off (0, now {}) and min-p off (0, now {:.2}).",
            s.top_k, s.min_p
        ));
    }
    // The engine adds probabilities in f64; these are its f32 copies, summed again.
    let mass = snap.eligible_mass;
    if mass < 0.9 - 1e-6 {
        return Err(format!(
            "The {} eligible candidates cover {}: less than 0.9.",
            count(snap.eligible),
            prob(mass)
        ));
    }
    let without_last = mass - snap.least_eligible_prob;
    if without_last >= 0.9 {
        return Err(format!(
            "{} candidates cover {}, but fewer would do: without the least likely they still cover {}.",
            count(snap.eligible),
            prob(mass),
            prob(without_last)
        ));
    }
    Ok(format!(
        "The {} eligible candidates cover {}; without the least likely they would cover {}, short of 0.9.",
        count(snap.eligible),
        prob(mass),
        prob(without_last)
    ))
}

fn base_and_instruct(runs: &Runs) -> Result<String, String> {
    let Some((base, instruct)) = runs.matched() else {
        let kinds: Vec<String> = runs
            .models
            .iter()
            .map(|m| format!("{} ({})", m.name, if m.base { "a base model" } else { "an instruct model" }))
            .collect();
        return Err(match (runs.models.iter().any(|m| m.base), runs.models.iter().any(|m| !m.base)) {
            (false, false) => "The panel “Base and instruct, same prompt” holds no run yet: run it.".into(),
            (true, true) => format!(
                "The panel holds runs of {}, but they were given different prompts, settings or N: run again so that both are given the same.",
                kinds.join(" and ")
            ),
            (base, _) => format!(
                "The panel holds runs of {} only: load {} from it and run the same prompt and settings.",
                kinds.join(" and "),
                if base { "an instruct model" } else { "a base model" }
            ),
        });
    };
    let ending = |m: &ModelRuns, chat: bool| {
        m.row(chat).map_or(String::new(), |r| {
            let how = if r.stop == engine::StopReason::EndOfTurn { "ending its turn" } else { "reaching N" };
            format!("{} tokens, {how}", r.tokens)
        })
    };
    Ok(format!(
        "{} (a base model) and {} (an instruct model) were given “{}” with the same settings and seed. The instruct model as a chat: {}; as raw text: {}; the base model as raw text: {}. Compare what each wrote.",
        base.name,
        instruct.name,
        base.given.prompt,
        ending(instruct, true),
        ending(instruct, false),
        ending(base, false)
    ))
}
