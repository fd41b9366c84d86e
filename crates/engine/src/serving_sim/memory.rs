//! The KV cache's memory: what each running request holds (reserved) and what of it its
//! written positions fill (used). Contiguous: prompt + max_tokens on admission. Paged: whole
//! blocks, as positions are written.

use super::Memory;

pub struct Pool {
    memory: Memory,
    bytes_per_position: f64,
    /// Positions the memory holds (in paged mode, whole blocks' worth).
    capacity: usize,
    /// Positions reserved by the running requests.
    reserved: usize,
}

impl Pool {
    pub fn new(memory: Memory, memory_bytes: f64, bytes_per_position: f64) -> Self {
        let positions = (memory_bytes / bytes_per_position).floor() as usize;
        let capacity = match memory {
            Memory::Contiguous => positions,
            Memory::Paged { block_size } => positions / block_size * block_size,
        };
        Pool { memory, bytes_per_position, capacity, reserved: 0 }
    }

    /// Positions a request must hold to have `positions` written, given what the server
    /// knows of it (`max_positions`, its prompt plus max_tokens).
    pub fn holding(&self, positions: usize, max_positions: usize) -> usize {
        match self.memory {
            Memory::Contiguous => max_positions,
            Memory::Paged { block_size } => positions.div_ceil(block_size) * block_size,
        }
    }

    /// Takes `more` positions if they are free.
    pub fn take(&mut self, more: usize) -> bool {
        let fits = self.reserved + more <= self.capacity;
        if fits {
            self.reserved += more;
        }
        fits
    }

    pub fn give_back(&mut self, positions: usize) {
        self.reserved -= positions;
    }

    pub fn reserved_bytes(&self) -> f64 {
        self.reserved as f64 * self.bytes_per_position
    }

    pub fn bytes(&self, positions: usize) -> f64 {
        positions as f64 * self.bytes_per_position
    }
}
