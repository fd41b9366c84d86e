//! Three named starting points for the sampler. Each sets only values the controls show
//! (never the seed, which is the learner's), and the settings in use are named by the preset
//! they equal, or "custom" once anything differs.

use engine::sampler::DEFAULT_ORDER;
use engine::SamplerSettings;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    Precise,
    Balanced,
    Creative,
}

impl Preset {
    pub const ALL: [Preset; 3] = [Preset::Precise, Preset::Balanced, Preset::Creative];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Precise => "precise",
            Preset::Balanced => "balanced",
            Preset::Creative => "creative",
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == name)
    }

    /// What it is for, in a few words.
    pub fn hint(self) -> &'static str {
        match self {
            Preset::Precise => "low temperature, tight cuts, a light repetition penalty",
            Preset::Balanced => "a little randomness and the common cuts",
            Preset::Creative => "high temperature, loose cuts",
        }
    }

    /// `s` with this preset's values; the seed stays.
    pub fn apply(self, s: &SamplerSettings) -> SamplerSettings {
        let (temperature, top_k, top_p, min_p, repeat_penalty) = match self {
            Preset::Precise => (0.3, 20, 0.8, 0.1, 1.1),
            Preset::Balanced => (0.7, 40, 0.9, 0.0, 1.0),
            Preset::Creative => (1.2, 0, 0.95, 0.05, 1.0),
        };
        SamplerSettings {
            temperature,
            top_k,
            top_p,
            min_p,
            repeat_penalty,
            repeat_last_n: 64,
            order: DEFAULT_ORDER.to_vec(),
            seed: s.seed,
        }
    }

    /// The preset that `s` equals, seed aside.
    pub fn of(s: &SamplerSettings) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| &p.apply(s) == s)
    }
}

/// The playground's starting settings: the balanced preset with the engine's seed.
pub fn playground_defaults() -> SamplerSettings {
    Preset::Balanced.apply(&SamplerSettings::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Stage;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn each_preset_is_valid_and_named_and_any_change_is_custom() {
        let start = playground_defaults();
        assert_eq!(Preset::of(&start), Some(Preset::Balanced));
        for p in Preset::ALL {
            let s = p.apply(&SamplerSettings {
                seed: 7,
                ..start.clone()
            });
            s.validate().unwrap();
            assert_eq!((Preset::of(&s), s.seed), (Some(p), 7));
            assert_eq!(Preset::from_name(p.name()), Some(p));
            let changed = SamplerSettings {
                top_k: s.top_k + 1,
                ..s.clone()
            };
            assert_eq!(
                Preset::of(&changed),
                None,
                "{p:?} with another top-k is custom"
            );
            let reordered = SamplerSettings {
                order: vec![Stage::Temperature, Stage::MinP, Stage::TopK, Stage::TopP],
                ..s
            };
            assert_eq!(Preset::of(&reordered), None);
        }
    }
}
