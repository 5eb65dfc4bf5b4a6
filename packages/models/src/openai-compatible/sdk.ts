import { lazyModule } from "../shared/lazy-module.js";

/** The `openai` SDK, loaded by the first request of a Chat Completions or Responses binding. */
export const openaiSdk = lazyModule(() => import("openai"));
