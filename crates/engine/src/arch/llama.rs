//! The llama forward pass, written out so that every step the lessons need is reachable:
//! logits for every position of a chunk (draft verification), only the first L layers
//! (early-exit drafts), an explicit KV cache that can be truncated, and RoPE computed per
//! position for the whole trained context.

use crate::gguf::config::Config;
use crate::error::{candle_message, EngineError, Result};
use crate::kv_cache::KvCache;
use crate::memory;
use crate::parallel;
use crate::probe::Probe;
use crate::quant::QMatrix;
use crate::quant::simd::{axpy, dot};
use crate::tokenizer::Tokenizer;
use candle_core::quantized::gguf_file::Content;
use std::io::{Cursor, Read, Seek, SeekFrom};

struct Layer {
    attn_norm: Vec<f32>,
    wq: QMatrix,
    wk: QMatrix,
    wv: QMatrix,
    wo: QMatrix,
    ffn_norm: Vec<f32>,
    gate: QMatrix,
    up: QMatrix,
    down: QMatrix,
}

pub struct Model {
    pub config: Config,
    pub tokenizer: Tokenizer,
    embed: QMatrix,
    layers: Vec<Layer>,
    out_norm: Vec<f32>,
    /// `None` when the LM head is tied to the token embedding, as in SmolLM2.
    lm_head: Option<QMatrix>,
    /// Per rotary pair i: base^(-2i / head_dim).
    inv_freq: Vec<f64>,
}

/// Which positions of a chunk get logits. The LM head is a fifth of the model's work,
/// so prefill asks only for the last position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Logits {
    Last,
    All,
}

/// Reads and checks the GGUF header from any seekable source. Used by the model and the
/// f32 reference alike.
pub fn read_gguf<R: Read + Seek>(r: &mut R) -> Result<Content> {
    let io = |e: std::io::Error| EngineError::InvalidModel(format!("could not read the file: {e}"));
    let size = r.seek(SeekFrom::End(0)).map_err(io)?;
    if size == 0 {
        return Err(EngineError::InvalidModel("the file is empty (0 bytes)".into()));
    }
    let mut magic = [0u8; 4];
    r.seek(SeekFrom::Start(0)).map_err(io)?;
    if size < 4 || r.read_exact(&mut magic).is_err() || &magic != b"GGUF" {
        return Err(EngineError::InvalidModel("not a GGUF file: it does not start with the bytes 'GGUF'".into()));
    }
    if zero_alignment(r) {
        return Err(EngineError::InvalidModel(
            "metadata general.alignment is 0; it must be a positive number of bytes".into(),
        ));
    }
    r.seek(SeekFrom::Start(0)).map_err(io)?;
    Content::read(r).map_err(|e| {
        EngineError::InvalidModel(format!("the GGUF header is malformed or truncated: {}", candle_message(&e)))
    })
}

/// Whether the header sets `general.alignment` to an integer 0. candle's reader rounds the
/// tensor data offset up to it and so divides by zero: a panic natively, an abort in wasm
/// (found while writing the loader's fuzz target). Walks the metadata from just after the magic; anything malformed
/// answers false and is left to candle's reader to report.
fn zero_alignment<R: Read + Seek>(r: &mut R) -> bool {
    struct Walk<'a, R> {
        r: &'a mut R,
        /// GGUF v1 writes lengths as u32, later versions as u64.
        v1: bool,
    }
    impl<R: Read + Seek> Walk<'_, R> {
        fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
            let mut b = [0; N];
            self.r.read_exact(&mut b).ok().map(|_| b)
        }
        fn u32(&mut self) -> Option<u32> {
            self.bytes().map(u32::from_le_bytes)
        }
        fn len(&mut self) -> Option<u64> {
            if self.v1 {
                self.u32().map(u64::from)
            } else {
                self.bytes().map(u64::from_le_bytes)
            }
        }
        fn skip(&mut self, n: u64) -> Option<()> {
            self.r.seek(SeekFrom::Current(i64::try_from(n).ok()?)).ok().map(|_| ())
        }
        /// Skips a value of GGUF type `t`, returning it when it is an integer of candle's
        /// alignment types (u8, i8, u16, i16, u32, i32). Every loop iteration reads bytes,
        /// so a lying count ends at the end of the file.
        fn value(&mut self, t: u32, depth: usize) -> Option<Option<i64>> {
            let size = |t: u32| match t {
                0 | 1 | 7 => Some(1),
                2 | 3 => Some(2),
                4..=6 => Some(4),
                10..=12 => Some(8),
                _ => None,
            };
            Some(match t {
                0 => Some(i64::from(self.bytes::<1>()?[0])),
                1 => Some(i64::from(i8::from_le_bytes(self.bytes()?))),
                2 => Some(i64::from(u16::from_le_bytes(self.bytes()?))),
                3 => Some(i64::from(i16::from_le_bytes(self.bytes()?))),
                4 => Some(i64::from(self.u32()?)),
                5 => Some(i64::from(i32::from_le_bytes(self.bytes()?))),
                8 => {
                    let n = self.len()?;
                    self.skip(n)?;
                    None
                }
                9 if depth <= 64 => {
                    let (et, n) = (self.u32()?, self.len()?);
                    match size(et) {
                        Some(s) => self.skip(n.checked_mul(s)?)?,
                        None => (0..n).try_for_each(|_| self.value(et, depth + 1).map(|_| ()))?,
                    }
                    None
                }
                _ => {
                    self.skip(size(t)?)?;
                    None
                }
            })
        }
    }
    let walk = |r: &mut R| -> Option<bool> {
        r.seek(SeekFrom::Start(4)).ok()?;
        let mut w = Walk { r, v1: false };
        let version = w.u32()?;
        if !(1..=3).contains(&version) {
            return None;
        }
        w.v1 = version == 1;
        let (_tensors, kvs) = (w.len()?, w.len()?);
        let mut zero = false;
        for _ in 0..kvs {
            let key_len = w.len()?;
            let is_alignment = key_len == 17 && &w.bytes::<17>()? == b"general.alignment";
            if key_len != 17 {
                w.skip(key_len)?;
            }
            let t = w.u32()?;
            let v = w.value(t, 0)?;
            if is_alignment {
                zero = v == Some(0);
            }
        }
        Some(zero)
    };
    walk(r).unwrap_or(false)
}

/// Reads one tensor at a time from the source, so that loading never holds more than the
/// finished weights plus the largest single tensor.
struct TensorReader<'a, R> {
    content: &'a Content,
    source: &'a mut R,
    size: u64,
    buf: Vec<u8>,
}

impl<R: Read + Seek> TensorReader<'_, R> {
    /// The bytes of tensor `name`, with its shape checked against `dims` (outermost first).
    fn read(&mut self, name: &str, dims: &[usize]) -> Result<candle_core::quantized::GgmlDType> {
        let info = self
            .content
            .tensor_infos
            .get(name)
            .ok_or_else(|| EngineError::InvalidModel(format!("tensor {name} is missing")))?;
        if info.shape.dims() != dims {
            return Err(EngineError::InvalidModel(format!(
                "tensor {name} has shape {:?}, the metadata implies {dims:?}",
                info.shape.dims()
            )));
        }
        let elems: usize = dims.iter().product();
        let len = (elems / info.ggml_dtype.block_size() * info.ggml_dtype.type_size()) as u64;
        let past_end = || {
            EngineError::InvalidModel(format!(
                "tensor {name} lies past the end of the file ({} bytes): the file is truncated or corrupt",
                self.size
            ))
        };
        let start = self.content.tensor_data_offset.checked_add(info.offset).ok_or_else(past_end)?;
        if start.checked_add(len).is_none_or(|end| end > self.size) {
            return Err(past_end());
        }
        // The buffer is reused: it grows to the largest tensor once, and only what it grows
        // by is zeroed (the read overwrites it all).
        let len = len as usize;
        let more = len.saturating_sub(self.buf.len());
        memory::reserve(&mut self.buf, more, name)?;
        self.buf.resize(len, 0);
        self.source
            .seek(SeekFrom::Start(start))
            .and_then(|_| self.source.read_exact(&mut self.buf))
            .map_err(|e| EngineError::InvalidModel(format!("could not read tensor {name}: {e}")))?;
        Ok(info.ggml_dtype)
    }

    fn matrix(&mut self, name: &str, rows: usize, cols: usize) -> Result<QMatrix> {
        let dtype = self.read(name, &[rows, cols])?;
        QMatrix::from_ggml(name, dtype, rows, cols, &self.buf)
    }

    fn vector(&mut self, name: &str, len: usize) -> Result<Vec<f32>> {
        let dtype = self.read(name, &[len])?;
        let mut out = memory::zeros(len, name)?;
        QMatrix::from_ggml(name, dtype, 1, len, &self.buf)?.row_into(0, &mut out);
        Ok(out)
    }
}

impl Model {
    /// Loads a llama GGUF from memory (wasm has no filesystem).
    pub fn from_gguf_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_gguf_reader(&mut Cursor::new(bytes))
    }

    /// Loads a llama GGUF from any seekable source, one tensor at a time (the worker reads
    /// from the file's JavaScript buffer, so the whole file never enters wasm memory).
    /// Weights keep their quantised form; only norms become f32.
    pub fn from_gguf_reader<R: Read + Seek>(source: &mut R) -> Result<Self> {
        let content = read_gguf(source)?;
        let config = Config::from_gguf(&content)?;
        let tokenizer = Tokenizer::from_gguf(&content, config.vocab)?;
        let c = &config;
        let size = source
            .seek(SeekFrom::End(0))
            .map_err(|e| EngineError::InvalidModel(format!("could not read the file: {e}")))?;
        let mut t = TensorReader { content: &content, source, size, buf: Vec::new() };
        let layers = (0..c.layers)
            .map(|i| {
                let p = |s: &str| format!("blk.{i}.{s}.weight");
                Ok(Layer {
                    attn_norm: t.vector(&p("attn_norm"), c.embedding)?,
                    wq: t.matrix(&p("attn_q"), c.embedding, c.embedding)?,
                    wk: t.matrix(&p("attn_k"), c.kv_dim(), c.embedding)?,
                    wv: t.matrix(&p("attn_v"), c.kv_dim(), c.embedding)?,
                    wo: t.matrix(&p("attn_output"), c.embedding, c.embedding)?,
                    ffn_norm: t.vector(&p("ffn_norm"), c.embedding)?,
                    gate: t.matrix(&p("ffn_gate"), c.ffn, c.embedding)?,
                    up: t.matrix(&p("ffn_up"), c.ffn, c.embedding)?,
                    down: t.matrix(&p("ffn_down"), c.embedding, c.ffn)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let lm_head = match content.tensor_infos.contains_key("output.weight") {
            true => Some(t.matrix("output.weight", c.vocab, c.embedding)?),
            false => None,
        };
        let half = c.head_dim / 2;
        let inv_freq = (0..half).map(|i| (c.rope_base as f64).powf(-((2 * i) as f64) / c.head_dim as f64)).collect();
        Ok(Self {
            embed: t.matrix("token_embd.weight", c.vocab, c.embedding)?,
            out_norm: t.vector("output_norm.weight", c.embedding)?,
            layers,
            lm_head,
            inv_freq,
            tokenizer,
            config,
        })
    }

    /// Bytes held by the weights in memory.
    pub fn weight_bytes(&self) -> usize {
        let l: usize = self
            .layers
            .iter()
            .map(|l| {
                [&l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down].iter().map(|m| m.bytes()).sum::<usize>()
                    + 4 * (l.attn_norm.len() + l.ffn_norm.len())
            })
            .sum();
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
        if let Some(i) = (0..layers).find(|&i| cache.layers[i].len < start) {
            return Err(EngineError::InvalidState(format!(
                "layer {i} caches {} positions, cannot continue at {start}",
                cache.layers[i].len
            )));
        }
        let (e, kvd) = (c.embedding, c.kv_dim());
        let mut a = Activations::new(self, tokens)?;
        if let Some(hidden) = probe.hidden.as_mut() {
            hidden.clear();
        }
        let angles: Vec<Rotation> = (start..start + n).map(|pos| self.rotation(pos)).collect();
        for (li, layer) in self.layers[..layers].iter().enumerate() {
            a.qkv(self, layer, QMatrix::matmul);
            for (i, r) in angles.iter().enumerate() {
                rope(&mut a.q[i * e..(i + 1) * e], r);
                rope(&mut a.k[i * kvd..(i + 1) * kvd], r);
            }
            let lc = &mut cache.layers[li];
            lc.write(start, &a.k, &a.v, kvd)?;
            let attention = Attention { q: &a.q, k: &lc.k, v: &lc.v, start, c, scale: a.scale };
            // The captured layer's attention runs on one thread, in order, for the capture.
            match probe.attention.as_mut().filter(|p| p.layer == li) {
                Some(capture) => attention.run_probed(&mut a.attn, |i, h, w| {
                    capture.record(start + i, h, w)
                }),
                None => attention.run(&mut a.attn),
            }
            a.output_and_mlp(self, layer, QMatrix::matmul);
            if let Some(hidden) = probe.hidden.as_mut() {
                hidden.push(a.x[(n - 1) * e..].to_vec());
            }
        }
        let rows = match logits {
            Logits::All => 0..n,
            Logits::Last => n - 1..n,
        };
        self.head_with(&a.x[rows.start * e..rows.end * e], QMatrix::matmul)
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
        let (e, kvd) = (c.embedding, c.kv_dim());
        let mut a = Activations::new(self, tokens)?;
        let angles: Vec<Rotation> = starts.iter().map(|&pos| self.rotation(pos)).collect();
        for (li, layer) in self.layers.iter().enumerate() {
            a.qkv(self, layer, QMatrix::matmul_batch);
            for (i, (cache, &start)) in caches.iter_mut().zip(&starts).enumerate() {
                let (q, k, v) =
                    (&mut a.q[i * e..(i + 1) * e], &mut a.k[i * kvd..(i + 1) * kvd], &a.v[i * kvd..(i + 1) * kvd]);
                rope(q, &angles[i]);
                rope(k, &angles[i]);
                let lc = &mut cache.layers[li];
                lc.write(start, k, v, kvd)?;
                let attention = Attention { q, k: &lc.k, v: &lc.v, start, c, scale: a.scale };
                attention.run(&mut a.attn[i * e..(i + 1) * e]);
            }
            a.output_and_mlp(self, layer, QMatrix::matmul_batch);
        }
        self.head_with(&a.x, QMatrix::matmul_batch)
    }

    /// The final norm and the output head: `vocab` logits for each row of hidden states.
    /// The logit lens applies it to every layer's output.
    pub fn head(&self, x: &[f32]) -> Result<Vec<f32>> {
        self.head_with(x, QMatrix::matmul)
    }

    fn head_with(&self, x: &[f32], matmul: MatMul) -> Result<Vec<f32>> {
        let c = &self.config;
        let m = x.len() / c.embedding;
        let mut normed = memory::zeros(m * c.embedding, "the forward pass's activations")?;
        rms_norm(x, &self.out_norm, c.rms_eps, &mut normed);
        let mut out = memory::zeros(m * c.vocab, "the logits")?;
        matmul(self.lm_head.as_ref().unwrap_or(&self.embed), &normed, m, &mut out);
        Ok(out)
    }

    /// The (sin, cos) of each pair's rotation at `pos`: pos · base^(-2i/d) for pair i,
    /// computed in f64 once per position and pass, then used by every head of every layer.
    fn rotation(&self, pos: usize) -> Rotation {
        self.inv_freq
            .iter()
            .map(|&f| {
                let (sin, cos) = (pos as f64 * f).sin_cos();
                (sin as f32, cos as f32)
            })
            .collect()
    }
}

/// Each pair's (sin, cos) at one position (`Model::rotation`).
type Rotation = Vec<(f32, f32)>;

/// Rotates each adjacent pair (x[2i], x[2i+1]) of every head by its angle in `r`: GGUF
/// llama weights are permuted for this interleaved form.
fn rope(x: &mut [f32], r: &[(f32, f32)]) {
    for head in x.chunks_exact_mut(2 * r.len()) {
        for (pair, &(sin, cos)) in head.chunks_exact_mut(2).zip(r) {
            let (a, b) = (pair[0], pair[1]);
            pair[0] = a * cos - b * sin;
            pair[1] = a * sin + b * cos;
        }
    }
}

/// A matrix product over `n` activation rows: `QMatrix::matmul` for the tokens of one
/// sequence, `QMatrix::matmul_batch` for one token of each of several sequences.
type MatMul = fn(&QMatrix, &[f32], usize, &mut [f32]);

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
        let (n, e, kvd) = (tokens.len(), c.embedding, c.kv_dim());
        let scratch = |len| memory::zeros::<f32>(len, "the forward pass's activations");
        let mut x = scratch(n * e)?;
        for (i, &t) in tokens.iter().enumerate() {
            model.embed.row_into(t as usize, &mut x[i * e..(i + 1) * e]);
        }
        Ok(Self {
            n,
            x,
            h: scratch(n * e)?,
            q: scratch(n * e)?,
            k: scratch(n * kvd)?,
            v: scratch(n * kvd)?,
            attn: scratch(n * e)?,
            proj: scratch(n * e)?,
            g: scratch(n * c.ffn)?,
            u: scratch(n * c.ffn)?,
            scale: 1.0 / (c.head_dim as f32).sqrt(),
        })
    }

    /// The attention norm, then queries, keys and values (before RoPE).
    fn qkv(&mut self, model: &Model, layer: &Layer, matmul: MatMul) {
        rms_norm(&self.x, &layer.attn_norm, model.config.rms_eps, &mut self.h);
        matmul(&layer.wq, &self.h, self.n, &mut self.q);
        matmul(&layer.wk, &self.h, self.n, &mut self.k);
        matmul(&layer.wv, &self.h, self.n, &mut self.v);
    }

    /// After attention has filled `attn`: the output projection and the SwiGLU MLP, each
    /// added to the residual stream.
    fn output_and_mlp(&mut self, model: &Model, layer: &Layer, matmul: MatMul) {
        matmul(&layer.wo, &self.attn, self.n, &mut self.proj);
        add_in_place(&mut self.x, &self.proj);
        rms_norm(&self.x, &layer.ffn_norm, model.config.rms_eps, &mut self.h);
        matmul(&layer.gate, &self.h, self.n, &mut self.g);
        matmul(&layer.up, &self.h, self.n, &mut self.u);
        // SwiGLU, element by element, split over threads (an `exp` costs about 20 multiply-adds).
        let u = &self.u;
        parallel::items(&mut self.g, u.len(), u.len() * 20, |range, g| {
            for (gi, ui) in g.iter_mut().zip(&u[range]) {
                *gi = *gi / (1.0 + (-*gi).exp()) * ui;
            }
        });
        matmul(&layer.down, &self.g, self.n, &mut self.proj);
        add_in_place(&mut self.x, &self.proj);
    }
}

/// `out[row] = x[row] / rms(x[row]) * w` for each row of `x`.
fn rms_norm(x: &[f32], w: &[f32], eps: f32, out: &mut [f32]) {
    let e = w.len();
    for (xr, or) in x.chunks_exact(e).zip(out.chunks_exact_mut(e)) {
        let ms = xr.iter().map(|v| v * v).sum::<f32>() / e as f32;
        let inv = 1.0 / (ms + eps).sqrt();
        for ((o, &xv), &wv) in or.iter_mut().zip(xr).zip(w) {
            *o = xv * inv * wv;
        }
    }
}

fn add_in_place(x: &mut [f32], y: &[f32]) {
    for (a, b) in x.iter_mut().zip(y) {
        *a += b;
    }
}

/// One layer's attention: the queries of `n = q.len() / embedding` new positions starting
/// at `start`; `k` and `v` hold every cached position, the new ones included.
#[derive(Clone, Copy)]
struct Attention<'a> {
    q: &'a [f32],
    k: &'a [f32],
    v: &'a [f32],
    start: usize,
    c: &'a Config,
    scale: f32,
}

impl Attention<'_> {
    /// Causal grouped-query attention into `out`. The (position, head) pairs are split
    /// over `parallel::threads()`: each writes its own slice of `out`.
    fn run(&self, out: &mut [f32]) {
        let (c, hd) = (self.c, self.c.head_dim);
        let n = self.q.len() / c.embedding;
        let work = n * c.heads * (self.start + n) * hd * 2;
        parallel::items(out, n * c.heads, work, |pairs, out| {
            let mut scores = vec![0f32; self.start + n];
            for (j, oh) in pairs.zip(out.chunks_exact_mut(hd)) {
                self.attend(j / c.heads, j % c.heads, &mut scores, oh);
            }
        })
    }

    /// `run` on this thread, showing each softmax row to `on_row(i, head, weights)`: new
    /// position i's weights over positions `0..=start + i`.
    fn run_probed(&self, out: &mut [f32], mut on_row: impl FnMut(usize, usize, &[f32])) {
        let c = self.c;
        let mut scores = vec![0f32; self.start + self.q.len() / c.embedding];
        for (j, oh) in out.chunks_exact_mut(c.head_dim).enumerate() {
            let (i, h) = (j / c.heads, j % c.heads);
            self.attend(i, h, &mut scores, oh);
            on_row(i, h, &scores[..self.start + i + 1]);
        }
    }

    /// New position `i`'s query head `h`: its softmax over positions `0..=start + i`, left
    /// in `scores`, and the weighted sum of their values in `oh`.
    #[inline(always)]
    fn attend(&self, i: usize, h: usize, scores: &mut [f32], oh: &mut [f32]) {
        let Attention { q, k, v, start, c, scale } = *self;
        let (e, kvd, hd) = (c.embedding, c.kv_dim(), c.head_dim);
        let kvh = h / (c.heads / c.kv_heads);
        let visible = start + i + 1;
        let qh = &q[i * e + h * hd..][..hd];
        let mut max = f32::NEG_INFINITY;
        for (p, s) in scores[..visible].iter_mut().enumerate() {
            let kp = &k[p * kvd + kvh * hd..][..hd];
            *s = dot(qh, kp) * scale;
            max = max.max(*s);
        }
        let mut sum = 0f32;
        for s in &mut scores[..visible] {
            *s = (*s - max).exp();
            sum += *s;
        }
        for s in &mut scores[..visible] {
            *s /= sum;
        }
        oh.fill(0.0);
        for (p, &w) in scores[..visible].iter().enumerate() {
            axpy(w, &v[p * kvd + kvh * hd..][..hd], oh);
        }
    }
}
