//! Reading a GGUF file: its header and metadata (candle's reader, after our own checks),
//! the model's hyper-parameters (`config.rs`) and its tensors one at a time (`tensors.rs`).
//! Everything here reads untrusted input: a wrong or truncated file is an error, never a
//! panic or an unbounded allocation.

pub mod config;
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
    if zero_alignment(r) {
        return Err(EngineError::InvalidModel(
            "metadata general.alignment is 0; it must be a positive number of bytes".into(),
        ));
    }
    r.seek(SeekFrom::Start(0)).map_err(io)?;
    Content::read(r).map_err(|e| {
        EngineError::InvalidModel(format!("the GGUF header is malformed or truncated: {}", candle_message(&e)))
    })
}

/// Whether the header sets `general.alignment` to an integer 0. candle's reader rounds the
/// tensor data offset up to it and so divides by zero: a panic natively, an abort in wasm
/// (found while writing the loader's fuzz target). Walks the metadata from just after the magic; anything malformed
/// answers false and is left to candle's reader to report.
fn zero_alignment<R: Read + Seek>(r: &mut R) -> bool {
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
    let walk = |r: &mut R| -> Option<bool> {
        r.seek(SeekFrom::Start(4)).ok()?;
        let mut w = Walk { r, v1: false };
        let version = w.u32()?;
        if !(1..=3).contains(&version) {
            return None;
        }
        w.v1 = version == 1;
        let (_tensors, kvs) = (w.len()?, w.len()?);
        let mut zero = false;
        for _ in 0..kvs {
            let key_len = w.len()?;
            let is_alignment = key_len == 17 && &w.bytes::<17>()? == b"general.alignment";
            if key_len != 17 {
                w.skip(key_len)?;
            }
            let t = w.u32()?;
            let v = w.value(t, 0)?;
            if is_alignment {
                zero = v == Some(0);
            }
        }
        Some(zero)
    };
    walk(r).unwrap_or(false)
}
