//! The learner's saved work in the browser (IndexedDB): one record per item (a playground
//! conversation, a Lesson 3 run), each with its kind, the date it was last saved, the model
//! that made it, a title and its body, and a few named pointers ("the conversation the
//! playground shows"). A record is stored as its JSON text, so that one written by another
//! version of the site is read as text and reported as unreadable, never half-understood.
//! Every failure comes back as a sentence for the learner: a refused write is never silent.

use crate::bridge::Bridge;
use js_sys::{Array, Function, Promise};
use leptos::prelude::WithUntracked;
use serde::{Deserialize, Serialize};
use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbRequest, IdbTransaction, IdbTransactionMode};

const DATABASE: &str = "inference-playground";
const DATABASE_VERSION: u32 = 1;
/// The saved items, keyed by their id.
const ITEMS: &str = "items";
/// Named pointers: key → an item's id.
const POINTERS: &str = "pointers";

pub const FORMAT: &str = "inference-playground-saved";
pub const VERSION: u32 = 1;

/// What made a saved item: the model, as `Choice::file_stem` names it, empty when unknown (a
/// record of an older version, which did not say, or an imported conversation); and whether
/// the opt-in integer arithmetic computed it (`Bridge::arithmetic`; false in a record made
/// before the site had it, which was exact).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MadeBy {
    #[serde(default)]
    pub model: String,
    #[serde(default)]
    pub integer_arithmetic: bool,
}

impl MadeBy {
    /// The model answering now and its arithmetic, read without subscribing (when a result
    /// is saved); none before a model is ready.
    pub fn now(bridge: &Bridge) -> Option<MadeBy> {
        let integer_arithmetic = bridge.arithmetic().with_untracked(|a| a.integer());
        bridge.loaded_untracked().map(|model| MadeBy { model: model.file_stem(), integer_arithmetic })
    }

    /// As the lessons' "made on …" says it: "SmolLM2-135M-Instruct.Q4_1", "… with the
    /// integer arithmetic", "an unknown model".
    pub fn label(&self) -> String {
        let model = if self.model.is_empty() { "an unknown model" } else { &self.model };
        if self.integer_arithmetic {
            format!("{model} with the integer arithmetic")
        } else {
            model.to_string()
        }
    }
}

/// One saved item. `body` is the feature's own JSON (a conversation as its export file
/// holds it, a run), which the feature checks when it reads it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub format: String,
    pub version: u32,
    pub id: String,
    /// "conversation", "reasoning-run" or "stage-measurement": the page's `data-kind`.
    pub kind: String,
    /// When it was last saved: milliseconds since 1970.
    pub saved: f64,
    /// The model and arithmetic that produced it (fields `model` and `integer_arithmetic`).
    #[serde(flatten)]
    pub made_by: MadeBy,
    pub title: String,
    pub body: serde_json::Value,
}

impl Record {
    /// A record of `kind` saved now, made as `made_by` says (`MadeBy::now`).
    pub fn new(id: &str, kind: &str, title: &str, made_by: Option<MadeBy>, body: serde_json::Value) -> Self {
        Record {
            format: FORMAT.into(),
            version: VERSION,
            id: id.into(),
            kind: kind.into(),
            saved: js_sys::Date::now(),
            made_by: made_by.unwrap_or_default(),
            title: title.into(),
            body,
        }
    }

    /// Reads a record from its JSON text; a record this version cannot read is an error
    /// that says why.
    pub fn from_text(text: &str) -> Result<Record, String> {
        let record: Record = serde_json::from_str(text)
            .map_err(|e| format!("It was saved by another version of the site ({e})."))?;
        if record.format != FORMAT || record.version != VERSION {
            return Err(format!(
                "It was saved by another version of the site (format “{}” version {}; this version reads “{FORMAT}” version {VERSION}).",
                record.format, record.version
            ));
        }
        Ok(record)
    }
}

/// A feature's body (`Record::body`), which names its own `format` and `version` beside what
/// it holds, read as `T`; what this version cannot read is an error that says why, naming
/// the item as `what` ("a Lesson 2 measurement").
pub fn read_body<T: serde::de::DeserializeOwned>(body: &serde_json::Value, format: &str, version: u32, what: &str) -> Result<T, String> {
    #[derive(Deserialize)]
    struct Named {
        format: String,
        version: u32,
    }
    let unreadable = |why: String| format!("It is not {what} this version reads ({why}).");
    let content = serde_json::from_value(body.clone()).map_err(|e| unreadable(e.to_string()))?;
    let named: Named = serde_json::from_value(body.clone()).map_err(|e| unreadable(e.to_string()))?;
    if named.format != format || named.version != version {
        return Err(unreadable(format!(
            "format “{}” version {}; expected “{format}” version {version}",
            named.format, named.version
        )));
    }
    Ok(content)
}

/// A stored item as it was read: its key and the record, or why it cannot be read.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: String,
    pub record: Result<Record, String>,
}

/// A new item id: its kind, the time and a random part, so two tabs never collide.
pub fn new_id(kind: &str) -> String {
    format!(
        "{kind}-{}-{:06}",
        js_sys::Date::now() as u64,
        (js_sys::Math::random() * 1e6) as u32
    )
}

/// "2026-12-02 05:31", in the learner's time zone.
pub fn date_text(ms: f64) -> String {
    let d = js_sys::Date::new(&JsValue::from_f64(ms));
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date(),
        d.get_hours(),
        d.get_minutes()
    )
}

/// Saves `record` (replacing an item with its id).
pub async fn put(record: &Record) -> Result<(), String> {
    put_all(std::slice::from_ref(record)).await
}

/// Saves every record in one transaction: all of them or none.
pub async fn put_all(records: &[Record]) -> Result<(), String> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, ITEMS, IdbTransactionMode::Readwrite)?;
        let items = tx.object_store(ITEMS).map_err(refused)?;
        for record in records {
            let text = serde_json::to_string(record).map_err(|e| e.to_string())?;
            items
                .put_with_key(&JsValue::from_str(&text), &JsValue::from_str(&record.id))
                .map_err(refused)?;
        }
        finished(&tx).await
    }
    .await;
    db.close();
    result
}

/// Every stored item, oldest first by its date; unreadable ones last, in key order.
pub async fn list() -> Result<Vec<Entry>, String> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, ITEMS, IdbTransactionMode::Readonly)?;
        let items = tx.object_store(ITEMS).map_err(unavailable)?;
        // Both in key order, from the same transaction: the i-th key is the i-th value's.
        let keys = answer(&items.get_all_keys().map_err(unavailable)?);
        let values = answer(&items.get_all().map_err(unavailable)?);
        let (keys, values): (Array, Array) = (keys.await?.into(), values.await?.into());
        let mut entries: Vec<Entry> = keys
            .iter()
            .zip(values.iter())
            .map(|(key, value)| entry(key, value))
            .collect();
        entries.sort_by(|a, b| match (&a.record, &b.record) {
            (Ok(x), Ok(y)) => x.saved.total_cmp(&y.saved),
            (Ok(_), Err(_)) => std::cmp::Ordering::Less,
            (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
            (Err(_), Err(_)) => a.id.cmp(&b.id),
        });
        Ok::<_, String>(entries)
    }
    .await;
    db.close();
    result
}

/// The item `id`, if it is stored.
pub async fn get(id: &str) -> Result<Option<Entry>, String> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, ITEMS, IdbTransactionMode::Readonly)?;
        let items = tx.object_store(ITEMS).map_err(unavailable)?;
        let value = answer(&items.get(&JsValue::from_str(id)).map_err(unavailable)?).await?;
        Ok::<_, String>((!value.is_undefined()).then(|| entry(JsValue::from_str(id), value)))
    }
    .await;
    db.close();
    result
}

pub async fn delete(id: &str) -> Result<(), String> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, ITEMS, IdbTransactionMode::Readwrite)?;
        tx.object_store(ITEMS)
            .map_err(refused)?
            .delete(&JsValue::from_str(id))
            .map_err(refused)?;
        finished(&tx).await
    }
    .await;
    db.close();
    result
}

/// The item id the pointer `name` holds.
pub async fn pointer(name: &str) -> Result<Option<String>, String> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, POINTERS, IdbTransactionMode::Readonly)?;
        let pointers = tx.object_store(POINTERS).map_err(unavailable)?;
        let value = answer(
            &pointers
                .get(&JsValue::from_str(name))
                .map_err(unavailable)?,
        )
        .await?;
        Ok::<_, String>(value.as_string())
    }
    .await;
    db.close();
    result
}

pub async fn set_pointer(name: &str, id: &str) -> Result<(), String> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, POINTERS, IdbTransactionMode::Readwrite)?;
        tx.object_store(POINTERS)
            .map_err(refused)?
            .put_with_key(&JsValue::from_str(id), &JsValue::from_str(name))
            .map_err(refused)?;
        finished(&tx).await
    }
    .await;
    db.close();
    result
}

/// Saves `record` and points `name` at it: how a feature keeps the item its page shows.
pub async fn put_and_point(record: &Record, name: &str) -> Result<(), String> {
    put(record).await?;
    set_pointer(name, &record.id).await
}

fn entry(key: JsValue, value: JsValue) -> Entry {
    let id = key.as_string().unwrap_or_else(|| format!("{key:?}"));
    let record = match value.as_string() {
        Some(text) => Record::from_text(&text),
        None => Err(
            "It was saved by another version of the site (not a record this version reads).".into(),
        ),
    };
    Entry { id, record }
}

async fn open() -> Result<IdbDatabase, String> {
    let factory = web_sys::window()
        .ok_or("There is no window to store in.")?
        .indexed_db()
        .ok()
        .flatten()
        .ok_or_else(|| "This browser does not let the site store anything (IndexedDB is unavailable), so nothing is saved: export your work to keep it.".to_string())?;
    let request = factory
        .open_with_u32(DATABASE, DATABASE_VERSION)
        .map_err(unavailable)?;
    let upgrade = Closure::<dyn FnMut(JsValue)>::new({
        let request = request.clone();
        move |_| {
            if let Some(db) = request
                .result()
                .ok()
                .and_then(|r| r.dyn_into::<IdbDatabase>().ok())
            {
                for name in [ITEMS, POINTERS] {
                    if !db.object_store_names().contains(name) {
                        let _ = db.create_object_store(name);
                    }
                }
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let db = answer(&request).await;
    request.set_onupgradeneeded(None);
    drop(upgrade);
    db?.dyn_into::<IdbDatabase>().map_err(unavailable)
}

fn transaction(
    db: &IdbDatabase,
    store: &str,
    mode: IdbTransactionMode,
) -> Result<IdbTransaction, String> {
    db.transaction_with_str_and_mode(store, mode)
        .map_err(unavailable)
}

/// The result of `request` once it succeeds, or its error in words.
///
/// The handlers are set at once, before anything else can run: a request whose result is
/// awaited after another's may already have succeeded by then.
fn answer(request: &IdbRequest) -> impl std::future::Future<Output = Result<JsValue, String>> {
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let ok = request.clone();
        let failed = request.clone();
        let on_success = Closure::once_into_js(move |_: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &ok.result().unwrap_or(JsValue::UNDEFINED));
        });
        let on_error = Closure::once_into_js(move |_: JsValue| {
            let error = failed
                .error()
                .ok()
                .flatten()
                .map(JsValue::from)
                .unwrap_or(JsValue::NULL);
            let _ = reject.call1(&JsValue::NULL, &error);
        });
        request.set_onsuccess(Some(on_success.unchecked_ref()));
        request.set_onerror(Some(on_error.unchecked_ref()));
    });
    async move { JsFuture::from(promise).await.map_err(unavailable) }
}

/// Waits until a write transaction is committed: only then is the work saved.
async fn finished(tx: &IdbTransaction) -> Result<(), String> {
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let failed = tx.clone();
        let on_complete = Closure::once_into_js(move |_: JsValue| {
            let _ = resolve.call0(&JsValue::NULL);
        });
        // A write refused for want of space aborts the transaction with QuotaExceededError.
        let on_abort = Closure::once_into_js(move |_: JsValue| {
            let error = failed.error().map(JsValue::from).unwrap_or(JsValue::NULL);
            let _ = reject.call1(&JsValue::NULL, &error);
        });
        tx.set_oncomplete(Some(on_complete.unchecked_ref()));
        tx.set_onabort(Some(on_abort.unchecked_ref()));
    });
    JsFuture::from(promise).await.map(|_| ()).map_err(refused)
}

/// A refused write, in words: the work is still on the page, and what to do.
fn refused(error: JsValue) -> String {
    let (name, message) = names(&error);
    if name == "QuotaExceededError" {
        "The browser refused to save: the storage it gives this site is full. Your work is still on this page; export it, or delete saved items you no longer need (Saved work), then change something to save again.".into()
    } else {
        format!("The browser refused to save ({name}: {message}). Your work is still on this page; export it to keep it.")
    }
}

fn unavailable(error: JsValue) -> String {
    let (name, message) = names(&error);
    format!("The browser's storage could not be read ({name}: {message}).")
}

fn names(error: &JsValue) -> (String, String) {
    match error.dyn_ref::<web_sys::DomException>() {
        Some(e) => (e.name(), e.message()),
        None => match error.dyn_ref::<js_sys::Error>() {
            Some(e) => (String::from(e.name()), String::from(e.message())),
            None => (
                "Error".into(),
                error
                    .as_string()
                    .unwrap_or_else(|| "no reason given".into()),
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_choice::Choice;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn a_record_reads_back_and_another_version_is_refused_with_the_reason() {
        let model = Choice::BuiltIn(&crate::model_file::BUILT_INS[1]).file_stem();
        let made_by = MadeBy { model, integer_arithmetic: true };
        let record = Record::new(
            "conversation-1",
            "conversation",
            "Hi",
            Some(made_by),
            serde_json::json!({"a": [1, 2]}),
        );
        assert_eq!(record.made_by.label(), "gemma-3-270m.Q4_K_M with the integer arithmetic");
        let text = serde_json::to_string(&record).unwrap();
        assert_eq!(Record::from_text(&text), Ok(record.clone()));
        let newer = text.replace("\"version\":1", "\"version\":2");
        assert!(Record::from_text(&newer)
            .unwrap_err()
            .contains("version 2; this version reads"));
        let other = text.replace(FORMAT, "something-else");
        assert!(Record::from_text(&other)
            .unwrap_err()
            .contains("format “something-else”"));
        assert!(Record::from_text("[1, 2]")
            .unwrap_err()
            .contains("another version of the site"));
        // A stored value that is not text is no record either.
        let read = entry(JsValue::from_str("x"), js_sys::Object::new().into());
        assert!(read.record.is_err());
        assert_eq!(read.id, "x");
        // A record of the versions before records named their model and arithmetic reads:
        // its model unknown, its arithmetic the exact one, the only one there was.
        let without = text.replace("\"model\":\"gemma-3-270m.Q4_K_M\",", "").replace("\"integer_arithmetic\":true,", "");
        assert_eq!(without.len(), text.len() - "\"model\":\"gemma-3-270m.Q4_K_M\",\"integer_arithmetic\":true,".len());
        let old = Record::from_text(&without).map(|r| r.made_by);
        assert_eq!(old, Ok(MadeBy::default()));
        assert_eq!(old.unwrap().label(), "an unknown model");
    }

    #[wasm_bindgen_test]
    fn a_model_is_named_by_its_file_without_the_extension() {
        let smollm2 = Choice::BuiltIn(crate::model_file::default_built_in());
        assert_eq!(smollm2.file_stem(), "SmolLM2-135M-Instruct.Q4_1");
        let device = |name: &str| Choice::Device { file_name: name.into() }.file_stem();
        assert_eq!(device("qwen2.5-0.5b.Q5_K_M.GGUF"), "qwen2.5-0.5b.Q5_K_M");
        assert_eq!(device("model.bin"), "model.bin");
        assert_eq!(device("é.gguf"), "é");
        assert_eq!(device("gguf"), "gguf");
    }

    #[wasm_bindgen_test]
    fn ids_name_their_kind_and_dates_read_as_local_minutes() {
        let (a, b) = (new_id("conversation"), new_id("conversation"));
        assert!(a.starts_with("conversation-") && a != b);
        assert_eq!(date_text(0.0).len(), "1970-01-01 00:00".len());
    }
}
