//! Files on the learner's device, as text: saving one (Lesson 3's results, the playground's
//! conversation, saved work) and reading the one chosen in a file input (the imports).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Offers `text` as a download named `name`.
pub fn download(name: &str, mime: &str, text: &str) -> Result<(), String> {
    let err = |e: wasm_bindgen::JsValue| format!("{e:?}");
    let parts = js_sys::Array::of1(&text.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(err)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(err)?;
    let link: web_sys::HtmlAnchorElement = document()
        .create_element("a")
        .map_err(err)?
        .unchecked_into();
    link.set_href(&url);
    link.set_download(name);
    link.click();
    // The download reads the Blob after this click's task; the URL goes once it has.
    set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(10),
    );
    Ok(())
}

/// The file chosen in the input that `ev` came from: its name and a future of its text. The
/// input is cleared, so that choosing the same file again is a change too. `None` when no
/// file was chosen.
pub fn chosen_file(
    ev: &web_sys::Event,
) -> Option<(String, impl std::future::Future<Output = Result<String, String>>)> {
    let input: web_sys::HtmlInputElement = event_target(ev);
    let file = input.files()?.get(0)?;
    input.set_value("");
    let name = file.name();
    let text = async move {
        wasm_bindgen_futures::JsFuture::from(file.text())
            .await
            .ok()
            .and_then(|t| t.as_string())
            .ok_or_else(|| "The file could not be read as text.".to_string())
    };
    Some((name, text))
}
