//! What five well-known systems do with the sampler settings by default, as data: each one's
//! documented defaults, the values it accepts, the order of its stages, what it lacks, and
//! where each fact was read (page, file and version or commit). Lesson 1's systems table and
//! `playground distribution --system` run this engine's sampler under these settings; the
//! systems themselves run other code, on other models, with more stages than these four.
//!
//! Read on 2026-12-02. A model's own configuration (a `generation_config.json`, a Modelfile)
//! overrides several of these defaults; the notes say where.

use crate::sampler::{SamplerSettings, Stage};

/// One of the four settings this engine has, to say which a system lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Temperature,
    TopK,
    TopP,
    MinP,
}

impl Setting {
    pub fn name(self) -> &'static str {
        match self {
            Setting::Temperature => "temperature",
            Setting::TopK => "top-k",
            Setting::TopP => "top-p",
            Setting::MinP => "min-p",
        }
    }
}

/// Where a fact was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    pub title: &'static str,
    pub url: &'static str,
    /// The version, or the commit of the file read.
    pub version: &'static str,
}

/// A system's defaults and rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    /// The name `--system` takes.
    pub id: &'static str,
    pub name: &'static str,
    /// Its defaults, in this engine's terms: top-k 0, top-p 1 and min-p 0 are off.
    pub temperature: f32,
    pub top_k: usize,
    pub top_p: f32,
    pub min_p: f32,
    /// Whether a call with no settings samples at all (Hugging Face's `generate` does not:
    /// `do_sample` is off, so it is greedy).
    pub samples_by_default: bool,
    /// The temperature it accepts, inclusive, and the same in words.
    pub temperature_range: (f32, f32),
    pub temperature_rule: &'static str,
    /// The order its stages run in, when its documentation or code says.
    pub order: Option<[Stage; 4]>,
    /// The settings it has no parameter for.
    pub lacks: &'static [Setting],
    /// What else differs, one sentence each.
    pub notes: &'static [&'static str],
    pub sources: &'static [Source],
}

const HF: Preset = Preset {
    id: "hf",
    name: "Hugging Face transformers (generate)",
    temperature: 1.0,
    top_k: 50,
    top_p: 1.0,
    min_p: 0.0,
    samples_by_default: false,
    temperature_range: (f32::MIN_POSITIVE, f32::MAX),
    temperature_rule: "above 0 when sampling (it must be strictly positive; greedy is do_sample=False, the default)",
    order: Some([Stage::Temperature, Stage::TopK, Stage::TopP, Stage::MinP]),
    lacks: &[],
    notes: &[
        "generate is greedy unless do_sample=True; the sampling defaults are temperature 1.0, top_k 50, top_p 1.0, min_p unset.",
        "A model's generation_config.json overrides the library defaults.",
        "The repetition penalty (default 1.0, off) covers the whole sequence, prompt included.",
    ],
    sources: &[
        Source {
            title: "GenerationConfig (transformers docs, Generation)",
            url: "https://huggingface.co/docs/transformers/main_classes/text_generation",
            version: "src/transformers/generation/configuration_utils.py at commit 008f5c8",
        },
        Source {
            title: "GenerationMixin._get_logits_processor: temperature, top-k, top-p, min-p",
            url: "https://github.com/huggingface/transformers/blob/main/src/transformers/generation/utils.py",
            version: "commit 000034a",
        },
    ],
};

const LLAMA_CPP: Preset = Preset {
    id: "llama.cpp",
    name: "llama.cpp (llama-cli, llama-server)",
    temperature: 0.8,
    top_k: 40,
    top_p: 0.95,
    min_p: 0.05,
    samples_by_default: true,
    temperature_range: (0.0, f32::MAX),
    temperature_rule: "of 0 or more (0 or below samples greedily)",
    order: Some([Stage::TopK, Stage::TopP, Stage::MinP, Stage::Temperature]),
    lacks: &[],
    notes: &[
        "The default chain is penalties, DRY, top-n-sigma, top-k, typical-p, top-p, min-p, XTC, temperature: the cuts see the model's own probabilities.",
        "The repetition penalty looks at the last 64 tokens (penalty_last_n) and is off by default (penalty_repeat 1.0).",
        "A temperature of 0 or below samples greedily.",
    ],
    sources: &[Source {
        title: "common_params_sampling (common/common.h)",
        url: "https://github.com/ggml-org/llama.cpp/blob/master/common/common.h",
        version: "commit 001d906",
    }],
};

const VLLM: Preset = Preset {
    id: "vllm",
    name: "vLLM (SamplingParams)",
    temperature: 1.0,
    top_k: 0,
    top_p: 1.0,
    min_p: 0.0,
    samples_by_default: true,
    temperature_range: (0.0, f32::MAX),
    temperature_rule: "of 0 or more (0 is greedy)",
    order: Some([Stage::Temperature, Stage::MinP, Stage::TopK, Stage::TopP]),
    lacks: &[],
    notes: &[
        "These are SamplingParams' own defaults; with --generation-config auto (the default in recent versions) a model's generation_config.json replaces them.",
        "The V1 sampler applies temperature, then min-p (an argmax-invariant logits processor), then top-k and top-p.",
        "The repetition penalty (default 1.0, off) covers the prompt and the generated text.",
    ],
    sources: &[
        Source {
            title: "SamplingParams (vllm/sampling_params.py)",
            url: "https://docs.vllm.ai/en/stable/api/vllm/sampling_params.html",
            version: "commit 00388f6",
        },
        Source {
            title: "Engine arguments: --generation-config (default auto)",
            url: "https://docs.vllm.ai/en/stable/configuration/engine_args/",
            version: "stable docs, read 2026-12-02",
        },
        Source {
            title: "Sampler.sample (vllm/v1/sample/sampler.py)",
            url: "https://github.com/vllm-project/vllm/blob/main/vllm/v1/sample/sampler.py",
            version: "main, read 2026-12-02",
        },
    ],
};

const OLLAMA: Preset = Preset {
    id: "ollama",
    name: "Ollama (Modelfile, API options)",
    temperature: 0.8,
    top_k: 40,
    top_p: 0.9,
    min_p: 0.0,
    samples_by_default: true,
    temperature_range: (0.0, f32::MAX),
    temperature_rule: "of 0 or more (0 is greedy)",
    order: Some([Stage::TopK, Stage::Temperature, Stage::TopP, Stage::MinP]),
    lacks: &[],
    notes: &[
        "A model's Modelfile PARAMETER lines replace these defaults, and many library models set their own.",
        "Ollama's own engine cuts top-k, then applies temperature, then top-p and min-p; models served through its llama.cpp runner use llama.cpp's chain.",
        "repeat_last_n 64, repeat_penalty 1.0 (off).",
    ],
    sources: &[
        Source {
            title: "Modelfile reference: valid parameters and values",
            url: "https://github.com/ollama/ollama/blob/main/docs/modelfile.mdx",
            version: "commit 071c82b",
        },
        Source {
            title: "Sampler.sample (sample/samplers.go)",
            url: "https://github.com/ollama/ollama/blob/main/sample/samplers.go",
            version: "commit 0117cd8",
        },
    ],
};

const OPENAI: Preset = Preset {
    id: "openai",
    name: "OpenAI API (chat completions, responses)",
    temperature: 1.0,
    top_k: 0,
    top_p: 1.0,
    min_p: 0.0,
    samples_by_default: true,
    temperature_range: (0.0, 2.0),
    temperature_rule: "from 0 to 2",
    order: None,
    lacks: &[Setting::TopK, Setting::MinP],
    notes: &[
        "Only temperature (0 to 2, default 1) and top_p (default 1) shape the distribution; there is no top-k or min-p.",
        "Reasoning models refuse temperature and top_p other than their defaults.",
        "The order of temperature and top_p is not documented: this page applies temperature first.",
        "seed is best effort: determinism is not guaranteed.",
    ],
    sources: &[
        Source {
            title: "API reference: Create chat completion (temperature, top_p, seed)",
            url: "https://platform.openai.com/docs/api-reference/chat/create",
            version: "read 2026-12-02",
        },
        Source {
            title: "Reasoning models (unsupported parameters)",
            url: "https://platform.openai.com/docs/guides/reasoning",
            version: "read 2026-12-02",
        },
    ],
};

/// Every preset, in the order the page lists them.
pub const PRESETS: [Preset; 5] = [HF, LLAMA_CPP, VLLM, OLLAMA, OPENAI];

/// The preset `--system` names, or the list of names.
pub fn preset(id: &str) -> Result<&'static Preset, String> {
    PRESETS.iter().find(|p| p.id == id).ok_or_else(|| {
        let names: Vec<_> = PRESETS.iter().map(|p| p.id).collect();
        format!("unknown system “{id}”: one of {}", names.join(", "))
    })
}

/// Settings asked for on top of a preset; `None` keeps the preset's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Overrides {
    pub temperature: Option<f32>,
    pub top_k: Option<usize>,
    pub top_p: Option<f32>,
    pub min_p: Option<f32>,
}

impl Preset {
    pub fn has(&self, setting: Setting) -> bool {
        !self.lacks.contains(&setting)
    }

    /// The settings this engine runs to show the system's distribution: its defaults (greedy
    /// for a system that does not sample by default, unless a sampling setting is given, as
    /// passing one with do_sample=True would be), its order (temperature first where none is
    /// documented), and `seed`. A setting the system lacks, or a temperature outside its
    /// range, is an error that says so.
    pub fn settings(&self, o: &Overrides, seed: u64) -> Result<SamplerSettings, String> {
        let asked = [
            (Setting::Temperature, o.temperature.is_some()),
            (Setting::TopK, o.top_k.is_some()),
            (Setting::TopP, o.top_p.is_some()),
            (Setting::MinP, o.min_p.is_some()),
        ];
        if let Some((missing, _)) = asked.iter().find(|(s, given)| *given && !self.has(*s)) {
            let has: Vec<_> = [Setting::Temperature, Setting::TopK, Setting::TopP, Setting::MinP]
                .into_iter()
                .filter(|s| self.has(*s))
                .map(Setting::name)
                .collect();
            return Err(format!("{} has no {} (it has {})", self.name, missing.name(), has.join(", ")));
        }
        if let Some(t) = o.temperature {
            let (lo, hi) = self.temperature_range;
            if !(lo..=hi).contains(&t) {
                return Err(format!("{} takes a temperature {}, not {t}", self.name, self.temperature_rule));
            }
        }
        let sampling = self.samples_by_default || asked.iter().any(|a| a.1);
        let mut s = SamplerSettings {
            temperature: if sampling { o.temperature.unwrap_or(self.temperature) } else { 0.0 },
            top_k: o.top_k.unwrap_or(self.top_k),
            top_p: o.top_p.unwrap_or(self.top_p),
            min_p: o.min_p.unwrap_or(self.min_p),
            repeat_penalty: 1.0,
            seed,
            ..SamplerSettings::default()
        };
        if let Some(order) = self.order {
            s.order = order.to_vec();
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }
}
