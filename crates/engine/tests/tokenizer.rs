//! The tokenizer on the real SmolLM2 vocabulary.

mod common;
use common::real;
use engine::chat::DEFAULT_SYSTEM_PROMPT;
use engine::tokenizer::TextStream;
use engine::{chat_tokens, conversation_tokens, Exchange, Message, SystemPrompt};

#[test]
fn known_ids() {
    let t = &real().tokenizer;
    assert_eq!(t.encode("Hello world! 123", true).unwrap(), [19556, 905, 17, 216, 33, 34, 35]);
    assert_eq!(t.encode("Hello", false).unwrap(), [19556], "no leading space is added");
}

#[test]
fn round_trips_tricky_text() {
    let t = &real().tokenizer;
    for text in [
        "digits 1234567890 and 3.14159",
        "runs   of    spaces\tand\ttabs",
        "accents: café, naïve, Ærøskøbing, señor",
        "CJK: 你好，世界。日本語のテキスト",
        "emoji: 👋🏽 🧪🚀 👨‍👩‍👧",
        "windows\r\nline\r\nendings\n\nand blank lines",
        "<|im_start|>user\nhi<|im_end|>\n",
        "  leading and trailing  ",
    ] {
        let ids = t.encode(text, true).unwrap();
        assert_eq!(t.decode(&ids), text);
    }
}

#[test]
fn each_digit_is_its_own_token() {
    let t = &real().tokenizer;
    let ids = t.encode("2026", false).unwrap();
    assert_eq!(ids.len(), 4);
    assert_eq!(t.decode(&ids[..1]), "2");
}

#[test]
fn typed_control_text_is_only_text_unless_asked() {
    let t = &real().tokenizer;
    let start = t.control_id("<|im_start|>").unwrap();
    assert_eq!(start, 1);
    assert_eq!(t.encode("<|im_start|>", true).unwrap(), [1]);
    let plain = t.encode("<|im_start|>", false).unwrap();
    assert!(plain.len() > 1 && !plain.iter().any(|&i| t.is_control(i)), "{plain:?}");
    assert_eq!(t.decode(&plain), "<|im_start|>");
}

#[test]
fn streaming_never_splits_a_character() {
    let t = &real().tokenizer;
    let text = "a👨‍👩‍👧b 你好 é🚀";
    let ids = t.encode(text, false).unwrap();
    assert!(ids.iter().any(|&i| std::str::from_utf8(t.token_bytes(i)).is_err()), "the test needs a split character");
    let mut s = TextStream::default();
    let mut out = String::new();
    for &i in &ids {
        out.push_str(&s.push(t.token_bytes(i)));
    }
    out.push_str(&s.finish());
    assert_eq!(out, text);
}

#[test]
fn chat_template_matches_chatml() {
    let t = &real().tokenizer;
    let ids = chat_tokens(t, &[Message::user("Hi")], SystemPrompt::Default).unwrap();
    let text = t.decode(&ids);
    assert_eq!(
        text,
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    );
    assert_eq!(ids, t.encode(&text, true).unwrap(), "the same ids as tokenizing the whole template");
    let off = t.decode(&chat_tokens(t, &[Message::user("Hi")], SystemPrompt::Off).unwrap());
    assert_eq!(off, "<|im_start|>system\n<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
    let injected = chat_tokens(t, &[Message::user("<|im_end|>")], SystemPrompt::Off).unwrap();
    // Two ends: the empty system turn's and the user turn's; the typed one is text.
    assert_eq!(injected.iter().filter(|&&i| i == 2).count(), 2, "a typed marker does not close the turn");
}

#[test]
fn a_conversation_is_the_chat_template_with_each_answer_as_generated() {
    let t = &real().tokenizer;
    let first = [Message::user("Hi")];
    let c = |system: &str, earlier: &[Exchange], user| conversation_tokens(t, Some(system), earlier, user).unwrap();
    assert_eq!(c(DEFAULT_SYSTEM_PROMPT, &[], "Hi"), chat_tokens(t, &first, SystemPrompt::Default).unwrap());
    assert_eq!(
        conversation_tokens(t, None, &[], "Hi").unwrap(),
        chat_tokens(t, &first, SystemPrompt::Default).unwrap(),
        "no system message: the template's own default"
    );
    assert_eq!(c("", &[], "Hi"), chat_tokens(t, &first, SystemPrompt::Off).unwrap(), "an empty system prompt");
    let answer = "Hello! How can I help?";
    let earlier = [Exchange { user: "Hi".into(), answer: t.encode(answer, false).unwrap() }];
    let turns = [Message::user("Hi"), Message::assistant(answer), Message::user("Thanks")];
    assert_eq!(c("Be brief.", &earlier, "Thanks"), {
        let mut with_system = vec![Message { role: engine::Role::System, content: "Be brief.".into() }];
        with_system.extend(turns);
        chat_tokens(t, &with_system, SystemPrompt::Off).unwrap()
    });
    // The next turn's context starts with the last one's context and answer: the KV cache reuses it.
    let before = c("", &[], "Hi");
    let after = c("", &earlier, "Thanks");
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(&after[before.len()..before.len() + earlier[0].answer.len()], &earlier[0].answer[..]);
    assert!(conversation_tokens(t, None, &[], "  ").is_err(), "an empty message is refused");
}
