//! The sampler as data. The pipeline is
//! logits → repetition penalty → {temperature, top-k, top-p, min-p} → renormalise → draw,
//! and every stage's result is kept, per candidate, so that the page can draw exactly
//! what decided the next token. The four middle stages run in `SamplerSettings::order`.
//! The default is temperature, then top-k, top-p, min-p: the cuts see the probabilities at
//! T. With temperature later (llama.cpp's default chain ends with it), the cuts before it
//! see the model's own probabilities (T = 1), and temperature reshapes only what they kept.
//! Either way the result is softmax(logits / T) over the kept set, renormalised: applying T
//! to the survivors' logits and renormalising is that same distribution.

use crate::error::{EngineError, Result};
use serde::{Deserialize, Serialize};

/// A stage of the pipeline: the four that `SamplerSettings::order` arranges, and `Greedy`,
/// the name of the cut that temperature 0 makes where temperature stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// Temperature 0: only the most likely token still eligible stays.
    Greedy,
    Temperature,
    TopK,
    TopP,
    MinP,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Greedy => "greedy",
            Stage::Temperature => "temperature",
            Stage::TopK => "top-k",
            Stage::TopP => "top-p",
            Stage::MinP => "min-p",
        }
    }

    /// One of the four stages an order lists, by its `name`.
    pub fn from_name(name: &str) -> Option<Stage> {
        DEFAULT_ORDER.into_iter().find(|s| s.name() == name)
    }
}

/// The default order: temperature, then the cuts (as in Hugging Face's generation).
pub const DEFAULT_ORDER: [Stage; 4] = [Stage::Temperature, Stage::TopK, Stage::TopP, Stage::MinP];

const ORDER_RULE: &str = "must list temperature, top-k, top-p and min-p once each, comma-separated";

/// An order written as names, comma-separated (`top-k,top-p,min-p,temperature`).
pub fn parse_order(text: &str) -> Result<Vec<Stage>> {
    let bad = || EngineError::InvalidSetting { name: "order", value: text.to_string(), reason: ORDER_RULE };
    let order = text.split(',').map(|n| Stage::from_name(n.trim()).ok_or_else(bad)).collect::<Result<Vec<_>>>()?;
    if !is_order(&order) {
        return Err(bad());
    }
    Ok(order)
}

/// The order as `parse_order` reads it.
pub fn order_text(order: &[Stage]) -> String {
    order.iter().map(|s| s.name()).collect::<Vec<_>>().join(",")
}

fn is_order(order: &[Stage]) -> bool {
    order.len() == DEFAULT_ORDER.len() && DEFAULT_ORDER.iter().all(|s| order.contains(s))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SamplerSettings {
    /// 0 means greedy; otherwise logits are divided by it before the softmax.
    pub temperature: f32,
    /// Keep the k most likely candidates; 0 = off.
    pub top_k: usize,
    /// Keep the smallest set of most likely candidates whose probability reaches p; 1 = off.
    pub top_p: f32,
    /// Drop candidates less likely than min_p × the most likely one; 0 = off.
    pub min_p: f32,
    /// Divides positive (multiplies negative) logits of tokens seen in the last
    /// `repeat_last_n` tokens; 1 = off.
    pub repeat_penalty: f32,
    pub repeat_last_n: usize,
    pub seed: u64,
    /// The order of the stages after the penalty: a permutation of temperature, top-k,
    /// top-p and min-p (`DEFAULT_ORDER`).
    pub order: Vec<Stage>,
}

impl Default for SamplerSettings {
    fn default() -> Self {
        Self {
            temperature: 0.8,
            top_k: 40,
            top_p: 0.95,
            min_p: 0.05,
            repeat_penalty: 1.0,
            repeat_last_n: 64,
            seed: 42,
            order: DEFAULT_ORDER.to_vec(),
        }
    }
}

/// Every order of the three cut stages (`SamplerSettings::cuts`).
pub const CUT_ORDERS: [[Stage; 3]; 6] = {
    use Stage::{MinP, TopK, TopP};
    [
        [TopK, TopP, MinP],
        [TopK, MinP, TopP],
        [TopP, TopK, MinP],
        [TopP, MinP, TopK],
        [MinP, TopK, TopP],
        [MinP, TopP, TopK],
    ]
};

/// Bounds the engine accepts (the page's sliders stay inside them).
pub const MAX_TEMPERATURE: f32 = 10.0;
pub const MAX_REPEAT_PENALTY: f32 = 10.0;

impl SamplerSettings {
    pub fn greedy() -> Self {
        Self { temperature: 0.0, ..Self::default() }
    }

    /// No cuts: the plain softmax at `temperature`.
    pub fn plain(temperature: f32, seed: u64) -> Self {
        Self { temperature, top_k: 0, top_p: 1.0, min_p: 0.0, seed, ..Self::default() }
    }

    pub fn validate(&self) -> Result<()> {
        let bad =
            |name, value: f32, reason| Err(EngineError::InvalidSetting { name, value: value.to_string(), reason });
        let t = self.temperature;
        if !t.is_finite() || !(0.0..=MAX_TEMPERATURE).contains(&t) {
            return bad("temperature", t, "must be a number from 0 (greedy) to 10");
        }
        if !self.top_p.is_finite() || self.top_p <= 0.0 || self.top_p > 1.0 {
            return bad("top_p", self.top_p, "must be in (0, 1]; 1 turns it off");
        }
        if !self.min_p.is_finite() || !(0.0..=1.0).contains(&self.min_p) {
            return bad("min_p", self.min_p, "must be in [0, 1]; 0 turns it off");
        }
        let rp = self.repeat_penalty;
        if !rp.is_finite() || rp <= 0.0 || rp > MAX_REPEAT_PENALTY {
            return bad("repeat_penalty", rp, "must be in (0, 10]; 1 turns it off");
        }
        if !is_order(&self.order) {
            return Err(EngineError::InvalidSetting {
                name: "order",
                value: order_text(&self.order),
                reason: ORDER_RULE,
            });
        }
        Ok(())
    }

    /// The cut stages in their order, without temperature.
    pub fn cuts(&self) -> Vec<Stage> {
        self.order.iter().copied().filter(|&s| s != Stage::Temperature).collect()
    }

    /// How many cuts run before temperature: 0 (first, the default) to 3 (last).
    pub fn temperature_place(&self) -> usize {
        self.order.iter().position(|&s| s == Stage::Temperature).unwrap_or(0)
    }

    /// The order with `cuts` in their order and temperature after the first `place` of them.
    pub fn arrange(&mut self, cuts: &[Stage], place: usize) {
        let mut order = cuts.to_vec();
        order.insert(place.min(order.len()), Stage::Temperature);
        self.order = order;
    }
}

/// One token's path through the pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub id: u32,
    /// The model's raw logit.
    pub logit: f32,
    /// After the repetition penalty.
    pub penalized: f32,
    /// softmax(penalized / T) over the whole vocabulary, before any cut.
    pub prob: f32,
    /// softmax(penalized) at T = 1 over the whole vocabulary: what a cut placed before
    /// temperature sees.
    pub model_prob: f32,
    /// The stage that excluded it; `None` while it is eligible.
    pub cut_by: Option<Stage>,
    /// The renormalised probability it is drawn with (0 when cut).
    pub final_prob: f32,
}

impl Candidate {
    pub fn eligible(&self) -> bool {
        self.cut_by.is_none()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// Every token, most likely first (ties by id).
    pub candidates: Vec<Candidate>,
    pub eligible: usize,
    /// Entropy of the temperature softmax and of the final distribution, in bits.
    pub entropy_bits: f64,
    pub final_entropy_bits: f64,
}

impl Distribution {
    /// The most likely `n` candidates.
    pub fn top(&self, n: usize) -> &[Candidate] {
        &self.candidates[..n.min(self.candidates.len())]
    }

    /// Draws with `u` uniform in [0, 1): the first eligible candidate at which the
    /// cumulative final probability passes `u`, in most-likely-first order.
    pub fn draw(&self, u: f64) -> u32 {
        let mut cum = 0.0f64;
        let mut last = self.candidates[0].id;
        for c in self.candidates.iter().filter(|c| c.eligible()) {
            cum += c.final_prob as f64;
            last = c.id;
            if u < cum {
                return c.id;
            }
        }
        last
    }

    pub fn get(&self, id: u32) -> Option<&Candidate> {
        self.candidates.iter().find(|c| c.id == id)
    }
}

/// Runs the pipeline on `logits`. `history` is the context so far, for the repetition
/// penalty. The settings must have passed `validate`.
pub fn distribution(logits: &[f32], s: &SamplerSettings, history: &[u32]) -> Distribution {
    let penalized = penalize(logits, s, history);
    let ranking = Ranking::new(&penalized, penalized.len());
    let probs = Probs::new(&penalized, &ranking, s.temperature);
    let model_probs = if s.temperature == 1.0 { probs.clone() } else { Probs::new(&penalized, &ranking, 1.0) };
    let Some(cut) = Cut::new(s, &penalized, &ranking, &probs, &model_probs) else {
        unreachable!("a ranking of the whole vocabulary reaches every rank")
    };
    let order: Vec<u32> = (0..ranking.len()).map(|r| ranking.id(r).expect("every rank is ranked")).collect();
    let entropy = |ps: &mut dyn Iterator<Item = f64>| -> f64 { ps.filter(|&p| p > 0.0).map(|p| -p * p.log2()).sum() };
    let entropy_bits = entropy(&mut order.iter().map(|&id| probs.of(id)));
    let final_entropy_bits = entropy(&mut order[..cut.kept].iter().map(|&id| probs.of(id) / cut.mass));
    let candidates: Vec<Candidate> = order
        .iter()
        .enumerate()
        .map(|(r, &id)| {
            let cut_by = cut.by(r);
            Candidate {
                id,
                logit: logits[id as usize],
                penalized: penalized[id as usize],
                prob: probs.of(id) as f32,
                model_prob: model_probs.of(id) as f32,
                cut_by,
                final_prob: if cut_by.is_none() { cut.final_prob(&probs, id) } else { 0.0 },
            }
        })
        .collect();
    Distribution { candidates, eligible: cut.kept, entropy_bits, final_entropy_bits }
}

/// Candidates ranked first by `sample`: enough for top-k at its usual values and for what
/// the cuts leave of a peaked distribution. When a cut or the draw reaches past them, the
/// whole vocabulary is ranked.
const SAMPLE_HEAD: usize = 64;

/// The token `distribution(logits, s, history).draw(u)` draws, and its final probability,
/// to the bit, without ranking the whole vocabulary: only the `SAMPLE_HEAD` most likely
/// candidates are put in order (a selection, then a sort of those), and only the
/// probabilities the cuts look at are computed. Every cut keeps a prefix of the ranking, and
/// every sum runs over token ids in order, so the ranks past the head are never needed unless
/// a cut or the draw walks that far (then everything is ranked, as `distribution` does).
pub fn sample(logits: &[f32], s: &SamplerSettings, history: &[u32], u: f64) -> (u32, f32) {
    let penalized = penalize(logits, s, history);
    // The head first; the whole vocabulary only when the head does not reach far enough.
    for head in [SAMPLE_HEAD, penalized.len()] {
        let ranking = Ranking::new(&penalized, head);
        let probs = Probs::new(&penalized, &ranking, s.temperature);
        // The probabilities at T = 1 matter only to cuts that run before temperature.
        let at_one = (s.temperature_place() > 0 && s.temperature != 1.0).then(|| Probs::new(&penalized, &ranking, 1.0));
        let model_probs = at_one.as_ref().unwrap_or(&probs);
        if let Some(drawn) =
            Cut::new(s, &penalized, &ranking, &probs, model_probs).and_then(|cut| cut.draw(&ranking, &probs, u))
        {
            return drawn;
        }
    }
    unreachable!("a ranking of the whole vocabulary reaches every rank")
}

/// The logits after the repetition penalty, made finite.
fn penalize(logits: &[f32], s: &SamplerSettings, history: &[u32]) -> Vec<f32> {
    let mut penalized = logits.to_vec();
    if s.repeat_penalty != 1.0 {
        let recent = &history[history.len().saturating_sub(s.repeat_last_n)..];
        let mut seen = vec![false; logits.len()];
        for &t in recent {
            if let Some(l) = penalized.get_mut(t as usize) {
                if !std::mem::replace(&mut seen[t as usize], true) {
                    *l = if *l > 0.0 { *l / s.repeat_penalty } else { *l * s.repeat_penalty };
                }
            }
        }
    }
    // A logit that is not a number (a corrupt model) or a penalty that overflows f32 would
    // make every probability NaN: NaN ranks as the lowest logit, ±inf as the extreme finite
    // values, so that the result is still a distribution (fuzzed: crates/engine/fuzz).
    for l in &mut penalized {
        *l = if l.is_nan() { f32::MIN } else { l.clamp(f32::MIN, f32::MAX) };
    }
    penalized
}

/// Token `id`'s rank key: most likely first, ties by id, as one u64 (logit descending, id
/// ascending). The same order as comparing logits by `total_cmp`, at a third of the cost of
/// a sort that looks the logits up for every comparison (49k of them per token).
fn rank_key(id: usize, l: f32) -> u64 {
    let bits = l.to_bits();
    // f32 bits → u32 in `total_cmp` order, then flipped so that larger sorts first.
    let ascending = if bits >> 31 == 1 { !bits } else { bits | 0x8000_0000 };
    (u64::from(!ascending) << 32) | id as u64
}

/// The vocabulary's rank keys, the first `ranked` in order (the most likely, ties by id),
/// the rest after them in no particular order.
struct Ranking {
    keys: Vec<u64>,
    ranked: usize,
}

impl Ranking {
    fn new(penalized: &[f32], head: usize) -> Self {
        let mut keys: Vec<u64> = penalized.iter().enumerate().map(|(id, &l)| rank_key(id, l)).collect();
        let ranked = head.clamp(1, keys.len().max(1)).min(keys.len());
        if ranked < keys.len() {
            keys.select_nth_unstable(ranked - 1);
            keys[..ranked].sort_unstable();
        } else {
            keys.sort_unstable();
        }
        Self { keys, ranked }
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// The token at rank `r`, if the ranking reaches it.
    fn id(&self, r: usize) -> Option<u32> {
        (r < self.ranked).then(|| self.keys[r] as u32)
    }

    /// Σ `f(id)` over the tokens of the first `n` ranks, taken in id order (so that the sum
    /// does not depend on how far the ranking went); `None` if it does not reach rank n - 1.
    fn prefix_sum(&self, penalized: &[f32], n: usize, f: impl Fn(u32) -> f64) -> Option<f64> {
        let ids = 0..penalized.len() as u32;
        if n >= self.len() {
            return Some(ids.map(f).sum());
        }
        if n == 0 {
            return Some(0.0);
        }
        let last = self.keys[..self.ranked].get(n - 1)?;
        Some(ids.filter(|&id| rank_key(id as usize, penalized[id as usize]) <= *last).map(f).sum())
    }
}

/// A softmax over the vocabulary: each token's exp((l - max) / T) and their sum, taken in id
/// order, in f64 so that tiny probabilities still add up to 1; one-hot on the most likely at
/// T = 0.
#[derive(Clone)]
enum Probs {
    OneHot(u32),
    Soft { e: Vec<f64>, sum: f64 },
}

impl Probs {
    fn new(penalized: &[f32], ranking: &Ranking, t: f32) -> Self {
        let top = ranking.id(0).unwrap_or(0);
        if t == 0.0 {
            return Probs::OneHot(top);
        }
        let (max, t) = (penalized.get(top as usize).map_or(0.0, |&l| l as f64), t as f64);
        let e: Vec<f64> = penalized.iter().map(|&l| ((l as f64 - max) / t).exp()).collect();
        let sum = e.iter().sum();
        Probs::Soft { e, sum }
    }

    fn of(&self, id: u32) -> f64 {
        match self {
            Probs::OneHot(top) => f64::from(u8::from(id == *top)),
            Probs::Soft { e, sum } => e[id as usize] / sum,
        }
    }
}

/// What the stages leave: every stage keeps a prefix of the ranking (top-k and top-p by
/// construction, greedy its first rank, min-p because probabilities fall with rank), so a
/// cut is where each stage ended its prefix.
struct Cut {
    /// (stage, ranks it left) for each stage that cut something, in the order they ran.
    by: Vec<(Stage, usize)>,
    /// Ranks left for the draw.
    kept: usize,
    /// Σ of the kept candidates' probabilities at T, in id order.
    mass: f64,
}

impl Cut {
    /// The stages of `s.order` on the ranking; `None` when one of them needed a rank that
    /// the ranking does not reach.
    fn new(s: &SamplerSettings, penalized: &[f32], ranking: &Ranking, probs: &Probs, model: &Probs) -> Option<Cut> {
        let seen_at = |seen: &Probs, r: usize| ranking.id(r).map(|id| seen.of(id));
        let (mut by, mut kept, mut seen) = (Vec::new(), ranking.len(), model);
        for &stage in &s.order {
            let left = match stage {
                Stage::Temperature => {
                    seen = probs;
                    // Greedy keeps the most likely of those still eligible: every cut keeps
                    // the most likely token, so that is the argmax in every order.
                    if s.temperature == 0.0 {
                        by.push((Stage::Greedy, kept.min(1)));
                        kept = kept.min(1);
                    }
                    continue;
                }
                Stage::TopK if s.top_k > 0 => kept.min(s.top_k),
                Stage::TopP if s.top_p < 1.0 => {
                    // Keep while the mass so far is short of p: the smallest prefix reaching p.
                    let goal = s.top_p as f64 * ranking.prefix_sum(penalized, kept, |id| seen.of(id))?;
                    let (mut r, mut cum) = (0, 0.0);
                    while r < kept && cum < goal {
                        cum += seen_at(seen, r)?;
                        r += 1;
                    }
                    r
                }
                Stage::MinP if s.min_p > 0.0 => {
                    let floor = s.min_p as f64 * seen_at(seen, 0)?;
                    let mut r = 0;
                    while r < kept && seen_at(seen, r)? >= floor {
                        r += 1;
                    }
                    r
                }
                _ => continue,
            };
            by.push((stage, left));
            kept = left;
        }
        let mass = ranking.prefix_sum(penalized, kept, |id| probs.of(id))?;
        Some(Cut { by, kept, mass })
    }

    /// The stage that cut rank `r`, if one did.
    fn by(&self, r: usize) -> Option<Stage> {
        self.by.iter().find(|&&(_, left)| r >= left).map(|&(stage, _)| stage)
    }

    /// A kept token's renormalised probability.
    fn final_prob(&self, probs: &Probs, id: u32) -> f32 {
        (probs.of(id) / self.mass) as f32
    }

    /// `Distribution::draw` over the kept ranks, with the drawn token's final probability;
    /// `None` if the draw walks past the ranking.
    fn draw(&self, ranking: &Ranking, probs: &Probs, u: f64) -> Option<(u32, f32)> {
        let mut cum = 0.0f64;
        let mut last = None;
        for r in 0..self.kept {
            let id = ranking.id(r)?;
            let p = self.final_prob(probs, id);
            cum += p as f64;
            last = Some((id, p));
            if u < cum {
                return last;
            }
        }
        Some(last.unwrap_or((ranking.id(0)?, 0.0)))
    }
}

/// SplitMix64: small, fast, and the same sequence on every platform, so that a seed
/// reproduces a run in the browser and in the CLI alike.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rng(u64);

/// What SplitMix64 adds to its state on every draw.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// `Rng::new(seed)` after `draws` draws, reached at once: the state only ever advances
    /// by a constant. Lesson 1 draws the n-th generated token with `Rng::at(seed, n)`, so
    /// that Rewind then Step draws the same number again, as a fresh run with that seed would.
    pub fn at(seed: u64, draws: u64) -> Self {
        Self(seed.wrapping_add(draws.wrapping_mul(GAMMA)))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
