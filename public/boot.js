// Starts the page's wasm. Trunk would inline this as a <script>; a file keeps the CSP at
// script-src 'self' (Trunk.toml: pattern_script). Names are fixed (filehash = false) and
// relative to this file, so the site works under any path (`trunk build --public-url`).
import init from "./app.js";

try {
  await init({ module_or_path: new URL("app_bg.wasm", import.meta.url) });
} catch (error) {
  const message = document.createElement("p");
  message.setAttribute("role", "alert");
  message.textContent = `The app could not start: ${error}. Reloading the page may help.`;
  document.body.prepend(message);
  throw error;
}
