//! Any other path.

use crate::routes::set_title;
use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    set_title("Not found");
    // "./" is the site's base (index.html's <base href>), wherever the site is served.
    view! {
        <article class="not-found">
            <h1>"This page does not exist"</h1>
            <p>"The address may be mistyped. The " <a href="./">"home page"</a> " lists every lesson."</p>
        </article>
    }
}
