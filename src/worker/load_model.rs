//! Gets a built-in model file into memory: from the worker's Cache API when a verified copy
//! is there, else from the page's own origin, streaming so that progress can be shown. Both
//! ways the SHA-256 is checked before the bytes are trusted; a corrupt cached copy is
//! deleted and fetched again. The file stays in JavaScript memory (see `js_file`): the
//! engine reads it one tensor at a time, so wasm memory holds only the weights.
//! A file from the learner's device is described from its header first (`inspect_file`),
//! then loaded where it lies, in slices (`load_file`); it is never copied whole.

use super::js_file::{js_error, sha256_hex, JsBytes, JsReader};
use super::state::{self, ModelId};
use super::{kernels, post::post};
use crate::model_file::megabytes;
use crate::protocol::{FileFacts, KernelChoice, ModelInfo, Response};
use engine::{EngineError, Model};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, Cache, ReadableStreamDefaultReader, WorkerGlobalScope};

/// Bump the version to drop files cached by older builds.
const CACHE_NAME: &str = "models-v1";
/// Progress messages at most this often.
const PROGRESS_MS: f64 = 100.0;

pub async fn load_model(id: u32, url: &str, sha256: &str, kernels: &[KernelChoice]) -> Result<Response, String> {
    let t0 = now();
    let cache = open_cache().await?;
    let mut cached = None;
    if let Some(cache) = &cache {
        if let Some(response) = cached_response(cache, url).await? {
            match read_verified(id, response, sha256, true).await {
                Ok(bytes) => cached = Some(bytes),
                Err(e) => {
                    web_sys::console::warn_1(
                        &format!("cached model rejected ({e}); fetching it again").into(),
                    );
                    JsFuture::from(cache.delete_with_str(url))
                        .await
                        .map_err(js_error)?;
                }
            }
        }
    }
    let from_cache = cached.is_some();
    let bytes = match cached {
        Some(bytes) => bytes,
        None => {
            let bytes = read_verified(id, fetch(url).await?, sha256, false).await?;
            if let Some(cache) = &cache {
                store(cache, url, &bytes).await;
            }
            bytes
        }
    };
    let file_bytes = u64::from(bytes.length());
    let model = Model::from_gguf_reader(&mut JsReader::new(bytes)).map_err(load_error)?;
    let model_id = ModelId { name: sha256.to_string(), file_bytes };
    Ok(install(model, model_id, kernels, from_cache, t0))
}

/// The facts of a GGUF file on the learner's device, from its header alone.
pub fn inspect_file(file: JsValue) -> Result<Response, String> {
    let facts = facts(&device_file(file)?)?;
    Ok(Response::FileFacts { facts })
}

/// Loads a GGUF file from the learner's device, if it can be read and fits.
pub fn load_file(file: JsValue, kernels: &[KernelChoice]) -> Result<Response, String> {
    let t0 = now();
    let blob = device_file(file)?;
    facts(&blob)?.fits()?;
    let file_bytes = blob.size() as u64;
    // A device file is named by its name and size: the page cannot hash it without reading it whole.
    let name = Reflect::get(&blob, &"name".into()).ok().and_then(|n| n.as_string()).unwrap_or_default();
    let model = Model::from_gguf_reader(&mut JsReader::from_blob(blob)?).map_err(load_error)?;
    Ok(install(model, ModelId { name, file_bytes }, kernels, false, t0))
}

fn device_file(file: JsValue) -> Result<Blob, String> {
    file.dyn_into::<Blob>()
        .map_err(|_| "The worker was not given a file.".to_string())
}

fn facts(blob: &Blob) -> Result<FileFacts, String> {
    let info = engine::gguf::info::info(&mut JsReader::from_blob(blob.clone())?)
        .map_err(|e| {
            let e = e.to_string();
            let end = if e.ends_with('.') { "" } else { "." };
            format!("This file cannot be used: {e}{end}")
        })?;
    let context = info.context.min(state::PAGE_CONTEXT) as u64;
    // Keys and values at f32, as `Config::kv_bytes_per_position` counts them; saturating,
    // since the counts come from an untrusted file (a huge product is refused as not fitting).
    let kv_bytes = [info.layers, info.kv_heads, info.head_dim]
        .iter()
        .fold(2 * 4 * context, |acc, &n| acc.saturating_mul(n as u64));
    let mut tensor_types: Vec<(String, usize)> =
        info.tensor_types.iter().map(|(&t, &n)| (t.to_string(), n)).collect();
    tensor_types.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(FileFacts {
        name: info.name,
        architecture: info.architecture.into(),
        parameters: info.parameters,
        layers: info.layers,
        heads: info.heads,
        kv_heads: info.kv_heads,
        vocab: info.vocab,
        context: info.context,
        tensor_types,
        chat_template: info.chat_template,
        file_bytes: info.file_bytes,
        needed_bytes: info.file_bytes.saturating_add(kv_bytes),
        loaded_bytes: state::with(|s| s.model().map_or(0, |m| m.weight_bytes() as u64)),
    })
}

fn load_error(e: EngineError) -> String {
    match e {
        EngineError::OutOfMemory { bytes, what } => format!(
            "Not enough memory: this tab could not get {} more for the model's {what}. \
             Close other tabs or apps and press Retry, or use a device with more memory.",
            megabytes(bytes as u64)
        ),
        e => format!("The model file could not be loaded: {e}"),
    }
}

/// Chooses decode's loops for `model`, makes it the one every request uses, and describes it.
fn install(model: Model, id: ModelId, kernels: &[KernelChoice], from_cache: bool, t0: f64) -> Response {
    let kernels = kernels::choose(&model, &id, kernels);
    let c = &model.config;
    let info = ModelInfo {
        file_bytes: id.file_bytes,
        weight_bytes: model.weight_bytes() as u64,
        layers: c.layers,
        vocab: c.vocab,
        context: c.context.min(state::PAGE_CONTEXT),
        from_cache,
        load_ms: now() - t0,
        architecture: c.architecture.name().into(),
        chat_template: model.tokenizer.chat_template.is_some(),
        integer_share: model.integer_share(),
        kernels,
        sampling: model.sampling.clone(),
    };
    state::with(|s| s.set_model(model, id));
    Response::ModelReady { info }
}

pub async fn clear_cache() -> Result<Response, String> {
    let caches = scope().caches().map_err(js_error)?;
    JsFuture::from(caches.delete(CACHE_NAME))
        .await
        .map_err(js_error)?;
    Ok(Response::CacheCleared)
}

fn scope() -> WorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn now() -> f64 {
    scope().performance().map_or(0.0, |p| p.now())
}


/// The Cache API exists only in secure contexts (https, localhost); elsewhere the model
/// is simply fetched every time.
async fn open_cache() -> Result<Option<Cache>, String> {
    if !Reflect::has(&scope(), &"caches".into()).unwrap_or(false) {
        return Ok(None);
    }
    let caches = scope().caches().map_err(js_error)?;
    let cache = JsFuture::from(caches.open(CACHE_NAME))
        .await
        .map_err(js_error)?;
    Ok(Some(cache.unchecked_into()))
}

async fn cached_response(cache: &Cache, url: &str) -> Result<Option<web_sys::Response>, String> {
    let found = JsFuture::from(cache.match_with_str(url))
        .await
        .map_err(js_error)?;
    Ok(found.dyn_into().ok())
}

async fn fetch(url: &str) -> Result<web_sys::Response, String> {
    let response = JsFuture::from(scope().fetch_with_str(url))
        .await
        .map_err(|e| {
            format!(
                "The model could not be downloaded from {url}: {}",
                js_error(e)
            )
        })?;
    let response: web_sys::Response = response.unchecked_into();
    if !response.ok() {
        return Err(format!(
            "The model could not be downloaded from {url}: HTTP {} {}",
            response.status(),
            response.status_text()
        ));
    }
    Ok(response)
}

/// Reads the whole body into JavaScript memory, reporting progress, and checks its SHA-256.
async fn read_verified(
    id: u32,
    response: web_sys::Response,
    sha256: &str,
    from_cache: bool,
) -> Result<Uint8Array, String> {
    let total = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.parse::<u64>().ok());
    let body = response.body().ok_or("The model response has no body.")?;
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut bytes = JsBytes::with_capacity(total);
    let (t0, mut last) = (now(), f64::NEG_INFINITY);
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(|e| {
            let of = total.map_or(String::new(), |t| format!(" of {}", megabytes(t)));
            let what = match from_cache {
                true => "Reading the cached model",
                false => "The download of the model",
            };
            format!(
                "{what} broke off after {}{of} ({}). Nothing was kept: Retry starts again.",
                megabytes(bytes.len()),
                js_error(e)
            )
        })?;
        let done = Reflect::get(&chunk, &"done".into()).map_or(true, |d| d.is_truthy());
        if !done {
            let data: Uint8Array = Reflect::get(&chunk, &"value".into())
                .map_err(js_error)?
                .unchecked_into();
            bytes.push(data)?;
        }
        let t = now();
        if done || t - last >= PROGRESS_MS {
            last = t;
            let loaded = bytes.len();
            let mb_per_s = loaded as f64 / 1e6 / ((t - t0).max(1.0) / 1000.0);
            post(
                id,
                Response::Progress {
                    loaded,
                    total,
                    mb_per_s,
                    from_cache,
                },
            );
        }
        if done {
            break;
        }
    }
    let bytes = bytes.finish();
    let got = sha256_hex(&bytes).await?;
    if got != sha256 {
        return Err(format!(
            "The model file is corrupt: its SHA-256 is {got}, expected {sha256} ({} bytes read).",
            bytes.length()
        ));
    }
    Ok(bytes)
}

/// Keeps a verified copy for next time. A full disk only costs a download next visit.
async fn store(cache: &Cache, url: &str, body: &Uint8Array) {
    let stored = async {
        // The length lets the next visit show progress while re-verifying the cached copy.
        let headers = web_sys::Headers::new().map_err(js_error)?;
        headers
            .set("content-length", &body.length().to_string())
            .map_err(js_error)?;
        headers
            .set("content-type", "application/octet-stream")
            .map_err(js_error)?;
        let init = web_sys::ResponseInit::new();
        init.set_headers(&headers);
        let response = web_sys::Response::new_with_opt_js_u8_array_and_init(Some(body), &init)
            .map_err(js_error)?;
        JsFuture::from(cache.put_with_str(url, &response))
            .await
            .map_err(js_error)
    };
    if let Err(e) = stored.await {
        web_sys::console::warn_1(&format!("the model could not be cached: {e}").into());
    }
}
