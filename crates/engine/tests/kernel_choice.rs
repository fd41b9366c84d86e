//! Decode's loops chosen by timing (`engine::quant::choice`): every loop gives the same
//! logits to the bit, on the real model and on its copy in every block type, at one thread
//! and at three; the picking rule keeps the fastest loop or one within the timings' noise;
//! the chooser's result agrees with its own timings; and a stored choice is reused only for
//! the model, the thread count and the candidates it was made for.
//! No test here asserts a speed: the benchmark measures speed.

mod common;
use candle_core::quantized::GgmlDType;
use common::*;
use engine::arch::{Logits, Model};
use engine::kv_cache::KvCache;
use engine::parallel;
use engine::quant::choice::{noise, pick, DecodeLoop, Family, KernelKey, LoopTiming, ROUNDS};
use engine::quant::requantize::{requantize, Scheme};
use std::cell::Cell;
use std::time::Instant;

/// A short prompt's last logits, three decode steps, and one batched decode step of three
/// sequences (its odd row takes the decode loop too; without AVX, all three), as bits.
fn decode(m: &Model) -> Vec<Vec<u32>> {
    let layers = m.config.layers;
    let mut cache = KvCache::new(&m.config);
    let mut out = vec![bits(&m.forward(&[1, 504, 3_000, 27, 9_000], 0, &mut cache, layers, Logits::Last).unwrap())];
    for t in [450u32, 1200, 77] {
        out.push(bits(&m.forward(&[t], cache.len(), &mut cache, layers, Logits::Last).unwrap()));
    }
    let (mut second, mut third) = (cache.clone(), cache.clone());
    m.forward(&[5], second.len(), &mut second, layers, Logits::Last).unwrap();
    let mut caches = vec![&mut cache, &mut second, &mut third];
    out.push(bits(&m.forward_batch(&[11, 2_000, 300], &mut caches).unwrap()));
    out
}

/// Every loop, forced on `m`, gives `decode`'s logits to the bit.
fn same_logits_in_every_loop(m: &Model, what: &str, threads: usize) {
    at_threads(threads, || {
        let key = || KernelKey::now("test", 0);
        m.force_kernels(key(), DecodeLoop::OneRow);
        let want = decode(m);
        for l in [DecodeLoop::TwoRows, DecodeLoop::TwoHalves] {
            m.force_kernels(key(), l);
            assert!(m.decode_loops().iter().all(|&(_, got)| got == l), "{what}: {l:?} was not applied");
            assert!(decode(m) == want, "{what} at {threads} threads: {l:?} changed the logits");
        }
    })
}

#[test]
fn every_loop_gives_the_same_logits_on_the_real_model_at_one_and_three_threads() {
    let m = Model::from_gguf_bytes(&real_bytes()).unwrap();
    for threads in [1, 3] {
        same_logits_in_every_loop(&m, "Q4_1", threads);
    }
}

#[test]
fn every_loop_gives_the_same_logits_in_every_block_type() {
    let bytes = real_bytes();
    let schemes = [
        Scheme::All(GgmlDType::Q4_0),
        Scheme::All(GgmlDType::Q5_0),
        Scheme::All(GgmlDType::Q5_1),
        Scheme::All(GgmlDType::Q8_0),
        Scheme::All(GgmlDType::Q2K),
        Scheme::All(GgmlDType::Q3K),
        Scheme::All(GgmlDType::Q5K),
        Scheme::All(GgmlDType::F16),
        Scheme::Q4KM,
    ];
    for scheme in schemes {
        let m = Model::from_gguf_bytes(&requantize(&bytes, scheme).unwrap()).unwrap();
        same_logits_in_every_loop(&m, &format!("{scheme:?}"), 3);
    }
}

/// The opt-in integer arithmetic runs the same loops: the same logits in each too.
#[test]
fn every_loop_gives_the_same_integer_logits() {
    for scheme in [Scheme::All(GgmlDType::Q4_1), Scheme::All(GgmlDType::Q8_0)] {
        let m = Model::from_gguf_bytes(&requantize(&real_bytes(), scheme).unwrap()).unwrap();
        m.set_integer_activations(true);
        same_logits_in_every_loop(&m, &format!("{scheme:?}, integer"), 3);
    }
}

fn timing(l: DecodeLoop, rounds_ms: &[f64]) -> LoopTiming {
    LoopTiming { decode_loop: l, rounds_ms: rounds_ms.to_vec() }
}

#[test]
fn a_loop_faster_beyond_the_noise_replaces_the_default() {
    let t = [
        timing(DecodeLoop::OneRow, &[10.0, 10.2, 10.1, 10.3]),
        timing(DecodeLoop::TwoRows, &[12.0, 12.1, 12.4, 12.2]),
        timing(DecodeLoop::TwoHalves, &[8.0, 8.1, 8.3, 8.1]),
    ];
    // The largest (median - best) / best: OneRow's (10.2 - 10) / 10.
    assert!((noise(&t) - 0.02).abs() < 1e-12, "{}", noise(&t));
    assert_eq!(pick(&t, DecodeLoop::OneRow), DecodeLoop::TwoHalves);
    assert_eq!(pick(&t, DecodeLoop::TwoRows), DecodeLoop::TwoHalves);
}

#[test]
fn the_default_stays_when_it_is_within_the_noise_of_the_fastest() {
    // Medians up to 5.8 % over their best rounds: OneRow's best is 4 % over TwoRows', not evidence.
    let t = [
        timing(DecodeLoop::OneRow, &[10.4, 11.4, 10.9, 11.0]),
        timing(DecodeLoop::TwoRows, &[10.0, 11.0, 10.5, 10.2]),
        timing(DecodeLoop::TwoHalves, &[12.0, 12.0, 12.0, 12.0]),
    ];
    assert_eq!(pick(&t, DecodeLoop::OneRow), DecodeLoop::OneRow);
    // With no noise at all, the fastest wins however small the gap.
    let exact = [timing(DecodeLoop::OneRow, &[10.4]), timing(DecodeLoop::TwoRows, &[10.0])];
    assert_eq!(noise(&exact), 0.0);
    assert_eq!(pick(&exact, DecodeLoop::OneRow), DecodeLoop::TwoRows);
    // A default that was not timed cannot stay.
    assert_eq!(pick(&exact, DecodeLoop::TwoHalves), DecodeLoop::TwoRows);
}

/// What `pick` promises, on many random timings: the loop it picks was timed, and its best
/// round is the fastest best round or within the noise of it.
#[test]
fn the_pick_is_the_fastest_or_within_the_noise_on_random_timings() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut unit = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..2_000 {
        let t: Vec<LoopTiming> = DecodeLoop::ALL
            .iter()
            .map(|&l| {
                let base = 5.0 + 10.0 * unit();
                timing(l, &(0..ROUNDS).map(|_| base * (1.0 + 0.3 * unit())).collect::<Vec<_>>())
            })
            .collect();
        let default = DecodeLoop::ALL[(unit() * 3.0) as usize];
        let chosen = pick(&t, default);
        let best = |l: DecodeLoop| t.iter().find(|x| x.decode_loop == l).unwrap().best_ms();
        let fastest = t.iter().map(LoopTiming::best_ms).fold(f64::INFINITY, f64::min);
        assert!(best(chosen) <= fastest * (1.0 + noise(&t)), "{t:?}: {chosen:?}");
        if chosen != default {
            assert_eq!(best(chosen), fastest, "{t:?}: left the default for a loop that is not the fastest");
        }
    }
}

/// The chooser on the real model (Q4_1, its tied head Q8_0) and on a mixed file (Q4_K_M-like:
/// Q5_0, Q4_K, Q6_K, Q8_0): every family the model multiplies gets every candidate timed `ROUNDS` times, a
/// pick consistent with those timings (`pick`'s rule on them), and its matrices run it;
/// the logits are those of the loops before.
#[test]
fn the_chooser_applies_a_pick_consistent_with_its_own_timings() {
    let mixed = requantize(&real_bytes(), Scheme::Q4KM).unwrap();
    for (bytes, least) in [(real_bytes(), 2), (mixed, 3)] {
        let m = Model::from_gguf_bytes(&bytes).unwrap();
        let families = m.kernel_families();
        assert!(families.len() >= least, "{families:?}");
        at_threads(2, || {
            let before = decode(&m);
            let origin = Instant::now();
            let clock = || origin.elapsed().as_secs_f64() * 1000.0;
            let choice = m.choose_kernels(KernelKey::now("m", bytes.len() as u64), &clock);
            assert_eq!(choice.families.iter().map(|f| f.family).collect::<Vec<_>>(), families);
            assert!(choice.took_ms > 0.0);
            for f in &choice.families {
                let timed: Vec<DecodeLoop> = f.timings.iter().map(|t| t.decode_loop).collect();
                assert_eq!(timed, DecodeLoop::ALL.to_vec(), "{:?}", f.family);
                assert!(f.timings.iter().all(|t| t.rounds_ms.len() == ROUNDS && t.best_ms() > 0.0), "{f:?}");
                assert!(f.bytes > 0, "{f:?}");
                assert_eq!(f.noise, noise(&f.timings));
                assert_eq!(f.chosen, pick(&f.timings, f.default), "{f:?}");
            }
            for (family, l) in m.decode_loops() {
                assert_eq!(Some(l), choice.loop_for(family), "{family:?}");
            }
            assert!(decode(&m) == before, "the chosen loops changed the logits");
        });
    }
}

/// A clock that counts how often it was read: timing reads it, reuse does not.
struct CountingClock {
    origin: Instant,
    reads: Cell<usize>,
}

impl CountingClock {
    fn new() -> Self {
        Self { origin: Instant::now(), reads: Cell::new(0) }
    }
    fn now(&self) -> f64 {
        self.reads.set(self.reads.get() + 1);
        self.origin.elapsed().as_secs_f64() * 1000.0
    }
}

#[test]
fn a_stored_choice_is_reused_for_its_key_and_redone_for_another() {
    let m = Model::from_gguf_bytes(&real_bytes()).unwrap();
    at_threads(1, || {
        let key = KernelKey::now("SmolLM2-135M-Instruct.Q4_1.gguf", 98_350_112);
        assert_eq!(key.threads, 1);
        assert_eq!(key.candidates, DecodeLoop::ALL.to_vec());
        // A stored choice that picked TwoHalves (forced, so that it differs from the default).
        let stored = m.force_kernels(key.clone(), DecodeLoop::TwoHalves);
        m.force_kernels(key.clone(), DecodeLoop::OneRow);
        // Through storage, as the page keeps it.
        let stored: engine::quant::choice::KernelChoice =
            serde_json::from_str(&serde_json::to_string(&stored).unwrap()).unwrap();

        let clock = CountingClock::new();
        let reused = m.kernels(key.clone(), Some(&stored), &|| clock.now());
        assert_eq!(clock.reads.get(), 0, "a fitting stored choice was timed again");
        assert_eq!(reused, stored);
        assert!(m.decode_loops().iter().all(|&(_, l)| l == DecodeLoop::TwoHalves), "the stored choice was not applied");

        let redone = |other: KernelKey, why: &str| {
            let clock = CountingClock::new();
            let choice = m.kernels(other.clone(), Some(&stored), &|| clock.now());
            assert!(clock.reads.get() > 0, "{why}: the stored choice was reused");
            assert_eq!(choice.key, other, "{why}");
            assert_eq!(choice.families.len(), m.kernel_families().len(), "{why}");
            assert!(choice.families.iter().all(|f| f.timings.len() == other.candidates.len()), "{why}");
        };
        redone(KernelKey { model: "another.gguf".into(), ..key.clone() }, "another model");
        redone(KernelKey { file_bytes: key.file_bytes + 1, ..key.clone() }, "another size");
        redone(
            KernelKey { candidates: vec![DecodeLoop::OneRow, DecodeLoop::TwoRows], ..key.clone() },
            "other candidates",
        );
        parallel::set_threads(3);
        redone(KernelKey::now(key.model.clone(), key.file_bytes), "another thread count");
        parallel::set_threads(1);
        // A choice that lacks one of the model's families (made for another file under the same key).
        let mut partial = stored.clone();
        partial.families[0].family = Family::Q8_0;
        let clock = CountingClock::new();
        m.kernels(key.clone(), Some(&partial), &|| clock.now());
        assert!(clock.reads.get() > 0, "a choice without the model's family was reused");
    });
}
