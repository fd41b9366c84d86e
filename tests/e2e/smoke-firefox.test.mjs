// The smoke suite (smoke.mjs) in Firefox ESR.
import { smoke } from "./smoke.mjs";

smoke("firefox");
