//! The three lessons, in the order the home page walks them.

use crate::markdown::{self, sources};

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
            Lesson::Generation => sources::GENERATION,
            Lesson::Stages => sources::STAGES,
            Lesson::Reasoning => sources::REASONING,
        }
    }

    /// The lesson's own first heading.
    pub fn title(self) -> String {
        markdown::first_heading(self.markdown())
    }
}
