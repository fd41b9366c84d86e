// The smoke suite (smoke.mjs) in Chromium.
import { smoke } from "./smoke.mjs";

smoke("chromium");
