//! Fallible allocation for the engine's large buffers (weights, the KV cache, a forward's
//! scratch). In a browser tab memory can run out (wasm32 caps it at 4 GiB, phones far
//! below); the default allocator then aborts the whole worker with no message. These
//! return `EngineError::OutOfMemory` instead, naming what could not be allocated.

use crate::error::{EngineError, Result};

/// An empty vector with room for `n` values.
pub fn with_capacity<T>(n: usize, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    reserve(&mut v, n, what)?;
    Ok(v)
}

/// `n` zeroed values.
pub fn zeros<T: Copy + Default>(n: usize, what: &str) -> Result<Vec<T>> {
    let mut v = with_capacity(n, what)?;
    v.resize(n, T::default());
    Ok(v)
}

/// Room for `additional` more values in `v`.
pub fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    v.try_reserve_exact(additional).map_err(|_| EngineError::OutOfMemory {
        bytes: additional.saturating_mul(std::mem::size_of::<T>()),
        what: what.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allocation_that_cannot_be_made_is_an_error_that_says_what_and_how_much() {
        let err = zeros::<f32>(usize::MAX / 8, "the KV cache").unwrap_err();
        assert!(matches!(err, EngineError::OutOfMemory { .. }), "{err:?}");
        let text = err.to_string();
        assert!(
            text.starts_with("out of memory: ") && text.ends_with("MB more for the KV cache could not be allocated"),
            "{text}"
        );
    }

    #[test]
    fn zeros_and_reserve_give_what_they_say() {
        let v = zeros::<f32>(1000, "x").unwrap();
        assert_eq!(v, vec![0f32; 1000]);
        let mut w = vec![1u8; 3];
        reserve(&mut w, 100, "x").unwrap();
        assert!(w.capacity() >= 103);
        assert_eq!(w, [1, 1, 1]);
    }
}
