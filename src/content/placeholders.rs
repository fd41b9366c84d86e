//! The prose's `{id.fact}` placeholders: where a content file quotes a built-in model's fact it
//! writes `{smollm2.layers}` or `{gemma3-270m.vocabulary}`, filled in here from model_file.rs,
//! so that the lessons, the home page and the model picker give one set of figures, each
//! checked against the model's file (model_file.rs's tests).

use crate::digits::grouped;
use crate::model_file::{built_in, megabytes, BuiltIn};

/// The text with every placeholder filled in. Braces that name no built-in model's fact (a
/// heading's `{#id}`) stay as they are; the tests below check that the content has no others.
pub fn fill(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let inside = &rest[open + 1..];
        let filled = inside.find('}').and_then(|close| Some((close, fact(&inside[..close])?)));
        match filled {
            Some((close, value)) => {
                out.push_str(&value);
                rest = &inside[close + 1..];
            }
            None => {
                out.push('{');
                rest = inside;
            }
        }
    }
    out.push_str(rest);
    out
}

/// "smollm2.layers" → "30"; None when it names no built-in model or no fact of one.
pub fn fact(placeholder: &str) -> Option<String> {
    let (id, name) = placeholder.split_once('.')?;
    fact_of(built_in(id)?, name)
}

/// One fact of `model`, as the prose writes it.
fn fact_of(model: &BuiltIn, name: &str) -> Option<String> {
    let facts = &model.facts;
    let kv_bytes = facts.kv_bytes_per_position() as u64;
    Some(match name {
        "name" => model.name.to_string(),
        "file-size" => megabytes(model.bytes),
        "quantisation" => model.quantisation().to_string(),
        "layers" => grouped(facts.layers),
        "heads" => grouped(facts.heads),
        "kv-heads" => grouped(facts.kv_heads),
        "heads-per-kv-head" => grouped(facts.heads / facts.kv_heads),
        "head-dim" => grouped(facts.head_dim),
        "embedding" => grouped(facts.embedding),
        "vocabulary" => grouped(facts.vocab),
        "context" => grouped(facts.context),
        "parameters" => millions(facts.parameters),
        "head-parameters" => millions(facts.head_parameters()),
        "kv-bytes-per-position" => grouped(kv_bytes as usize),
        "kv-cache-at-1024" => megabytes(kv_bytes * 1024),
        "kv-cache-at-context" => megabytes(kv_bytes * facts.context as u64),
        _ => return None,
    })
}

/// A parameter count as the prose rounds it: 134,515,008 → "135 million".
fn millions(n: u64) -> String {
    format!("{} million", grouped((n as f64 / 1e6).round() as usize))
}

// Native only, with model_file.rs's tests: `cargo test --workspace` runs them.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::content::FILES;
    use crate::model_file::BUILT_INS;

    /// Every `{…}` of a text but a heading's `{#id}`, without its braces.
    fn placeholders(text: &str) -> Vec<&str> {
        text.split('{')
            .skip(1)
            .filter_map(|after| after.split_once('}').map(|(inside, _)| inside))
            .filter(|inside| !inside.starts_with('#'))
            .collect()
    }

    #[test]
    fn every_placeholder_in_the_content_names_a_fact_and_is_filled() {
        let mut seen = 0;
        for (file, text) in FILES {
            for placeholder in placeholders(text) {
                assert!(fact(placeholder).is_some(), "{file}: {{{placeholder}}} names no built-in model's fact");
                seen += 1;
            }
            assert_eq!(placeholders(&fill(text)), Vec::<&str>::new(), "{file}: left unfilled");
        }
        assert!(seen > 0, "the content quotes no fact through a placeholder");
    }

    #[test]
    fn a_placeholder_is_filled_with_the_models_fact_and_other_braces_stay() {
        let smollm2 = &BUILT_INS[0];
        let text = format!(
            "## Heading {{#id}}\n\n{{{id}.layers}} layers, {{{id}.nothing}}, {{nope.layers}}, {{{id}.name}}",
            id = smollm2.id
        );
        let expected = format!(
            "## Heading {{#id}}\n\n{} layers, {{{id}.nothing}}, {{nope.layers}}, {}",
            smollm2.facts.layers,
            smollm2.name,
            id = smollm2.id
        );
        assert_eq!(fill(&text), expected);
        assert_eq!(millions(134_515_008), "135 million");
        assert_eq!(millions(268_098_176), "268 million");
    }

    /// What a content file would write if it quoted a fact itself: each value that cannot be
    /// mistaken for another number, and the phrases around the small ones.
    fn literals(model: &BuiltIn) -> Vec<String> {
        let f = &model.facts;
        let mut out: Vec<String> = [
            "name",
            "file-size",
            "quantisation",
            "vocabulary",
            "context",
            "parameters",
            "head-parameters",
            "kv-bytes-per-position",
            "kv-cache-at-1024",
        ]
        .iter()
        .map(|name| fact_of(model, name).expect("a fact"))
        .collect();
        out.extend([
            format!("{} layers", f.layers),
            format!("{} blocks", f.layers),
            format!("{} attention heads", f.heads),
            format!("{} query heads", f.heads),
            format!("{} key/value heads", f.kv_heads),
            format!("{}-wide", f.embedding),
            // The cache at 1,024 positions in whole megabytes, as the prose once rounded it.
            format!("{} MB", f.kv_bytes_per_position() * 1024 / 1_000_000),
        ]);
        out
    }

    #[test]
    fn no_content_file_writes_a_built_in_models_fact_outside_a_placeholder() {
        for model in BUILT_INS {
            for literal in literals(model) {
                for (file, text) in FILES {
                    assert!(!text.contains(&literal), "{file} writes {literal:?} itself: use its placeholder");
                }
            }
        }
        // The short names the prose gave the default model before it had placeholders.
        for (file, text) in FILES {
            for old in ["SmolLM2-135M", "135M model"] {
                assert!(!text.contains(old), "{file} writes {old:?} itself: use {{smollm2.name}}");
            }
        }
    }
}
