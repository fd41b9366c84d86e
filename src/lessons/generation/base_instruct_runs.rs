//! The "Base and instruct" panel's runs, one entry per model (keyed by its file, as saved work
//! names models): what the model was given (the prompt, the settings and seed, the token
//! limit), and per way in (as a chat message through its template, as raw text) the prompt as
//! the model really saw it and what it wrote. Kept in the browser's store (`ui/store.rs`) as
//! one item, so that a run made before loading the other model survives that load, a reload
//! and the way to Saved work and back; read back when the lesson opens.

use crate::model_choice::Choice;
use crate::routes::Lesson;
use crate::ui::settings_query::to_query;
use crate::ui::store::{self, Record};
use engine::{SamplerSettings, StopReason};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

pub const KIND: &str = "base-instruct";
const FORMAT: &str = "inference-playground-base-instruct";
const VERSION: u32 = 1;
/// The store's pointer to the item the panel shows.
const POINTER: &str = "generation-base-instruct";
/// The panel's heading id: Saved work's Open goes there.
pub const ANCHOR: &str = "base-instruct";

/// What a model's runs were given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Given {
    pub prompt: String,
    /// The lesson's sliders, seed included.
    pub settings: SamplerSettings,
    /// N: the most tokens each run may write.
    pub max_tokens: usize,
}

impl Given {
    /// What `self` has that `now` has not: "another prompt", "other settings", "another N".
    pub fn differences(&self, now: &Given) -> Vec<&'static str> {
        [
            (self.prompt != now.prompt, "another prompt"),
            (self.settings != now.settings, "other settings"),
            (self.max_tokens != now.max_tokens, "another N"),
        ]
        .into_iter()
        .filter_map(|(differ, what)| differ.then_some(what))
        .collect()
    }
}

/// The prompt given one way, and what the model wrote after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Through the chat template as a user message, or as raw text.
    pub chat: bool,
    /// The prompt as the model saw it: its tokens written out, the template's text and
    /// control tokens included.
    pub seen: String,
    pub seen_tokens: usize,
    pub text: String,
    pub tokens: usize,
    pub stop: StopReason,
}

/// One model's runs of one prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRuns {
    /// `Choice::file_stem`: which model, and the key.
    pub model: String,
    /// `Choice::name`, as the page names it.
    pub name: String,
    /// No chat template: a raw row only.
    pub base: bool,
    pub given: Given,
    /// An instruct model's chat row then its raw row; a base model's raw row.
    pub rows: Vec<Row>,
}

impl ModelRuns {
    pub fn new(model: &Choice, base: bool, given: Given) -> Self {
        ModelRuns { model: model.file_stem(), name: model.name(), base, given, rows: Vec::new() }
    }

    /// The ways in a model is run: chat then raw where it has a template, raw alone if not.
    pub fn ways(base: bool) -> &'static [bool] {
        if base {
            &[false]
        } else {
            &[true, false]
        }
    }

    pub fn row(&self, chat: bool) -> Option<&Row> {
        self.rows.iter().find(|r| r.chat == chat)
    }

    /// Whether it is what the panel keeps: every way in run to its end, within N tokens.
    fn check(&self) -> Result<(), String> {
        let ways: Vec<bool> = self.rows.iter().map(|r| r.chat).collect();
        if self.model.is_empty() || self.given.prompt.trim().is_empty() || self.given.max_tokens == 0 {
            return Err("It does not say which model, prompt and settings it ran with.".into());
        }
        if ways != Self::ways(self.base) {
            return Err(format!("{}'s runs are not one per way in (chat and raw, or raw for a base model).", self.name));
        }
        for row in &self.rows {
            let ended = matches!(row.stop, StopReason::EndOfTurn | StopReason::MaxTokens | StopReason::ContextFull);
            if !ended || row.tokens > self.given.max_tokens || row.seen_tokens == 0 {
                return Err(format!("A run of {} did not finish.", self.name));
            }
        }
        Ok(())
    }
}

/// Every model's latest runs, in the order the models were first run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Runs {
    pub models: Vec<ModelRuns>,
}

impl Runs {
    /// Keeps `runs` as its model's, in place of that model's earlier ones.
    pub fn keep(&mut self, runs: ModelRuns) {
        match self.models.iter_mut().find(|m| m.model == runs.model) {
            Some(earlier) => *earlier = runs,
            None => self.models.push(runs),
        }
    }

    /// A base model's and an instruct model's runs that were given the same prompt, settings
    /// and seed, and N: the comparison the panel is for.
    pub fn matched(&self) -> Option<(&ModelRuns, &ModelRuns)> {
        let (base, instruct) = (self.models.iter().filter(|m| m.base), self.models.iter().filter(|m| !m.base));
        base.flat_map(|b| instruct.clone().map(move |i| (b, i))).find(|(b, i)| b.given == i.given)
    }

    /// "Base and instruct, same prompt and settings: gemma-3-270m.Q4_K_M (base model), …".
    fn title(&self) -> String {
        let models: Vec<String> = self
            .models
            .iter()
            .map(|m| format!("{} ({})", m.name, if m.base { "base model" } else { "instruct model" }))
            .collect();
        let same = self.models.windows(2).all(|w| w[0].given == w[1].given);
        let how = match (self.models.len(), same) {
            (1, _) => "one model so far",
            (_, true) => "same prompt and settings",
            (_, false) => "different prompts or settings",
        };
        format!("Base and instruct, {how}: {}", models.join(", "))
    }

    fn check(&self) -> Result<(), String> {
        if self.models.is_empty() {
            return Err("It holds no run.".into());
        }
        self.models.iter().try_for_each(ModelRuns::check)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Saved {
    format: String,
    version: u32,
    runs: Runs,
}

/// The runs as item `id`, naming every model that made them.
pub fn record(runs: &Runs, id: &str) -> Record {
    let saved = Saved { format: FORMAT.into(), version: VERSION, runs: runs.clone() };
    let body = serde_json::to_value(&saved).unwrap_or_default();
    let mut record = Record::new(id, KIND, &runs.title(), None, body);
    record.made_by.model = runs.models.iter().map(|m| m.model.as_str()).collect::<Vec<_>>().join(", ");
    record
}

/// The runs a record holds, or why it cannot be read.
pub fn read(record: &Record) -> Result<Runs, String> {
    let saved: Saved = store::read_body(&record.body, FORMAT, VERSION, "a Lesson 1 base and instruct comparison")?;
    saved.runs.check()?;
    Ok(saved.runs)
}

/// Saves the runs as item `id` and points the panel at it; a refused write is said in `problem`.
pub fn save(runs: &Runs, id: &str, problem: RwSignal<Option<String>>) {
    let record = record(runs, id);
    wasm_bindgen_futures::spawn_local(async move {
        problem.try_set(store::put_and_point(&record, POINTER).await.err());
    });
}

/// Reads the item the panel shows and hands it, with its id, to `restored`; a store that
/// cannot be read, or an item that cannot, is said in `problem`.
pub fn restore(problem: RwSignal<Option<String>>, restored: impl FnOnce(String, Runs) + 'static) {
    wasm_bindgen_futures::spawn_local(async move {
        let result = async {
            let Some(id) = store::pointer(POINTER).await? else { return Ok(None) };
            // Deleted in Saved work: nothing to show.
            let Some(entry) = store::get(&id).await? else { return Ok(None) };
            let runs = entry.record.and_then(|r| read(&r)).map_err(|e| format!("The saved comparison cannot be shown. {e}"))?;
            Ok::<_, String>(Some((id, runs)))
        }
        .await;
        match result {
            Ok(Some((id, runs))) => restored(id, runs),
            Ok(None) => {}
            Err(e) => {
                problem.try_set(Some(e));
            }
        }
    });
}

/// For Saved work's Open: points the panel at the record, and gives the panel's address with
/// the prompt and settings of the runs made last, so that the lesson shows them as they were.
pub async fn open(record: &Record) -> Result<String, String> {
    let runs = read(record)?;
    store::set_pointer(POINTER, &record.id).await?;
    let query = runs.models.last().map_or_else(String::new, |m| format!("?{}", to_query(&m.given.settings, &m.given.prompt)));
    Ok(format!("{}{query}#{ANCHOR}", Lesson::Generation.path()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn row(chat: bool, tokens: usize, stop: StopReason) -> Row {
        Row { chat, seen: "Hi".into(), seen_tokens: 2, text: "there".into(), tokens, stop }
    }

    fn runs(model: &str, base: bool, seed: u64) -> ModelRuns {
        let settings = SamplerSettings { seed, ..SamplerSettings::default() };
        let given = Given { prompt: "The capital of France is".into(), settings, max_tokens: 8 };
        let rows = ModelRuns::ways(base).iter().map(|&chat| row(chat, 8, StopReason::MaxTokens)).collect();
        ModelRuns { model: model.into(), name: model.to_uppercase(), base, given, rows }
    }

    #[wasm_bindgen_test]
    fn a_base_and_an_instruct_model_match_only_on_the_same_prompt_settings_seed_and_n() {
        let mut all = Runs::default();
        all.keep(runs("instruct", false, 1));
        assert_eq!(all.matched(), None, "one model is no comparison");
        all.keep(runs("base", true, 2));
        assert_eq!(all.matched(), None, "another seed is another setting");
        all.keep(runs("base", true, 1));
        assert_eq!(all.models.len(), 2, "a model's new runs replace its earlier ones");
        let (base, instruct) = all.matched().expect("the same prompt and settings");
        assert_eq!((base.model.as_str(), instruct.model.as_str()), ("base", "instruct"));

        let now = &all.models[0].given;
        assert_eq!(all.models[1].given.differences(now), Vec::<&str>::new());
        let mut other = all.clone();
        other.models[1].given.prompt.push('!');
        assert_eq!(other.matched(), None, "another prompt");
        other.models[1].given.max_tokens = 9;
        assert_eq!(other.models[1].given.differences(now), ["another prompt", "another N"]);
        let mut other = all.clone();
        other.models[1].given.settings.top_p = 0.5;
        assert_eq!(other.matched(), None, "another cut");
        assert_eq!(other.models[1].given.differences(now), ["other settings"]);
        other.models[1].given.settings.top_p = now.settings.top_p;
        other.models[1].given.settings.order.reverse();
        assert_eq!(other.models[1].given.differences(now), ["other settings"], "another order of the stages");
        let mut two_instruct = all.clone();
        two_instruct.models[1] = runs("other-instruct", false, 1);
        assert_eq!(two_instruct.matched(), None, "two instruct models are not base and instruct");
    }

    #[wasm_bindgen_test]
    fn runs_read_back_with_a_title_that_says_whether_they_match_and_what_the_panel_cannot_make_is_refused() {
        let mut all = Runs::default();
        all.keep(runs("instruct", false, 1));
        let saved = record(&all, "base-instruct-1");
        assert_eq!(saved.title, "Base and instruct, one model so far: INSTRUCT (instruct model)");
        assert_eq!(read(&saved), Ok(all.clone()));
        all.keep(runs("base", true, 1));
        let saved = record(&all, "base-instruct-1");
        assert_eq!(saved.kind, KIND);
        assert_eq!(saved.made_by.model, "instruct, base", "every model that made it");
        assert_eq!(saved.title, "Base and instruct, same prompt and settings: INSTRUCT (instruct model), BASE (base model)");
        assert_eq!(read(&saved), Ok(all.clone()));
        all.models[1].given.settings.temperature = 0.0;
        assert_eq!(record(&all, "x").title, "Base and instruct, different prompts or settings: INSTRUCT (instruct model), BASE (base model)");

        let refused = |change: fn(&mut Runs)| {
            let mut bad = all.clone();
            change(&mut bad);
            read(&record(&bad, "x")).unwrap_err()
        };
        assert!(refused(|r| r.models[0].rows.truncate(1)).contains("one per way in"), "an instruct model without its raw row");
        assert!(refused(|r| r.models[1].rows[0].chat = true).contains("one per way in"), "a base model has no chat row");
        assert!(refused(|r| r.models[0].rows[0].stop = StopReason::Cancelled).contains("did not finish"));
        assert!(refused(|r| r.models[0].rows[1].tokens = 9).contains("did not finish"), "more than N tokens");
        assert!(refused(|r| r.models.clear()).contains("no run"));
        let mut newer = record(&all, "x");
        newer.body["version"] = 2.into();
        assert!(read(&newer).unwrap_err().contains("version 2"));
    }
}
