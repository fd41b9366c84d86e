//! Reading a GGUF file: its header and metadata (candle's reader, after our own checks),
//! the model's hyper-parameters (`config.rs`), its tensors one at a time (`tensors.rs`), and
//! a description of a file from its header alone (`info.rs`).
//! Everything here reads untrusted input: a wrong or truncated file is an error, never a
//! panic or an unbounded allocation.

pub mod config;
pub mod info;
pub mod sampling;
mod tensors;

pub(crate) use tensors::TensorReader;

use crate::error::{candle_message, EngineError, Result};
use candle_core::quantized::gguf_file::Content;
use std::io::{Read, Seek, SeekFrom};

/// Reads and checks the GGUF header from any seekable source. Used by the model and the
/// f32 reference alike.
pub fn read_gguf<R: Read + Seek>(r: &mut R) -> Result<Content> {
    let io = |e: std::io::Error| EngineError::InvalidModel(format!("could not read the file: {e}"));
    let size = r.seek(SeekFrom::End(0)).map_err(io)?;
    if size == 0 {
        return Err(EngineError::InvalidModel("the file is empty (0 bytes)".into()));
    }
    let mut magic = [0u8; 4];
    r.seek(SeekFrom::Start(0)).map_err(io)?;
    if size < 4 || r.read_exact(&mut magic).is_err() || &magic != b"GGUF" {
        return Err(EngineError::InvalidModel("not a GGUF file: it does not start with the bytes 'GGUF'".into()));
    }
    let header = walk_header(r);
    if header.zero_alignment {
        return Err(EngineError::InvalidModel(
            "metadata general.alignment is 0; it must be a positive number of bytes".into(),
        ));
    }
    if let Some((name, t)) = header.unknown_type {
        return Err(EngineError::InvalidModel(format!(
            "tensor {name} has type {} (ggml type {t}), which this engine does not run \
             (it runs Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, F16, BF16 and F32)",
            ggml_type_name(t)
        )));
    }
    r.seek(SeekFrom::Start(0)).map_err(io)?;
    Content::read(r).map_err(|e| {
        EngineError::InvalidModel(format!("the GGUF header is malformed or truncated: {}", candle_message(&e)))
    })
}

/// What must be known before candle's reader sees the header.
#[derive(Default)]
struct Header {
    /// `general.alignment` is an integer 0. candle's reader rounds the tensor data offset
    /// up to it and so divides by zero: a panic natively, an abort in wasm (found while
    /// writing the loader's fuzz target).
    zero_alignment: bool,
    /// The first tensor whose block type candle cannot read, with its type number: candle
    /// refuses it without naming the tensor.
    unknown_type: Option<(String, u32)>,
}

/// The name ggml gives type number `t`, for the types candle's reader does not know.
fn ggml_type_name(t: u32) -> &'static str {
    match t {
        4 => "Q4_2",
        5 => "Q4_3",
        16 => "IQ2_XXS",
        17 => "IQ2_XS",
        18 => "IQ3_XXS",
        19 => "IQ1_S",
        20 => "IQ4_NL",
        21 => "IQ3_S",
        22 => "IQ2_S",
        23 => "IQ4_XS",
        24 => "I8",
        25 => "I16",
        26 => "I32",
        27 => "I64",
        28 => "F64",
        29 => "IQ1_M",
        31..=33 => "Q4_0 repacked (Q4_0_4_4, Q4_0_4_8 or Q4_0_8_8)",
        34 => "TQ1_0",
        35 => "TQ2_0",
        39 => "MXFP4",
        _ => "unknown",
    }
}

/// Walks the header from just after the magic: the metadata, then the tensor directory.
/// Anything malformed ends the walk with what was found so far and is left to candle's
/// reader to report.
fn walk_header<R: Read + Seek>(r: &mut R) -> Header {
    struct Walk<'a, R> {
        r: &'a mut R,
        /// GGUF v1 writes lengths as u32, later versions as u64.
        v1: bool,
    }
    impl<R: Read + Seek> Walk<'_, R> {
        fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
            let mut b = [0; N];
            self.r.read_exact(&mut b).ok().map(|_| b)
        }
        fn u32(&mut self) -> Option<u32> {
            self.bytes().map(u32::from_le_bytes)
        }
        fn len(&mut self) -> Option<u64> {
            if self.v1 {
                self.u32().map(u64::from)
            } else {
                self.bytes().map(u64::from_le_bytes)
            }
        }
        fn skip(&mut self, n: u64) -> Option<()> {
            self.r.seek(SeekFrom::Current(i64::try_from(n).ok()?)).ok().map(|_| ())
        }
        /// Skips a value of GGUF type `t`, returning it when it is an integer of candle's
        /// alignment types (u8, i8, u16, i16, u32, i32). Every loop iteration reads bytes,
        /// so a lying count ends at the end of the file.
        fn value(&mut self, t: u32, depth: usize) -> Option<Option<i64>> {
            let size = |t: u32| match t {
                0 | 1 | 7 => Some(1),
                2 | 3 => Some(2),
                4..=6 => Some(4),
                10..=12 => Some(8),
                _ => None,
            };
            Some(match t {
                0 => Some(i64::from(self.bytes::<1>()?[0])),
                1 => Some(i64::from(i8::from_le_bytes(self.bytes()?))),
                2 => Some(i64::from(u16::from_le_bytes(self.bytes()?))),
                3 => Some(i64::from(i16::from_le_bytes(self.bytes()?))),
                4 => Some(i64::from(self.u32()?)),
                5 => Some(i64::from(i32::from_le_bytes(self.bytes()?))),
                8 => {
                    let n = self.len()?;
                    self.skip(n)?;
                    None
                }
                9 if depth <= 64 => {
                    let (et, n) = (self.u32()?, self.len()?);
                    match size(et) {
                        Some(s) => self.skip(n.checked_mul(s)?)?,
                        None => (0..n).try_for_each(|_| self.value(et, depth + 1).map(|_| ()))?,
                    }
                    None
                }
                _ => {
                    self.skip(size(t)?)?;
                    None
                }
            })
        }
    }
    let walk = |r: &mut R, found: &mut Header| -> Option<()> {
        r.seek(SeekFrom::Start(4)).ok()?;
        let mut w = Walk { r, v1: false };
        let version = w.u32()?;
        if !(1..=3).contains(&version) {
            return None;
        }
        w.v1 = version == 1;
        let (tensors, kvs) = (w.len()?, w.len()?);
        for _ in 0..kvs {
            let key_len = w.len()?;
            let is_alignment = key_len == 17 && &w.bytes::<17>()? == b"general.alignment";
            if key_len != 17 {
                w.skip(key_len)?;
            }
            let t = w.u32()?;
            let v = w.value(t, 0)?;
            if is_alignment {
                found.zero_alignment = v == Some(0);
            }
        }
        // Each tensor: its name, its dimension count and dimensions, its type, its offset.
        for _ in 0..tensors {
            let name_len = w.len()?;
            if name_len > 1 << 16 {
                return None;
            }
            let mut name = vec![0u8; name_len as usize];
            w.r.read_exact(&mut name).ok()?;
            // More than candle's 4 dimensions is candle's error to report.
            let dims = w.u32()?;
            if dims > 4 {
                return None;
            }
            for _ in 0..dims {
                w.len()?;
            }
            let t = w.u32()?;
            w.bytes::<8>()?;
            if !matches!(t, 0..=3 | 6..=15 | 30) {
                found.unknown_type = Some((String::from_utf8_lossy(&name).into_owned(), t));
                return Some(());
            }
        }
        Some(())
    };
    let mut found = Header::default();
    walk(r, &mut found);
    found
}
