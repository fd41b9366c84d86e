//! A lesson's exercises, for pages that attach a live check to each: an exercise is a
//! `### Exercise: Title {#ex-id}` section whose last part starts with `**Model answer:**`.

/// One exercise, as Markdown.
#[derive(Debug, Clone, PartialEq)]
pub struct Exercise {
    /// The heading's id, `ex-…`.
    pub id: String,
    /// The heading, the task and the hint.
    pub task: String,
    /// The model answer, without its label.
    pub answer: String,
}

const HEADING: &str = "### Exercise:";
const ANSWER: &str = "**Model answer:**";

/// The Markdown before the first exercise, the exercises, and whatever follows the last
/// one (from the next `## ` section on).
pub fn split(markdown: &str) -> (String, Vec<Exercise>, String) {
    let mut before = String::new();
    let mut after = String::new();
    let mut sections: Vec<String> = Vec::new();
    for line in markdown.split_inclusive('\n') {
        // A new `## ` section ends the exercises: the rest is not one.
        if !after.is_empty() || (line.starts_with("## ") && !sections.is_empty()) {
            after.push_str(line);
        } else if line.starts_with(HEADING) {
            sections.push(line.to_string());
        } else if let Some(section) = sections.last_mut() {
            section.push_str(line);
        } else {
            before.push_str(line);
        }
    }
    let exercises = sections
        .into_iter()
        .map(|section| {
            let (task, answer) = section.split_once(ANSWER).unwrap_or((&section, ""));
            Exercise {
                id: heading_id(&section),
                task: task.to_string(),
                answer: answer.trim().to_string(),
            }
        })
        .collect();
    (before, exercises, after)
}

/// `ex-cache-off` from `### Exercise: Cache off {#ex-cache-off}`.
fn heading_id(section: &str) -> String {
    let heading = section.lines().next().unwrap_or_default();
    heading
        .rsplit_once("{#")
        .and_then(|(_, rest)| rest.split_once('}'))
        .map_or_else(String::new, |(id, _)| id.to_string())
}
