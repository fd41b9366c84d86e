//! A chat as the model sees it: the file's own chat template (`tokenizer.chat_template`),
//! rendered by minijinja, then turned into ids so that the template's markers are control
//! tokens while what a person wrote is always plain text.
//!
//! The template is untrusted input, like the rest of a file from anywhere: its rendering is
//! bounded in steps (fuel), recursion, output and memory (`allocator::within`, in the programs
//! that install `allocator::Allocator`), and it can call only minijinja's builtins,
//! Python's string methods (`pycompat`, which many templates use) and `raise_exception`.
//! No message's text passes through it: each message goes in as a marker, and the marker's
//! place in the output is where its text (encoded as text, never as control tokens) or an
//! earlier answer's own tokens go.

use crate::error::{EngineError, Result};
use crate::tokenizer::{Piece, Tokenizer};
use minijinja::{context, Environment, Error as TemplateError, ErrorKind};
use serde::{Deserialize, Serialize};
use std::io::{self, Write};

/// The system prompt SmolLM2's template inserts when a chat has none (the playground
/// shows it as the built-in model's default).
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a helpful AI assistant named SmolLM, trained by Hugging Face";

/// Template instructions one rendering may run: real templates use a few thousand for a
/// long conversation; a loop that never ends stops here.
const FUEL: u64 = 1_000_000;
/// Bytes of output one rendering may write, message texts not counted (they go in as
/// markers): real templates write a few hundred per message.
const MAX_OUTPUT: usize = 1 << 20;
/// Bytes one rendering may hold: the compiled template, its values and its output. Real
/// templates hold well under a megabyte; a template that doubles a string in a loop reaches
/// this within a few dozen steps, long before the tab or the machine runs out.
const MAX_MEMORY: usize = 32 << 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    fn name(&self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn user(content: &str) -> Self {
        Self { role: Role::User, content: content.into() }
    }
    pub fn assistant(content: &str) -> Self {
        Self { role: Role::Assistant, content: content.into() }
    }
    pub fn system(content: &str) -> Self {
        Self { role: Role::System, content: content.into() }
    }
}

/// What to do when the chat has no system message.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum SystemPrompt {
    /// As the template does (SmolLM2's inserts `DEFAULT_SYSTEM_PROMPT`).
    Default,
    /// An empty system message, which is how a template that inserts a default is told not to.
    Off,
}

/// A message's content as it goes into the context: text to encode, or tokens already
/// generated (an earlier answer, kept exactly as the KV cache holds it).
enum Content<'a> {
    Text(&'a str),
    Ids(&'a [u32]),
}

struct Turn<'a> {
    role: &'a str,
    content: Content<'a>,
}

/// The chat template applied to `messages`, ending where the model's answer starts.
pub fn chat_tokens(tok: &Tokenizer, messages: &[Message], system: SystemPrompt) -> Result<Vec<u32>> {
    render_tokens(tok, &message_turns(messages, system))
}

/// The chat template's text for `messages`, each message's text in its place: what
/// `playground generate --raw` is given to reproduce a chat's prompt. It encodes (with its
/// written-out markers as control tokens) to `chat_tokens`'s ids when no message writes a
/// marker itself, so it is for text the program wrote, never for what a person typed.
pub fn chat_text(tok: &Tokenizer, messages: &[Message], system: SystemPrompt) -> Result<String> {
    let turns = message_turns(messages, system);
    let mut text = String::new();
    for part in rendered_parts(tok, &turns)? {
        match part {
            Part::Template(t) => text.push_str(&t),
            // Messages are text (`message_turns`): no turn holds ids here.
            Part::Turn(turn) => {
                if let Content::Text(t) = turn.content {
                    text.push_str(t)
                }
            }
        }
    }
    Ok(text)
}

fn message_turns(messages: &[Message], system: SystemPrompt) -> Vec<Turn<'_>> {
    let mut turns = Vec::with_capacity(messages.len() + 1);
    if system == SystemPrompt::Off && messages.first().is_none_or(|m| m.role != Role::System) {
        turns.push(Turn { role: "system", content: Content::Text("") });
    }
    turns.extend(messages.iter().map(|m| Turn { role: m.role.name(), content: Content::Text(&m.content) }));
    turns
}

/// A piece of the rendered template: its own text, or the place of a turn's content.
enum Part<'t, 'a> {
    Template(String),
    Turn(&'t Turn<'a>),
}

/// The template rendered with a marker for each turn's content, cut at the markers: the
/// template's own text between the turns' places, in order.
fn rendered_parts<'t, 'a>(tok: &Tokenizer, turns: &'t [Turn<'a>]) -> Result<Vec<Part<'t, 'a>>> {
    let template = tok.chat_template.as_deref().ok_or_else(|| {
        EngineError::InvalidPrompt("this model has no chat template (a base model): it continues text as written".into())
    })?;
    let texts = || turns.iter().filter_map(|t| if let Content::Text(s) = t.content { Some(s) } else { None });
    // A character that neither the template nor any message holds.
    let mark = ('\u{E000}'..='\u{F8FF}')
        .find(|&c| !template.contains(c) && texts().all(|s| !s.contains(c)))
        .ok_or_else(|| EngineError::InvalidPrompt("the messages use every private-use character".into()))?;
    let messages: Vec<_> =
        turns.iter().enumerate().map(|(i, t)| context! { role => t.role, content => format!("{mark}{i}{mark}") }).collect();
    let rendered = render(template, tok, messages)?;
    let pieces: Vec<&str> = rendered.split(mark).collect();
    if pieces.len() % 2 == 0 {
        return Err(template_error("it cut a message's text apart"));
    }
    let mut parts = Vec::with_capacity(pieces.len());
    for (k, piece) in pieces.into_iter().enumerate() {
        if k % 2 == 0 {
            parts.push(Part::Template(piece.to_string()));
        } else {
            let turn = piece.parse::<usize>().ok().and_then(|i| turns.get(i));
            parts.push(Part::Turn(turn.ok_or_else(|| template_error("it changed a message's text"))?));
        }
    }
    Ok(parts)
}

/// The template rendered with a marker for each turn's content, then encoded: the template's
/// text with its written-out control tokens as such, each content in its marker's place.
fn render_tokens(tok: &Tokenizer, turns: &[Turn]) -> Result<Vec<u32>> {
    let mut ids = Vec::new();
    // Text waiting to be encoded: runs of template text and message text are encoded
    // together, as the whole rendered string would be, but only the template's part was
    // searched for control tokens.
    let mut text = String::new();
    let flush = |ids: &mut Vec<u32>, text: &mut String| -> Result<()> {
        tok.extend_plain(ids, text)?;
        text.clear();
        Ok(())
    };
    for part in rendered_parts(tok, turns)? {
        match part {
            Part::Template(t) => {
                for piece in tok.split_control(&t) {
                    match piece {
                        Piece::Text(t) => text.push_str(t),
                        Piece::Token(id) => {
                            flush(&mut ids, &mut text)?;
                            ids.push(id);
                        }
                    }
                }
            }
            Part::Turn(turn) => match turn.content {
                Content::Text(t) => text.push_str(t),
                Content::Ids(a) => {
                    flush(&mut ids, &mut text)?;
                    ids.extend_from_slice(a);
                }
            },
        }
    }
    flush(&mut ids, &mut text)?;
    if let Some(bos) = tok.bos.filter(|&b| tok.add_bos && ids.first() != Some(&b)) {
        ids.insert(0, bos);
    }
    Ok(ids)
}

/// The template's text for `messages`, with the prompt for the model's answer at the end.
fn render(template: &str, tok: &Tokenizer, messages: Vec<minijinja::Value>) -> Result<String> {
    crate::allocator::within("the chat template", MAX_MEMORY, || {
        let mut env = Environment::new();
        env.set_fuel(Some(FUEL));
        env.set_recursion_limit(64);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function("raise_exception", |m: String| -> std::result::Result<String, TemplateError> {
            Err(TemplateError::new(ErrorKind::InvalidOperation, m))
        });
        let compiled = env.template_from_str(template).map_err(|e| template_error(&e.to_string()))?;
        let token = |id: Option<u32>| id.map(|i| tok.token_text(i)).unwrap_or_default();
        let ctx = context! {
            messages,
            add_generation_prompt => true,
            bos_token => token(tok.bos),
            eos_token => token(Some(tok.eos)),
        };
        let mut out = Bounded { bytes: Vec::new() };
        compiled.render_captured_to(ctx, &mut out).map_err(|e| match e.kind() {
            ErrorKind::WriteFailure => template_error(&format!("it writes more than {MAX_OUTPUT} bytes")),
            _ => template_error(&e.to_string()),
        })?;
        String::from_utf8(out.bytes).map_err(|_| template_error("its output is not UTF-8"))
    })
}

fn template_error(m: &str) -> EngineError {
    EngineError::InvalidModel(format!("the chat template cannot be used: {m}"))
}

/// Output that refuses to grow past `MAX_OUTPUT`.
struct Bounded {
    bytes: Vec<u8>,
}

impl Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len() + buf.len() > MAX_OUTPUT {
            return Err(io::ErrorKind::OutOfMemory.into());
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One finished exchange of a conversation: what the user wrote, and the answer's tokens as
/// they were generated (not re-encoded from its text, which may split differently), so that
/// the next turn's context starts with exactly the tokens already in the KV cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub user: String,
    pub answer: Vec<u32>,
}

/// A conversation's context for the next answer: the system message (`None`: the template's
/// own default; `Some("")`: an empty one), the earlier exchanges with each answer's own
/// tokens, the new user message, then the prompt for the answer.
pub fn conversation_tokens(tok: &Tokenizer, system: Option<&str>, earlier: &[Exchange], user: &str) -> Result<Vec<u32>> {
    if user.trim().is_empty() {
        return Err(EngineError::InvalidPrompt("the prompt is empty".into()));
    }
    let mut turns = Vec::with_capacity(2 * earlier.len() + 2);
    if let Some(system) = system {
        turns.push(Turn { role: "system", content: Content::Text(system) });
    }
    for e in earlier {
        turns.push(Turn { role: "user", content: Content::Text(&e.user) });
        turns.push(Turn { role: "assistant", content: Content::Ids(&e.answer) });
    }
    turns.push(Turn { role: "user", content: Content::Text(user) });
    render_tokens(tok, &turns)
}

/// A prompt as the model sees it: a user message through the chat template, or with `raw`
/// the text as it is, where written-out control tokens (`<|im_start|>`) count as such,
/// after the BOS token when the file asks for one (`Tokenizer::add_bos`, Gemma) and the
/// text does not already start with it.
pub fn prompt_tokens(tok: &Tokenizer, prompt: &str, raw: bool, system: SystemPrompt) -> Result<Vec<u32>> {
    if prompt.trim().is_empty() {
        return Err(EngineError::InvalidPrompt("the prompt is empty".into()));
    }
    if raw {
        let mut ids = tok.encode(prompt, true)?;
        if let Some(bos) = tok.bos.filter(|&b| tok.add_bos && ids.first() != Some(&b)) {
            ids.insert(0, bos);
        }
        Ok(ids)
    } else {
        chat_tokens(tok, &[Message::user(prompt)], system)
    }
}
