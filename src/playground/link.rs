//! The playground's link: Lesson 1's settings, order and prompt (`settings_query`), then the
//! playground's own keys: `repeat_last_n`, `max_tokens`, `mode` (`chat` or `raw`),
//! `system` (absent: the model's default; empty: none) and `stop` (once per sequence).
//! Bad values are clamped or replaced with a notice each, as in Lesson 1.

use crate::ui::settings_query::{
    clamp, from_query, percent_encode, to_query, Bound, MAX_PROMPT_CHARS,
};
use crate::protocol::MAX_STOP_SEQUENCES;
use engine::chat::DEFAULT_SYSTEM_PROMPT;
use engine::SamplerSettings;
use serde::{Deserialize, Serialize};

pub const DEFAULT_PROMPT: &str = "What is the capital of France?";

pub const REPEAT_LAST_N: Bound = Bound {
    key: "repeat_last_n",
    min: 0.0,
    max: 2048.0,
    whole: true,
};
pub const MAX_TOKENS: Bound = Bound {
    key: "max_tokens",
    min: 1.0,
    max: 1024.0,
    whole: true,
};

/// Everything a link sets on the playground.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    pub settings: SamplerSettings,
    pub max_tokens: usize,
    pub chat: bool,
    pub system: String,
    pub stop: Vec<String>,
    pub prompt: String,
}

impl Setup {
    pub fn new(settings: SamplerSettings) -> Self {
        Self {
            settings,
            max_tokens: 128,
            chat: true,
            system: DEFAULT_SYSTEM_PROMPT.into(),
            stop: Vec::new(),
            prompt: DEFAULT_PROMPT.into(),
        }
    }
}

/// Reads a query over `start`; returns the setup and a notice for each change.
pub fn from_link(query: &str, start: Setup) -> (Setup, Vec<String>) {
    let got = from_query(query, start.settings.clone(), &start.prompt);
    let mut notices = got.notices;
    let mut setup = Setup {
        settings: got.settings,
        prompt: got.prompt,
        stop: Vec::new(),
        ..start
    };
    let mut stop = Vec::new();
    for (key, value) in got.rest {
        match key.as_str() {
            "repeat_last_n" => {
                let n = clamp(&REPEAT_LAST_N, &value, setup.settings.repeat_last_n as f64, &mut notices);
                setup.settings.repeat_last_n = n as usize;
            }
            "max_tokens" => {
                setup.max_tokens = clamp(&MAX_TOKENS, &value, setup.max_tokens as f64, &mut notices) as usize
            }
            "mode" => match value.as_str() {
                "chat" => setup.chat = true,
                "raw" => setup.chat = false,
                _ => notices.push(format!("The link's mode “{value}” is not chat or raw: using chat.")),
            },
            "system" => {
                if value.chars().count() > MAX_PROMPT_CHARS {
                    notices.push(format!(
                        "The link's system prompt is longer than {MAX_PROMPT_CHARS} characters: it was cut."
                    ));
                }
                setup.system = value.chars().take(MAX_PROMPT_CHARS).collect();
            }
            "stop" if value.is_empty() => notices.push("The link's empty stop sequence was left out.".into()),
            "stop" => stop.push(value),
            _ => {}
        }
    }
    if stop.len() > MAX_STOP_SEQUENCES {
        notices.push(format!(
            "The link has {} stop sequences: the first {MAX_STOP_SEQUENCES} are used.",
            stop.len()
        ));
        stop.truncate(MAX_STOP_SEQUENCES);
    }
    setup.stop = stop;
    (setup, notices)
}

/// The query that reproduces `setup` (without the `?`).
pub fn to_link(setup: &Setup) -> String {
    let s = &setup.settings;
    let mut query = format!(
        "{}&repeat_last_n={}&max_tokens={}&mode={}",
        to_query(s, &setup.prompt),
        s.repeat_last_n,
        setup.max_tokens,
        if setup.chat { "chat" } else { "raw" }
    );
    if setup.system != DEFAULT_SYSTEM_PROMPT {
        query += &format!("&system={}", percent_encode(&setup.system));
    }
    for stop in &setup.stop {
        query += &format!("&stop={}", percent_encode(stop));
    }
    query
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playground::presets::playground_defaults;
    use engine::Stage;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn start() -> Setup {
        Setup::new(playground_defaults())
    }

    #[wasm_bindgen_test]
    fn a_link_round_trips_every_setting() {
        let setup = Setup {
            settings: SamplerSettings {
                temperature: 1.25,
                top_k: 3,
                top_p: 0.5,
                min_p: 0.07,
                repeat_penalty: 1.3,
                repeat_last_n: 16,
                seed: 77,
                order: vec![Stage::MinP, Stage::Temperature, Stage::TopP, Stage::TopK],
            },
            max_tokens: 300,
            chat: false,
            system: String::new(),
            stop: vec!["\n\n".into(), "a&b=c".into()],
            prompt: "Once upon a time".into(),
        };
        assert_eq!(from_link(&to_link(&setup), start()), (setup, vec![]));
        // The default system prompt is left out of the link, and comes back.
        let plain = start();
        assert!(!to_link(&plain).contains("system="));
        assert_eq!(from_link(&to_link(&plain), start()), (plain, vec![]));
    }

    #[wasm_bindgen_test]
    fn bad_values_get_a_notice_each() {
        let (got, notices) = from_link(
            "repeat_last_n=-3&order=top-k,top-k,min-p&max_tokens=5000&mode=poem&stop=&stop=a&top_k=9999",
            start(),
        );
        assert_eq!(
            (
                got.settings.repeat_last_n,
                got.settings.order,
                got.max_tokens,
                got.chat,
                got.stop,
                got.settings.top_k
            ),
            (
                0,
                engine::sampler::DEFAULT_ORDER.to_vec(),
                1024,
                true,
                vec!["a".to_string()],
                100
            )
        );
        assert_eq!(notices.len(), 6, "{notices:?}");
        assert!(notices
            .iter()
            .any(|n| n.contains("order “top-k,top-k,min-p” is not")));
        let many = (0..10)
            .map(|i| format!("stop={i}"))
            .collect::<Vec<_>>()
            .join("&");
        let (got, notices) = from_link(&many, start());
        assert_eq!((got.stop.len(), notices.len()), (MAX_STOP_SEQUENCES, 1));
    }
}
