//! The page's wasm entry point (Trunk: `data-bin="app"`).
fn main() {
    #[cfg(target_arch = "wasm32")]
    inference_playground::app::start();
}
