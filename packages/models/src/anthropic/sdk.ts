import { lazyModule } from "../shared/lazy-module.js";

/** The Anthropic SDK, loaded by the first request of an `anthropic` binding or discovery call. */
export const anthropicSdk = lazyModule(() => import("@anthropic-ai/sdk"));
