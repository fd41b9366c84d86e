//! The checker of Lesson 3: which answer a reply settles on, and whether it is right.
//!
//! The lesson compares strategies that spend very different amounts of text, so the checker
//! judges only the answer. Every strategy's reply goes through the same two steps:
//!
//! 1. [`extract_answer`]: the text after the last `Answer:` marker, else the reply's first
//!    sentence (a model that ignores the format states its answer first and then elaborates).
//! 2. [`canonical_answer`]: the one answer that text settles on, as a key ("12", "84",
//!    "paris", "yes"), or `None` when it settles on none: it names several candidates ("13 or
//!    12"), negates its own answer ("12, not 12"), only restates the question, or gives
//!    nothing of the task's kind.
//!
//! A reply is correct when its key equals the key of the task's first accepted answer, and
//! self-consistency votes on the same keys, so a vote counts exactly what is scored.

use serde::{Deserialize, Serialize};

use super::lexer::{lex, numbers_in, Tok};
use super::task::{AnswerKind, Task};

/// What the checker made of one reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The part of the reply that was judged.
    pub extracted: Option<String>,
    /// The answer it settles on, as the key votes are taken on.
    pub canonical: Option<String>,
    pub correct: bool,
}

/// Judges `reply` (the model's whole output for the task) against `task`.
pub fn check(task: &Task, reply: &str) -> Verdict {
    let extracted = extract_answer(reply);
    let canonical = extracted.as_deref().and_then(|e| canonical_answer(task, e));
    let correct = canonical.is_some() && canonical == expected_key(task);
    Verdict { extracted, canonical, correct }
}

/// The key of a right answer: that of the task's first accepted answer.
pub fn expected_key(task: &Task) -> Option<String> {
    task.answers.first().and_then(|a| canonical_answer(task, a))
}

/// The part of a reply that is its answer.
///
/// The text after the LAST `answer:` marker (case-insensitive, so "Final answer:", "**Answer:**
/// 12" and "The answer is: 12" count; the last wins because chains of thought restate a draft
/// before correcting it); if the marker ends its line, the next non-empty line. Without a
/// marker, the reply's first sentence. Trimmed of whitespace, markdown and trailing
/// punctuation; `None` when nothing is left.
pub fn extract_answer(reply: &str) -> Option<String> {
    let lines: Vec<&str> = reply.lines().collect();
    let marked = lines.iter().enumerate().rev().find_map(|(i, line)| after_answer_marker(line).map(|rest| (i, rest)));
    let found = match marked {
        Some((i, rest)) => {
            let here = clean(rest);
            if here.is_empty() {
                lines[i + 1..].iter().map(|l| clean(l)).find(|l| !l.is_empty()).unwrap_or_default()
            } else {
                here
            }
        }
        None => clean(first_sentence(clean(reply).as_str())),
    };
    let found = collapse_whitespace(&found);
    (!found.is_empty()).then_some(found)
}

/// Whether `line` holds an answer marker ("Answer:", "The answer is:", ...), by the rule
/// [`extract_answer`] uses: a runner can tell when the model has begun its answer.
pub fn has_answer_marker(line: &str) -> bool {
    after_answer_marker(line).is_some()
}

/// The answer `extracted` settles on for `task`, as a key, or `None` (see the module doc).
pub fn canonical_answer(task: &Task, extracted: &str) -> Option<String> {
    let toks = lex(extracted);
    match task.kind {
        AnswerKind::Number => number_key(&task.question, &toks),
        AnswerKind::Choice => choice_key(&task.question, &toks),
        AnswerKind::Text => text_key(task, &toks),
        AnswerKind::YesNo => yes_no_key(&task.question, &toks),
    }
}

/// The options a choice question names: after its colon, else after its first comma, up to
/// the question mark, split at commas and "or", without a leading article ("Which is larger,
/// 48 or 84?" -> 48, 84; "Which is heaviest: the box, the bag or the cup?" -> box, bag, cup).
pub fn choice_options(question: &str) -> Vec<String> {
    let q = question.split('?').next().unwrap_or_default();
    let list = match q.split_once(':').or_else(|| q.split_once(',')) {
        Some((_, list)) => list,
        None => return Vec::new(),
    };
    list.split(',')
        .flat_map(|part| part.split(" or "))
        .map(|o| o.trim())
        .map(|o| o.strip_prefix("or ").or_else(|| o.strip_prefix("and ")).unwrap_or(o).trim())
        .map(|o| ["the ", "a ", "an "].iter().find_map(|a| o.strip_prefix(a)).unwrap_or(o))
        .filter(|o| !o.is_empty())
        .map(str::to_string)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Numbers

/// The one number the text gives as its result. Operands ("7 + 5" in "7 + 5 = 12"), results a
/// later step uses as an operand (intermediate results), negated values ("not 12") and the
/// question's own numbers ("300 centimeters in 3 meters": the 3 restates the question) are
/// not results. Several distinct results, or a result that is also negated, settle on nothing.
fn number_key(question: &str, toks: &[Tok]) -> Option<String> {
    let asked = numbers_in(question);
    let (mut results, mut operands, mut negated) = (Vec::new(), Vec::new(), Vec::new());
    for (i, t) in toks.iter().enumerate() {
        let Some(v) = t.num() else { continue };
        if is_negated(toks, i) {
            negated.push(v);
        } else if is_operand(toks, i) {
            operands.push((i, v));
        } else if !contains(&asked, v) {
            results.push((i, v));
        }
    }
    let used_later = |i: usize, v: f64| operands.iter().any(|&(j, w)| j > i && nearly_equal(v, w));
    let candidates = distinct(results.iter().filter(|&&(i, v)| !used_later(i, v)).map(|&(_, v)| v));
    match candidates[..] {
        [v] if !contains(&negated, v) => Some(format_number(v)),
        _ => None,
    }
}

/// Whether the number at `i` enters a calculation: it is followed by an operator (perhaps
/// after one unit word: "3 meters x 100") or preceded by one.
fn is_operand(toks: &[Tok], i: usize) -> bool {
    let after = |k: usize| toks.get(k).is_some_and(is_operator);
    let unit_then_operator = matches!(toks.get(i + 1), Some(Tok::Word(_))) && after(i + 2);
    after(i + 1) || unit_then_operator || (i > 0 && is_operator(&toks[i - 1]))
}

fn is_operator(t: &Tok) -> bool {
    match t {
        Tok::Sym(c) => matches!(c, '+' | '-' | '*' | '/' | '\u{d7}' | '\u{f7}' | '^'),
        Tok::Word(w) => matches!(w.as_str(), "plus" | "minus" | "times" | "divided" | "multiplied" | "by" | "x"),
        Tok::Num(_) => false,
    }
}

const NEGATORS: [&str; 16] = [
    "not", "never", "isn't", "aren't", "wasn't", "weren't", "cannot", "can't", "doesn't", "don't", "didn't", "won't",
    "neither", "nor", "isnt", "cant",
];

fn is_negator(t: &Tok) -> bool {
    t.word().is_some_and(|w| NEGATORS.contains(&w))
}

/// Whether the token at `i` is denied: a negator among the three tokens before it in the same
/// clause ("not 12", "is not equal to 12"), or "is wrong"/"is incorrect" right after it.
fn is_negated(toks: &[Tok], i: usize) -> bool {
    let before = toks[..i].iter().rev().take(3).take_while(|t| !matches!(t, Tok::Sym(_))).any(is_negator);
    let wrong = |k: usize| toks.get(k).and_then(Tok::word).is_some_and(|w| matches!(w, "wrong" | "incorrect"));
    let after = toks.get(i + 1).and_then(Tok::word).is_some_and(|w| matches!(w, "is" | "was")) && wrong(i + 2);
    before || after
}

// ---------------------------------------------------------------------------------------------
// Choices

/// Comparative words in pairs of scales: (more of it, less of it).
const SCALES: [(&[&str], &[&str]); 6] = [
    (
        &["larger", "bigger", "greater", "higher", "more", "largest", "biggest", "greatest", "highest", "most"],
        &["smaller", "less", "lower", "fewer", "smallest", "lowest", "least", "fewest"],
    ),
    (&["taller", "tallest"], &["shorter", "shortest"]),
    (&["older", "oldest"], &["younger", "youngest"]),
    (&["heavier", "heaviest"], &["lighter", "lightest"]),
    (&["longer", "longest"], &["shorter", "shortest"]),
    (&["faster", "fastest"], &["slower", "slowest"]),
];

/// The scale and direction a word names: (scale index, true for "more").
fn comparative(word: &str, scale: Option<usize>) -> Option<(usize, bool)> {
    SCALES.iter().enumerate().filter(|(k, _)| scale.is_none_or(|s| s == *k)).find_map(|(k, (up, down))| {
        if up.contains(&word) {
            Some((k, true))
        } else if down.contains(&word) {
            Some((k, false))
        } else {
            None
        }
    })
}

/// The option the text picks. Statements "X is <comparative> than Y" (or "compared to Y")
/// decide when there are
/// any: each prefers X or Y according to whether its comparative runs the question's way, and
/// the answer is the one option preferred somewhere and never beaten ("48 is larger than 84"
/// picks 48 for "Which is larger?"). Otherwise the text must name exactly one option without
/// denying it ("The smaller number is 71, not 17" picks 71; "48 or 84" picks none).
fn choice_key(question: &str, toks: &[Tok]) -> Option<String> {
    let options: Vec<Vec<Tok>> = choice_options(question).iter().map(|o| content(&lex(o))).collect();
    // The question's last comparative is the one it asks by (earlier ones state facts).
    let asked = lex(question).iter().rev().filter_map(Tok::word).find_map(|w| comparative(w, None));
    let mentions = find_mentions(toks, &options);
    let mut preferred = Vec::new();
    let mut beaten = Vec::new();
    let mut any_statement = false;
    for t in 0..toks.len() {
        let Some(after) = comparison_object(toks, t) else { continue };
        let Some(loser) = mentions.iter().find(|m| m.start > after && m.start <= after + 3) else { continue };
        let Some(winner) = mentions.iter().rev().find(|m| m.end <= t && !breaks_sentence(&toks[m.end..t])) else {
            continue;
        };
        any_statement = true;
        let (scale, up) = asked?;
        let between = &toks[winner.end..t];
        let (_, said_up) = between.iter().filter_map(Tok::word).find_map(|w| comparative(w, Some(scale)))?;
        let flipped = between.iter().filter(|t| is_negator(t)).count() % 2 == 1;
        let (a, b) =
            if (said_up == up) != flipped { (winner.option, loser.option) } else { (loser.option, winner.option) };
        preferred.push(a);
        beaten.push(b);
    }
    let pick = if any_statement {
        let mut winners = distinct_usize(preferred.into_iter().filter(|o| !beaten.contains(o)));
        (winners.len() == 1).then(|| winners.remove(0))?
    } else {
        let named = distinct_usize(mentions.iter().filter(|m| !m.denied).map(|m| m.option));
        let denied = mentions.iter().any(|m| m.denied && named.contains(&m.option));
        match named[..] {
            [o] if !denied => o,
            _ => return None,
        }
    };
    Some(key_of(&options[pick]))
}

/// Where the word(s) introducing a comparison's second term end, if they start at `t`:
/// "than", "compared to", "compared with".
fn comparison_object(toks: &[Tok], t: usize) -> Option<usize> {
    match (toks[t].word(), toks.get(t + 1).and_then(Tok::word)) {
        (Some("than"), _) => Some(t),
        (Some("compared"), Some("to" | "with")) => Some(t + 1),
        _ => None,
    }
}

fn breaks_sentence(toks: &[Tok]) -> bool {
    toks.iter().any(|t| matches!(t, Tok::Sym('.' | '!' | '?' | ';' | '\n')))
}

/// Where the text names a phrase (an option or accepted answer).
struct Mention {
    option: usize,
    start: usize,
    end: usize,
    /// Negated ("not 17") or the object of a comparison ("than 17", "compared to 17").
    denied: bool,
}

/// Every place `toks` names one of `phrases` (compared token by token, ignoring symbols
/// between them, numbers by value), longest phrase first where they overlap.
fn find_mentions(toks: &[Tok], phrases: &[Vec<Tok>]) -> Vec<Mention> {
    let idx: Vec<usize> = (0..toks.len()).filter(|&i| !matches!(toks[i], Tok::Sym(_))).collect();
    let mut out: Vec<Mention> = Vec::new();
    let mut p = 0;
    while p < idx.len() {
        let hit = phrases
            .iter()
            .enumerate()
            .filter(|(_, ph)| !ph.is_empty() && p + ph.len() <= idx.len())
            .filter(|(_, ph)| ph.iter().zip(&idx[p..]).all(|(a, &i)| same(a, &toks[i])))
            .max_by_key(|(_, ph)| ph.len());
        match hit {
            Some((option, ph)) => {
                let (start, end) = (idx[p], idx[p + ph.len() - 1] + 1);
                let after_than =
                    (start.saturating_sub(2)..start).any(|t| comparison_object(toks, t) == Some(start - 1));
                out.push(Mention { option, start, end, denied: is_negated(toks, start) || after_than });
                p += ph.len();
            }
            None => p += 1,
        }
    }
    out
}

fn same(a: &Tok, b: &Tok) -> bool {
    match (a, b) {
        (Tok::Num(x), Tok::Num(y)) => nearly_equal(*x, *y),
        (Tok::Word(x), Tok::Word(y)) => x == y,
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Text

/// Words that carry no answer ("The answer is Paris" -> "paris").
const FILLER: [&str; 14] =
    ["the", "a", "an", "is", "it", "its", "it's", "answer", "of", "yes", "no", "final", "that", "this"];

/// The accepted answer's key when the text names an accepted answer, does not deny it
/// ("Sydney, not Canberra") and offers no alternative ("Canberra or Sydney"). Otherwise the
/// text's own words, without the question's and filler words, so that wrong answers vote
/// together ("The capital of Australia is Sydney" and "Sydney." are both "sydney").
fn text_key(task: &Task, toks: &[Tok]) -> Option<String> {
    let accepted: Vec<Vec<Tok>> = task.answers.iter().map(|a| content(&lex(a))).collect();
    let mentions = find_mentions(toks, &accepted);
    let hedged = toks.iter().any(|t| t.word() == Some("or"));
    if !mentions.is_empty() {
        let clean = mentions.iter().all(|m| !m.denied);
        return (clean && !hedged).then(|| key_of(&accepted[0]));
    }
    let asked = lex(&task.question);
    let own: Vec<Tok> = content(toks)
        .into_iter()
        .filter(|t| !asked.iter().any(|q| same(q, t)) && !t.word().is_some_and(|w| FILLER.contains(&w)))
        .collect();
    (!own.is_empty()).then(|| key_of(&own))
}

// ---------------------------------------------------------------------------------------------
// Yes or no

/// Words that are not part of a yes/no question's claim.
const CLAIM_FILLER: [&str; 10] = ["a", "an", "the", "of", "to", "number", "numbers", "by", "than", "answer"];

/// Word pairs whose exchange reverses a claim ("17 is an even number" denies "17 is odd").
const ANTONYMS: [(&str, &str); 9] = [
    ("odd", "even"),
    ("prime", "composite"),
    ("greater", "less"),
    ("greater", "smaller"),
    ("larger", "smaller"),
    ("bigger", "smaller"),
    ("more", "less"),
    ("more", "fewer"),
    ("true", "false"),
];

/// "yes" or "no". A leading yes/no word, and every sentence that restates the question's claim
/// (judged by what it asserts: "15 is not a prime number" says no), must agree; with neither,
/// every yes/no word in the text must. Disagreement settles on nothing.
fn yes_no_key(question: &str, toks: &[Tok]) -> Option<String> {
    let verdict_word = |t: &Tok| match t.word() {
        Some("yes" | "true" | "correct") => Some(true),
        Some("no" | "false" | "incorrect") => Some(false),
        _ => None,
    };
    let claim = Claim::of(question);
    let mut signals: Vec<bool> = toks.first().and_then(verdict_word).into_iter().collect();
    signals.extend(toks.split(|t| matches!(t, Tok::Sym('.' | '!' | '?' | ';' | '\n'))).filter_map(|s| claim.judge(s)));
    if signals.is_empty() {
        signals = toks.iter().filter_map(verdict_word).collect();
    }
    let first = *signals.first()?;
    signals.iter().all(|&s| s == first).then(|| if first { "yes" } else { "no" }.to_string())
}

/// The claim a yes/no question asks about: its words without the leading verb and filler.
struct Claim {
    terms: Vec<Tok>,
    /// For "Is 10 greater than 12?": the two numbers in order, since "12 is greater than 10"
    /// swaps them and so denies the claim.
    ordered: Option<(f64, f64)>,
}

impl Claim {
    fn of(question: &str) -> Self {
        let toks = lex(question.split('?').next().unwrap_or_default());
        let body = match toks.first().and_then(Tok::word) {
            Some("is" | "are" | "can" | "does" | "do" | "was" | "were" | "will" | "has" | "have" | "could") => {
                &toks[1..]
            }
            _ => &toks[..],
        };
        let terms: Vec<Tok> =
            content(body).into_iter().filter(|t| !t.word().is_some_and(|w| CLAIM_FILLER.contains(&w))).collect();
        let nums: Vec<f64> = terms.iter().filter_map(Tok::num).collect();
        let compares = terms.iter().filter_map(Tok::word).any(|w| comparative(w, None).is_some());
        let ordered = (compares && nums.len() == 2).then(|| (nums[0], nums[1]));
        Self { terms, ordered }
    }

    /// Whether `sentence` asserts the claim (Some(true)), its denial (Some(false)), or does not
    /// restate it (None): every term must appear, or its antonym (which reverses it); each
    /// negator reverses it, and so do swapped numbers.
    fn judge(&self, sentence: &[Tok]) -> Option<bool> {
        if self.terms.is_empty() {
            return None;
        }
        let has = |t: &Tok| sentence.iter().any(|s| same_stem(t, s));
        let mut flips = 0;
        for term in &self.terms {
            if has(term) {
                continue;
            }
            let w = term.word()?;
            let antonym = ANTONYMS.iter().find_map(|&(a, b)| match w {
                _ if w == a => Some(b),
                _ if w == b => Some(a),
                _ => None,
            });
            if !antonym.is_some_and(|a| has(&Tok::Word(a.to_string()))) {
                return None;
            }
            flips += 1;
        }
        flips += sentence.iter().filter(|t| is_negator(t)).count();
        if let Some((a, b)) = self.ordered {
            let pos = |v: f64| sentence.iter().position(|t| t.num().is_some_and(|x| nearly_equal(x, v)));
            if let (Some(pa), Some(pb)) = (pos(a), pos(b)) {
                flips += usize::from(pb < pa);
            }
        }
        Some(flips % 2 == 0)
    }
}

/// Token equality that forgives a plural "s" ("penguins" and "penguin").
fn same_stem(a: &Tok, b: &Tok) -> bool {
    let stem = |w: &str| if w.len() > 3 { w.trim_end_matches('s').to_string() } else { w.to_string() };
    match (a, b) {
        (Tok::Word(x), Tok::Word(y)) => stem(x) == stem(y),
        _ => same(a, b),
    }
}

// ---------------------------------------------------------------------------------------------
// Votes

/// Outcome of a self-consistency vote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoteResult {
    /// The key with the most votes.
    pub winner: String,
    /// Every distinct key with its vote count, most votes first; equal counts keep the order
    /// in which the keys first appeared.
    pub counts: Vec<(String, usize)>,
}

/// Majority vote over the samples' canonical keys (self-consistency): exactly the keys the
/// checker scores, so two samples count as the same answer exactly when they would be judged
/// the same. `None` (a sample that settled on no answer) abstains. Ties go to the key that
/// appeared first: deterministic, and the earliest sample is as good a tie-breaker as any.
/// Returns `None` when nobody voted.
pub fn majority_vote(keys: &[Option<String>]) -> Option<VoteResult> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for k in keys.iter().flatten() {
        match counts.iter_mut().find(|c| &c.0 == k) {
            Some(c) => c.1 += 1,
            None => counts.push((k.clone(), 1)),
        }
    }
    // `sort_by_key` is stable, so equal counts stay in first-appearance order.
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    let winner = counts.first()?.0.clone();
    Some(VoteResult { winner, counts })
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// Text after the last answer marker in `line`: "answer:" or "answer is", with or without a
/// colon after "is" (markdown `*`/`_` may sit between the words). "answer" must start a word,
/// so "reanswer:" does not count, and "is" must end one ("the answer isolates" is no marker).
fn after_answer_marker(line: &str) -> Option<&str> {
    // ASCII lowercasing keeps byte offsets valid for `line`.
    let lower = line.to_ascii_lowercase();
    let b = lower.as_bytes();
    let skip = |mut j: usize| {
        while j < b.len() && matches!(b[j], b' ' | b'\t' | b'*' | b'_') {
            j += 1;
        }
        j
    };
    let mut found = None;
    let mut from = 0;
    while let Some(pos) = lower[from..].find("answer") {
        let start = from + pos;
        from = start + "answer".len();
        if start > 0 && b[start - 1].is_ascii_alphabetic() {
            continue;
        }
        let j = skip(from);
        if b.get(j) == Some(&b':') {
            found = Some(j + 1);
        } else if lower[j..].starts_with("is") && !b.get(j + 2).is_some_and(|c| c.is_ascii_alphanumeric()) {
            let k = skip(j + 2);
            found = Some(if b.get(k) == Some(&b':') { k + 1 } else { k });
        }
    }
    found.map(|k| &line[k..])
}

/// Trims whitespace, markdown emphasis/quotes at both ends and trailing sentence punctuation.
fn clean(s: &str) -> String {
    s.trim_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | '`' | '"' | '#'))
        .trim_end_matches(|c: char| {
            c.is_whitespace() || matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '*' | '_' | '`' | '"')
        })
        .to_string()
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Up to the first sentence end ('.', '!' or '?' before white space) or line break. A decimal
/// point ("2.5") and a list number's point ("1. First, ...") do not end a sentence. A question
/// asserts nothing ("12? No, 13." settles on 13; "Is 17 odd? Yes." on yes), so a sentence that
/// ends in '?' on the first line is passed over for the one after it, when there is one.
fn first_sentence(s: &str) -> &str {
    let mut start = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next_is_space = it.peek().is_none_or(|&(_, n)| n.is_whitespace());
        // The first sentence lies on the first line, so a list number is all that precedes it.
        let before = s[start..i].trim();
        let list_number = c == '.' && !before.is_empty() && before.chars().all(|d| d.is_ascii_digit());
        if c == '\n' || (matches!(c, '.' | '!' | '?') && next_is_space && !list_number) {
            let rest = &s[i + 1..];
            if c == '?' && !rest.trim().is_empty() && !rest.trim_start_matches([' ', '\t']).starts_with('\n') {
                start = i + 1;
                continue;
            }
            return s[start..i].trim();
        }
    }
    s[start..].trim()
}

/// The words and numbers of `toks`, without symbols.
fn content(toks: &[Tok]) -> Vec<Tok> {
    toks.iter().filter(|t| !matches!(t, Tok::Sym(_))).cloned().collect()
}

/// A phrase's key: its words and numbers, space-separated ("Washington, D.C." -> "washington d c").
fn key_of(toks: &[Tok]) -> String {
    toks.iter()
        .map(|t| match t {
            Tok::Num(v) => format_number(*v),
            Tok::Word(w) => w.clone(),
            Tok::Sym(c) => c.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn format_number(v: f64) -> String {
    // Display for f64 prints the shortest exact form: 12.0 -> "12", 2.50 -> "2.5"; -0 is 0.
    if v == 0.0 {
        "0".to_string()
    } else {
        format!("{v}")
    }
}

fn nearly_equal(a: f64, b: f64) -> bool {
    let d = (a - b).abs();
    d <= 1e-9 || d <= 1e-6 * a.abs().max(b.abs())
}

fn contains(vs: &[f64], v: f64) -> bool {
    vs.iter().any(|&x| nearly_equal(x, v))
}

fn distinct(vs: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    for v in vs {
        if !contains(&out, v) {
            out.push(v);
        }
    }
    out
}

fn distinct_usize(vs: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut out = Vec::new();
    for v in vs {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(kind: AnswerKind, question: &str, answers: &[&str]) -> Task {
        Task {
            id: "t".into(),
            category: "test".into(),
            question: question.into(),
            answers: answers.iter().map(|s| s.to_string()).collect(),
            kind,
            work: None,
        }
    }

    fn ex(s: &str) -> String {
        extract_answer(s).unwrap_or_else(|| panic!("no answer extracted from {s:?}"))
    }

    #[test]
    fn extracts_answer_line_formats() {
        assert_eq!(ex("Answer: 12"), "12");
        assert_eq!(ex("ANSWER:   Paris.  "), "Paris");
        assert_eq!(ex("**Final answer:** 12"), "12");
        assert_eq!(ex("**Answer**: 12"), "12");
        assert_eq!(ex("The answer is: 42!"), "42");
        assert_eq!(ex("Final Answer: Washington, D.C."), "Washington, D.C");
        assert_eq!(ex("First guess.\nAnswer: 11\nWait.\nFinal answer: 12"), "12");
        assert_eq!(ex("Answer: 11? No. Answer: 12"), "12");
        assert_eq!(ex("Let me think.\n**Answer:**\n\n  12 apples.\n"), "12 apples");
        assert_eq!(ex("15 - 6 = 9. So, the answer is 9."), "9");
        assert_eq!(ex("The answer is \"Spain\""), "Spain");
        // "is" must end a word: no marker, so the first sentence.
        assert_eq!(ex("The answer isolates 4. Then 5."), "The answer isolates 4");
    }

    #[test]
    fn without_a_marker_the_first_sentence_is_the_answer() {
        assert_eq!(ex("No, 7 is not a prime number. A prime number is greater than 1."), "No, 7 is not a prime number");
        assert_eq!(ex("The larger is 9.9. Because 9.9 > 9.11"), "The larger is 9.9");
        assert_eq!(ex("reanswer: 5 then 6"), "reanswer: 5 then 6");
        assert_eq!(ex("1. Japan is in Asia.\n2. Its capital is Tokyo."), "1. Japan is in Asia");
        assert_eq!(ex("12? No, 13."), "No, 13");
        assert_eq!(ex("Is 17 odd? Yes, it is."), "Yes, it is");
        assert_eq!(ex("Is it 12?"), "Is it 12");
        assert_eq!(ex("Is it 12?\nMaybe 13."), "Is it 12");
        assert_eq!(extract_answer(""), None);
        assert_eq!(extract_answer("  \n **  "), None);
    }

    #[test]
    fn choice_options_are_read_from_the_question() {
        assert_eq!(choice_options("Which is larger, 48 or 84?"), ["48", "84"]);
        assert_eq!(choice_options("Which is the largest of these numbers: 12, 45, 23?"), ["12", "45", "23"]);
        assert_eq!(choice_options("Ana is taller than Ben. Who is tallest: Ana, Ben, or Cy?"), ["Ana", "Ben", "Cy"]);
        assert!(choice_options("What is 7 + 5?").is_empty());
    }

    #[test]
    fn every_kind_has_a_key_right_answers_share() {
        let n = task(AnswerKind::Number, "What is 7 + 5?", &["12", "twelve"]);
        assert_eq!(check(&n, "Twelve apples.").canonical.as_deref(), Some("12"));
        let c = task(AnswerKind::Choice, "Which is smaller, 2 or -5?", &["-5"]);
        assert_eq!(check(&c, "\u{2212}5").canonical.as_deref(), Some("-5"));
        let t =
            task(AnswerKind::Text, "What is the capital of the United States?", &["Washington, D.C.", "Washington DC"]);
        assert_eq!(check(&t, "It is Washington DC.").canonical.as_deref(), Some("washington d c"));
        let y = task(AnswerKind::YesNo, "Is 17 an odd number?", &["yes"]);
        assert_eq!(check(&y, "True.").canonical.as_deref(), Some("yes"));
        assert!([&n, &c, &t, &y].iter().all(|t| expected_key(t).is_some()));
    }

    fn votes(v: &[Option<&str>]) -> Vec<Option<String>> {
        v.iter().map(|a| a.map(str::to_string)).collect()
    }

    #[test]
    fn majority_vote_counts_keys_and_breaks_ties_by_first_appearance() {
        let r = majority_vote(&votes(&[Some("7"), Some("8"), Some("8"), Some("7")])).unwrap();
        assert_eq!(r.winner, "7");
        let r = majority_vote(&votes(&[Some("a"), Some("b"), Some("c"), Some("c"), Some("b")])).unwrap();
        assert_eq!(r.counts, vec![("b".to_string(), 2), ("c".to_string(), 2), ("a".to_string(), 1)]);
        let r = majority_vote(&votes(&[None, None, Some("yes")])).unwrap();
        assert_eq!(r.counts, vec![("yes".to_string(), 1)]);
        assert_eq!(majority_vote(&votes(&[None, None])), None);
        assert_eq!(majority_vote(&[]), None);
    }

    #[test]
    fn vote_result_serializes() {
        let r = majority_vote(&votes(&[Some("a1"), Some("a1"), Some("b2")])).unwrap();
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"winner":"a1","counts":[["a1",2],["b2",1]]}"#);
        assert_eq!(serde_json::from_str::<VoteResult>(&json).unwrap(), r);
    }
}
