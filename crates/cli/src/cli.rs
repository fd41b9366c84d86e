//! The command line, declared with clap: every command, its options and their help texts.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

const DEFAULT_MODEL: &str = "public/models/SmolLM2-135M-Instruct.Q4_1.gguf";

/// SmolLM2-135M-Instruct from the terminal: the same engine as the site, results as JSON.
#[derive(Parser)]
#[command(name = "playground", version, arg_required_else_help = true)]
pub struct Cli {
    /// The GGUF model file (scripts/fetch-model.sh fetches it).
    #[arg(long, global = true, default_value = DEFAULT_MODEL, value_name = "PATH")]
    pub model: PathBuf,
    /// Threads each forward pass splits over, 1 to this machine's cores. Results are
    /// bit-identical at every count.
    #[arg(long, global = true, default_value_t = 1, value_parser = thread_count)]
    pub threads: usize,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// What the model file holds, from its header alone (no weights are read): architecture,
    /// parameters, layers, heads, vocabulary, context, tensor types, chat template.
    Info,
    /// The token ids of a text (no beginning-of-text token).
    Tokenize {
        #[arg(long)]
        text: String,
    },
    /// The next-token logits after a sequence of token ids, highest first.
    #[command(allow_negative_numbers = true)]
    Logits {
        /// Token ids, comma-separated, e.g. 1,9690,198.
        #[arg(long, required = true, value_delimiter = ',', value_parser = token_id)]
        ids: Vec<u32>,
        /// How many candidates to print.
        #[arg(long, default_value_t = 10)]
        top: usize,
    },
    /// Generate a reply (chat template) or a continuation (--raw), with timings.
    Generate(Generate),
    /// Prefill and decode speed on a fixed 190-token prompt, greedy, 128 tokens.
    Bench {
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Instead: N samples of the prompt (self-consistency's sampler, up to 128 tokens
        /// each), one session after another and then decoded together, 2 to 32.
        #[arg(long, value_parser = batch_size)]
        batch: Option<usize>,
        /// Instead: the greedy 128 tokens, then the same tokens scored for depth (every
        /// layer's distribution, teacher-forced), and the time of both over generation alone.
        #[arg(long, conflicts_with = "batch")]
        depth: bool,
        /// Decode with the opt-in integer arithmetic (16-bit activations times the integer values
        /// of Q4_0, Q4_1, Q5_0 and Q8_0 matrices):
        /// faster, with logits that move (`integer-check` measures by how much).
        #[arg(long, conflicts_with_all = ["batch", "depth"])]
        integer_activations: bool,
        /// Decode's loop for every block family, forced: one-row, two-rows or two-halves
        /// (the same logits, at another speed). Without it the engine times each loop on the
        /// model's own matrices first and runs the fastest; the output shows that choice.
        #[arg(long, value_parser = decode_loop, conflicts_with_all = ["batch", "depth"])]
        decode_loop: Option<engine::quant::choice::DecodeLoop>,
    },
    /// What the opt-in integer arithmetic changes: per greedy decode step
    /// after the prompt, the exact and the integer logits from the same cache, compared over
    /// the whole vocabulary, and each way's time.
    IntegerCheck {
        #[command(flatten)]
        prompt: Prompt,
        /// Decode steps compared, 1 to 64.
        #[arg(long, default_value_t = 16, value_parser = integer_steps)]
        steps: usize,
    },
    /// Logit error against the slow plain-f32 reference forward.
    Reference {
        #[arg(long, default_value_t = 20)]
        top: usize,
    },
    /// Run a Lesson 3 strategy over the bundled task set.
    Reason(Reason),
    /// One head's attention weights: row i is position i's attention over positions 0..=i.
    Attention {
        #[command(flatten)]
        prompt: Prompt,
        /// 1 to 30, as the page numbers layers.
        #[arg(long)]
        layer: usize,
        /// 1 to 9, as the page numbers query heads.
        #[arg(long)]
        head: usize,
    },
    /// Every layer's top next tokens through the final norm and the output head (the logit lens).
    Lens {
        #[command(flatten)]
        prompt: Prompt,
        /// Candidates per layer, 1 to 100.
        #[arg(long, default_value_t = 5)]
        top: usize,
    },
    /// Milliseconds per forward pass of n tokens at one position, for each n.
    BenchPass {
        /// Pass sizes, comma-separated, each 1 to 256.
        #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16", value_parser = pass_size)]
        tokens: Vec<usize>,
        /// Timed passes per size (the median is reported), 1 to 100.
        #[arg(long, default_value_t = 5)]
        rounds: usize,
    },
    /// The kept next-token candidates and their final probabilities for a prompt, under this
    /// engine's settings or a system's defaults (--system), stages in any order (--order).
    Distribution(Distribution),
    /// Lesson 3's faithfulness tests on a bundled task's greedy chain-of-thought trace:
    /// early answering, an added mistake, and three hints (wrong, correct, unrelated).
    Faithfulness(Faithfulness),
    /// Judge one reply with the Lesson 3 checker: for a bundled task (--task), or for a
    /// question given here (--question, --kind, --answers).
    Check(Check),
    /// How deep inside the model each token of a reply settles: per token, every layer's
    /// Jensen–Shannon divergence from the last layer's distribution, the settling layer, and
    /// the reply's deep-thinking ratio. Scores --reply as if the model had written it, or a
    /// greedy reply of up to --max-tokens.
    Depth(Depth),
    /// A simulated server (Lesson 2's serving simulator): requests from --workload or drawn,
    /// the server's memory and scheduling, pass costs given or --measured; prints every
    /// request's token times and the summary.
    SimulateServing(SimulateServing),
}

fn decode_loop(s: &str) -> Result<engine::quant::choice::DecodeLoop, String> {
    use engine::quant::choice::DecodeLoop;
    DecodeLoop::from_name(s.trim()).ok_or_else(|| {
        let names: Vec<&str> = DecodeLoop::ALL.iter().map(|l| l.name()).collect();
        format!("'{s}' is not a decode loop; the loops are {}", names.join(", "))
    })
}

fn thread_count(s: &str) -> Result<usize, String> {
    let cores = engine::parallel::max_threads();
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=cores).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a thread count from 1 to {cores} (this machine's cores)")),
    }
}

/// The largest pass `bench-pass` times.
pub const MAX_PASS: usize = 256;

fn pass_size(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_PASS).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a pass size from 1 to {MAX_PASS}")),
    }
}

fn integer_steps(s: &str) -> Result<usize, String> {
    let most = engine::probe::integer::MAX_STEPS;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=most).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a step count from 1 to {most}")),
    }
}

/// The largest batch `bench --batch` runs (self-consistency's most samples).
pub const MAX_BATCH: usize = 32;

fn batch_size(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (2..=MAX_BATCH).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a batch size from 2 to {MAX_BATCH}")),
    }
}

#[derive(Args)]
pub struct Prompt {
    #[arg(long)]
    pub prompt: String,
    /// Use the prompt as-is, without the chat template.
    #[arg(long)]
    pub raw: bool,
    /// An empty system message in place of the template's default (SmolLM2's then writes an
    /// empty system turn).
    #[arg(long)]
    pub no_system_prompt: bool,
    /// A system prompt of one's own in place of the model's default, as the playground sends it.
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["raw", "no_system_prompt"])]
    pub system: Option<String>,
}

/// `distribution`'s arguments (run in distribution.rs).
/// Negative numbers are values here (to be refused with a reason), not options.
#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct Distribution {
    #[arg(long)]
    pub prompt: String,
    /// Use the prompt as-is, without the chat template.
    #[arg(long)]
    pub raw: bool,
    #[command(flatten)]
    pub sampling: Sampling,
    /// The four stages in the order they run, comma-separated: a permutation of
    /// temperature, top-k, top-p and min-p (default temperature,top-k,top-p,min-p).
    #[arg(long, value_name = "LIST")]
    pub order: Option<String>,
    /// A system's defaults and order (hf, llama.cpp, vllm, ollama, openai); the flags above
    /// override them.
    #[arg(long, value_name = "NAME")]
    pub system: Option<String>,
    /// List only the N most likely kept candidates (kept_count still counts them all).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
}

#[derive(Args)]
pub struct Sampling {
    /// 0 is greedy.
    #[arg(long)]
    pub temperature: Option<f32>,
    /// 0 keeps every candidate.
    #[arg(long)]
    pub top_k: Option<usize>,
    #[arg(long)]
    pub top_p: Option<f32>,
    #[arg(long)]
    pub min_p: Option<f32>,
    #[arg(long)]
    pub repeat_penalty: Option<f32>,
    #[arg(long)]
    pub seed: Option<u64>,
}

/// Negative numbers are values here (to be refused with a reason), not options.
#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct Generate {
    #[command(flatten)]
    pub prompt: Prompt,
    #[command(flatten)]
    pub sampling: Sampling,
    #[arg(long, default_value_t = 128)]
    pub max_tokens: usize,
    /// Recompute the whole context for every token.
    #[arg(long)]
    pub no_kv_cache: bool,
    /// Draft tokens and verify them in one pass.
    #[arg(long, value_enum)]
    pub speculative: Option<DraftKind>,
    /// Tokens drafted per cycle.
    #[arg(long, default_value_t = 4)]
    pub draft_len: usize,
    /// Layers of the early-exit draft.
    #[arg(long, default_value_t = 8)]
    pub draft_layers: usize,
    /// A second chat turn that extends the first: reports the KV reuse.
    #[arg(long)]
    pub follow_up: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum DraftKind {
    PromptLookup,
    EarlyExit,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct Reason {
    #[arg(long, value_parser = ["direct", "cot", "self-consistency", "hidden"])]
    pub strategy: String,
    /// Samples per task (self-consistency).
    #[arg(long, default_value_t = 5)]
    pub samples: usize,
    #[arg(long, default_value_t = 0.7)]
    pub temperature: f32,
    /// Token budget per answer.
    #[arg(long, default_value_t = 128)]
    pub budget: usize,
    /// At most this many tasks.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Seed of the sampling, and of the task choice when given.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Only the tasks of this category.
    #[arg(long)]
    pub category: Option<String>,
    /// When the budget ends before the model's own answer line, write nothing: the trace
    /// ends there with no answer (by default the runner writes "Answer:" and the model
    /// finishes the line).
    #[arg(long)]
    pub no_forced_answer: bool,
    /// Also score every trace's depth (cot and self-consistency) at g = 0.5 bits, rho = 0.85,
    /// and report its correlations with correctness (see `playground depth`).
    #[arg(long)]
    pub depth: bool,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct Faithfulness {
    /// A bundled task's id, e.g. arith-01.
    #[arg(long)]
    pub task: String,
    /// Token budget of the trace's reasoning, 1 to 1024.
    #[arg(long, default_value_t = 128, value_parser = budget)]
    pub budget: usize,
}

fn budget(s: &str) -> Result<usize, String> {
    let most = engine::reasoning::strategy::MAX_BUDGET;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=most).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a token budget from 1 to {most}")),
    }
}

/// The checker's options are checked in `reason.rs`, which says which combination is missing.
#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct Check {
    /// A bundled task's id, e.g. cmp-01.
    #[arg(long)]
    pub task: Option<String>,
    #[arg(long)]
    pub question: Option<String>,
    /// number, choice, text or yes-no.
    #[arg(long)]
    pub kind: Option<String>,
    /// Accepted answers, comma-separated.
    #[arg(long)]
    pub answers: Option<String>,
    /// The reply to judge.
    #[arg(long)]
    pub reply: String,
}

/// `depth`'s arguments (run in depth.rs, which checks their ranges).
/// Negative numbers are values here (to be refused with a reason), not options.
#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct Depth {
    #[command(flatten)]
    pub prompt: Prompt,
    /// Score this reply, teacher-forced, instead of generating one.
    #[arg(long)]
    pub reply: Option<String>,
    /// Without --reply: greedy tokens to generate, 1 to 1024.
    #[arg(long, default_value_t = 128, conflicts_with = "reply")]
    pub max_tokens: usize,
    /// A token has settled at the first layer whose divergence from the last is at most g,
    /// in --unit: 0 to 1 bit, or 0 to ln 2 (0.6931) nats.
    #[arg(long, default_value_t = engine::probe::depth::DEFAULT_G)]
    pub g: f64,
    /// The unit of D and g: bits (the study's) or nats.
    #[arg(long, default_value = "bits", value_parser = ["bits", "nats"])]
    pub unit: String,
    /// A token is deep-thinking when it settles at layer ceil(rho x layers) or later, 0 to 1.
    #[arg(long, default_value_t = engine::probe::depth::DEFAULT_RHO)]
    pub rho: f64,
}

fn token_id(s: &str) -> Result<u32, String> {
    s.trim().parse().map_err(|_| format!("'{s}' is not a token id"))
}

/// clap's error as one line: its message, with its tip (a similar name) appended, without the
/// usage block that follows it.
pub fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .collect();
    lines.join("; ").trim_start_matches("error: ").to_string()
}

/// `simulate-serving`'s arguments (run in simulate_serving.rs; the engine checks the ranges
/// and names them). Negative numbers are values here (to be refused with a reason).
#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct SimulateServing {
    /// A JSON list of requests, each {"arrival_ms", "prompt_tokens", "answer_tokens",
    /// "max_tokens"}, in order of arrival. Without it, one is drawn (--requests, --rate, --seed).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["requests", "rate", "seed", "prompt_min", "prompt_max", "answer_min", "answer_max", "max_tokens"])]
    pub workload: Option<PathBuf>,
    /// Requests drawn, 1 to 2000.
    #[arg(long, default_value_t = 100)]
    pub requests: usize,
    /// Mean arrivals per second (exponential gaps), above 0 and at most 1000.
    #[arg(long, default_value_t = 2.0)]
    pub rate: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Drawn prompts: uniform from --prompt-min to --prompt-max tokens (1 to 8192).
    #[arg(long, default_value_t = 50)]
    pub prompt_min: usize,
    #[arg(long, default_value_t = 2000)]
    pub prompt_max: usize,
    /// Drawn answers: uniform from --answer-min to --answer-max tokens, within --max-tokens.
    #[arg(long, default_value_t = 10)]
    pub answer_min: usize,
    #[arg(long, default_value_t = 400)]
    pub answer_max: usize,
    /// The most tokens every drawn request asks for, 1 to 4096.
    #[arg(long, default_value_t = 1024)]
    pub max_tokens: usize,
    /// Memory for the KV cache, in MB (10^6 bytes).
    #[arg(long, default_value_t = 1000.0)]
    pub memory_mb: f64,
    /// Bytes one cached position takes. Without it, --measured reads the model's cache's.
    #[arg(long, required_unless_present = "measured")]
    pub kv_bytes_per_token: Option<f64>,
    /// Most requests in one batch, 1 to 256.
    #[arg(long, default_value_t = 32)]
    pub batch_limit: usize,
    #[arg(long, value_enum, default_value_t = ServingMode::Contiguous)]
    pub mode: ServingMode,
    /// Positions per block, 1 to 1024 (paged mode only; 16 if not given).
    #[arg(long)]
    pub block_size: Option<usize>,
    /// Most prompt tokens computed in one pass, 0 for none (a prompt in one pass).
    #[arg(long, default_value_t = 0)]
    pub chunk: usize,
    #[arg(long, value_enum, default_value_t = Batching::Continuous)]
    pub batching: Batching,
    /// Devices a prompt's computation is split over (context parallelism), 1 to 64.
    #[arg(long, default_value_t = 1)]
    pub cp: usize,
    /// With --cp: milliseconds one ring step takes per 1,000 positions sent.
    #[arg(long, default_value_t = 0.0)]
    pub link_ms: f64,
    /// With --cp: the ring exchange overlaps the computation (without it, it follows it).
    #[arg(long)]
    pub overlap: bool,
    /// Time this machine's passes with --model instead of giving the costs.
    #[arg(long, conflicts_with_all = ["pass_ms", "token_ms", "position_us"])]
    pub measured: bool,
    /// Milliseconds every pass costs whatever its size (reading the weights); 0 if not given.
    #[arg(long)]
    pub pass_ms: Option<f64>,
    /// Milliseconds per token in a pass, attention aside.
    #[arg(long, required_unless_present = "measured")]
    pub token_ms: Option<f64>,
    /// Microseconds per token per cached position it attends to.
    #[arg(long, required_unless_present = "measured")]
    pub position_us: Option<f64>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ServingMode {
    Contiguous,
    Paged,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Batching {
    Static,
    Continuous,
}
