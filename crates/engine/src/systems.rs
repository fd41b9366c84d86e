//! What five well-known systems do with the sampler settings by default, as data: each one's
//! documented defaults, the values it accepts, the order of its stages, what it lacks, and
//! where each fact was read (page, file and version or commit). Lesson 1's systems table and
//! `playground distribution --system` run this engine's sampler under these settings; the
//! systems themselves run other code, on other models, with more stages than these four.
//!
//! Read on 2026-12-02; Ollama's row, llama.cpp's file defaults and the top-k ties on
//! 2026-12-07. A model's own configuration (a `generation_config.json`, a Modelfile, a GGUF
//! file's `general.sampling.*` keys) overrides several of these defaults; the notes say where.

use crate::gguf::sampling::FileSampling;
use crate::sampler::{SamplerSettings, Stage, DEFAULT_ORDER};

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
        "The repetition penalty (default 1.0, off) covers the whole sequence, prompt included; it multiplies a negative logit by the penalty instead of dividing it, as CTRL did, so that a seen token always loses probability.",
        "Top-k keeps every token tied with the k-th (TopKLogitsWarper removes only logits below it), so it can keep more than k; this engine keeps exactly k, lowest ids first.",
    ],
    sources: &[
        Source {
            title: "TopKLogitsWarper and RepetitionPenaltyLogitsProcessor (generation/logits_process.py)",
            url: "https://github.com/huggingface/transformers/blob/main/src/transformers/generation/logits_process.py",
            version: "main, read 2026-12-07",
        },
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
        "A GGUF file's general.sampling.* keys (the sampler sequence, top_k, top_p, min_p, temp, the penalty and more) replace these defaults unless the user set that setting; this row applies the loaded file's sequence, top-k, top-p, min-p and temperature.",
        "Top-k keeps exactly k, but which of the tokens tied with the k-th survive is left to std::partial_sort on the logits, not chosen by id as in this engine.",
    ],
    sources: &[
        Source {
            title: "common_params_sampling (common/common.h)",
            url: "https://github.com/ggml-org/llama.cpp/blob/master/common/common.h",
            version: "commit 001d906",
        },
        Source {
            title: "Pull request 17120: model-embedded sampling parameters (general.sampling.*)",
            url: "https://github.com/ggml-org/llama.cpp/pull/17120",
            version: "opened 2025-11-09, merged; read 2026-12-07",
        },
        Source {
            title: "llama_sampler_top_k_impl and the penalties (src/llama-sampling.cpp)",
            url: "https://github.com/ggml-org/llama.cpp/blob/master/src/llama-sampling.cpp",
            version: "master, read 2026-12-07",
        },
    ],
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
        "Top-k keeps every token tied with the k-th (apply_top_k_top_p masks only logits below it), so it can keep more than k.",
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
        Source {
            title: "apply_top_k_top_p (vllm/v1/sample/ops/topk_topp_sampler.py)",
            url: "https://github.com/vllm-project/vllm/blob/main/vllm/v1/sample/ops/topk_topp_sampler.py",
            version: "main, read 2026-12-07",
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
    // GGUF models run on the bundled llama-server, which gets no `samplers` list.
    order: Some([Stage::TopK, Stage::TopP, Stage::MinP, Stage::Temperature]),
    lacks: &[],
    notes: &[
        "A model's Modelfile PARAMETER lines replace these defaults, and many library models set their own.",
        "Since commit 9db4bdb (2026-05-29) GGUF models run on the bundled llama-server: Ollama sends these values but no samplers list, so llama.cpp's chain applies, temperature last (or the file's general.sampling.sequence).",
        "Safetensors models run on the MLX runner, which cuts top-k, then applies temperature, then top-p and min-p.",
        "History: until 2026-05-29 Ollama's own Go sampler (sample/samplers.go, commit 0117cd8, removed in 9db4bdb) ran every model in that order too: top-k, temperature, top-p, min-p.",
        "repeat_last_n 64, repeat_penalty 1.0 (off).",
    ],
    sources: &[
        Source {
            title: "Modelfile reference: valid parameters and values",
            url: "https://github.com/ollama/ollama/blob/main/docs/modelfile.mdx",
            version: "commit 071c82b",
        },
        Source {
            title: "Commit 9db4bdb: use llama-server exclusively for GGML models",
            url: "https://github.com/ollama/ollama/commit/9db4bdbad6a4981ad761aa2b603e69e8fb83212c",
            version: "2026-05-29",
        },
        Source {
            title: "The request to llama-server (llm/llama_server.go)",
            url: "https://github.com/ollama/ollama/blob/main/llm/llama_server.go",
            version: "commit fb30760",
        },
        Source {
            title: "The MLX runner's sampler (x/mlxrunner/sample/sample.go)",
            url: "https://github.com/ollama/ollama/blob/main/x/mlxrunner/sample/sample.go",
            version: "commit fb30760",
        },
        Source {
            title: "Superseded: Sampler.sample (sample/samplers.go), removed 2026-05-29",
            url: "https://github.com/ollama/ollama/blob/0117cd8/sample/samplers.go",
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

/// The order of this engine's four stages in the file's `general.sampling.sequence`, and the
/// stages it leaves out (which then do not run); `None` without a sequence. llama.cpp's names
/// and aliases for them: top_k, top_p (nucleus), min_p, temperature (temp).
fn stage_order(f: &FileSampling) -> Option<(Vec<Stage>, Vec<Stage>)> {
    let sequence = f.sequence.as_ref()?;
    let mut order = Vec::new();
    for name in sequence.split(';').map(|n| n.trim().to_ascii_lowercase().replace('-', "_")) {
        let stage = match name.as_str() {
            "top_k" => Stage::TopK,
            "top_p" | "nucleus" => Stage::TopP,
            "min_p" => Stage::MinP,
            "temperature" | "temp" => Stage::Temperature,
            _ => continue,
        };
        if !order.contains(&stage) {
            order.push(stage);
        }
    }
    let missing = DEFAULT_ORDER.into_iter().filter(|s| !order.contains(s)).collect();
    Some((order, missing))
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
    /// The preset for a model whose file carries `general.sampling.*` keys: llama.cpp applies
    /// each of them, the sampler sequence included, unless the user set that setting (user
    /// settings come later, as `Overrides`). A stage the sequence leaves out does not run:
    /// its cut is off, and without temperature the draw is at T = 1. Other systems, and a
    /// file without keys, keep the preset as it is.
    pub fn with_file(&self, file: Option<&FileSampling>) -> Preset {
        let (Some(f), "llama.cpp") = (file, self.id) else {
            return *self;
        };
        let mut p = *self;
        p.temperature = f.temp.unwrap_or(p.temperature);
        p.top_k = f.top_k.unwrap_or(p.top_k);
        p.top_p = f.top_p.unwrap_or(p.top_p);
        p.min_p = f.min_p.unwrap_or(p.min_p);
        if let Some((mut order, missing)) = stage_order(f) {
            for &stage in &missing {
                match stage {
                    Stage::Temperature => p.temperature = 1.0,
                    Stage::TopK => p.top_k = 0,
                    Stage::TopP => p.top_p = 1.0,
                    Stage::MinP => p.min_p = 0.0,
                    Stage::Greedy => {}
                }
            }
            order.extend(missing);
            if let Ok(order) = <[Stage; 4]>::try_from(order) {
                p.order = Some(order);
            }
        }
        p
    }

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
