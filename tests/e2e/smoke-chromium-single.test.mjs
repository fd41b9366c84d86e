// The smoke suite (smoke.mjs) in Chromium on a host that sends no COOP/COEP, with service
// workers refused: the page cannot be cross-origin isolated, and the single-threaded
// engine does everything, said so.
import { smoke } from "./smoke.mjs";

smoke("chromium", { isolate: false, serviceWorkers: "block" });
