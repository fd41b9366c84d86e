//! Answer extraction and checking for Lesson 3.
//!
//! The lesson compares strategies that spend very different amounts of text (a direct answer vs
//! a long chain of thought), so the checker must judge only the *answer*, never the length or
//! the wording around it. Every strategy asks the model to finish with a line
//! `Answer: <answer>`; [`extract_answer`] pulls that out, and [`is_correct`] compares it with
//! the task's accepted answers using a rule that depends on the task's [`AnswerKind`].

use serde::{Deserialize, Serialize};

use super::tasks::{AnswerKind, Task};

/// Replies without an `Answer:` line that are at most this many words are taken whole; a
/// direct-answer reply like "Paris." or "The answer is 12" is usually this short.
const SHORT_REPLY_WORDS: usize = 12;

/// Pulls the model's final answer out of a reply.
///
/// 1. The text after the colon on the LAST line containing `answer:` (case-insensitive, so
///    "Final answer:", "**Answer:** 12", "The answer is: 12" all count). The last line wins
///    because chains of thought often restate a draft answer before correcting it. If the
///    marker ends its line, the next non-empty line is used.
/// 2. Otherwise the whole reply if it is short (<= 12 words), else its last sentence, where a
///    model that ignored the format usually states its conclusion.
///
/// The result is trimmed of whitespace, markdown emphasis and trailing punctuation. `None`
/// means there is nothing to check (empty reply).
pub fn extract_answer(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate().rev() {
        if let Some(rest) = after_answer_marker(line) {
            let mut found = clean(rest);
            if found.is_empty() {
                found = lines[i + 1..].iter().map(|l| clean(l)).find(|l| !l.is_empty()).unwrap_or_default();
            }
            if !found.is_empty() {
                return Some(found);
            }
        }
    }
    let whole = clean(text);
    if whole.is_empty() {
        return None;
    }
    if whole.split_whitespace().count() <= SHORT_REPLY_WORDS {
        return Some(collapse_whitespace(&whole));
    }
    let last = clean(last_sentence(&whole));
    Some(collapse_whitespace(if last.is_empty() { &whole } else { &last }))
}

/// Canonical comparison form of a free-text answer: lowercase, surrounding punctuation, quotes
/// and markdown removed, whitespace collapsed, a leading article ("the", "a", "an") dropped,
/// thousands separators removed ("1,000" -> "1000"), and an answer that is entirely a number
/// ("twelve", "forty-two", "one hundred and five", "12.0", "$10") rewritten as canonical digits
/// ("12", "42", "105", "12", "10"). Used for text matching and for grouping votes.
pub fn normalize(s: &str) -> String {
    let lower = strip_thousands_separators(&s.to_lowercase());
    let mut t = collapse_whitespace(trim_edges(&lower));
    for article in ["the ", "a ", "an "] {
        if let Some(rest) = t.strip_prefix(article) {
            t = trim_edges(rest).to_string();
            break;
        }
    }
    match plain_number(&t).or_else(|| number_words_only(&t)) {
        Some(v) => format_number(v),
        None => t,
    }
}

/// Whether `extracted` (usually the output of [`extract_answer`]) answers `task` correctly.
///
/// * `Number`: the LAST number mentioned (digits such as "1,000", "2.50", "-3", or number words
///   such as "twelve", "forty-two", "minus three") must equal one of the accepted answers
///   within 1e-9 absolute or 1e-6 relative difference. The last number is used because
///   explanations put the result at the end ("7 + 5 = 12", "12 apples", "So it is 12."), and a
///   numeric comparison makes "12.0" and "twelve" equal to "12" while "112" is not "12".
///   Limitation: "84 is larger than 48" reads as 48, which is why the prompt asks for an
///   `Answer:` line.
/// * `Text`: after [`normalize`], the accepted answer must equal the answer or appear in it as a
///   whole-word phrase ("The capital is Paris" matches "Paris"; "Parisian" does not).
/// * `YesNo`: the first "yes"/"no"/"true"/"false" word decides; if there is none, incorrect.
pub fn is_correct(task: &Task, extracted: &str) -> bool {
    match task.kind {
        AnswerKind::Number => match last_number(extracted) {
            Some(x) => task.answers.iter().filter_map(|a| last_number(a)).any(|a| nearly_equal(a, x)),
            None => false,
        },
        AnswerKind::Text => {
            let got = normalize(extracted);
            let got_words = words(&got);
            task.answers.iter().any(|a| {
                let want = normalize(a);
                let want_words = words(&want);
                !want_words.is_empty() && (want == got || got_words.windows(want_words.len()).any(|w| w == want_words))
            })
        }
        AnswerKind::YesNo => match yes_no(extracted) {
            Some(p) => task.answers.iter().any(|a| yes_no(a) == Some(p)),
            None => false,
        },
    }
}

/// The key an answer is judged by for a given kind: the final number ("12 apples" -> "12"),
/// "yes"/"no", or the normalized text. Mapping sampled answers through this before
/// [`majority_vote`] makes self-consistency vote on what the checker actually compares.
/// `None` when the answer has nothing of that kind (no number, no yes/no word, empty).
pub fn canonical_answer(kind: AnswerKind, extracted: &str) -> Option<String> {
    match kind {
        AnswerKind::Number => last_number(extracted).map(format_number),
        AnswerKind::YesNo => yes_no(extracted).map(|p| if p { "yes" } else { "no" }.to_string()),
        AnswerKind::Text => Some(normalize(extracted)).filter(|s| !s.is_empty()),
    }
}

/// Outcome of a self-consistency vote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoteResult {
    /// The answer with the most votes (spelled as in its first appearance).
    pub winner: String,
    /// Every distinct answer with its vote count, most votes first; equal counts keep the
    /// order in which the answers first appeared.
    pub counts: Vec<(String, usize)>,
}

/// Majority vote over sampled answers (self-consistency).
///
/// Votes are grouped by [`normalize`]d form, so "Paris", "paris." and "**Paris**" are one
/// answer; each group is labelled with the spelling of its first vote. `None` (no answer could
/// be extracted) and answers that normalize to nothing are abstentions, not votes. Ties are
/// broken by first appearance in `answers`: deterministic and independent of hashing, and the
/// earliest sample is as good a tie-breaker as any. Returns `None` when nobody voted.
pub fn majority_vote(answers: &[Option<String>]) -> Option<VoteResult> {
    let mut groups: Vec<(String, String, usize)> = Vec::new(); // (key, label, count)
    for a in answers.iter().flatten() {
        let key = normalize(a);
        if key.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.2 += 1,
            None => groups.push((key, a.trim().to_string(), 1)),
        }
    }
    // `sort_by_key` is stable, so equal counts stay in first-appearance order.
    groups.sort_by_key(|g| std::cmp::Reverse(g.2));
    let counts: Vec<(String, usize)> = groups.into_iter().map(|(_, label, n)| (label, n)).collect();
    let winner = counts.first()?.0.clone();
    Some(VoteResult { winner, counts })
}

/// 95% Wilson score interval for `correct` successes out of `n` trials.
///
/// Used instead of the normal approximation because lesson runs are small (10-80 tasks) and
/// accuracies near 0 or 1 are common; Wilson stays inside [0, 1] and is not degenerate at
/// 0/n or n/n. With no trials nothing is known, so the interval is (0, 1).
pub fn wilson_interval(correct: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    const Z: f64 = 1.959_963_984_540_054; // two-sided 95% normal quantile
    let n_f = n as f64;
    let p = correct.min(n) as f64 / n_f;
    let z2 = Z * Z;
    let denom = 1.0 + z2 / n_f;
    let center = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    ((center - half).max(0.0), (center + half).min(1.0))
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// Text after the last `answer[ is]:` marker in `line` (markdown `*`/`_` may sit between the
/// word and the colon). "answer" must start a word so "reanswer:" does not count.
/// Whether `line` holds an answer marker ("Answer:", "The answer is:", ...), by the same
/// rule `extract_answer` uses: a runner can tell when the model has begun its answer.
pub fn has_answer_marker(line: &str) -> bool {
    after_answer_marker(line).is_some()
}

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
        let mut j = skip(from);
        if lower[j..].starts_with("is") {
            j = skip(j + 2);
        }
        if b.get(j) == Some(&b':') {
            found = Some(j + 1);
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

/// The text after the last sentence break (a newline, or `.`/`!`/`?` followed by whitespace, so
/// decimals like "2.5" do not split). `s` has already had its trailing punctuation removed.
/// For a reply that should itself be the answer (direct answering): the marker line when
/// there is one, else the reply's first sentence. A model that ignores the format states its
/// answer first and then elaborates ("No, 7 is not prime. A prime number is ..."), so the
/// last sentence, right for a chain of thought, would judge the elaboration instead.
pub fn extract_leading_answer(text: &str) -> Option<String> {
    if text.lines().any(has_answer_marker) {
        return extract_answer(text);
    }
    let whole = clean(text);
    let first = clean(first_sentence(&whole));
    (!first.is_empty()).then(|| collapse_whitespace(&first))
}

/// Up to the first sentence end ('.', '!' or '?' before white space or the end) or line break.
fn first_sentence(s: &str) -> &str {
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next_is_space = it.peek().is_none_or(|&(_, n)| n.is_whitespace());
        if c == '\n' || (matches!(c, '.' | '!' | '?') && next_is_space) {
            return &s[..i];
        }
    }
    s
}

fn last_sentence(s: &str) -> &str {
    let mut start = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next_is_space = it.peek().is_none_or(|&(_, n)| n.is_whitespace());
        if c == '\n' || (matches!(c, '.' | '!' | '?') && next_is_space) {
            start = i + c.len_utf8();
        }
    }
    &s[start..]
}

/// Removes commas used as thousands separators: a comma after a digit and followed by exactly
/// three digits ("1,000,000" -> "1000000"), leaving lists like "1,2,3" alone.
fn strip_thousands_separators(s: &str) -> String {
    let cs: Vec<char> = s.chars().collect();
    let digit = |k: usize| cs.get(k).is_some_and(|c| c.is_ascii_digit());
    cs.iter()
        .enumerate()
        .filter(|&(i, &c)| {
            !(c == ',' && i > 0 && digit(i - 1) && digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4))
        })
        .map(|(_, &c)| c)
        .collect()
}

/// Strips non-alphanumeric characters from both ends, keeping a leading sign or decimal point
/// that belongs to a number ("-3", ".5").
fn trim_edges(s: &str) -> &str {
    let mut s = s.trim_end_matches(|c: char| !c.is_alphanumeric());
    while let Some(c) = s.chars().next() {
        if c.is_alphanumeric() {
            break;
        }
        let next = s[c.len_utf8()..].chars().next();
        let numeric = matches!(c, '-' | '.') && next.is_some_and(|d| d.is_ascii_digit() || (c == '-' && d == '.'));
        if numeric {
            break;
        }
        s = &s[c.len_utf8()..];
    }
    s
}

fn format_number(v: f64) -> String {
    // Display for f64 prints the shortest exact form: 12.0 -> "12", 2.50 -> "2.5".
    if v == 0.0 {
        "0".to_string()
    } else {
        format!("{v}")
    }
}

/// `s` parsed as a plain decimal literal (no exponent, inf or nan), e.g. "12", "-3", "2.50".
fn plain_number(s: &str) -> Option<f64> {
    let body = s.strip_prefix('-').unwrap_or(s);
    if body.is_empty() || !body.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    s.parse().ok()
}

/// `s` read as a number if it consists only of number words ("forty two", "minus three").
fn number_words_only(s: &str) -> Option<f64> {
    let toks = tokenize(s);
    let all_words = toks.iter().all(|t| match t {
        Tok::Word(w) => word_value(w).is_some() || matches!(w.as_str(), "and" | "minus" | "negative"),
        _ => false,
    });
    let nums = numbers_in(s);
    (all_words && nums.len() == 1).then(|| nums[0])
}

fn nearly_equal(a: f64, b: f64) -> bool {
    let d = (a - b).abs();
    d <= 1e-9 || d <= 1e-6 * a.abs().max(b.abs())
}

fn last_number(s: &str) -> Option<f64> {
    numbers_in(s).last().copied()
}

/// First yes/no-type word: Some(true) for yes/true, Some(false) for no/false.
fn yes_no(s: &str) -> Option<bool> {
    s.to_lowercase().split(|c: char| !c.is_alphanumeric()).find_map(|w| match w {
        "yes" | "true" => Some(true),
        "no" | "false" => Some(false),
        _ => None,
    })
}

fn words(s: &str) -> Vec<&str> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect()
}

enum Tok {
    Num(f64),
    Word(String),
    /// Punctuation that ends a run of number words ("one, two" is two numbers).
    Break,
}

/// Splits text into digit literals, lowercase words and breaks. Spaces and hyphens are soft
/// separators so "forty-two" stays one number. A '-' is a minus sign only when it directly
/// precedes the digits and does not follow a word or number ("-3" but not "5-3").
fn tokenize(s: &str) -> Vec<Tok> {
    let cs: Vec<char> = s.chars().collect();
    let digit = |k: usize| cs.get(k).is_some_and(|c| c.is_ascii_digit());
    let mut toks = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_ascii_digit() || (c == '.' && digit(i + 1) && !(i > 0 && digit(i - 1))) {
            let negative = i > 0 && cs[i - 1] == '-' && (i < 2 || !cs[i - 2].is_alphanumeric());
            let start = i;
            while digit(i) {
                i += 1;
            }
            if i < cs.len() && cs[i] == '.' && digit(i + 1) {
                i += 1;
                while digit(i) {
                    i += 1;
                }
            }
            let lit: String = cs[start..i].iter().collect();
            if let Ok(v) = lit.parse::<f64>() {
                toks.push(Tok::Num(if negative { -v } else { v }));
            }
        } else if c.is_alphabetic() {
            let start = i;
            while i < cs.len() && cs[i].is_alphabetic() {
                i += 1;
            }
            toks.push(Tok::Word(cs[start..i].iter().collect::<String>().to_lowercase()));
        } else {
            if !(c.is_whitespace() || c == '-') {
                toks.push(Tok::Break);
            }
            i += 1;
        }
    }
    toks
}

#[derive(Clone, Copy, PartialEq)]
enum Part {
    Unit,
    Teen,
    Tens,
    Hundred,
    Thousand,
}

fn word_value(w: &str) -> Option<(Part, u64)> {
    const UNITS: [&str; 10] = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
    const TEENS: [&str; 10] =
        ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"];
    const TENS: [&str; 8] = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
    if let Some(k) = UNITS.iter().position(|&u| u == w) {
        return Some((Part::Unit, k as u64));
    }
    if let Some(k) = TEENS.iter().position(|&u| u == w) {
        return Some((Part::Teen, 10 + k as u64));
    }
    if let Some(k) = TENS.iter().position(|&u| u == w) {
        return Some((Part::Tens, 20 + 10 * k as u64));
    }
    match w {
        "hundred" => Some((Part::Hundred, 100)),
        "thousand" => Some((Part::Thousand, 1000)),
        _ => None,
    }
}

/// Accumulates one spelled-out number (up to the thousands) word by word.
#[derive(Default)]
struct WordNumber {
    total: u64,
    current: u64,
    last: Option<Part>,
    negative: bool,
}

impl WordNumber {
    /// Adds `w` if it can continue the number grammatically; false means "start a new number"
    /// (so "one two" is two numbers, not three).
    fn push(&mut self, w: &str) -> bool {
        let Some((part, v)) = word_value(w) else {
            return false;
        };
        let ok = match part {
            Part::Unit => {
                (v > 0 || self.last.is_none())
                    && matches!(self.last, None | Some(Part::Tens | Part::Hundred | Part::Thousand))
            }
            Part::Teen | Part::Tens => {
                matches!(self.last, None | Some(Part::Hundred | Part::Thousand))
            }
            Part::Hundred => {
                self.current < 100 && matches!(self.last, None | Some(Part::Unit | Part::Teen | Part::Tens))
            }
            Part::Thousand => self.total == 0,
        };
        if !ok {
            return false;
        }
        match part {
            Part::Hundred => self.current = self.current.max(1) * 100,
            Part::Thousand => {
                self.total = self.current.max(1) * 1000;
                self.current = 0;
            }
            _ => self.current += v,
        }
        self.last = Some(part);
        true
    }

    /// The finished number, if any words were consumed; resets for the next number.
    fn take(&mut self) -> Option<f64> {
        let done = std::mem::take(self);
        done.last.map(|_| {
            let v = (done.total + done.current) as f64;
            if done.negative {
                -v
            } else {
                v
            }
        })
    }
}

/// Every number in `s`, in order of appearance, whether written in digits or words.
fn numbers_in(s: &str) -> Vec<f64> {
    let toks = tokenize(&strip_thousands_separators(&s.to_lowercase()));
    let is_number_word = |k: usize| matches!(toks.get(k), Some(Tok::Word(w)) if word_value(w).is_some());
    let mut out = Vec::new();
    let mut acc = WordNumber::default();
    // "minus"/"negative" is a sign only where it cannot be the binary operator ("12 minus 5").
    let mut pending_sign = false;
    let mut prev_was_number = false;
    for (k, tok) in toks.iter().enumerate() {
        match tok {
            Tok::Word(w) if word_value(w).is_some() => {
                if !acc.push(w) {
                    out.extend(acc.take());
                    acc.push(w); // any number word can start a number
                }
                if std::mem::take(&mut pending_sign) {
                    acc.negative = true;
                }
                prev_was_number = true;
            }
            Tok::Word(w)
                if w == "and" && matches!(acc.last, Some(Part::Hundred | Part::Thousand)) && is_number_word(k + 1) => {}
            Tok::Word(w) if (w == "minus" || w == "negative") && !prev_was_number => {
                out.extend(acc.take());
                pending_sign = true;
            }
            Tok::Num(v) => {
                out.extend(acc.take());
                out.push(if std::mem::take(&mut pending_sign) { -v } else { *v });
                prev_was_number = true;
            }
            _ => {
                out.extend(acc.take());
                pending_sign = false;
                prev_was_number = false;
            }
        }
    }
    out.extend(acc.take());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(kind: AnswerKind, answers: &[&str]) -> Task {
        Task {
            id: "t".into(),
            category: "test".into(),
            question: "?".into(),
            answers: answers.iter().map(|s| s.to_string()).collect(),
            kind,
        }
    }

    fn ex(s: &str) -> String {
        extract_answer(s).unwrap_or_else(|| panic!("no answer extracted from {s:?}"))
    }

    #[test]
    fn extracts_answer_line_formats() {
        assert_eq!(ex("Answer: 12"), "12");
        assert_eq!(ex("answer: twelve"), "twelve");
        assert_eq!(ex("ANSWER:   Paris.  "), "Paris");
        assert_eq!(ex("**Final answer:** 12"), "12");
        assert_eq!(ex("**Answer**: 12"), "12");
        assert_eq!(ex("Answer: **12**."), "12");
        assert_eq!(ex("The answer is: 42!"), "42");
        assert_eq!(ex("Final Answer: Washington, D.C."), "Washington, D.C");
        assert_eq!(ex("Answer: 2.50"), "2.50");
        assert_eq!(ex("Answer: -3"), "-3");
    }

    #[test]
    fn last_answer_line_wins() {
        let reply = "First guess.\nAnswer: 11\nWait, 7 + 5 is 12.\nFinal answer: 12";
        assert_eq!(ex(reply), "12");
        // Several markers on one line: the last one.
        assert_eq!(ex("Answer: 11? No. Answer: 12"), "12");
    }

    #[test]
    fn answer_marker_on_its_own_line_uses_next_line() {
        assert_eq!(ex("Let me think.\n**Answer:**\n\n  12 apples.\n"), "12 apples");
    }

    #[test]
    fn answer_must_start_a_word_and_have_a_colon() {
        // Not a marker: the fallback (short reply) returns the whole text.
        assert_eq!(ex("The answers were 3 and 4"), "The answers were 3 and 4");
        assert_eq!(ex("reanswer: 5 then 6"), "reanswer: 5 then 6");
    }

    #[test]
    fn fallback_short_reply_is_whole_reply() {
        assert_eq!(ex("  Paris.  "), "Paris");
        assert_eq!(ex("The capital of France is Paris."), "The capital of France is Paris");
        assert_eq!(ex("12\n"), "12");
    }

    #[test]
    fn fallback_long_reply_is_last_sentence() {
        let reply = "Tom starts with 3 apples. He buys 4 more, so we add them together. \
                     3 plus 4 makes 7. So Tom has 7 apples.";
        assert_eq!(ex(reply), "So Tom has 7 apples");
        // Decimal points do not split sentences.
        let reply = "We need to compare the two numbers carefully digit by digit here. The larger is 9.9.";
        assert_eq!(ex(reply), "The larger is 9.9");
        let reply = "Let me work through this problem one careful step at a time\nresult 24";
        assert_eq!(ex(reply), "result 24");
    }

    #[test]
    fn empty_reply_has_no_answer() {
        assert_eq!(extract_answer(""), None);
        assert_eq!(extract_answer("  \n **  "), None);
    }

    #[test]
    fn normalize_rules() {
        assert_eq!(normalize("  The   Capital, "), "capital");
        assert_eq!(normalize("**\"Paris\"**."), "paris");
        assert_eq!(normalize("an apple"), "apple");
        assert_eq!(normalize("Athens"), "athens"); // "a" is only dropped as a whole word
        assert_eq!(normalize("Twelve"), "12");
        assert_eq!(normalize("forty-two"), "42");
        assert_eq!(normalize("forty two."), "42");
        assert_eq!(normalize("one hundred and five"), "105");
        assert_eq!(normalize("a hundred"), "100");
        assert_eq!(normalize("three thousand"), "3000");
        assert_eq!(normalize("two thousand five hundred"), "2500");
        assert_eq!(normalize("minus three"), "-3");
        assert_eq!(normalize("zero"), "0");
        assert_eq!(normalize("1,000"), "1000");
        assert_eq!(normalize("12,345,678"), "12345678");
        assert_eq!(normalize("12.0"), "12");
        assert_eq!(normalize("2.50"), "2.5");
        assert_eq!(normalize("-3."), "-3");
        assert_eq!(normalize("$10"), "10");
        // Not entirely a number: left as text.
        assert_eq!(normalize("twelve apples"), "twelve apples");
        assert_eq!(normalize("one two"), "one two");
        assert_eq!(normalize("1,2,3"), "1,2,3");
        assert_eq!(normalize("1,2345"), "1,2345"); // not a thousands group
        assert_eq!(normalize("Washington, D.C."), "washington, d.c");
    }

    #[test]
    fn numbers_found_in_order() {
        assert_eq!(numbers_in("7 + 5 = 12"), vec![7.0, 5.0, 12.0]);
        assert_eq!(numbers_in("one, two three"), vec![1.0, 2.0, 3.0]);
        assert_eq!(numbers_in("twenty-one and 4"), vec![21.0, 4.0]);
        assert_eq!(numbers_in("one thousand two hundred and thirty four"), vec![1234.0]);
        assert_eq!(numbers_in("5-3 is 2"), vec![5.0, 3.0, 2.0]);
        assert_eq!(numbers_in("12 minus 15 is negative three"), vec![12.0, 15.0, -3.0]);
        assert_eq!(numbers_in("it is -0.5 or .25"), vec![-0.5, 0.25]);
        assert_eq!(numbers_in("no numbers here"), Vec::<f64>::new());
    }

    #[test]
    fn number_answers() {
        let t = task(AnswerKind::Number, &["12", "twelve"]);
        for good in [
            "12",
            "12.",
            "12 apples",
            "The answer is 12.",
            "12.0",
            "twelve",
            "Twelve",
            "TWELVE apples",
            "7 + 5 = 12",
            "It is 11... no, 12",
            "**12**",
        ] {
            assert!(is_correct(&t, good), "{good:?} should be correct");
        }
        for bad in ["112", "121", "1.2", "120", "11", "eleven", "12 is wrong, it is 13", "", "apples", "-12"] {
            assert!(!is_correct(&t, bad), "{bad:?} should be wrong");
        }
    }

    #[test]
    fn number_answers_with_separators_decimals_and_signs() {
        let thousand = task(AnswerKind::Number, &["1000"]);
        assert!(is_correct(&thousand, "1,000"));
        assert!(is_correct(&thousand, "1,000 grams"));
        assert!(is_correct(&thousand, "one thousand"));
        assert!(!is_correct(&thousand, "100"));

        let half = task(AnswerKind::Number, &["2.5"]);
        assert!(is_correct(&half, "2.50"));
        assert!(is_correct(&half, "$2.50"));
        assert!(!is_correct(&half, "25"));
        assert!(!is_correct(&half, "2"));

        let neg = task(AnswerKind::Number, &["-3"]);
        assert!(is_correct(&neg, "-3"));
        assert!(is_correct(&neg, "The result is -3."));
        assert!(is_correct(&neg, "minus three"));
        assert!(is_correct(&neg, "9 - 12 = -3"));
        assert!(!is_correct(&neg, "3"));
        assert!(!is_correct(&neg, "9 - 12 = 3"));

        let zero = task(AnswerKind::Number, &["0"]);
        assert!(is_correct(&zero, "0 degrees"));
        assert!(is_correct(&zero, "zero"));
        assert!(!is_correct(&zero, "32 degrees"));
    }

    #[test]
    fn number_tolerance_is_tight() {
        let t = task(AnswerKind::Number, &["0.1"]);
        assert!(is_correct(&t, "0.1000000001"));
        assert!(!is_correct(&t, "0.1001"));
        let big = task(AnswerKind::Number, &["1000000"]);
        assert!(is_correct(&big, "1000000.5")); // within 1e-6 relative
        assert!(!is_correct(&big, "1000002"));
    }

    #[test]
    fn text_answers() {
        let t = task(AnswerKind::Text, &["Paris"]);
        for good in ["Paris", "paris", "PARIS.", "The capital of France is Paris.", "**Paris**", "\"Paris\""] {
            assert!(is_correct(&t, good), "{good:?} should be correct");
        }
        for bad in ["Parisian", "Lyon", "", "Pa ris", "The capital is Lyon"] {
            assert!(!is_correct(&t, bad), "{bad:?} should be wrong");
        }
    }

    #[test]
    fn text_multi_word_and_variant_answers() {
        let dc = task(AnswerKind::Text, &["Washington, D.C.", "Washington DC"]);
        assert!(is_correct(&dc, "Washington, D.C."));
        assert!(is_correct(&dc, "washington d.c"));
        assert!(is_correct(&dc, "It is Washington DC."));
        assert!(!is_correct(&dc, "Washington State"));
        assert!(!is_correct(&dc, "New York"));

        let co2 = task(AnswerKind::Text, &["carbon dioxide", "CO2"]);
        assert!(is_correct(&co2, "Plants take in carbon dioxide"));
        assert!(is_correct(&co2, "CO2"));
        assert!(!is_correct(&co2, "carbon monoxide"));
        assert!(!is_correct(&co2, "dioxide carbon"));
        assert!(!is_correct(&co2, "CO"));

        let article = task(AnswerKind::Text, &["The Pacific Ocean"]);
        assert!(is_correct(&article, "pacific ocean"));
        assert!(!is_correct(&article, "Atlantic Ocean"));
    }

    #[test]
    fn yes_no_answers() {
        let yes = task(AnswerKind::YesNo, &["yes"]);
        let no = task(AnswerKind::YesNo, &["no"]);
        assert!(is_correct(&yes, "Yes"));
        assert!(is_correct(&yes, "yes."));
        assert!(is_correct(&yes, "Yes, 17 is odd."));
        assert!(is_correct(&yes, "True"));
        assert!(is_correct(&no, "No, 15 is not prime; 15 = 3 x 5."));
        assert!(is_correct(&no, "**No**"));
        assert!(is_correct(&no, "false"));
        assert!(!is_correct(&yes, "No"));
        assert!(!is_correct(&no, "Yes, no doubt")); // the first yes/no word decides
        assert!(!is_correct(&yes, "Maybe"));
        assert!(!is_correct(&no, "Maybe"));
        assert!(!is_correct(&yes, "Yesterday")); // whole words only
        assert!(!is_correct(&no, "Nothing"));
        assert!(!is_correct(&yes, ""));
    }

    #[test]
    fn canonical_answer_per_kind() {
        assert_eq!(canonical_answer(AnswerKind::Number, "12 apples").as_deref(), Some("12"));
        assert_eq!(canonical_answer(AnswerKind::Number, "twelve").as_deref(), Some("12"));
        assert_eq!(canonical_answer(AnswerKind::Number, "2.50").as_deref(), Some("2.5"));
        assert_eq!(canonical_answer(AnswerKind::Number, "none"), None);
        assert_eq!(canonical_answer(AnswerKind::YesNo, "True, it is").as_deref(), Some("yes"));
        assert_eq!(canonical_answer(AnswerKind::YesNo, "maybe"), None);
        assert_eq!(canonical_answer(AnswerKind::Text, "The Paris.").as_deref(), Some("paris"));
        assert_eq!(canonical_answer(AnswerKind::Text, "..."), None);
    }

    fn votes(v: &[Option<&str>]) -> Vec<Option<String>> {
        v.iter().map(|a| a.map(str::to_string)).collect()
    }

    #[test]
    fn majority_vote_groups_by_normalized_form() {
        let r = majority_vote(&votes(&[Some("Paris"), Some("Lyon"), Some("paris."), Some("**PARIS**")])).unwrap();
        assert_eq!(r.winner, "Paris");
        assert_eq!(r.counts, vec![("Paris".to_string(), 3), ("Lyon".to_string(), 1)]);

        let r = majority_vote(&votes(&[Some("12"), Some("twelve"), Some("13"), Some("12.0")])).unwrap();
        assert_eq!(r.winner, "12");
        assert_eq!(r.counts, vec![("12".to_string(), 3), ("13".to_string(), 1)]);
    }

    #[test]
    fn majority_vote_ties_go_to_first_appearance() {
        let r = majority_vote(&votes(&[Some("7"), Some("8"), Some("8"), Some("7")])).unwrap();
        assert_eq!(r.winner, "7");
        let r = majority_vote(&votes(&[Some("8"), Some("7"), Some("7"), Some("8")])).unwrap();
        assert_eq!(r.winner, "8");
        // Counts: by count descending, ties in first-appearance order.
        let r = majority_vote(&votes(&[Some("a1"), Some("b2"), Some("c3"), Some("c3"), Some("b2")])).unwrap();
        assert_eq!(r.counts, vec![("b2".to_string(), 2), ("c3".to_string(), 2), ("a1".to_string(), 1)]);
        assert_eq!(r.winner, "b2");
    }

    #[test]
    fn majority_vote_ignores_none_and_blank() {
        let r = majority_vote(&votes(&[None, Some("5"), None, Some("6"), Some("6"), Some("  ")])).unwrap();
        assert_eq!(r.winner, "6");
        assert_eq!(r.counts, vec![("6".to_string(), 2), ("5".to_string(), 1)]);
        // A single vote beats any number of abstentions.
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

    fn approx(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < 1e-4 && (a.1 - b.1).abs() < 1e-4
    }

    #[test]
    fn wilson_interval_known_values() {
        assert!(approx(wilson_interval(5, 10), (0.2366, 0.7634)), "{:?}", wilson_interval(5, 10));
        assert!(approx(wilson_interval(0, 10), (0.0, 0.2775)), "{:?}", wilson_interval(0, 10));
        assert!(approx(wilson_interval(10, 10), (0.7225, 1.0)), "{:?}", wilson_interval(10, 10));
        assert!(approx(wilson_interval(8, 10), (0.4902, 0.9433)), "{:?}", wilson_interval(8, 10));
        assert!(approx(wilson_interval(50, 100), (0.4038, 0.5962)), "{:?}", wilson_interval(50, 100));
        assert_eq!(wilson_interval(0, 0), (0.0, 1.0));
    }

    #[test]
    fn wilson_interval_is_ordered_and_contains_the_estimate() {
        for n in 1..=40 {
            for c in 0..=n {
                let (lo, hi) = wilson_interval(c, n);
                let p = c as f64 / n as f64;
                assert!(0.0 <= lo && lo <= p + 1e-12 && p <= hi + 1e-12 && hi <= 1.0, "{c}/{n}: ({lo}, {hi})");
            }
        }
        // More data, narrower interval.
        let w = |c, n| {
            let (lo, hi) = wilson_interval(c, n);
            hi - lo
        };
        assert!(w(50, 100) < w(5, 10));
    }

    #[test]
    fn leading_answer_is_the_first_sentence_unless_marked() {
        let yes_no = "No, 7 is not a prime number. A prime number is greater than 1.";
        assert_eq!(extract_leading_answer(yes_no).as_deref(), Some("No, 7 is not a prime number"));
        let number = "Tom has 3 + 4 = 7 apples.\nTom has 3 + 4 = 7 apples.\nTom has 3 +";
        assert_eq!(extract_leading_answer(number).as_deref(), Some("Tom has 3 + 4 = 7 apples"));
        assert_eq!(extract_leading_answer("Some words first.\nAnswer: 12").as_deref(), Some("12"));
        assert_eq!(extract_leading_answer("Paris").as_deref(), Some("Paris"));
        assert_eq!(extract_leading_answer("  \n "), None);
    }
}
