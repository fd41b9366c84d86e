//! A conversation saved as JSON with everything needed to go on with it: the settings, the
//! system prompt, the stop sequences and every exchange with all its answers and their
//! tokens' probabilities. Import checks a file as strictly as a link, but refuses rather
//! than repairs: a file is a record, and a changed record would mislead.

use super::conversation::{Answer, Conversation, Exchange};
use super::link::{Setup, MAX_TOKENS};
use crate::ui::settings_query::{
    Bound, MIN_P, REPEAT_PENALTY, SEED, TEMPERATURE, TOP_K, TOP_P,
};
use crate::protocol::check_stop_sequences;
use serde::{Deserialize, Serialize};

const FORMAT: &str = "inference-playground-conversation";
const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub format: String,
    pub version: u32,
    pub setup: Setup,
    pub conversation: Conversation,
}

pub fn to_json(setup: &Setup, conversation: &Conversation) -> String {
    let saved = Saved {
        format: FORMAT.into(),
        version: VERSION,
        setup: setup.clone(),
        conversation: conversation.clone(),
    };
    serde_json::to_string_pretty(&saved).unwrap_or_default()
}

/// The setup and conversation of a saved file, or what is wrong with it, in words.
pub fn from_json(text: &str) -> Result<(Setup, Conversation), String> {
    let saved: Saved = serde_json::from_str(text)
        .map_err(|e| format!("This file is not a saved playground conversation ({e})."))?;
    if saved.format != FORMAT || saved.version != VERSION {
        return Err(format!(
            "This file is not a saved playground conversation (format “{}” version {}; expected “{FORMAT}” version {VERSION}).",
            saved.format, saved.version
        ));
    }
    let Saved {
        setup,
        conversation,
        ..
    } = saved;
    let s = &setup.settings;
    s.validate()
        .map_err(|e| format!("The file's settings cannot be used: {e}."))?;
    let numbers = [
        (&TEMPERATURE, s.temperature as f64),
        (&TOP_K, s.top_k as f64),
        (&TOP_P, s.top_p as f64),
        (&MIN_P, s.min_p as f64),
        (&REPEAT_PENALTY, s.repeat_penalty as f64),
        (&SEED, s.seed as f64),
        (&super::link::REPEAT_LAST_N, s.repeat_last_n as f64),
        (&MAX_TOKENS, setup.max_tokens as f64),
    ];
    for (Bound { key, min, max, .. }, v) in numbers {
        if !(*min..=*max).contains(&v) {
            return Err(format!("The file's {key} is {v}, outside {min}–{max}."));
        }
    }
    check_stop_sequences(&setup.stop)
        .map_err(|e| format!("The file's settings cannot be used: {e}"))?;
    check_exchanges(&conversation.exchanges)?;
    Ok((setup, conversation))
}

fn check_exchanges(exchanges: &[Exchange]) -> Result<(), String> {
    for e in exchanges {
        if e.shown >= e.answers.len() {
            return Err(format!(
                "An exchange of the file shows answer {} of {}.",
                e.shown + 1,
                e.answers.len()
            ));
        }
        for Answer { later, .. } in &e.answers {
            check_exchanges(later)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playground::conversation::Token;
    use crate::playground::presets::playground_defaults;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn sample() -> (Setup, Conversation) {
        let mut c = Conversation::default();
        let j = c.ask("Hi");
        c.answer_mut(j).unwrap().tokens.push(Token {
            id: 9,
            piece: "Hello".into(),
            prob: 0.25,
            forced: false,
            alternatives: vec![],
        });
        c.branch(0, 0);
        (Setup::new(playground_defaults()), c)
    }

    #[wasm_bindgen_test]
    fn a_saved_conversation_loads_back_whole() {
        let (setup, c) = sample();
        assert_eq!(from_json(&to_json(&setup, &c)), Ok((setup, c)));
    }

    #[wasm_bindgen_test]
    fn bad_files_are_refused_with_a_reason() {
        let (setup, c) = sample();
        let good = to_json(&setup, &c);
        let cases = [
            ("not json", "not a saved playground conversation"),
            ("{\"format\": 1}", "not a saved playground conversation"),
            (&good.replace(FORMAT, "other"), "format “other”"),
            (
                &good.replace("\"temperature\": 0.7", "\"temperature\": 50.0"),
                "temperature",
            ),
            (
                &good.replace("\"max_tokens\": 128", "\"max_tokens\": 0"),
                "max_tokens is 0",
            ),
            (
                &good.replace("\"shown\": 1", "\"shown\": 5"),
                "shows answer 6 of 2",
            ),
        ];
        for (text, expected) in cases {
            let got = from_json(text).unwrap_err();
            assert!(got.contains(expected), "{got}");
        }
    }
}
