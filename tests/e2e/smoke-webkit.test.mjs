// The smoke suite (smoke.mjs) in WebKitGTK.
import { smoke } from "./smoke.mjs";

smoke("webkit");
