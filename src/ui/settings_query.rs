//! Sampler settings and a prompt in a URL query (`temperature`, `top_k`, `top_p`, `min_p`,
//! `repeat_penalty`, `seed`, `prompt`, `order`), as Lesson 1 and the playground keep them, so that a
//! link reproduces what the learner saw: their bounds on the page, reading and writing. A
//! bad value in a link is clamped or replaced, and each change is reported as a notice
//! rather than silently applied. A page's own further keys come back in `FromUrl::rest`.

use engine::sampler::{order_text, parse_order, CUT_ORDERS, Stage};
use engine::SamplerSettings;

/// Seeds stay below 2³² so that JavaScript numbers (the inputs, the tests) hold them exactly.
pub const MAX_SEED: u64 = u32::MAX as u64;

/// Longer prompts are cut: the pages are about the next tokens, not about long contexts.
pub const MAX_PROMPT_CHARS: usize = 2000;

/// A numeric setting's range on the page (the engine accepts wider ones).
pub struct Bound {
    pub key: &'static str,
    pub min: f64,
    pub max: f64,
    pub whole: bool,
}

pub const TEMPERATURE: Bound = Bound {
    key: "temperature",
    min: 0.0,
    max: 2.0,
    whole: false,
};
pub const TOP_K: Bound = Bound {
    key: "top_k",
    min: 0.0,
    max: 100.0,
    whole: true,
};
pub const TOP_P: Bound = Bound {
    key: "top_p",
    min: 0.05,
    max: 1.0,
    whole: false,
};
pub const MIN_P: Bound = Bound {
    key: "min_p",
    min: 0.0,
    max: 0.5,
    whole: false,
};
pub const REPEAT_PENALTY: Bound = Bound {
    key: "repeat_penalty",
    min: 1.0,
    max: 2.0,
    whole: false,
};
pub const SEED: Bound = Bound {
    key: "seed",
    min: 0.0,
    max: MAX_SEED as f64,
    whole: true,
};

/// What a link asked for, after clamping, and what was changed on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct FromUrl {
    pub settings: SamplerSettings,
    pub prompt: String,
    pub notices: Vec<String>,
    /// The other keys and their decoded values, in order, for the page to read.
    pub rest: Vec<(String, String)>,
}

/// Reads a query string (`?a=1&b=2`, the `?` optional) over the page's `start` settings
/// and `default_prompt`. For a repeated key the last value counts.
pub fn from_query(query: &str, start: SamplerSettings, default_prompt: &str) -> FromUrl {
    let mut settings = start;
    let mut prompt = default_prompt.to_string();
    let mut notices = Vec::new();
    let mut rest = Vec::new();
    for pair in query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = String::from_utf8_lossy(&percent_decode(key)).into_owned();
        let bytes = percent_decode(value);
        let value = match String::from_utf8(bytes) {
            Ok(value) => value,
            Err(e) => {
                notices.push(format!(
                    "The link's {key} was not valid UTF-8: the bad bytes show as �."
                ));
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        };
        let mut number = |bound: &Bound, default: f64| clamp(bound, &value, default, &mut notices);
        match key.as_str() {
            "temperature" => {
                settings.temperature = number(&TEMPERATURE, settings.temperature as f64) as f32
            }
            "top_k" => settings.top_k = number(&TOP_K, settings.top_k as f64) as usize,
            "top_p" => settings.top_p = number(&TOP_P, settings.top_p as f64) as f32,
            "min_p" => settings.min_p = number(&MIN_P, settings.min_p as f64) as f32,
            "repeat_penalty" => {
                settings.repeat_penalty =
                    number(&REPEAT_PENALTY, settings.repeat_penalty as f64) as f32
            }
            "seed" => settings.seed = number(&SEED, settings.seed as f64) as u64,
            "prompt" => prompt = checked_prompt(&value, default_prompt, &mut notices),
            "order" => match link_order(&value) {
                Some(order) => settings.order = order,
                None => notices.push(format!(
                    "The link's order “{value}” is not temperature, top-k, top-p and min-p, each once: using {}.",
                    order_text(&settings.order)
                )),
            },
            _ => rest.push((key, value)),
        }
    }
    FromUrl {
        settings,
        prompt,
        notices,
        rest,
    }
}

/// An order as a link writes it; links from before temperature could move list the three
/// cuts only, with temperature first.
fn link_order(text: &str) -> Option<Vec<Stage>> {
    parse_order(text).ok().or_else(|| {
        CUT_ORDERS
            .iter()
            .find(|cuts| order_text(&cuts[..]) == text)
            .map(|cuts| [&[Stage::Temperature][..], cuts].concat())
    })
}

/// The query that reproduces `settings` and `prompt` (without the `?`). An empty prompt
/// (the playground's box after sending) is left out: the page's own then stands.
pub fn to_query(s: &SamplerSettings, prompt: &str) -> String {
    let prompt = match prompt.is_empty() {
        true => String::new(),
        false => format!("&prompt={}", percent_encode(prompt)),
    };
    format!(
        "temperature={}&top_k={}&top_p={}&min_p={}&repeat_penalty={}&seed={}{prompt}&order={}",
        s.temperature,
        s.top_k,
        s.top_p,
        s.min_p,
        s.repeat_penalty,
        s.seed,
        order_text(&s.order)
    )
}

/// A number inside `bound`; anything else becomes the nearest such number (or the default,
/// for what is not a number at all), with a notice saying so.
pub fn clamp(bound: &Bound, text: &str, default: f64, notices: &mut Vec<String>) -> f64 {
    let Bound {
        key,
        min,
        max,
        whole,
    } = *bound;
    let range = match key {
        "seed" => format!("a whole number from 0 to {max}"),
        _ => format!("{min}–{max}"),
    };
    let parsed = text.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    // Through f32, as the settings hold them: 0.8, not 0.800000011920929.
    let show = |x: f64| {
        if whole {
            format!("{x}")
        } else {
            format!("{}", x as f32)
        }
    };
    let Some(v) = parsed else {
        notices.push(format!(
            "The link's {key} “{text}” is not a number ({range}): using {}.",
            show(default)
        ));
        return default;
    };
    let mut fixed = v.clamp(min, max);
    if whole {
        fixed = fixed.round();
    }
    if fixed != v {
        let why = if (min..=max).contains(&v) {
            "is not a whole number".to_string()
        } else {
            format!("is outside {range}")
        };
        notices.push(format!(
            "The link's {key} {} {why}: using {}.",
            text.trim(),
            show(fixed)
        ));
    }
    fixed
}

fn checked_prompt(text: &str, default_prompt: &str, notices: &mut Vec<String>) -> String {
    if text.trim().is_empty() {
        notices.push("The link's prompt is empty: using the default prompt.".into());
        return default_prompt.into();
    }
    if text.chars().count() > MAX_PROMPT_CHARS {
        notices.push(format!(
            "The link's prompt is longer than {MAX_PROMPT_CHARS} characters: it was cut."
        ));
        return text.chars().take(MAX_PROMPT_CHARS).collect();
    }
    text.into()
}

/// `%XX` escapes to bytes and `+` to a space, as in form-encoded queries. A `%` not
/// followed by two hex digits stays as it is.
fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// Everything but unreserved characters as `%XX`, byte by byte.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    const DEFAULT_PROMPT: &str = "Suggest a name for a pet cat.";
    fn defaults() -> SamplerSettings {
        SamplerSettings::default()
    }
    fn from_query(query: &str) -> FromUrl {
        super::from_query(query, defaults(), DEFAULT_PROMPT)
    }

    #[wasm_bindgen_test]
    fn a_link_round_trips_settings_and_an_awkward_prompt() {
        let s = SamplerSettings {
            temperature: 1.3,
            top_k: 7,
            top_p: 0.8,
            min_p: 0.02,
            repeat_penalty: 1.25,
            seed: 99,
            order: vec![Stage::TopK, Stage::TopP, Stage::MinP, Stage::Temperature],
            ..defaults()
        };
        let prompt = "a&b=c + d %41 ü\n?";
        let back = from_query(&format!("?{}", to_query(&s, prompt)));
        assert_eq!(
            back,
            FromUrl {
                settings: s,
                prompt: prompt.into(),
                notices: vec![],
                rest: vec![],
            }
        );
    }

    #[wasm_bindgen_test]
    fn form_encoding_and_unknown_keys() {
        let got = from_query("prompt=two+words%21&utm_source=x%20y&top_k=3&top_k=5");
        assert_eq!(
            (got.prompt.as_str(), got.settings.top_k, got.notices.len()),
            ("two words!", 5, 0)
        );
        assert_eq!(got.rest, [("utm_source".to_string(), "x y".to_string())]);
    }

    #[wasm_bindgen_test]
    fn bad_values_are_clamped_or_replaced_with_a_notice_each() {
        let got = from_query("temperature=NaN&top_k=500&top_p=abc&min_p=-1&seed=1.5&repeat_penalty=inf&prompt=%FF%FEcat%");
        let s = &got.settings;
        assert_eq!(
            (
                s.temperature,
                s.top_k,
                s.top_p,
                s.min_p,
                s.seed,
                s.repeat_penalty
            ),
            (0.8, 100, 0.95, 0.0, 2, 1.0)
        );
        assert_eq!(got.prompt, "\u{FFFD}\u{FFFD}cat%");
        assert_eq!(got.notices.len(), 7, "{:?}", got.notices);
        assert!(got.notices[0].contains("temperature “NaN” is not a number (0–2): using 0.8"));
        assert!(got.notices[4].contains("seed 1.5 is not a whole number: using 2"));
    }

    #[wasm_bindgen_test]
    fn orders_old_links_and_bad_ones() {
        // A link from before temperature could move: the cuts alone, temperature first.
        let old = from_query("order=min-p,top-k,top-p");
        assert_eq!(
            (old.settings.order, old.notices.len()),
            (vec![Stage::Temperature, Stage::MinP, Stage::TopK, Stage::TopP], 0)
        );
        let bad = from_query("order=top-k,temperature");
        assert_eq!(bad.settings.order, defaults().order);
        assert!(bad.notices[0].contains("order “top-k,temperature” is not temperature, top-k, top-p and min-p"));
    }

    #[wasm_bindgen_test]
    fn empty_and_overlong_prompts() {
        assert_eq!(from_query("prompt=%20").prompt, DEFAULT_PROMPT);
        let long = from_query(&format!("prompt={}", "a".repeat(MAX_PROMPT_CHARS + 5)));
        assert_eq!(
            (long.prompt.len(), long.notices.len()),
            (MAX_PROMPT_CHARS, 1)
        );
    }
}
