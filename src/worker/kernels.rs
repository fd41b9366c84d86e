//! Decode's loops for the loaded model (`engine::quant::choice`): at each load and each
//! change of thread count, a choice the page kept for this model and count is reused, and
//! otherwise the candidates are timed on the model's own matrices (a few tens of
//! milliseconds). The page keeps what comes back for the next visit (`crate::kernel_choices`).

use super::state::{self, ModelId};
use crate::protocol::{KernelChoice, Kernels};
use engine::quant::choice::KernelKey;
use engine::Model;

/// Applies to `model` the stored choice that fits it at the current thread count, or
/// times the candidates; says which.
pub fn choose(model: &Model, id: &ModelId, stored: &[KernelChoice]) -> Kernels {
    let key = KernelKey::now(id.name.clone(), id.file_bytes);
    let kept = stored.iter().find(|c| c.key == key);
    let choice = model.kernels(key, kept, &state::performance_now);
    let measured_now = kept != Some(&choice);
    Kernels { choice, measured_now }
}

/// `choose` for the model loaded now, if one is.
pub fn choose_for_loaded(stored: &[KernelChoice]) -> Option<Kernels> {
    state::with(|s| {
        let (model, id) = s.model_and_id()?;
        Some(choose(model, id, stored))
    })
}
