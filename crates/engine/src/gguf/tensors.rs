//! A model's tensors read by name from the GGUF source, one at a time.

use crate::error::{EngineError, Result};
use crate::memory;
use candle_core::quantized::gguf_file::{Content, TensorInfo};
use std::io::{Read, Seek, SeekFrom};

/// Reads one tensor at a time from the source, so that loading never holds more than the
/// finished weights plus the largest single tensor.
pub(crate) struct TensorReader<'a, R> {
    pub(crate) content: &'a Content,
    pub(crate) source: &'a mut R,
    pub(crate) size: u64,
    /// The bytes of the tensor last read.
    pub(crate) buf: Vec<u8>,
}

impl<R: Read + Seek> TensorReader<'_, R> {
    /// The bytes of tensor `name`, with its shape checked against `dims` (outermost first).
    pub(crate) fn read(&mut self, name: &str, dims: &[usize]) -> Result<candle_core::quantized::GgmlDType> {
        let info = self
            .content
            .tensor_infos
            .get(name)
            .ok_or_else(|| EngineError::InvalidModel(format!("tensor {name} is missing")))?;
        if info.shape.dims() != dims {
            return Err(EngineError::InvalidModel(format!(
                "tensor {name} has shape {:?}, the metadata implies {dims:?}",
                info.shape.dims()
            )));
        }
        let (start, len) = extent(self.content, name, info, self.size)?;
        // The buffer is reused: it grows to the largest tensor once, and only what it grows
        // by is zeroed (the read overwrites it all).
        let len = usize::try_from(len)
            .map_err(|_| EngineError::OutOfMemory { bytes: usize::MAX, what: format!("tensor {name}") })?;
        let more = len.saturating_sub(self.buf.len());
        memory::reserve(&mut self.buf, more, name)?;
        self.buf.resize(len, 0);
        self.source
            .seek(SeekFrom::Start(start))
            .and_then(|_| self.source.read_exact(&mut self.buf))
            .map_err(|e| EngineError::InvalidModel(format!("could not read tensor {name}: {e}")))?;
        Ok(info.ggml_dtype)
    }
}

/// Where tensor `name`'s bytes lie in a file of `size` bytes, as (start, length); refused
/// unless they lie wholly inside it. The arithmetic is checked: a tensor's dimensions come
/// from the file and may multiply past any integer.
pub(crate) fn extent(content: &Content, name: &str, info: &TensorInfo, size: u64) -> Result<(u64, u64)> {
    let past_end = || {
        EngineError::InvalidModel(format!(
            "tensor {name} lies past the end of the file ({size} bytes): the file is truncated or corrupt"
        ))
    };
    let (block, bytes) = (info.ggml_dtype.block_size() as u64, info.ggml_dtype.type_size() as u64);
    let elems = info.shape.dims().iter().try_fold(1u64, |n, &d| n.checked_mul(d as u64)).ok_or_else(past_end)?;
    let len = (elems / block).checked_mul(bytes).ok_or_else(past_end)?;
    let start = content.tensor_data_offset.checked_add(info.offset).ok_or_else(past_end)?;
    if start.checked_add(len).is_none_or(|end| end > size) {
        return Err(past_end());
    }
    Ok((start, len))
}
