//! Lesson 2's measurements that take seconds to make, kept in the browser's store
//! (`ui/store.rs`), one item each: the prefill and decode panel's run, the speeds at each
//! thread count, and the sweep over prompt lengths. Saved when a measurement finishes, with
//! the model that made it; read back when the lesson opens, so that a glossary link, Back
//! or a reload loses none. Each lab shows the item its pointer names (the newest it made,
//! or the one Saved work opened), else its newest.

use super::number::{ms, tps};
use super::run::Run;
use crate::model_choice::Choice;
use crate::ui::store::{self, Entry, Record};
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
}

/// The labs that save, by the name their records and pointers carry, and the heading
/// Saved work's Open goes to.
const LABS: [(&str, &str); 3] = [("timeline", "prefill-lab"), ("threads", "threads-lab"), ("sweep", "sweep-lab")];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Saved {
    format: String,
    version: u32,
    measurement: Measurement,
}

impl Measurement {
    /// The lab's name: "timeline", "threads", "sweep".
    pub fn lab(&self) -> &'static str {
        match self {
            Measurement::Timeline { .. } => LABS[0].0,
            Measurement::Threads { .. } => LABS[1].0,
            Measurement::Sweep { .. } => LABS[2].0,
        }
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
        }
    }

    /// Whether it is what its lab makes when it finishes; why not, in words.
    fn check(&self) -> Result<(), String> {
        let measured = |v: f64| v.is_finite() && v > 0.0;
        match self {
            Measurement::Timeline { run } => {
                if !run.complete() || run.costs.is_empty() || run.error.is_some() {
                    return Err("Its prefill and decode run did not finish.".into());
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
        }
        Ok(())
    }
}

/// A finished measurement as a new item, made by `model`.
pub fn record(measurement: &Measurement, model: Option<&Choice>) -> Record {
    let saved = Saved {
        format: FORMAT.into(),
        version: VERSION,
        measurement: measurement.clone(),
    };
    let body = serde_json::to_value(&saved).unwrap_or_default();
    Record::new(&store::new_id(KIND), KIND, &measurement.title(), model, body)
}

/// The measurement a record holds, or why it cannot be read.
pub fn read(record: &Record) -> Result<Measurement, String> {
    let saved: Saved = serde_json::from_value(record.body.clone())
        .map_err(|e| format!("It is not a Lesson 2 measurement this version reads ({e})."))?;
    if saved.format != FORMAT || saved.version != VERSION {
        return Err(format!(
            "It is not a Lesson 2 measurement this version reads (format “{}” version {}; expected “{FORMAT}” version {VERSION}).",
            saved.format, saved.version
        ));
    }
    saved.measurement.check()?;
    Ok(saved.measurement)
}

/// The store's pointer to the item `lab` shows.
fn pointer(lab: &str) -> String {
    format!("stages-{lab}")
}

/// Saves a finished measurement made by `model`, and points its lab at it; a refused write
/// is said in `problem`, with the lab's name.
pub fn save(measurement: Measurement, model: Option<&Choice>, problem: RwSignal<Option<(&'static str, String)>>) {
    let (record, lab) = (record(&measurement, model), measurement.lab());
    wasm_bindgen_futures::spawn_local(async move {
        let result = async {
            store::put(&record).await?;
            store::set_pointer(&pointer(lab), &record.id).await
        }
        .await;
        problem.try_set(result.err().map(|e| (lab, e)));
    });
}

/// For Saved work's Open: points the record's lab at it, and gives the address of that lab.
pub async fn open(record: &Record) -> Result<String, String> {
    let lab = read(record)?.lab();
    store::set_pointer(&pointer(lab), &record.id).await?;
    let anchor = LABS.iter().find(|(name, _)| *name == lab).map_or("", |(_, anchor)| anchor);
    Ok(format!("/learn/stages#{anchor}"))
}

/// Of `entries` (oldest first), what each lab shows, with the model that made it: the item
/// `pointed` names for it when it is there and readable, else its newest readable one.
fn shown(entries: &[Entry], pointed: &[Option<String>]) -> Vec<(Measurement, String)> {
    let readable: Vec<(&Record, Measurement)> = entries
        .iter()
        .filter_map(|e| e.record.as_ref().ok())
        .filter(|r| r.kind == KIND)
        .filter_map(|r| read(r).ok().map(|m| (r, m)))
        .collect();
    LABS.iter()
        .zip(pointed)
        .filter_map(|((lab, _), pointed)| {
            let mine = || readable.iter().filter(|(_, m)| m.lab() == *lab);
            mine()
                .find(|(r, _)| Some(&r.id) == pointed.as_ref())
                .or_else(|| mine().last())
                .map(|(r, m)| (m.clone(), r.model.clone()))
        })
        .collect()
}

/// Reads what each lab showed last and hands it to `restored`; a store that cannot be read
/// is said in `problem` (under the first lab).
pub fn restore(problem: RwSignal<Option<(&'static str, String)>>, restored: impl FnOnce(Vec<(Measurement, String)>) + 'static) {
    wasm_bindgen_futures::spawn_local(async move {
        let result = async {
            let entries = store::list().await?;
            let mut pointed = Vec::new();
            for (lab, _) in LABS {
                pointed.push(store::pointer(&pointer(lab)).await?);
            }
            Ok::<_, String>(shown(&entries, &pointed))
        }
        .await;
        match result {
            Ok(measurements) if !measurements.is_empty() => restored(measurements),
            Ok(_) => {}
            Err(e) => {
                problem.try_set(Some((LABS[0].0, e)));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::TokenCost;
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
        record.model = format!("model of {id}");
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
    }

    #[wasm_bindgen_test]
    fn each_lab_shows_its_pointed_item_else_its_newest() {
        let (a, b) = (threads(&[(1, 5.0), (2, 9.0)]), threads(&[(1, 6.0), (2, 8.0)]));
        let sweep = Measurement::Sweep { points: vec![Point { tokens: 16, ttft_ms: 9.0, decode_ms: Some(2.0) }] };
        let entries = [entry("a", &a), entry("s", &sweep), entry("b", &b)];
        // Each with the model its record names.
        let made = |m: &Measurement, id: &str| (m.clone(), format!("model of {id}"));
        assert_eq!(shown(&entries, &[None, None, None]), vec![made(&b, "b"), made(&sweep, "s")], "the newest of each lab");
        let pointed = [None, Some("a".to_string()), None];
        assert_eq!(shown(&entries, &pointed), vec![made(&a, "a"), made(&sweep, "s")], "the one its pointer names");
        let gone = [None, Some("deleted".to_string()), Some("b".to_string())];
        assert_eq!(shown(&entries, &gone), vec![made(&b, "b"), made(&sweep, "s")], "a pointer to another lab's or a deleted item is not followed");
    }
}
