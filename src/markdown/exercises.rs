//! A lesson's exercises, taken out of its Markdown so that the page can check each one
//! against the live state. An exercise is a section
//!
//! ```text
//! ### Exercise: Title {#id}
//! **Task:** …
//! **Hint:** …
//! **Model answer:** …
//! ```
//!
//! running to the next heading; each part may span several paragraphs.

/// One exercise; its parts are Markdown.
#[derive(Debug, Clone, PartialEq)]
pub struct Exercise {
    pub id: String,
    pub title: String,
    pub task: String,
    pub hint: String,
    pub answer: String,
}

const HEADING: &str = "### Exercise:";
const PARTS: [&str; 3] = ["**Task:**", "**Hint:**", "**Model answer:**"];

/// The Markdown without its exercises, and the exercises in order.
pub fn split(markdown: &str) -> (String, Vec<Exercise>) {
    let mut text = String::with_capacity(markdown.len());
    let mut exercises: Vec<Exercise> = Vec::new();
    // Which part of the current exercise the lines go to, if any.
    let mut part: Option<usize> = None;
    let mut inside = false;
    for line in markdown.lines() {
        if let Some(heading) = line.strip_prefix(HEADING) {
            let (title, id) = match heading.trim().rsplit_once("{#") {
                Some((title, id)) => (title.trim(), id.trim_end_matches('}').trim()),
                None => (heading.trim(), ""),
            };
            exercises.push(Exercise {
                id: id.to_string(),
                title: title.to_string(),
                task: String::new(),
                hint: String::new(),
                answer: String::new(),
            });
            (inside, part) = (true, None);
            continue;
        }
        if line.starts_with('#') {
            inside = false;
        }
        let Some(exercise) = exercises.last_mut().filter(|_| inside) else {
            text.push_str(line);
            text.push('\n');
            continue;
        };
        let mut rest = line;
        if let Some((i, label)) = PARTS
            .iter()
            .enumerate()
            .find(|(_, label)| line.starts_with(*label))
        {
            part = Some(i);
            rest = line[label.len()..].trim_start();
        }
        let target = match part {
            Some(0) => &mut exercise.task,
            Some(1) => &mut exercise.hint,
            Some(_) => &mut exercise.answer,
            None => continue,
        };
        target.push_str(rest);
        target.push('\n');
    }
    for e in &mut exercises {
        for part in [&mut e.task, &mut e.hint, &mut e.answer] {
            *part = part.trim().to_string();
        }
    }
    (text, exercises)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn exercises_leave_the_text_and_keep_their_parts() {
        let md = "# L\n\n## Try it\n\nIntro.\n\n### Exercise: One {#ex-one}\n\n**Task:** Do it.\n\n**Hint:** Look.\nStill the hint.\n\n**Model answer:** Done.\n\nMore answer.\n\n## After\n\nText.\n";
        let (text, ex) = split(md);
        assert_eq!(text, "# L\n\n## Try it\n\nIntro.\n\n## After\n\nText.\n");
        assert_eq!(
            ex,
            vec![Exercise {
                id: "ex-one".into(),
                title: "One".into(),
                task: "Do it.".into(),
                hint: "Look.\nStill the hint.".into(),
                answer: "Done.\n\nMore answer.".into(),
            }]
        );
    }
}
