//! The site name and the navigation, lessons in their order.

use crate::routes::href;
use crate::routes::Lesson;
use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub fn Header() -> impl IntoView {
    view! {
        <header class="site-header">
            <A href=href("/") attr:class="brand">"Inference Playground"</A>
            <nav aria-label="Main">
                <ul>
                    {Lesson::ALL
                        .iter()
                        .enumerate()
                        .map(|(i, lesson)| {
                            view! {
                                <li>
                                    <A href=href(&lesson.path())>{format!("{}. {}", i + 1, lesson.short_name())}</A>
                                </li>
                            }
                        })
                        .collect_view()}
                    <li><A href=href("/playground")>"Playground"</A></li>
                    <li><A href=href("/glossary")>"Glossary"</A></li>
                    <li><A href=href("/reading")>"Reading"</A></li>
                    <li><A href=href("/saved")>"Saved work"</A></li>
                </ul>
            </nav>
        </header>
    }
}
