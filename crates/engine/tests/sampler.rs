//! The sampler pipeline's invariants, on synthetic logits.

mod common;
use common::chi_square;
use engine::sampler::{distribution, Rng, SamplerSettings, Stage};

fn logits(n: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng::new(seed);
    (0..n).map(|_| (r.next_f64() as f32 - 0.5) * 12.0).collect()
}

fn settings(t: f32, k: usize, p: f32, m: f32) -> SamplerSettings {
    SamplerSettings { temperature: t, top_k: k, top_p: p, min_p: m, ..SamplerSettings::default() }
}

#[test]
fn probabilities_sum_to_one_at_every_setting() {
    for seed in 0..20 {
        let l = logits(500, seed);
        for s in [
            settings(1.0, 0, 1.0, 0.0),
            settings(0.3, 40, 0.9, 0.05),
            settings(1.7, 3, 0.5, 0.2),
            settings(0.0, 0, 1.0, 0.0),
        ] {
            let d = distribution(&l, &s, &[]);
            let all: f64 = d.candidates.iter().map(|c| c.prob as f64).sum();
            let fin: f64 = d.candidates.iter().map(|c| c.final_prob as f64).sum();
            assert!((all - 1.0).abs() < 1e-4, "softmax sums to {all}");
            assert!((fin - 1.0).abs() < 1e-4, "final sums to {fin}");
            assert!(d.candidates.iter().all(|c| c.eligible() || c.final_prob == 0.0));
        }
    }
}

#[test]
fn softmax_at_temperature_matches_the_formula() {
    let l = logits(50, 1);
    for t in [0.5f32, 1.0, 1.5] {
        let d = distribution(&l, &settings(t, 0, 1.0, 0.0), &[]);
        let z: f64 = l.iter().map(|&x| ((x / t) as f64).exp()).sum();
        for c in &d.candidates {
            let want = ((c.logit / t) as f64).exp() / z;
            assert!((c.prob as f64 - want).abs() < 1e-6, "T={t} id={}", c.id);
        }
    }
}

#[test]
fn candidates_are_sorted_most_likely_first() {
    let d = distribution(&logits(300, 2), &SamplerSettings::default(), &[]);
    assert!(d.candidates.windows(2).all(|w| w[0].prob >= w[1].prob));
}

#[test]
fn ranking_is_by_logit_then_id_whatever_the_values() {
    // Ties, signed zeros, extremes, infinities and NaN (ranked as the lowest logit).
    let mut l = logits(2000, 3);
    for (i, v) in
        [0.0, -0.0, 0.0, f32::MAX, f32::MIN, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.5, 1.5, -1.5, 1e-38, -1e-38]
            .into_iter()
            .enumerate()
    {
        l[i * 97] = v;
        l[i * 97 + 1] = v;
    }
    let clamp = |x: f32| if x.is_nan() { f32::MIN } else { x.clamp(f32::MIN, f32::MAX) };
    let mut want: Vec<u32> = (0..l.len() as u32).collect();
    want.sort_by(|&a, &b| clamp(l[b as usize]).total_cmp(&clamp(l[a as usize])).then(a.cmp(&b)));
    let got: Vec<u32> = distribution(&l, &settings(1.0, 0, 1.0, 0.0), &[]).candidates.iter().map(|c| c.id).collect();
    assert_eq!(got, want);
}

#[test]
fn top_k_leaves_exactly_k() {
    let l = logits(300, 3);
    for k in [1, 2, 3, 10, 100, 299] {
        let d = distribution(&l, &settings(1.0, k, 1.0, 0.0), &[]);
        assert_eq!(d.eligible, k);
        assert!(d.candidates[..k].iter().all(|c| c.eligible()));
        assert!(d.candidates[k..].iter().all(|c| c.cut_by == Some(Stage::TopK)));
    }
    assert_eq!(distribution(&l, &settings(1.0, 0, 1.0, 0.0), &[]).eligible, 300, "k = 0 is off");
}

#[test]
fn top_p_leaves_the_smallest_prefix_reaching_p() {
    let l = logits(300, 4);
    for p in [0.05f32, 0.3, 0.5, 0.9, 0.99] {
        let d = distribution(&l, &settings(1.0, 0, p, 0.0), &[]);
        let kept = d.eligible;
        let cum = |n: usize| d.candidates[..n].iter().map(|c| c.prob as f64).sum::<f64>();
        assert!(cum(kept) >= p as f64 - 1e-6, "kept set reaches p");
        assert!(cum(kept - 1) < p as f64, "one fewer would not");
        assert!(d.candidates[kept..].iter().all(|c| c.cut_by == Some(Stage::TopP)));
    }
}

#[test]
fn top_p_after_top_k_works_on_the_renormalised_survivors() {
    let l = logits(300, 5);
    let d = distribution(&l, &settings(1.0, 10, 0.5, 0.0), &[]);
    let mass: f64 = d.candidates[..10].iter().map(|c| c.prob as f64).sum();
    let mut cum = 0.0;
    let mut want = 0;
    while cum < 0.5 * mass {
        cum += d.candidates[want].prob as f64;
        want += 1;
    }
    assert_eq!(d.eligible, want);
}

#[test]
fn min_p_is_relative_to_the_top_probability() {
    let l = logits(300, 6);
    for m in [0.01f32, 0.1, 0.5] {
        let d = distribution(&l, &settings(1.0, 0, 1.0, m), &[]);
        let top = d.candidates[0].prob;
        for c in &d.candidates {
            assert_eq!(c.eligible(), c.prob >= m * top, "min_p {m} id {}", c.id);
        }
    }
}

#[test]
fn the_order_of_cut_stages_is_configurable() {
    let l: Vec<f32> = [0.3f32, 0.25, 0.2, 0.15, 0.1].iter().map(|p| p.ln()).collect();
    let mut s = settings(1.0, 2, 0.6, 0.0);
    let k_first = distribution(&l, &s, &[]);
    s.order = vec![Stage::TopP, Stage::TopK, Stage::MinP];
    let p_first = distribution(&l, &s, &[]);
    assert_eq!((k_first.eligible, p_first.eligible), (2, 2));
    // The same survivors, but the stage that removed the tail depends on the order.
    assert_eq!(k_first.candidates[3].cut_by, Some(Stage::TopK));
    assert_eq!(p_first.candidates[3].cut_by, Some(Stage::TopP));
    assert_eq!(p_first.candidates[2].cut_by, Some(Stage::TopK));
}

#[test]
fn temperature_to_zero_equals_argmax() {
    let l = logits(300, 8);
    let argmax = (0..l.len()).max_by(|&a, &b| l[a].total_cmp(&l[b])).unwrap() as u32;
    let greedy = distribution(&l, &SamplerSettings::greedy(), &[]);
    assert_eq!(greedy.eligible, 1);
    assert_eq!(greedy.candidates[0].id, argmax);
    assert_eq!(greedy.candidates[1].cut_by, Some(Stage::Greedy));
    let mut r = Rng::new(1);
    for _ in 0..100 {
        assert_eq!(greedy.draw(r.next_f64()), argmax);
    }
    let mut sorted = l.clone();
    sorted.sort_by(|a, b| b.total_cmp(a));
    // A temperature 20× below the gap between the two best logits.
    let cold = distribution(&l, &settings((sorted[0] - sorted[1]) / 20.0, 0, 1.0, 0.0), &[]);
    assert!(cold.candidates[0].prob > 0.999);
    assert_eq!(cold.candidates[0].id, argmax);
}

#[test]
fn the_same_seed_gives_the_same_draws() {
    let d = distribution(&logits(300, 9), &settings(1.0, 0, 1.0, 0.0), &[]);
    let draws = |seed| {
        let mut r = Rng::new(seed);
        (0..50).map(|_| d.draw(r.next_f64())).collect::<Vec<_>>()
    };
    assert_eq!(draws(42), draws(42));
    assert_ne!(draws(42), draws(43));
}

#[test]
fn ten_thousand_draws_match_the_final_distribution() {
    let l = logits(300, 10);
    let d = distribution(&l, &settings(1.0, 8, 1.0, 0.0), &[]);
    let n = 10_000;
    let mut counts = std::collections::HashMap::new();
    let mut r = Rng::new(2024);
    for _ in 0..n {
        *counts.entry(d.draw(r.next_f64())).or_insert(0usize) += 1;
    }
    assert!(counts.keys().all(|id| d.get(*id).unwrap().eligible()), "only eligible tokens are drawn");
    let chi2 = chi_square(&d.candidates[..8], &counts, n);
    // 7 degrees of freedom: the 99.9th percentile is 24.32.
    assert!(chi2 < 24.32, "chi-square {chi2}");
}

#[test]
fn repetition_penalty_lowers_recent_tokens_only() {
    let l = vec![2.0f32, -1.0, 1.5, 0.5];
    let mut s = settings(1.0, 0, 1.0, 0.0);
    s.repeat_penalty = 2.0;
    s.repeat_last_n = 2;
    let d = distribution(&l, &s, &[0, 3, 1]);
    let get = |id| d.get(id).unwrap().penalized;
    assert_eq!(get(0), 2.0, "outside the last 2 tokens");
    assert_eq!(get(3), 0.25, "positive logit divided");
    assert_eq!(get(1), -2.0, "negative logit multiplied");
    assert_eq!(get(2), 1.5);
}

#[test]
fn bad_settings_get_clear_errors() {
    let cases: Vec<(SamplerSettings, &str)> = vec![
        (settings(f32::NAN, 0, 1.0, 0.0), "temperature"),
        (settings(-0.5, 0, 1.0, 0.0), "temperature"),
        (settings(f32::INFINITY, 0, 1.0, 0.0), "temperature"),
        (settings(1.0, 0, 0.0, 0.0), "top_p"),
        (settings(1.0, 0, 1.5, 0.0), "top_p"),
        (settings(1.0, 0, f32::NAN, 0.0), "top_p"),
        (settings(1.0, 0, 1.0, -0.1), "min_p"),
        (settings(1.0, 0, 1.0, f32::NEG_INFINITY), "min_p"),
        (SamplerSettings { repeat_penalty: 0.0, ..SamplerSettings::default() }, "repeat_penalty"),
        (SamplerSettings { order: vec![Stage::TopK, Stage::TopK, Stage::MinP], ..SamplerSettings::default() }, "order"),
    ];
    for (s, name) in cases {
        let err = s.validate().unwrap_err().to_string();
        assert!(err.contains(name), "{err}");
    }
    assert!(SamplerSettings::default().validate().is_ok());
}

#[test]
fn rng_at_reaches_the_nth_draw_directly() {
    for seed in [0, 42, u64::MAX] {
        let mut stream = Rng::new(seed);
        for n in 0..50 {
            let want = stream.next_u64();
            assert_eq!(Rng::at(seed, n).next_u64(), want, "seed {seed}, draw {n}");
        }
    }
}
