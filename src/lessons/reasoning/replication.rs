//! When an exercise's check may say Done: a comparison of two arms on the same tasks is a
//! finding when McNemar's exact p is below 0.05, or when a lean (p below `NOTHING_SHOWN_P`)
//! comes out the same way again on other tasks (a new seed). A single lean is never Done:
//! two equally good arms lean one way or the other in most runs.

use super::paired::{p_text, NOTHING_SHOWN_P};
use engine::reasoning::stats::Paired;

/// Below this, one run settles which arm is better.
pub const SETTLED_P: f64 = 0.05;

/// One comparison: which run, what it drew (its tasks, sorted, and the seed of its samples
/// when an arm samples: greedy arms give the same answers on the same tasks whatever the
/// seed), and its paired split.
pub struct Trial {
    pub run: usize,
    pub draw: (Vec<String>, Option<u64>),
    pub p: Paired,
}

impl Trial {
    pub fn new(run: usize, mut tasks: Vec<String>, sample_seed: Option<u64>, p: Paired) -> Self {
        tasks.sort();
        Self {
            run,
            draw: (tasks, sample_seed),
            p,
        }
    }

    /// Which arm the split favours: `Some(true)` for the first.
    pub fn favours(&self) -> Option<bool> {
        (self.p.only_first != self.p.only_second).then(|| self.p.only_first > self.p.only_second)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// p at or above `NOTHING_SHOWN_P`, or an even split.
    Nothing,
    /// Below `NOTHING_SHOWN_P` but not `SETTLED_P`, and not yet seen again.
    Leans,
    Settled,
    /// The same lean on other tasks, in the run named.
    Replicated(usize),
}

/// The finding of `newest`, given the `earlier` trials of the same comparison.
pub fn judge(newest: &Trial, earlier: &[Trial]) -> Finding {
    let Some(side) = newest.favours() else {
        return Finding::Nothing;
    };
    if newest.p.p_value >= NOTHING_SHOWN_P {
        return Finding::Nothing;
    }
    if newest.p.p_value < SETTLED_P {
        return Finding::Settled;
    }
    earlier
        .iter()
        .find(|t| {
            t.draw != newest.draw && t.favours() == Some(side) && t.p.p_value < NOTHING_SHOWN_P
        })
        .map_or(Finding::Leans, |t| Finding::Replicated(t.run))
}

/// Whether a check may say Done on it.
pub fn done(f: &Finding) -> bool {
    matches!(f, Finding::Settled | Finding::Replicated(_))
}

/// What a finding adds to a Done or Not yet message.
pub fn finding_text(f: &Finding, newest: &Trial) -> String {
    match f {
        Finding::Settled => format!("McNemar's {} is below 0.05: one run settles it.", p_text(newest.p.p_value)),
        Finding::Replicated(run) => format!(
            "McNemar's {} alone is a lean, but run {run}, on other tasks, leaned the same way: the lean replicated.",
            p_text(newest.p.p_value)
        ),
        Finding::Leans => format!(
            "McNemar's {} is a lean, not a finding: run the same comparison again with a new seed (other tasks), and the check says Done if it leans the same way.",
            p_text(newest.p.p_value)
        ),
        Finding::Nothing => "This run shows nothing yet.".into(),
    }
}

// In the browser, as render.rs's: this module is wasm32-only.
#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    fn trial(
        run: usize,
        tasks: &[&str],
        only_first: usize,
        only_second: usize,
        p_value: f64,
    ) -> Trial {
        let p = Paired {
            only_first,
            only_second,
            both: 0,
            neither: 0,
            p_value,
        };
        Trial::new(run, tasks.iter().map(|t| t.to_string()).collect(), None, p)
    }

    #[wasm_bindgen_test]
    fn a_lean_is_done_only_when_it_replicates_on_other_tasks() {
        let lean = trial(3, &["a", "b"], 5, 1, 0.22);
        assert_eq!(judge(&lean, &[]), Finding::Leans);
        assert_eq!(
            judge(&lean, &[trial(1, &["b", "a"], 4, 1, 0.37)]),
            Finding::Leans,
            "the same tasks again"
        );
        assert_eq!(
            judge(&lean, &[trial(1, &["c", "d"], 1, 4, 0.37)]),
            Finding::Leans,
            "the other way"
        );
        assert_eq!(
            judge(&lean, &[trial(1, &["c", "d"], 4, 1, 0.37)]),
            Finding::Replicated(1)
        );
        assert_eq!(judge(&trial(3, &["a"], 9, 0, 0.004), &[]), Finding::Settled);
        assert_eq!(judge(&trial(3, &["a"], 2, 2, 1.0), &[]), Finding::Nothing);
        assert_eq!(
            judge(
                &trial(3, &["a"], 2, 1, 1.0),
                &[trial(1, &["c"], 4, 1, 0.37)]
            ),
            Finding::Nothing
        );
        // Sampled arms on the same tasks with a new seed are a new draw.
        let sampled = |run, seed| Trial {
            draw: (vec!["a".into()], Some(seed)),
            ..trial(run, &["a"], 5, 1, 0.22)
        };
        assert_eq!(judge(&sampled(3, 7), &[sampled(1, 7)]), Finding::Leans);
        assert_eq!(
            judge(&sampled(3, 7), &[sampled(1, 8)]),
            Finding::Replicated(1)
        );
    }
}
