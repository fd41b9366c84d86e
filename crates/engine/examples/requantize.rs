//! Writes a copy of a GGUF model with its matrices requantised (`quant::requantize`): the
//! benchmark's Q4_0, Q8_0 and Q4_K_M copies of the built-in model (bench/make-copies.sh).
//!
//!     cargo run --release -p engine --example requantize -- IN.gguf OUT.gguf q4_k_m

use candle_core::quantized::GgmlDType;
use engine::quant::requantize::{requantize, Scheme};

fn scheme(name: &str) -> Option<Scheme> {
    let t = match name {
        "q4_k_m" => return Some(Scheme::Q4KM),
        "q4_0" => GgmlDType::Q4_0,
        "q4_1" => GgmlDType::Q4_1,
        "q5_0" => GgmlDType::Q5_0,
        "q5_1" => GgmlDType::Q5_1,
        "q8_0" => GgmlDType::Q8_0,
        "q2_k" => GgmlDType::Q2K,
        "q3_k" => GgmlDType::Q3K,
        "q4_k" => GgmlDType::Q4K,
        "q5_k" => GgmlDType::Q5K,
        "q6_k" => GgmlDType::Q6K,
        "f16" => GgmlDType::F16,
        "bf16" => GgmlDType::BF16,
        "f32" => GgmlDType::F32,
        _ => return None,
    };
    Some(Scheme::All(t))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output, kind] = &args[..] else {
        eprintln!("usage: requantize IN.gguf OUT.gguf TYPE (q4_0, q4_1, q5_0, q5_1, q8_0, q2_k … q6_k, q4_k_m, f16, bf16, f32)");
        std::process::exit(2);
    };
    let Some(scheme) = scheme(kind) else {
        eprintln!("requantize: unknown type {kind}");
        std::process::exit(2);
    };
    let run = || -> Result<usize, String> {
        let bytes = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
        let out = requantize(&bytes, scheme).map_err(|e| e.to_string())?;
        std::fs::write(output, &out).map_err(|e| format!("{output}: {e}"))?;
        Ok(out.len())
    };
    match run() {
        Ok(n) => println!("{output}: {n} bytes ({kind})"),
        Err(e) => {
            eprintln!("requantize: {e}");
            std::process::exit(1);
        }
    }
}
