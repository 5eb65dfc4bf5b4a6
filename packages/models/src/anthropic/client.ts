import type Anthropic from "@anthropic-ai/sdk";
import { onFirstUse } from "../shared/lazy-module.js";
import { anthropicSdk } from "./sdk.js";

/** What a client is made from. */
export interface ClientSettings {
  readonly apiKey: string;
  readonly baseURL: string;
}

/**
 * Creates an SDK client that uses only what it is given. Passing the key and the base URL
 * explicitly keeps the SDK from reading `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`,
 * `ANTHROPIC_BASE_URL` or a credential profile. The SDK never retries (`maxRetries: 0`): every
 * adapter retries under the one shared policy (shared/retry.ts), only before anything was
 * streamed. Logging is off: the SDK would otherwise print unparsable stream chunks to the
 * console, and every failure reaches the caller as a typed error anyway. The client is made,
 * and the SDK loaded, on the first call of the returned function; that opens no connection.
 */
export function createClient(settings: ClientSettings): () => Promise<Anthropic> {
  return onFirstUse(async () => {
    const { default: Anthropic } = await anthropicSdk.load();
    return new Anthropic({
      apiKey: settings.apiKey,
      baseURL: settings.baseURL,
      maxRetries: 0,
      logLevel: "off",
    });
  });
}
