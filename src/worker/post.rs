//! Sending responses to the page.

use crate::protocol::{Envelope, Response};
use serde::Serialize;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

pub fn post(id: u32, body: Response) {
    let envelope = Envelope { id, body };
    // Maps become plain objects, so the page (or a test) can read them as JSON.
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    match envelope.serialize(&serializer) {
        Ok(value) => {
            if let Err(e) = scope.post_message(&value) {
                web_sys::console::error_2(&"worker: postMessage failed".into(), &e);
            }
        }
        Err(e) => {
            web_sys::console::error_1(&format!("worker: cannot serialise a response: {e}").into())
        }
    }
}
