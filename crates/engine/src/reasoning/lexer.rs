//! Reads a reply (or a question) as the checker needs it: numbers, words and symbols.
//!
//! Numbers are read however the model writes them: digits with a sign ("-3", Unicode "−3"),
//! decimals ("2.50", ".5"), thousands separators ("1,000", "1 000" with a thin space), and
//! number words ("twelve", "forty-two", "one hundred and five", "minus three"). Everything
//! after that (which number is the answer) is the checker's job in `answer.rs`.

/// One token of a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Num(f64),
    /// Lowercase; an apostrophe inside stays ("isn't").
    Word(String),
    /// Any other non-space character (operators, punctuation) or a line break.
    Sym(char),
}

impl Tok {
    pub fn word(&self) -> Option<&str> {
        match self {
            Tok::Word(w) => Some(w),
            _ => None,
        }
    }

    pub fn num(&self) -> Option<f64> {
        match self {
            Tok::Num(v) => Some(*v),
            _ => None,
        }
    }
}

/// `s` as tokens, number words combined into numbers.
pub fn lex(s: &str) -> Vec<Tok> {
    combine_number_words(raw_tokens(&prepare(s)))
}

/// Every number in `s`, in order.
pub fn numbers_in(s: &str) -> Vec<f64> {
    lex(s).iter().filter_map(Tok::num).collect()
}

/// Lowercase, one spelling of minus and apostrophe, and thousands separators removed.
fn prepare(s: &str) -> String {
    let s: String = s
        .to_lowercase()
        .chars()
        .map(|c| match c {
            '\u{2212}' | '\u{2013}' => '-',
            '\u{2019}' => '\'',
            _ => c,
        })
        .collect();
    strip_thousands_separators(&s)
}

/// Removes a comma or thin/no-break space between a digit and exactly three digits
/// ("1,000,000" -> "1000000"), leaving lists like "1,2,3" alone.
pub fn strip_thousands_separators(s: &str) -> String {
    let cs: Vec<char> = s.chars().collect();
    let digit = |k: usize| cs.get(k).is_some_and(|c| c.is_ascii_digit());
    cs.iter()
        .enumerate()
        .filter(|&(i, &c)| {
            let separator = matches!(c, ',' | '\u{2009}' | '\u{202f}' | '\u{a0}');
            !(separator && i > 0 && digit(i - 1) && digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4))
        })
        .map(|(_, &c)| c)
        .collect()
}

fn raw_tokens(s: &str) -> Vec<Tok> {
    let cs: Vec<char> = s.chars().collect();
    let digit = |k: usize| cs.get(k).is_some_and(|c| c.is_ascii_digit());
    let alpha = |k: usize| cs.get(k).is_some_and(|c| c.is_alphabetic());
    let mut toks = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_ascii_digit() || (c == '.' && digit(i + 1) && !(i > 0 && digit(i - 1))) {
            // A '-' right before the digits is a sign unless it follows a word or number ("5-3").
            let negative = i > 0 && cs[i - 1] == '-' && (i < 2 || !cs[i - 2].is_alphanumeric());
            if negative {
                toks.pop();
            }
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
            while alpha(i) || (i + 1 < cs.len() && cs[i] == '\'' && alpha(i + 1) && i > start) {
                i += 1;
            }
            toks.push(Tok::Word(cs[start..i].iter().collect()));
        } else {
            // A hyphen inside a word ("forty-two", "two-step") is not a symbol; a line break
            // is kept, because it ends a sentence.
            let inner_hyphen = c == '-' && i > 0 && alpha(i - 1) && alpha(i + 1);
            if c == '\n' || !(c.is_whitespace() || inner_hyphen) {
                toks.push(Tok::Sym(c));
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
            Part::Teen | Part::Tens => matches!(self.last, None | Some(Part::Hundred | Part::Thousand)),
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
    fn take(&mut self) -> Option<Tok> {
        let done = std::mem::take(self);
        done.last.map(|_| {
            let v = (done.total + done.current) as f64;
            Tok::Num(if done.negative { -v } else { v })
        })
    }
}

/// Replaces runs of number words by one `Num` ("a hundred" stays "a", 100). "minus" and
/// "negative" are a sign only where they cannot be the operator ("12 minus 5").
fn combine_number_words(toks: Vec<Tok>) -> Vec<Tok> {
    let is_number_word = |t: Option<&Tok>| matches!(t, Some(Tok::Word(w)) if word_value(w).is_some());
    let mut out = Vec::with_capacity(toks.len());
    let mut acc = WordNumber::default();
    let mut pending_sign = false;
    for (k, tok) in toks.iter().enumerate() {
        let prev_was_number = matches!(out.last(), Some(Tok::Num(_))) || acc.last.is_some();
        match tok {
            Tok::Word(w) if word_value(w).is_some() => {
                if !acc.push(w) {
                    out.extend(acc.take());
                    acc.push(w); // any number word can start a number
                }
                if std::mem::take(&mut pending_sign) {
                    acc.negative = true;
                }
            }
            Tok::Word(w)
                if w == "and"
                    && matches!(acc.last, Some(Part::Hundred | Part::Thousand))
                    && is_number_word(toks.get(k + 1)) => {}
            Tok::Word(w) if (w == "minus" || w == "negative") && !prev_was_number && next_is_number(&toks, k) => {
                out.extend(acc.take());
                pending_sign = true;
            }
            Tok::Num(v) => {
                out.extend(acc.take());
                out.push(Tok::Num(if std::mem::take(&mut pending_sign) { -v } else { *v }));
            }
            other => {
                out.extend(acc.take());
                pending_sign = false;
                out.push(other.clone());
            }
        }
    }
    out.extend(acc.take());
    out
}

fn next_is_number(toks: &[Tok], k: usize) -> bool {
    match toks.get(k + 1) {
        Some(Tok::Num(_)) => true,
        Some(Tok::Word(w)) => word_value(w).is_some(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn minus_signs_separators_and_words() {
        assert_eq!(numbers_in("\u{2212}5"), vec![-5.0]);
        assert_eq!(numbers_in("1,000,000 and 2\u{202f}500"), vec![1_000_000.0, 2500.0]);
        assert_eq!(numbers_in("1,2,3"), vec![1.0, 2.0, 3.0]);
        assert_eq!(numbers_in("minus three"), vec![-3.0]);
        assert_eq!(numbers_in("a hundred"), vec![100.0]);
        assert_eq!(numbers_in("$2.50"), vec![2.5]);
        assert_eq!(numbers_in("9 - 12 = -3"), vec![9.0, 12.0, -3.0]);
    }

    #[test]
    fn operators_and_apostrophes_survive() {
        assert_eq!(
            lex("9 - 12 isn't 3"),
            vec![Tok::Num(9.0), Tok::Sym('-'), Tok::Num(12.0), Tok::Word("isn't".into()), Tok::Num(3.0)]
        );
        assert_eq!(lex("two-step"), vec![Tok::Num(2.0), Tok::Word("step".into())]);
    }
}
