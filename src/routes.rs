//! What every page needs to name a route: the site's base path, links under it, the tab's
//! title, and the three lessons in the order the home page walks them. Imports no page.

use crate::content;
use crate::markdown;
use leptos::prelude::document;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lesson {
    Generation,
    Stages,
    Reasoning,
}

impl Lesson {
    pub const ALL: [Lesson; 3] = [Lesson::Generation, Lesson::Stages, Lesson::Reasoning];

    pub fn slug(self) -> &'static str {
        match self {
            Lesson::Generation => "generation",
            Lesson::Stages => "stages",
            Lesson::Reasoning => "reasoning",
        }
    }

    pub fn path(self) -> String {
        format!("/learn/{}", self.slug())
    }

    /// The short name in the navigation.
    pub fn short_name(self) -> &'static str {
        match self {
            Lesson::Generation => "Generation",
            Lesson::Stages => "Stages",
            Lesson::Reasoning => "Reasoning",
        }
    }

    pub fn markdown(self) -> &'static str {
        match self {
            Lesson::Generation => content::GENERATION.as_str(),
            Lesson::Stages => content::STAGES.as_str(),
            Lesson::Reasoning => content::REASONING.as_str(),
        }
    }

    /// The lesson's own first heading.
    pub fn title(self) -> String {
        markdown::first_heading(self.markdown())
    }
}

/// The path the site is served under, without its trailing slash: "" at a host's root,
/// "/deep/sub" for `trunk build --public-url /deep/sub/`. Trunk writes that URL into
/// index.html's `<base href>`; relative URLs (the worker, the model, the service worker,
/// links in lessons) follow it by themselves, routes and menu links through this.
pub fn base_path() -> String {
    let base = document().base_uri().ok().flatten().unwrap_or_default();
    let path = web_sys::Url::new(&base)
        .map(|url| url.pathname())
        .unwrap_or_default();
    path.trim_end_matches('/').to_string()
}

/// A route ("/glossary") as a link under the site's base path.
pub fn href(route: &str) -> String {
    format!("{}{route}", base_path())
}

/// Sets the tab's title for the current page.
pub fn set_title(page: &str) {
    document().set_title(&format!("{page} · Inference Playground"));
}

