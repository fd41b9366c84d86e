//! Lesson 2's measurements that take seconds to make, kept in the browser's store
//! (`ui/store.rs`), one item each: the prefill and decode panel's run, the speeds at each
//! thread count, the sweep over prompt lengths, the KV panel's latest run with the cache and
//! without it, the serving simulator's measured costs, the reuse panel's two turns, the cost
//! of one pass by its size, the speculative panel's comparison and its draws. Those that ran
//! on a prompt and settings of the learner's carry them, so that the panel shows them again
//! beside the restored result. Saved when a measurement finishes, with the model that made
//! it; read back when the lesson opens, so that a glossary link, Back or a reload loses none.
//! Each lab shows the item its pointer names (the newest it made, or the one Saved work
//! opened), else its newest.

use super::number::{bytes, ms, ratio, tps};
use super::run::Run;
use super::spec_run::{draft_name, Comparison, Draws};
use crate::ui::store::{self, Entry, MadeBy, Record};
use engine::serving_sim::MeasuredCosts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

pub const KIND: &str = "stage-measurement";
const FORMAT: &str = "inference-playground-stage-measurement";
const VERSION: u32 = 1;

/// One thread count's speeds, tokens per second.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Speeds {
    pub threads: usize,
    pub prefill: f64,
    pub decode: f64,
}

/// One prompt length of the sweep, its measured time to first token, and the mean time of
/// the decode steps after it (none if the answer ended at once).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub tokens: usize,
    pub ttft_ms: f64,
    pub decode_ms: Option<f64>,
}

/// A finished measurement of one lab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "lab", rename_all = "kebab-case")]
pub enum Measurement {
    /// The prefill and decode panel's run.
    Timeline { run: Run },
    /// The same run at 1, 2, … threads.
    Threads { rows: Vec<Speeds> },
    /// Time to first token against prompt length.
    Sweep { points: Vec<Point> },
    /// The KV panel's run with the cache (an exercise compares it with the next).
    CacheOn { run: Run },
    /// The KV panel's run without the cache.
    CacheOff { run: Run },
    /// The serving simulator's measured inputs: the pass times and the cache's bytes.
    Serving { costs: MeasuredCosts },
    /// The reuse panel's two chat turns (the second reusing the first from the cache), and
    /// the second turn's prompt from an empty cache; the messages the second turn sent.
    Reuse { first_message: String, second_message: String, first: Run, second: Run, cold: Run },
    /// One pass over each size of tokens at `position`: (tokens, ms per pass), smallest first.
    PassCost { position: usize, passes: Vec<(usize, f64)> },
    /// The speculative panel's plain run and (with a draft) speculative run, with the prompt
    /// and settings both ran with.
    Speculative { comparison: Comparison },
    /// The speculative panel's many cycles' first tokens, with the prompt and settings.
    SpecDraws { draws: Draws },
}

/// A lab that saves: the name its records and pointers carry, the heading Saved work's Open
/// goes to, and the lesson's lab markers whose panels show what it measured (their
/// "Measured on" line names the model a restored item was made by: the memory panel draws
/// the KV panel's run with the cache).
struct SavingLab {
    name: &'static str,
    anchor: &'static str,
    markers: &'static [&'static str],
}

const LABS: [SavingLab; 10] = [
    SavingLab { name: "timeline", anchor: "prefill-lab", markers: &["prefill-decode", "timeline-labels"] },
    SavingLab { name: "threads", anchor: "threads-lab", markers: &["prefill-decode"] },
    SavingLab { name: "sweep", anchor: "sweep-lab", markers: &["prefill-decode"] },
    SavingLab { name: "cache-on", anchor: "cache-lab", markers: &["cache", "memory"] },
    SavingLab { name: "cache-off", anchor: "cache-lab", markers: &["cache"] },
    SavingLab { name: "serving", anchor: "serving-lab", markers: &["serving"] },
    SavingLab { name: "reuse", anchor: "reuse-lab", markers: &["reuse"] },
    SavingLab { name: "pass-cost", anchor: "pass-cost-lab", markers: &["pass-cost"] },
    SavingLab { name: "spec", anchor: "spec-lab", markers: &["speculative"] },
    SavingLab { name: "spec-draws", anchor: "spec-lab", markers: &["speculative"] },
];

/// The saving labs whose results show under the lesson's lab marker `marker`.
pub fn labs_under(marker: &str) -> Vec<&'static str> {
    LABS.iter().filter(|l| l.markers.contains(&marker)).map(|l| l.name).collect()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Saved {
    format: String,
    version: u32,
    measurement: Measurement,
}

/// "1 token 4.1 ms, 2 tokens 5.0 ms": a pass's time at each of its sizes.
fn pass_times(passes: &[(usize, f64)]) -> String {
    passes
        .iter()
        .map(|&(n, t)| format!("{n} token{} {}", if n == 1 { "" } else { "s" }, ms(t)))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Measurement {
    /// The lab's name: "timeline", "threads", "sweep", "cache-on", "cache-off", "serving",
    /// "reuse", "pass-cost", "spec", "spec-draws".
    pub fn lab(&self) -> &'static str {
        let at = match self {
            Measurement::Timeline { .. } => 0,
            Measurement::Threads { .. } => 1,
            Measurement::Sweep { .. } => 2,
            Measurement::CacheOn { .. } => 3,
            Measurement::CacheOff { .. } => 4,
            Measurement::Serving { .. } => 5,
            Measurement::Reuse { .. } => 6,
            Measurement::PassCost { .. } => 7,
            Measurement::Speculative { .. } => 8,
            Measurement::SpecDraws { .. } => 9,
        };
        LABS[at].name
    }

    /// "Prefill and decode: 24 prompt tokens at 310.2 tokens/s, 31 more at 48.0 tokens/s".
    fn title(&self) -> String {
        match self {
            Measurement::Timeline { run } => format!(
                "Prefill and decode: {} prompt tokens at {}, {} more at {}",
                run.prompt.len(),
                run.prefill_tps().map_or_else(|| "–".into(), tps),
                run.decode_costs().len(),
                run.decode_tps().map_or_else(|| "–".into(), tps),
            ),
            Measurement::Threads { rows } => format!(
                "Threads: prefill and decode at 1 to {} threads",
                rows.len()
            ),
            Measurement::Sweep { points } => format!(
                "Time to first token against prompt length: {}",
                points
                    .iter()
                    .map(|p| format!("{} tokens {}", p.tokens, ms(p.ttft_ms)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Measurement::CacheOn { run } => format!("KV cache on: {}", generated(run)),
            Measurement::CacheOff { run } => format!("KV cache off: {}", generated(run)),
            Measurement::Serving { costs } => format!(
                "Serving costs: a pass over {}; {} bytes per cached position",
                pass_times(&costs.pass_ms),
                bytes(costs.kv_bytes_per_position as usize),
            ),
            Measurement::Reuse { second, cold, .. } => format!(
                "Reuse across turns: {} of {} prompt tokens reused, the first token in {} against {} from an empty cache",
                second.reused,
                second.prompt.len(),
                second.ttft_ms().map_or_else(|| "–".into(), ms),
                cold.ttft_ms().map_or_else(|| "–".into(), ms),
            ),
            Measurement::PassCost { position, passes } => {
                format!("One pass at position {position}: {}", pass_times(passes))
            }
            Measurement::Speculative { comparison: c } => {
                let plain = format!("plain {}", c.plain.decode_tps().map_or_else(|| "–".into(), tps));
                match (c.draft, c.speedup()) {
                    (Some(draft), Some(speedup)) => format!(
                        "Speculative decoding, {}, K {}: {}, {plain}",
                        draft_name(draft),
                        c.draft_len,
                        ratio(speedup)
                    ),
                    _ => format!("Speculative decoding, no draft: {plain}"),
                }
            }
            Measurement::SpecDraws { draws: d } => format!(
                "Speculative sampling, {}, K {}, temperature {:.2}: {} cycles' first tokens{}",
                draft_name(d.draft),
                d.draft_len,
                d.temperature,
                d.trials,
                d.fit().map_or_else(String::new, |f| format!(", p = {:.3}", f.p_value)),
            ),
        }
    }

    /// Whether it is what its lab makes when it finishes; why not, in words.
    fn check(&self) -> Result<(), String> {
        let measured = |v: f64| v.is_finite() && v > 0.0;
        match self {
            Measurement::Timeline { run } | Measurement::CacheOn { run } | Measurement::CacheOff { run } => {
                if !run.complete() || run.costs.is_empty() || run.error.is_some() {
                    return Err("Its run did not finish.".into());
                }
                if !run.costs.iter().all(|c| measured(c.ms)) {
                    return Err("A token's time in its run is not a measured time.".into());
                }
            }
            Measurement::Threads { rows } => {
                let counts: Vec<usize> = rows.iter().map(|r| r.threads).collect();
                if rows.len() < 2 || counts != (1..=rows.len()).collect::<Vec<_>>() {
                    return Err(format!("Its thread counts ({counts:?}) are not 1, 2, … as the lab measures them."));
                }
                if !rows.iter().all(|r| measured(r.prefill) && measured(r.decode)) {
                    return Err("A speed in it is not a measured speed.".into());
                }
            }
            Measurement::Sweep { points } => {
                let longer = points.windows(2).all(|w| w[0].tokens < w[1].tokens);
                if points.is_empty() || !longer || points[0].tokens == 0 {
                    return Err("Its prompt lengths are not the sweep's, shortest first.".into());
                }
                let times = points.iter().all(|p| measured(p.ttft_ms) && p.decode_ms.is_none_or(measured));
                if !times {
                    return Err("A time in it is not a measured time.".into());
                }
            }
            Measurement::Serving { costs } => {
                let sizes: Vec<usize> = costs.pass_ms.iter().map(|p| p.0).collect();
                if sizes.is_empty() || sizes[0] == 0 || !sizes.windows(2).all(|w| w[0] < w[1]) {
                    return Err(format!("Its pass sizes ({sizes:?}) are not the simulator's, smallest first."));
                }
                if !costs.pass_ms.iter().all(|p| measured(p.1)) || !measured(costs.kv_bytes_per_position) || !costs.far_pass_ms.is_none_or(measured) {
                    return Err("A time or a size in it is not a measured one.".into());
                }
            }
            Measurement::Reuse { first, second, cold, .. } => {
                let runs = [first, second, cold];
                if !runs.iter().all(|r| r.complete() && r.error.is_none() && !r.costs.is_empty()) {
                    return Err("One of its turns did not finish.".into());
                }
                if !runs.iter().all(|r| r.costs.iter().all(|c| measured(c.ms))) {
                    return Err("A token's time in it is not a measured time.".into());
                }
            }
            Measurement::PassCost { passes, .. } => {
                let sizes: Vec<usize> = passes.iter().map(|p| p.0).collect();
                if sizes.len() < 2 || sizes[0] != 1 || !sizes.windows(2).all(|w| w[0] < w[1]) {
                    return Err(format!("Its pass sizes ({sizes:?}) are not the panel's, from 1 token up."));
                }
                if !passes.iter().all(|p| measured(p.1)) {
                    return Err("A time in it is not a measured time.".into());
                }
            }
            Measurement::Speculative { comparison: c } => {
                if !c.finished() || c.plain.error.is_some() || c.spec.error.is_some() {
                    return Err("Its runs did not finish.".into());
                }
                if c.prompt.is_empty() || c.max_tokens == 0 || (c.draft.is_some() && c.draft_len == 0) {
                    return Err("It does not say which prompt and settings it ran with.".into());
                }
                let cycles = c.plain.cycles.iter().chain(&c.spec.cycles);
                if !cycles.clone().all(|y| measured(y.ms)) || c.plain.cycles.is_empty() {
                    return Err("A cycle's time in it is not a measured time.".into());
                }
                if !c.spec.cycles.iter().flat_map(|y| &y.betas).all(|b| (0.0..=1.0).contains(b)) {
                    return Err("An acceptance probability in it is not one.".into());
                }
            }
            Measurement::SpecDraws { draws: d } => {
                if d.prompt.is_empty() || d.draft_len == 0 || d.temperature.is_nan() || d.temperature <= 0.0 {
                    return Err("It does not say which prompt and settings it ran with.".into());
                }
                let counted: u64 = d.cells.iter().map(|c| c.count).sum();
                if d.trials == 0 || counted != d.trials as u64 || d.first_accepted > d.trials {
                    return Err(format!("Its counts ({counted}) do not add up to its {} cycles.", d.trials));
                }
                if !d.cells.iter().all(|c| (0.0..=1.0).contains(&c.prob)) {
                    return Err("A probability in it is not one.".into());
                }
                if let Some(s) = &d.second {
                    let counted: u64 = s.cells.iter().map(|c| c.count).sum();
                    if s.trials > d.trials || counted != s.trials as u64 || !s.cells.iter().all(|c| (0.0..=1.0).contains(&c.prob)) {
                        return Err(format!("Its second tokens' counts ({counted}) do not add up to their {} cycles.", s.trials));
                    }
                }
            }
        }
        Ok(())
    }
}


/// "31 tokens after 1 prompt token in 812 ms".
fn generated(run: &Run) -> String {
    let (prompt, tokens) = (run.prompt.len(), run.costs.len());
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    format!(
        "{tokens} token{} after {prompt} prompt token{} in {}",
        plural(tokens),
        plural(prompt),
        ms(run.total_ms())
    )
}

/// A finished measurement as a new item, made as `made_by` says.
pub fn record(measurement: &Measurement, made_by: Option<MadeBy>) -> Record {
    let saved = Saved {
        format: FORMAT.into(),
        version: VERSION,
        measurement: measurement.clone(),
    };
    let body = serde_json::to_value(&saved).unwrap_or_default();
    Record::new(&store::new_id(KIND), KIND, &measurement.title(), made_by, body)
}

/// The measurement a record holds, or why it cannot be read.
pub fn read(record: &Record) -> Result<Measurement, String> {
    let saved: Saved = store::read_body(&record.body, FORMAT, VERSION, "a Lesson 2 measurement")?;
    saved.measurement.check()?;
    Ok(saved.measurement)
}

/// The store's pointer to the item `lab` shows.
fn pointer(lab: &str) -> String {
    format!("stages-{lab}")
}

/// Saves a finished measurement made as `made_by` says, and points its lab at it; a refused
/// write is said in `problem`, with the lab's name.
pub fn save(measurement: Measurement, made_by: Option<MadeBy>, problem: RwSignal<Option<(&'static str, String)>>) {
    let (record, lab) = (record(&measurement, made_by), measurement.lab());
    wasm_bindgen_futures::spawn_local(async move {
        let result = store::put_and_point(&record, &pointer(lab)).await;
        problem.try_set(result.err().map(|e| (lab, e)));
    });
}

/// For Saved work's Open: points the record's lab at it, and gives the address of that lab.
pub async fn open(record: &Record) -> Result<String, String> {
    let lab = read(record)?.lab();
    store::set_pointer(&pointer(lab), &record.id).await?;
    let anchor = LABS.iter().find(|l| l.name == lab).map_or("", |l| l.anchor);
    Ok(format!("/learn/stages#{anchor}"))
}

/// Of `entries` (oldest first), what each lab shows, with the model that made it: the item
/// `pointed` names for it when it is there and readable, else its newest readable one.
fn shown(entries: &[Entry], pointed: &[Option<String>]) -> Vec<(Measurement, MadeBy)> {
    let readable: Vec<(&Record, Measurement)> = entries
        .iter()
        .filter_map(|e| e.record.as_ref().ok())
        .filter(|r| r.kind == KIND)
        .filter_map(|r| read(r).ok().map(|m| (r, m)))
        .collect();
    LABS.iter()
        .zip(pointed)
        .filter_map(|(lab, pointed)| {
            let mine = || readable.iter().filter(|(_, m)| m.lab() == lab.name);
            mine()
                .find(|(r, _)| Some(&r.id) == pointed.as_ref())
                .or_else(|| mine().last())
                .map(|(r, m)| (m.clone(), r.made_by.clone()))
        })
        .collect()
}

/// Reads what each lab showed last and hands it to `restored`; a store that cannot be read
/// is said in `problem` (under the first lab).
pub fn restore(problem: RwSignal<Option<(&'static str, String)>>, restored: impl FnOnce(Vec<(Measurement, MadeBy)>) + 'static) {
    wasm_bindgen_futures::spawn_local(async move {
        let result = async {
            let entries = store::list().await?;
            let mut pointed = Vec::new();
            for lab in &LABS {
                pointed.push(store::pointer(&pointer(lab.name)).await?);
            }
            Ok::<_, String>(shown(&entries, &pointed))
        }
        .await;
        match result {
            Ok(measurements) if !measurements.is_empty() => restored(measurements),
            Ok(_) => {}
            Err(e) => {
                problem.try_set(Some((LABS[0].name, e)));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::stages::spec_run::SpecRun;
    use crate::protocol::{CycleReport, DrawCell, TokenCost};
    use engine::speculative::Draft;
    use engine::StopReason;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn threads(rows: &[(usize, f64)]) -> Measurement {
        Measurement::Threads {
            rows: rows.iter().map(|&(threads, prefill)| Speeds { threads, prefill, decode: 10.0 }).collect(),
        }
    }

    fn entry(id: &str, measurement: &Measurement) -> Entry {
        let mut record = record(measurement, None);
        record.id = id.into();
        record.made_by.model = format!("model of {id}");
        Entry { id: id.into(), record: Ok(record) }
    }

    #[wasm_bindgen_test]
    fn a_measurement_reads_back_and_what_a_lab_cannot_make_is_refused() {
        let cost = |ms: f64| TokenCost { position: 1, piece: "a".into(), ms, computed: 3, kv_bytes: 8 };
        let run = Run { costs: vec![cost(30.0), cost(5.0)], stop: Some(StopReason::MaxTokens), ..Run::default() };
        let timeline = Measurement::Timeline { run: run.clone() };
        let record = record(&timeline, None);
        assert_eq!(record.kind, KIND);
        assert_eq!(read(&record), Ok(timeline));
        assert!(record.title.contains("100.0 tokens/s") && record.title.contains("200.0 tokens/s"), "{}", record.title);
        let cache_off = Measurement::CacheOff { run: run.clone() };
        let saved = super::record(&cache_off, None);
        assert_eq!(read(&saved), Ok(cache_off));
        assert_eq!(saved.title, "KV cache off: 2 tokens after 0 prompt tokens in 35.0 ms");
        let costs = |pass_ms: Vec<(usize, f64)>| Measurement::Serving { costs: MeasuredCosts { pass_ms, kv_bytes_per_position: 46_080.0, far_pass_ms: Some(30.0) } };
        let serving = costs(vec![(1, 20.0), (2, 21.5)]);
        let saved = super::record(&serving, None);
        assert_eq!(read(&saved), Ok(serving));
        assert_eq!(saved.title, "Serving costs: a pass over 1 token 20.0 ms, 2 tokens 21.5 ms; 46,080 bytes per cached position");
        assert!(costs(vec![(2, 20.0), (1, 21.5)]).check().unwrap_err().contains("[2, 1]"));
        assert!(costs(vec![(1, 0.0)]).check().is_err());
        let stopped = Measurement::Timeline { run: Run { stop: Some(StopReason::Cancelled), ..run } };
        assert!(stopped.check().unwrap_err().contains("did not finish"));

        assert_eq!(threads(&[(1, 5.0), (2, 9.0)]).check(), Ok(()));
        assert!(threads(&[(1, 5.0)]).check().is_err(), "one count is no comparison");
        assert!(threads(&[(2, 5.0), (1, 9.0)]).check().unwrap_err().contains("[2, 1]"));
        assert!(threads(&[(1, 5.0), (2, f64::NAN)]).check().is_err());

        let point = |tokens, ttft_ms| Point { tokens, ttft_ms, decode_ms: None };
        assert_eq!(Measurement::Sweep { points: vec![point(16, 9.0), point(64, 20.0)] }.check(), Ok(()));
        assert!(Measurement::Sweep { points: vec![point(64, 9.0), point(16, 20.0)] }.check().is_err());
        assert!(Measurement::Sweep { points: vec![point(16, -1.0)] }.check().is_err());

        let mut other = record.clone();
        other.body["version"] = 2.into();
        assert!(read(&other).unwrap_err().contains("version 2"));
        // A lab a later version added: unreadable, said so.
        let mut newer = record.clone();
        newer.body["measurement"]["lab"] = "a-later-lab".into();
        assert!(read(&newer).unwrap_err().contains("not a Lesson 2 measurement this version reads"));
    }

    #[wasm_bindgen_test]
    fn the_reuse_pass_cost_and_speculative_labs_read_back_with_their_settings_and_refuse_what_they_cannot_make() {
        let cost = |ms: f64| TokenCost { position: 1, piece: "a".into(), ms, computed: 3, kv_bytes: 8 };
        let done = |ms: &[f64]| Run { costs: ms.iter().map(|&m| cost(m)).collect(), stop: Some(StopReason::EndOfTurn), ..Run::default() };
        let reuse = |cold: Run| Measurement::Reuse {
            first_message: "My name is Ada.".into(),
            second_message: "What is my name?".into(),
            first: done(&[9.0, 2.0]),
            second: Run { reused: 20, prompt: vec!["x".into(); 26], ..done(&[4.0, 2.0]) },
            cold,
        };
        let saved = record(&reuse(done(&[12.0])), None);
        assert_eq!(read(&saved), Ok(reuse(done(&[12.0]))), "the messages come back with the turns");
        assert_eq!(saved.title, "Reuse across turns: 20 of 26 prompt tokens reused, the first token in 4.0 ms against 12.0 ms from an empty cache");
        let stopped = Run { stop: Some(StopReason::Cancelled), ..done(&[12.0]) };
        assert!(reuse(stopped).check().unwrap_err().contains("did not finish"));

        let passes = |passes: Vec<(usize, f64)>| Measurement::PassCost { position: 128, passes };
        let saved = record(&passes(vec![(1, 20.0), (2, 21.0), (16, 40.0)]), None);
        assert_eq!(read(&saved), Ok(passes(vec![(1, 20.0), (2, 21.0), (16, 40.0)])));
        assert_eq!(saved.title, "One pass at position 128: 1 token 20.0 ms, 2 tokens 21.0 ms, 16 tokens 40.0 ms");
        assert!(passes(vec![(1, 20.0)]).check().is_err(), "one size is no comparison");
        assert!(passes(vec![(2, 20.0), (1, 9.0)]).check().unwrap_err().contains("[2, 1]"));

        let cycle = |ms: f64| CycleReport { drafted: vec![], accepted: 0, target: None, text: "a".into(), tokens: 1, draft_ms: 0.0, verify_ms: ms, ms, betas: vec![] };
        let ran = |cycles: Vec<CycleReport>| SpecRun { first: Some(cost(9.0)), cycles, text: "a".into(), stop: Some(StopReason::MaxTokens), error: None };
        let plain = Comparison { prompt: "Repeat: a, b".into(), max_tokens: 8, draft: None, draft_len: 3, temperature: 0.0, plain: ran(vec![cycle(10.0)]), spec: SpecRun::default() };
        let spec = Comparison { draft: Some(Draft::EarlyExit { layers: 8 }), spec: ran(vec![cycle(5.0)]), ..plain.clone() };
        let saved = record(&Measurement::Speculative { comparison: spec.clone() }, None);
        assert_eq!(read(&saved), Ok(Measurement::Speculative { comparison: spec.clone() }), "with its prompt and settings");
        assert_eq!(saved.title, "Speculative decoding, early exit at 8 layers, K 3: 2.00×, plain 100.0 tokens/s");
        assert_eq!(record(&Measurement::Speculative { comparison: plain.clone() }, None).title, "Speculative decoding, no draft: plain 100.0 tokens/s");
        let unfinished = Comparison { spec: SpecRun { stop: Some(StopReason::Cancelled), ..spec.spec.clone() }, ..spec.clone() };
        assert!(Measurement::Speculative { comparison: unfinished }.check().unwrap_err().contains("did not finish"));
        let no_prompt = Comparison { prompt: String::new(), ..spec };
        assert!(Measurement::Speculative { comparison: no_prompt }.check().is_err());

        let cell = |token: Option<u32>, prob: f32, count: u64| DrawCell { token, text: "a".into(), prob, count };
        let draws = |counts: [u64; 2]| Measurement::SpecDraws {
            draws: Draws { prompt: "A story".into(), draft: Draft::PromptLookup, draft_len: 3, temperature: 1.5, cells: vec![cell(Some(7), 0.5, counts[0]), cell(None, 0.5, counts[1])], trials: 100, first_accepted: 40, second: None },
        };
        let saved = record(&draws([52, 48]), None);
        assert_eq!(read(&saved), Ok(draws([52, 48])));
        assert!(saved.title.starts_with("Speculative sampling, prompt lookup, K 3, temperature 1.50: 100 cycles' first tokens, p = "), "{}", saved.title);
        assert!(draws([52, 40]).check().unwrap_err().contains("(92)"), "the counts must add up to the cycles");
    }

    #[wasm_bindgen_test]
    fn each_lab_shows_its_pointed_item_else_its_newest() {
        let (a, b) = (threads(&[(1, 5.0), (2, 9.0)]), threads(&[(1, 6.0), (2, 8.0)]));
        let sweep = Measurement::Sweep { points: vec![Point { tokens: 16, ttft_ms: 9.0, decode_ms: Some(2.0) }] };
        let run = Run { costs: vec![TokenCost { position: 1, piece: "a".into(), ms: 3.0, computed: 1, kv_bytes: 8 }], stop: Some(StopReason::MaxTokens), ..Run::default() };
        let cache_on = Measurement::CacheOn { run };
        let entries = [entry("a", &a), entry("s", &sweep), entry("c", &cache_on), entry("b", &b)];
        // Each with the model its record names, in the order of `LABS`.
        let made = |m: &Measurement, id: &str| (m.clone(), MadeBy { model: format!("model of {id}"), integer_arithmetic: false });
        let none = || [None, None, None, None, None, None, None, None, None, None];
        assert_eq!(shown(&entries, &none()), vec![made(&b, "b"), made(&sweep, "s"), made(&cache_on, "c")], "the newest of each lab");
        let mut pointed = none();
        pointed[1] = Some("a".to_string());
        assert_eq!(shown(&entries, &pointed), vec![made(&a, "a"), made(&sweep, "s"), made(&cache_on, "c")], "the one its pointer names");
        let mut gone = none();
        (gone[1], gone[2], gone[4]) = (Some("deleted".to_string()), Some("b".to_string()), Some("c".to_string()));
        assert_eq!(shown(&entries, &gone), vec![made(&b, "b"), made(&sweep, "s"), made(&cache_on, "c")], "a pointer to another lab's or a deleted item is not followed");
    }
}
