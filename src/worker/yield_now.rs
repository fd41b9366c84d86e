//! Lets the worker's event loop run, so that a `Cancel` posted by the page is handled
//! between two slices of work. A message to ourselves is a new task at once; `setTimeout(0)`
//! would be clamped to 4 ms after a few nested calls.

use wasm_bindgen_futures::JsFuture;
use web_sys::MessageChannel;

pub async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let channel = MessageChannel::new().expect("MessageChannel exists in workers");
        channel.port1().set_onmessage(Some(&resolve));
        channel
            .port2()
            .post_message(&wasm_bindgen::JsValue::UNDEFINED)
            .expect("post to own port");
    });
    // Resolve never fails.
    let _ = JsFuture::from(promise).await;
}
