//! A token's text with its whitespace made visible: many candidates differ only by a
//! leading space or a newline, and a learner must be able to tell them apart.

pub fn visible(text: &str) -> String {
    if text.is_empty() {
        return "∅".into();
    }
    text.chars()
        .map(|c| match c {
            ' ' => "␣".to_string(),
            '\n' => "↵".to_string(),
            '\t' => "⇥".to_string(),
            c if c.is_control() => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        })
        .collect()
}
