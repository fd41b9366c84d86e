//! The forward pass every architecture shares (`Model`), written out so that every step
//! the lessons need is reachable: logits for every position of a chunk (draft
//! verification), only the first L layers (early-exit drafts), an explicit KV cache that
//! can be truncated, and RoPE computed per position for the whole trained context. What
//! differs between architectures lives in the `Layer`s each one's file loads (`llama.rs`,
//! `qwen2.rs`, `qwen3.rs`, `gemma3.rs`) and in its `Recipe`.

use super::hooks::{LayerStates, Probe};
use super::layers::{
    add_bias, add_in_place, gated, rms_norm, rms_norm_in_place, rope, soft_cap, Attention, Layer, Logits, MatMul,
    Recipe, Rotation,
};
use super::parts::{lap, Part, PartTimer, PassPart, PassParts, PARTS};
use super::{gemma3, llama, qwen2, qwen3};
use crate::error::{EngineError, Result};
use crate::gguf::config::{Architecture, Config};
use crate::gguf::sampling::FileSampling;
use crate::gguf::{read_gguf, TensorReader};
use crate::kv_cache::KvCache;
use crate::memory;
use crate::quant::choice::{self, DecodeLoop, Family, KernelChoice, KernelKey};
use crate::quant::QMatrix;
use crate::tokenizer::Tokenizer;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, Ordering};

pub struct Model {
    pub config: Config,
    pub tokenizer: Tokenizer,
    recipe: Recipe,
    embed: QMatrix,
    layers: Vec<Layer>,
    out_norm: Vec<f32>,
    /// `None` when the LM head is tied to the token embedding, as in SmolLM2.
    lm_head: Option<QMatrix>,
    /// Per RoPE base (the global layers', then the local layers' when they differ), per
    /// rotary pair i: base^(-2i / head_dim), divided by the file's RoPE factor for pair i.
    inv_freq: Vec<Vec<f64>>,
    /// Whether one-row products take the opt-in integer arithmetic where the block type has it
    /// (`QMatrix::matmul_integer`). Off unless a host turns it on; an atomic because
    /// sessions share the model.
    integer: AtomicBool,
    /// The file's recommended sampling settings (`general.sampling.*`), when it has any.
    pub sampling: Option<FileSampling>,
}

/// Llama 3's RoPE scaling: the file's `rope_freqs.weight`, one factor per rotary pair that
/// each pair's frequency is divided by (llama.cpp's `freq_factors`); all 1 when the file has
/// none. Llama 3.2 ships it, and without it every position past the short range rotates wrong.
fn rope_factors<R: Read + Seek>(t: &mut TensorReader<'_, R>, half: usize) -> Result<Vec<f32>> {
    if !t.content.tensor_infos.contains_key(ROPE_FACTORS) {
        return Ok(vec![1.0; half]);
    }
    let factors = t.vector(ROPE_FACTORS, half)?;
    match factors.iter().find(|f| !(f.is_finite() && **f > 0.0)) {
        Some(f) => Err(EngineError::InvalidModel(format!(
            "tensor {ROPE_FACTORS} holds {f}: a RoPE factor must be a positive number"
        ))),
        None => Ok(factors),
    }
}

/// The tensor of Llama 3's RoPE factors, as llama.cpp's converter names it.
pub(crate) const ROPE_FACTORS: &str = "rope_freqs.weight";

impl Model {
    /// Loads a GGUF from memory (wasm has no filesystem).
    pub fn from_gguf_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_gguf_reader(&mut Cursor::new(bytes))
    }

    /// Loads a GGUF of any architecture in `Architecture` from any seekable source, one
    /// tensor at a time (the worker reads from the file's JavaScript buffer, so the whole
    /// file never enters wasm memory). Weights keep their quantised form; only norms and
    /// biases become f32.
    pub fn from_gguf_reader<R: Read + Seek>(source: &mut R) -> Result<Self> {
        let content = read_gguf(source)?;
        let config = Config::from_gguf(&content)?;
        let tokenizer = Tokenizer::from_gguf(&content, config.vocab)?;
        let c = &config;
        let size = source
            .seek(SeekFrom::End(0))
            .map_err(|e| EngineError::InvalidModel(format!("could not read the file: {e}")))?;
        let mut t = TensorReader { content: &content, source, size, buf: Vec::new() };
        let (recipe, layer): (Recipe, fn(&mut TensorReader<'_, R>, &Config, usize) -> Result<Layer>) =
            match c.architecture {
                Architecture::Llama => (llama::RECIPE, llama::layer),
                Architecture::Qwen2 => (qwen2::RECIPE, qwen2::layer),
                Architecture::Qwen3 => (qwen3::RECIPE, qwen3::layer),
                Architecture::Gemma3 => (gemma3::RECIPE, gemma3::layer),
            };
        let layers = (0..c.layers).map(|i| layer(&mut t, c, i)).collect::<Result<Vec<_>>>()?;
        let lm_head = match content.tensor_infos.contains_key("output.weight") {
            true => Some(t.matrix("output.weight", c.vocab, c.embedding)?),
            false => None,
        };
        let mut bases = vec![c.rope_base];
        bases.extend(c.sliding_window.map(|w| w.rope_base));
        let half = c.head_dim / 2;
        let factors = rope_factors(&mut t, half)?;
        let inv_freq = bases
            .iter()
            .map(|&b| {
                (0..half).map(|i| (b as f64).powf(-((2 * i) as f64) / c.head_dim as f64) / factors[i] as f64).collect()
            })
            .collect();
        Ok(Self {
            embed: t.matrix("token_embd.weight", c.vocab, c.embedding)?,
            out_norm: t.vector("output_norm.weight", c.embedding)?,
            recipe,
            layers,
            lm_head,
            inv_freq,
            tokenizer,
            config,
            integer: AtomicBool::new(false),
            sampling: FileSampling::from_gguf(&content),
        })
    }

    /// Turns the opt-in integer arithmetic (Q4_0, Q4_1, Q5_0 and Q8_0 matrices) on or off (see `quant/int16.rs`:
    /// faster decode, logits that move; `probe::integer` measures by how much).
    pub fn set_integer_activations(&self, on: bool) {
        self.integer.store(on, Ordering::Relaxed);
    }

    pub fn integer_activations(&self) -> bool {
        self.integer.load(Ordering::Relaxed)
    }

    /// The products of one sequence's pass, as the arithmetic setting has them.
    fn matmul(&self) -> MatMul {
        match self.integer_activations() {
            true => QMatrix::matmul_integer,
            false => QMatrix::matmul,
        }
    }

    /// The products of a batch of sequences' decode step, likewise.
    fn matmul_batch(&self) -> MatMul {
        match self.integer_activations() {
            true => QMatrix::matmul_batch_integer,
            false => QMatrix::matmul_batch,
        }
    }

    /// The share of the weights a decode step multiplies that the integer arithmetic applies
    /// to (Q4_0, Q4_1, Q5_0 and Q8_0 matrices): the layers' matrices and the output head, by count.
    pub fn integer_share(&self) -> f64 {
        let (integer, all) = self.decode_matrices().into_iter().fold((0usize, 0usize), |(integer, all), m| {
            let n = m.rows * m.cols;
            (integer + if m.has_integer_arithmetic() { n } else { 0 }, all + n)
        });
        integer as f64 / all.max(1) as f64
    }

    /// The matrices a decode step multiplies: every layer's and the output head (the token
    /// embedding when the head is tied to it).
    fn decode_matrices(&self) -> Vec<&QMatrix> {
        let head = self.lm_head.as_ref().unwrap_or(&self.embed);
        self.layers.iter().flat_map(Layer::matrices).chain([head]).collect()
    }

    /// The block families of those matrices, each once.
    pub fn kernel_families(&self) -> Vec<Family> {
        choice::families_of(&self.decode_matrices())
    }

    /// Decode's loops for this model (`quant::choice`), applied: `stored` as it is when it
    /// fits `key` (the same model, thread count and candidates, every family covered),
    /// otherwise timed now on the model's own matrices (`choose_kernels`). A host keeps
    /// what this returns and hands it back on the next load. The logits are the same to the
    /// bit whichever loops run.
    pub fn kernels(&self, key: KernelKey, stored: Option<&KernelChoice>, clock: &dyn Fn() -> f64) -> KernelChoice {
        match stored {
            Some(s) if s.fits(&key, &self.kernel_families()) => {
                choice::apply(&self.decode_matrices(), s);
                s.clone()
            }
            _ => self.choose_kernels(key, clock),
        }
    }

    /// Times every candidate loop on each block family's matrices at the current thread
    /// count (a few tens of milliseconds on SmolLM2), and applies the fastest.
    pub fn choose_kernels(&self, key: KernelKey, clock: &dyn Fn() -> f64) -> KernelChoice {
        choice::choose(&self.decode_matrices(), key, clock)
    }

    /// Runs `decode_loop` for every family, untimed (for benchmarks).
    pub fn force_kernels(&self, key: KernelKey, decode_loop: DecodeLoop) -> KernelChoice {
        choice::force(&self.decode_matrices(), key, decode_loop)
    }

    /// The loop each of the model's matrices runs now, in `decode_matrices`' order.
    pub fn decode_loops(&self) -> Vec<(Family, DecodeLoop)> {
        self.decode_matrices().iter().map(|m| (m.family(), m.decode_loop())).collect()
    }

    /// Whether the file carries a chat template (`tokenizer.chat_template`). A model
    /// without one is a base model: hosts run it as plain continuation and say so.
    pub fn has_chat_template(&self) -> bool {
        self.tokenizer.chat_template.is_some()
    }

    /// Bytes held by the weights in memory.
    pub fn weight_bytes(&self) -> usize {
        let l: usize = self.layers.iter().map(Layer::bytes).sum();
        l + self.embed.bytes() + self.lm_head.as_ref().map_or(0, |m| m.bytes()) + 4 * self.out_norm.len()
    }

    /// Runs `tokens` at positions `start..start + n` through the first `layers` layers,
    /// appending their keys and values to `cache` (each layer is first cut back to
    /// `start`). Returns `vocab` logits per requested position, row after row.
    pub fn forward(
        &self,
        tokens: &[u32],
        start: usize,
        cache: &mut KvCache,
        layers: usize,
        logits: Logits,
    ) -> Result<Vec<f32>> {
        self.forward_probed(tokens, start, cache, layers, logits, &mut Probe::default())
    }

    /// `forward`, copying out what `probe` asks for: one layer's attention weights, and the
    /// last position's hidden state after every layer (for the logit lens, which replaces
    /// what an earlier pass left there). Each hook is checked once per layer.
    pub fn forward_probed(
        &self,
        tokens: &[u32],
        start: usize,
        cache: &mut KvCache,
        layers: usize,
        logits: Logits,
        probe: &mut Probe,
    ) -> Result<Vec<f32>> {
        self.pass(tokens, start, cache, layers, logits, probe, None, None)
    }

    /// `forward` of every layer with the last position's logits, timed part by part on
    /// `clock` (milliseconds), with each part's parameters and the bytes it read and wrote
    /// (Lesson 2's drawing of a pass). The arithmetic is the plain pass's: the logits are
    /// the same, bit for bit.
    pub fn forward_timed(
        &self,
        tokens: &[u32],
        start: usize,
        cache: &mut KvCache,
        clock: &dyn Fn() -> f64,
    ) -> Result<(Vec<f32>, PassParts)> {
        let mut timer = PartTimer::start(clock);
        let layers = self.config.layers;
        let logits =
            self.pass(tokens, start, cache, layers, Logits::Last, &mut Probe::default(), None, Some(&mut timer))?;
        let parts = PARTS
            .iter()
            .map(|&part| PassPart { ms: timer.ms[part as usize], ..self.part_size(part, tokens.len(), start) })
            .collect();
        Ok((logits, PassParts { tokens: tokens.len(), start, blocks: layers, parts }))
    }

    /// What `part` of a pass over `n` tokens at `start` owns, reads and writes (no time).
    fn part_size(&self, part: Part, n: usize, start: usize) -> PassPart {
        let c = &self.config;
        let blocks = &self.layers;
        let vector = |v: &Vec<f32>| (v.len() as u64, 4 * v.len() as u64);
        let matrix = |m: &QMatrix| ((m.rows * m.cols) as u64, m.bytes() as u64);
        // Summed over the blocks: (parameters, bytes) of what `pick` returns for each.
        let over_blocks = |pick: &dyn Fn(&Layer) -> Vec<(u64, u64)>| {
            blocks.iter().flat_map(pick).fold((0, 0), |(p, b), (pp, bb)| (p + pp, b + bb))
        };
        let optional = |v: Option<&Vec<f32>>| v.map(vector).into_iter().collect::<Vec<_>>();
        let ((parameters, weight_bytes), cache_read, cache_written) = match part {
            Part::Embedding => {
                let (p, b) = matrix(&self.embed);
                ((p, b / self.embed.rows as u64 * n as u64), 0, 0)
            }
            Part::AttentionNorm => (over_blocks(&|l| vec![vector(&l.attn_norm)]), 0, 0),
            Part::QkvProjections => (
                over_blocks(&|l| {
                    let mut v = vec![matrix(&l.wq), matrix(&l.wk), matrix(&l.wv)];
                    v.extend(l.qkv_bias.iter().flatten().map(vector));
                    v.extend(l.qk_norm.iter().flatten().map(vector));
                    v
                }),
                0,
                0,
            ),
            Part::PositionsAndCache => ((0, 0), 0, (2 * 4 * c.kv_dim() * n * blocks.len()) as u64),
            Part::Scores => {
                // Position i attends to every cached position up to itself (within a window).
                let read: usize = (0..blocks.len())
                    .map(|li| {
                        (start..start + n).map(|pos| c.window(li).map_or(pos + 1, |w| (pos + 1).min(w))).sum::<usize>()
                    })
                    .sum();
                ((0, 0), (2 * 4 * c.kv_dim() * read) as u64, 0)
            }
            Part::OutputProjection => (
                over_blocks(&|l| {
                    let mut v = vec![matrix(&l.wo)];
                    v.extend(optional(l.post_norms.as_ref().map(|[a, _]| a)));
                    v
                }),
                0,
                0,
            ),
            Part::MlpNorm => (over_blocks(&|l| vec![vector(&l.ffn_norm)]), 0, 0),
            Part::Mlp => (
                over_blocks(&|l| {
                    let mut v = vec![matrix(&l.gate), matrix(&l.up), matrix(&l.down)];
                    v.extend(optional(l.post_norms.as_ref().map(|[_, f]| f)));
                    v
                }),
                0,
                0,
            ),
            Part::FinalNorm => (vector(&self.out_norm), 0, 0),
            Part::OutputHead => match &self.lm_head {
                Some(head) => (matrix(head), 0, 0),
                // Tied: the head owns nothing and reads the whole embedding matrix.
                None => ((0, self.embed.bytes() as u64), 0, 0),
            },
        };
        PassPart { part, ms: 0.0, parameters, weight_bytes, cache_read, cache_written }
    }

    /// A pass over `tokens` at positions `start..start + n` through every layer (appending
    /// to `cache` as `forward` does) that keeps every layer's output at the positions of
    /// `keep` (which must lie within the pass): teacher-forced scoring of a whole reply in
    /// one prefill, for the deep-thinking ratio (`probe::depth`). Returns the last
    /// position's logits and the states.
    pub fn forward_states(
        &self,
        tokens: &[u32],
        start: usize,
        cache: &mut KvCache,
        keep: std::ops::Range<usize>,
    ) -> Result<(Vec<f32>, LayerStates)> {
        let c = &self.config;
        if keep.start < start || keep.end > start + tokens.len() || keep.is_empty() {
            return Err(EngineError::InvalidState(format!(
                "positions {keep:?} are not within the pass's {start}..{}",
                start + tokens.len()
            )));
        }
        let rows = memory::zeros(keep.len() * c.layers * c.embedding, "every layer's hidden states")?;
        let mut states = LayerStates { positions: keep, layers: c.layers, width: c.embedding, rows };
        let logits =
            self.pass(tokens, start, cache, c.layers, Logits::Last, &mut Probe::default(), Some(&mut states), None)?;
        Ok((logits, states))
    }

    /// The pass behind `forward_probed`, `forward_states` and `forward_timed` (which gives
    /// `timer`: the pass laps it after each part).
    #[allow(clippy::too_many_arguments)]
    fn pass(
        &self,
        tokens: &[u32],
        start: usize,
        cache: &mut KvCache,
        layers: usize,
        logits: Logits,
        probe: &mut Probe,
        mut states: Option<&mut LayerStates>,
        mut timer: Option<&mut PartTimer<'_>>,
    ) -> Result<Vec<f32>> {
        let c = &self.config;
        let n = tokens.len();
        if n == 0 {
            return Err(EngineError::InvalidState("forward needs at least one token".into()));
        }
        if layers == 0 || layers > c.layers {
            return Err(EngineError::InvalidState(format!("layers must be 1..={}, got {layers}", c.layers)));
        }
        if start + n > c.context {
            return Err(EngineError::InvalidPrompt(format!(
                "{} tokens do not fit the model's {}-token context",
                start + n,
                c.context
            )));
        }
        if let Some(&bad) = tokens.iter().find(|&&t| t as usize >= c.vocab) {
            return Err(EngineError::InvalidState(format!("token id {bad} is outside the vocabulary")));
        }
        if let Some(i) = (0..layers).find(|&i| cache.layers[i].len < start || !cache.layers[i].can_continue_at(start)) {
            let l = &cache.layers[i];
            let held = match l.first {
                0 => format!("{} positions", l.len),
                first => format!("positions {first}..{} (its window's)", l.len),
            };
            return Err(EngineError::InvalidState(format!("layer {i} caches {held}, cannot continue at {start}")));
        }
        let (e, qd, kvd) = (c.embedding, c.q_dim(), c.kv_dim());
        let mut a = Activations::new(self, tokens)?;
        lap(&mut timer, Part::Embedding);
        if let Some(hidden) = probe.hidden.as_mut() {
            hidden.clear();
        }
        let angles = self.rotations(&(start..start + n).collect::<Vec<_>>());
        let matmul = self.matmul();
        for (li, layer) in self.layers[..layers].iter().enumerate() {
            // The rotations, computed once per pass, count with RoPE (in the first block).
            lap(&mut timer, Part::PositionsAndCache);
            a.attention_norm(self, layer);
            lap(&mut timer, Part::AttentionNorm);
            a.qkv(self, layer, matmul);
            lap(&mut timer, Part::QkvProjections);
            for (i, r) in angles[self.rope_table(li)].iter().enumerate() {
                rope(&mut a.q[i * qd..(i + 1) * qd], r, self.recipe.rope);
                rope(&mut a.k[i * kvd..(i + 1) * kvd], r, self.recipe.rope);
            }
            let lc = &mut cache.layers[li];
            lc.write(start, &a.k, &a.v, kvd)?;
            lap(&mut timer, Part::PositionsAndCache);
            let window = c.window(li);
            let attention =
                Attention { q: &a.q, k: &lc.k, v: &lc.v, start, held_from: lc.first, c, scale: a.scale, window };
            // The captured layer's attention runs on one thread, in order, for the capture.
            match probe.attention.as_mut().filter(|p| p.layer == li) {
                Some(capture) => attention.run_probed(&mut a.attn, |i, h, w| capture.record(start + i, h, w)),
                None => attention.run(&mut a.attn),
            }
            lc.forget_outside_window(kvd);
            lap(&mut timer, Part::Scores);
            a.output(self, layer, matmul);
            lap(&mut timer, Part::OutputProjection);
            a.mlp_norm(self, layer);
            lap(&mut timer, Part::MlpNorm);
            a.mlp(self, layer, matmul);
            lap(&mut timer, Part::Mlp);
            if let Some(hidden) = probe.hidden.as_mut() {
                hidden.push(a.x[(n - 1) * e..].to_vec());
            }
            if let Some(states) = states.as_deref_mut() {
                let layers = states.layers;
                for (i, p) in states.positions.clone().enumerate() {
                    let row = (i * layers + li) * e;
                    states.rows[row..row + e].copy_from_slice(&a.x[(p - start) * e..(p - start + 1) * e]);
                }
            }
        }
        let rows = match logits {
            Logits::All => 0..n,
            Logits::Last => n - 1..n,
        };
        let normed = self.final_norm(&a.x[rows.start * e..rows.end * e])?;
        lap(&mut timer, Part::FinalNorm);
        let out = self.output_head(&normed, matmul);
        lap(&mut timer, Part::OutputHead);
        out
    }

    /// One decode step of several independent sequences: `tokens[s]` is appended to
    /// `caches[s]`, at that cache's own length. The matmuls take the sequences as the rows
    /// of one batch (`QMatrix::matmul_batch`: per row, the arithmetic of a one-token pass,
    /// so every sequence's logits are bit-identical to `forward` of its token alone);
    /// attention runs per sequence over its own cache. Returns `vocab` logits per sequence.
    pub fn forward_batch(&self, tokens: &[u32], caches: &mut [&mut KvCache]) -> Result<Vec<f32>> {
        let c = &self.config;
        if tokens.is_empty() || tokens.len() != caches.len() {
            return Err(EngineError::InvalidState(format!(
                "a batch needs one cache per token and at least one token, got {} tokens and {} caches",
                tokens.len(),
                caches.len()
            )));
        }
        if let Some(&bad) = tokens.iter().find(|&&t| t as usize >= c.vocab) {
            return Err(EngineError::InvalidState(format!("token id {bad} is outside the vocabulary")));
        }
        let starts: Vec<usize> = caches.iter().map(|cache| cache.len()).collect();
        if let Some(&full) = starts.iter().find(|&&s| s >= c.context) {
            return Err(EngineError::InvalidPrompt(format!(
                "{} tokens do not fit the model's {}-token context",
                full + 1,
                c.context
            )));
        }
        let (qd, kvd) = (c.q_dim(), c.kv_dim());
        let mut a = Activations::new(self, tokens)?;
        let angles = self.rotations(&starts);
        let matmul = self.matmul_batch();
        for (li, layer) in self.layers.iter().enumerate() {
            a.attention_norm(self, layer);
            a.qkv(self, layer, matmul);
            let window = c.window(li);
            for (i, (cache, &start)) in caches.iter_mut().zip(&starts).enumerate() {
                let (q, k, v) =
                    (&mut a.q[i * qd..(i + 1) * qd], &mut a.k[i * kvd..(i + 1) * kvd], &a.v[i * kvd..(i + 1) * kvd]);
                let r = &angles[self.rope_table(li)][i];
                rope(q, r, self.recipe.rope);
                rope(k, r, self.recipe.rope);
                let lc = &mut cache.layers[li];
                lc.write(start, k, v, kvd)?;
                let attention =
                    Attention { q, k: &lc.k, v: &lc.v, start, held_from: lc.first, c, scale: a.scale, window };
                attention.run(&mut a.attn[i * qd..(i + 1) * qd]);
                lc.forget_outside_window(kvd);
            }
            a.output(self, layer, matmul);
            a.mlp_norm(self, layer);
            a.mlp(self, layer, matmul);
        }
        self.head_with(&a.x, matmul)
    }

    /// The final norm and the output head: `vocab` logits for each row of hidden states.
    /// The logit lens applies it to every layer's output.
    pub fn head(&self, x: &[f32]) -> Result<Vec<f32>> {
        self.head_with(x, self.matmul())
    }

    fn head_with(&self, x: &[f32], matmul: MatMul) -> Result<Vec<f32>> {
        self.output_head(&self.final_norm(x)?, matmul)
    }

    fn final_norm(&self, x: &[f32]) -> Result<Vec<f32>> {
        let c = &self.config;
        let mut normed = memory::zeros(x.len(), "the forward pass's activations")?;
        rms_norm(x, &self.out_norm, c.rms_eps, &mut normed);
        Ok(normed)
    }

    fn output_head(&self, normed: &[f32], matmul: MatMul) -> Result<Vec<f32>> {
        let c = &self.config;
        let m = normed.len() / c.embedding;
        let mut out = memory::zeros(m * c.vocab, "the logits")?;
        matmul(self.lm_head.as_ref().unwrap_or(&self.embed), normed, m, &mut out);
        if let Some(cap) = c.final_softcap {
            soft_cap(&mut out, cap);
        }
        Ok(out)
    }

    /// Which of `inv_freq`'s RoPE bases layer `layer` rotates with.
    fn rope_table(&self, layer: usize) -> usize {
        usize::from(self.config.window(layer).is_some())
    }

    /// Per RoPE base, the rotations at each of `positions`.
    fn rotations(&self, positions: &[usize]) -> Vec<Vec<Rotation>> {
        (0..self.inv_freq.len()).map(|t| positions.iter().map(|&pos| self.rotation(t, pos)).collect()).collect()
    }

    /// The (sin, cos) of each pair's rotation at `pos` with RoPE base `table`:
    /// pos · base^(-2i/d) for pair i, computed in f64 once per position and pass, then used
    /// by every head of every layer with that base.
    fn rotation(&self, table: usize, pos: usize) -> Rotation {
        self.inv_freq[table]
            .iter()
            .map(|&f| {
                let (sin, cos) = (pos as f64 * f).sin_cos();
                (sin as f32, cos as f32)
            })
            .collect()
    }
}

/// The activations of one pass over `n` rows (tokens of one sequence, or one token of each
/// sequence in a batch), and the steps of a layer that treat every row alike.
struct Activations {
    n: usize,
    /// The residual stream, `n × embedding`.
    x: Vec<f32>,
    h: Vec<f32>,
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    attn: Vec<f32>,
    proj: Vec<f32>,
    g: Vec<f32>,
    u: Vec<f32>,
    /// 1 / √head_dim, the attention scores' scale.
    scale: f32,
}

impl Activations {
    /// The embeddings of `tokens` (already checked against the vocabulary), and room for the rest.
    fn new(model: &Model, tokens: &[u32]) -> Result<Self> {
        let c = &model.config;
        let (n, e, qd, kvd) = (tokens.len(), c.embedding, c.q_dim(), c.kv_dim());
        let scratch = |len| memory::zeros::<f32>(len, "the forward pass's activations");
        let mut x = scratch(n * e)?;
        for (i, &t) in tokens.iter().enumerate() {
            model.embed.row_into(t as usize, &mut x[i * e..(i + 1) * e]);
        }
        if model.recipe.scale_embeddings {
            let scale = (e as f32).sqrt();
            x.iter_mut().for_each(|v| *v *= scale);
        }
        Ok(Self {
            n,
            x,
            h: scratch(n * e)?,
            q: scratch(n * qd)?,
            k: scratch(n * kvd)?,
            v: scratch(n * kvd)?,
            attn: scratch(n * qd)?,
            proj: scratch(n * e)?,
            g: scratch(n * c.ffn)?,
            u: scratch(n * c.ffn)?,
            scale: 1.0 / (c.head_dim as f32).sqrt(),
        })
    }

    fn attention_norm(&mut self, model: &Model, layer: &Layer) {
        rms_norm(&self.x, &layer.attn_norm, model.config.rms_eps, &mut self.h);
    }

    /// After `attention_norm`: queries, keys and values (before RoPE), with their biases
    /// and per-head norms where the layer has them.
    fn qkv(&mut self, model: &Model, layer: &Layer, matmul: MatMul) {
        let eps = model.config.rms_eps;
        matmul(&layer.wq, &self.h, self.n, &mut self.q);
        matmul(&layer.wk, &self.h, self.n, &mut self.k);
        matmul(&layer.wv, &self.h, self.n, &mut self.v);
        if let Some([bq, bk, bv]) = &layer.qkv_bias {
            add_bias(&mut self.q, bq);
            add_bias(&mut self.k, bk);
            add_bias(&mut self.v, bv);
        }
        if let Some([nq, nk]) = &layer.qk_norm {
            rms_norm_in_place(&mut self.q, nq, eps);
            rms_norm_in_place(&mut self.k, nk, eps);
        }
    }

    /// After attention has filled `attn`: the output projection (after its post-norm,
    /// where the layer has one) added to the residual stream.
    fn output(&mut self, model: &Model, layer: &Layer, matmul: MatMul) {
        matmul(&layer.wo, &self.attn, self.n, &mut self.proj);
        if let Some([w, _]) = &layer.post_norms {
            rms_norm_in_place(&mut self.proj, w, model.config.rms_eps);
        }
        add_in_place(&mut self.x, &self.proj);
    }

    fn mlp_norm(&mut self, model: &Model, layer: &Layer) {
        rms_norm(&self.x, &layer.ffn_norm, model.config.rms_eps, &mut self.h);
    }

    /// After `mlp_norm`: the gated MLP (after its post-norm, where the layer has one) added
    /// to the residual stream.
    fn mlp(&mut self, model: &Model, layer: &Layer, matmul: MatMul) {
        matmul(&layer.gate, &self.h, self.n, &mut self.g);
        matmul(&layer.up, &self.h, self.n, &mut self.u);
        gated(&mut self.g, &self.u, model.recipe.activation);
        matmul(&layer.down, &self.g, self.n, &mut self.proj);
        if let Some([_, w]) = &layer.post_norms {
            rms_norm_in_place(&mut self.proj, w, model.config.rms_eps);
        }
        add_in_place(&mut self.x, &self.proj);
    }
}
