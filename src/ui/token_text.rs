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

#[cfg(test)]
mod tests {
    use super::visible;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn whitespace_and_control_characters_show() {
        assert_eq!(visible(" the\n\tx\u{7}"), "␣the↵⇥x\\u{7}");
        assert_eq!(visible(""), "∅");
    }
}
