//! Every malformed model file gets an error that says what is wrong, never a panic.

use engine::testing::TinyModel;
use engine::Model;

fn err(bytes: &[u8]) -> String {
    match Model::from_gguf_bytes(bytes) {
        Ok(_) => panic!("a bad file loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_tiny_model_loads() {
    let m = Model::from_gguf_bytes(&TinyModel::default().to_gguf()).unwrap();
    assert_eq!((m.config.layers, m.config.heads, m.config.kv_heads, m.config.head_dim), (4, 4, 2, 16));
}

#[test]
fn empty_file() {
    assert!(err(&[]).contains("empty"));
}

#[test]
fn wrong_magic() {
    let mut b = TinyModel::default().to_gguf();
    b[..4].copy_from_slice(b"GGML");
    assert!(err(&b).contains("not a GGUF file"));
}

#[test]
fn random_bytes() {
    let mut r = engine::sampler::Rng::new(5);
    let b: Vec<u8> = (0..4096).map(|_| r.next_u64() as u8).collect();
    assert!(err(&b).contains("not a GGUF file"));
}

#[test]
fn wrong_architecture() {
    let b = TinyModel { architecture: "mamba".into(), ..TinyModel::default() }.to_gguf();
    assert!(err(&b).contains("architecture is 'mamba'"));
}

#[test]
fn a_tensor_shape_that_lies() {
    let b = TinyModel { lie_about_shape: true, ..TinyModel::default() }.to_gguf();
    let e = err(&b);
    assert!(e.contains("blk.0.attn_q.weight") && e.contains("shape"), "{e}");
}

#[test]
fn truncated_anywhere() {
    let b = TinyModel::default().to_gguf();
    for cut in [3, 8, 24, 100, 1000, b.len() / 2, b.len() - 1] {
        let e = err(&b[..cut]);
        assert!(e.contains("truncated") || e.contains("not a GGUF"), "cut at {cut}: {e}");
    }
}

/// Loading and `info` alike.
#[test]
fn corrupted_bytes_never_panic() {
    let good = TinyModel::default().to_gguf();
    let mut r = engine::sampler::Rng::new(11);
    for _ in 0..300 {
        let mut b = good.clone();
        // Corrupt the header and tensor table, where a parser can be led astray.
        for _ in 0..4 {
            let at = (r.next_u64() as usize) % 4096.min(b.len());
            b[at] = r.next_u64() as u8;
        }
        let _ = Model::from_gguf_bytes(&b);
        // The header alone, as `info` reads it: a description, when given, is of this file.
        if let Ok(i) = engine::gguf::info::info(&mut std::io::Cursor::new(&b)) {
            assert!(i.parameters > 0 && i.file_bytes == b.len() as u64);
        }
    }
}
