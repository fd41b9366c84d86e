//! A lesson's exercises, read from its Markdown so that the page can put a check beside
//! each. An exercise is a section headed `### Exercise: Title {#ex-id}`; in it, a paragraph
//! starting `**Hint:**` is the hint and one starting `**Model answer:**` the model answer
//! (both shown on request); the rest is the task. The section ends at the next heading of
//! level 3 or above.

#[derive(Debug, Clone, PartialEq)]
pub struct Exercise {
    pub id: String,
    pub title: String,
    /// Markdown, as are the hint and the model answer.
    pub task: String,
    pub hint: String,
    pub answer: String,
}

const HEADING: &str = "### Exercise:";

/// The Markdown before the first exercise, and the exercises in order.
pub fn split(markdown: &str) -> (String, Vec<Exercise>) {
    let mut intro = String::new();
    let mut exercises: Vec<Exercise> = Vec::new();
    // Which part of the current exercise the lines belong to, and whether one is open.
    let mut part = Part::Task;
    let mut open = false;
    for line in markdown.lines() {
        if let Some(heading) = line.strip_prefix(HEADING) {
            let (title, id) = title_and_id(heading);
            exercises.push(Exercise {
                id,
                title,
                task: String::new(),
                hint: String::new(),
                answer: String::new(),
            });
            (open, part) = (true, Part::Task);
            continue;
        }
        if ["# ", "## ", "### "].iter().any(|h| line.starts_with(h)) {
            open = false;
        }
        let Some(exercise) = exercises.last_mut().filter(|_| open) else {
            if exercises.is_empty() {
                intro.push_str(line);
                intro.push('\n');
            }
            continue;
        };
        if let Some(rest) = line.strip_prefix("**Hint:**") {
            (part, exercise.hint) = (Part::Hint, rest.trim_start().to_string());
        } else if let Some(rest) = line.strip_prefix("**Model answer:**") {
            (part, exercise.answer) = (Part::Answer, rest.trim_start().to_string());
        } else {
            if line.trim().is_empty() && part != Part::Task {
                // A blank line ends the hint or answer paragraph; what follows is task again.
                part = Part::Task;
            }
            let text = match part {
                Part::Task => &mut exercise.task,
                Part::Hint => &mut exercise.hint,
                Part::Answer => &mut exercise.answer,
            };
            text.push('\n');
            text.push_str(line);
        }
    }
    (intro, exercises)
}

#[derive(Clone, Copy, PartialEq)]
enum Part {
    Task,
    Hint,
    Answer,
}

/// " A bigger token budget {#ex-token-budget}" → ("A bigger token budget", "ex-token-budget").
fn title_and_id(heading: &str) -> (String, String) {
    let heading = heading.trim();
    match heading.rsplit_once("{#") {
        Some((title, id)) => (
            title.trim().to_string(),
            id.trim_end_matches('}').trim().to_string(),
        ),
        None => (heading.to_string(), String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    const LESSON: &str = "## Try it\n\nIntro.\n\n### Exercise: First one {#ex-one}\n\n**Task:** Do it.\n\n**Hint:** Look\ncloser.\n\n**Model answer:** Done.\n\n### Exercise: Second {#ex-two}\n\n**Task:** Again.\n\n## After\n\nNot an exercise.\n";

    #[wasm_bindgen_test]
    fn exercises_are_split_into_task_hint_and_answer() {
        let (intro, exercises) = split(LESSON);
        assert_eq!(intro.trim(), "## Try it\n\nIntro.");
        assert_eq!(exercises.len(), 2);
        let first = &exercises[0];
        assert_eq!(
            (first.id.as_str(), first.title.as_str()),
            ("ex-one", "First one")
        );
        assert_eq!(first.task.trim(), "**Task:** Do it.");
        assert_eq!(first.hint.trim(), "Look\ncloser.");
        assert_eq!(first.answer.trim(), "Done.");
        // The section ends at the next level-2 heading.
        assert_eq!(exercises[1].task.trim(), "**Task:** Again.");
        assert!(exercises[1].hint.is_empty());
    }

    #[wasm_bindgen_test]
    fn the_lessons_exercises_have_ids_hints_and_answers() {
        let (_, exercises) = split(&crate::content::REASONING);
        assert_eq!(
            exercises.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            [
                "ex-token-budget",
                "ex-self-consistency",
                "ex-cot-no-help",
                "ex-pass-at-k"
            ]
        );
        assert!(exercises
            .iter()
            .all(|e| !e.task.trim().is_empty() && !e.hint.is_empty() && !e.answer.is_empty()));
    }
}
