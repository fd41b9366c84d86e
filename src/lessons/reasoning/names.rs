//! How the strategies are named on the page, in the order the page lists them.

use engine::reasoning::strategy::Strategy;

pub const ALL: [Strategy; 4] = [
    Strategy::Direct,
    Strategy::Cot,
    Strategy::SelfConsistency,
    Strategy::Hidden,
];

/// The name the CLI's `--strategy` takes, also used in test ids and exports.
pub fn id(strategy: Strategy) -> &'static str {
    match strategy {
        Strategy::Direct => "direct",
        Strategy::Cot => "cot",
        Strategy::SelfConsistency => "self-consistency",
        Strategy::Hidden => "hidden",
    }
}

pub fn name(strategy: Strategy) -> &'static str {
    match strategy {
        Strategy::Direct => "Direct answer",
        Strategy::Cot => "Chain of thought",
        Strategy::SelfConsistency => "Self-consistency",
        Strategy::Hidden => "Hidden reasoning",
    }
}

/// The name with its sample count where it has one: "Self-consistency@5".
pub fn name_with_samples(strategy: Strategy, samples: usize) -> String {
    match strategy {
        Strategy::SelfConsistency => format!("{}@{samples}", name(strategy)),
        _ => name(strategy).to_string(),
    }
}

/// "1 strategy", "3 strategies".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
