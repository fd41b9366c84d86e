//! The model file as it arrives: a JavaScript `Uint8Array` outside wasm memory, or a file on
//! the learner's device (a `Blob`, read in slices with `FileReaderSync`, which a worker may
//! block on). The engine reads either through `JsReader` (one tensor at a time,
//! `Model::from_gguf_reader`) and a download's SHA-256 is computed by the browser
//! (`crypto.subtle`), so the file is never copied into wasm memory, which cannot shrink
//! again: only the finished weights live there.

use js_sys::{Reflect, Uint8Array};
use web_sys::{Blob, FileReaderSync};
use sha2::{Digest, Sha256};
use std::io::{self, Read, Seek, SeekFrom};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Bytes copied from JavaScript at a time for small reads. The GGUF header is about 100k
/// reads of a few bytes each (the vocabulary and the merges); one copy across the JS
/// boundary per read would cost more than the parse.
const READ_AHEAD: usize = 64 * 1024;

/// Where a `JsReader`'s bytes are.
enum Source {
    Bytes(Uint8Array),
    /// A file on the device: each read asks the browser for that slice only.
    Blob(Blob, FileReaderSync),
}

/// `Read + Seek` over a `Uint8Array` or a `Blob`, copying only the bytes asked for.
pub struct JsReader {
    data: Source,
    len: u64,
    pos: u64,
    /// `buf` holds the file's bytes `buf_start..buf_start + buf.len()`.
    buf: Vec<u8>,
    buf_start: u64,
}

impl JsReader {
    pub fn new(data: Uint8Array) -> Self {
        let len = u64::from(data.length());
        Self::over(Source::Bytes(data), len)
    }

    /// Reads a file on the device in slices; only a worker can (`FileReaderSync` blocks).
    pub fn from_blob(blob: Blob) -> Result<Self, String> {
        let reader = FileReaderSync::new().map_err(js_error)?;
        let len = blob.size() as u64;
        Ok(Self::over(Source::Blob(blob, reader), len))
    }

    fn over(data: Source, len: u64) -> Self {
        Self {
            data,
            len,
            pos: 0,
            buf: Vec::new(),
            buf_start: 0,
        }
    }

    /// Copies the file's bytes `start..start + out.len()` (within the file) into `out`.
    fn copy(&self, start: u64, out: &mut [u8]) -> io::Result<()> {
        let end = start + out.len() as u64;
        match &self.data {
            // A Uint8Array is at most 4 GB, so both ends fit a u32.
            Source::Bytes(data) => data.subarray(start as u32, end as u32).copy_to(out),
            Source::Blob(blob, reader) => {
                let unreadable = |e| io::Error::other(format!("the file could not be read: {}", js_error(e)));
                let slice = blob.slice_with_f64_and_f64(start as f64, end as f64).map_err(unreadable)?;
                let buffer = reader.read_as_array_buffer(&slice).map_err(unreadable)?;
                let bytes = Uint8Array::new(&buffer);
                if u64::from(bytes.length()) != out.len() as u64 {
                    // The file changed on the device since it was chosen.
                    return Err(io::Error::other("the file changed while it was read"));
                }
                bytes.copy_to(out);
            }
        }
        Ok(())
    }
}

impl Read for JsReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let left = self.len.saturating_sub(self.pos);
        let n = (out.len() as u64).min(left) as usize;
        if n == 0 {
            return Ok(0);
        }
        let buf_end = self.buf_start + self.buf.len() as u64;
        if self.pos < self.buf_start || self.pos >= buf_end {
            if n >= READ_AHEAD {
                // A tensor: straight from JavaScript into its destination.
                self.copy(self.pos, &mut out[..n])?;
                self.pos += n as u64;
                return Ok(n);
            }
            let fill = (READ_AHEAD as u64).min(left) as usize;
            let mut buf = std::mem::take(&mut self.buf);
            buf.resize(fill, 0);
            let copied = self.copy(self.pos, &mut buf);
            self.buf = buf;
            if let Err(e) = copied {
                // Nothing of this slice may be served later.
                self.buf.clear();
                return Err(e);
            }
            self.buf_start = self.pos;
        }
        let offset = (self.pos - self.buf_start) as usize;
        let n = n.min(self.buf.len() - offset);
        out[..n].copy_from_slice(&self.buf[offset..offset + n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for JsReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        // Past the end is allowed, as for files: reads there return 0 bytes.
        self.pos = target.ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "seek to a negative position")
        })?;
        Ok(self.pos)
    }
}

/// Collects a streamed body in JavaScript memory: into one array of the announced size when
/// the chunks fit it, else chunk by chunk and joined at the end.
pub struct JsBytes {
    whole: Option<Uint8Array>,
    chunks: Vec<Uint8Array>,
    len: u32,
}

impl JsBytes {
    pub fn with_capacity(total: Option<u64>) -> Self {
        let whole = total
            .filter(|&t| t > 0 && t <= u64::from(u32::MAX))
            .map(|t| Uint8Array::new_with_length(t as u32));
        Self {
            whole,
            chunks: Vec::new(),
            len: 0,
        }
    }

    pub fn len(&self) -> u64 {
        u64::from(self.len)
    }

    pub fn push(&mut self, chunk: Uint8Array) -> Result<(), String> {
        let n = chunk.length();
        let len = self
            .len
            .checked_add(n)
            .ok_or("The model file is larger than 4 GB.")?;
        match &self.whole {
            Some(whole) if len <= whole.length() => whole.set(&chunk, self.len),
            Some(whole) => {
                // More than announced (a wrong content-length): keep what came as a chunk.
                self.chunks.push(whole.subarray(0, self.len));
                self.whole = None;
                self.chunks.push(chunk);
            }
            None => self.chunks.push(chunk),
        }
        self.len = len;
        Ok(())
    }

    /// The bytes received, exactly.
    pub fn finish(self) -> Uint8Array {
        if let Some(whole) = self.whole {
            return whole.subarray(0, self.len);
        }
        if self.chunks.len() == 1 {
            return self.chunks.into_iter().next().expect("one chunk");
        }
        let out = Uint8Array::new_with_length(self.len);
        let mut at = 0;
        for chunk in &self.chunks {
            out.set(chunk, at);
            at += chunk.length();
        }
        out
    }
}

/// The SHA-256 of `data` in lowercase hex: by the browser's `crypto.subtle` where it
/// exists (secure contexts: https, localhost), else in wasm one slice at a time.
pub async fn sha256_hex(data: &Uint8Array) -> Result<String, String> {
    let digest = match subtle() {
        Some(subtle) => {
            let promise = subtle
                .digest_with_str_and_buffer_source("SHA-256", data)
                .map_err(js_error)?;
            let digest = JsFuture::from(promise)
                .await
                .map_err(js_error)?;
            Uint8Array::new(&digest).to_vec()
        }
        None => sha256_in_wasm(data).to_vec(),
    };
    Ok(hex(&digest))
}

/// The fallback: 1 MB at a time through a reused buffer.
pub fn sha256_in_wasm(data: &Uint8Array) -> [u8; 32] {
    const SLICE: u32 = 1 << 20;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; SLICE as usize];
    let mut at = 0;
    while at < data.length() {
        let end = data.length().min(at + SLICE);
        let part = &mut buf[..(end - at) as usize];
        data.subarray(at, end).copy_to(part);
        hasher.update(&part[..]);
        at = end;
    }
    hasher.finalize().into()
}

fn subtle() -> Option<web_sys::SubtleCrypto> {
    let crypto = Reflect::get(&js_sys::global(), &"crypto".into()).ok()?;
    let subtle = Reflect::get(&crypto, &"subtle".into()).ok()?;
    subtle.dyn_into::<web_sys::SubtleCrypto>().ok()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A JavaScript error as one line of text: its message, or its debug form.
pub(super) fn js_error(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}
