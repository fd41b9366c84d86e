// The smoke suite (smoke.mjs) in Firefox ESR on a host that sends no COOP/COEP: the
// service worker adds them, and the first visit's one reload makes the page isolated.
import { smoke } from "./smoke.mjs";

smoke("firefox", { isolate: false });
