import Anthropic from "@anthropic-ai/sdk";

/** What a client is made from. */
export interface ClientSettings {
  readonly apiKey: string;
  readonly baseURL: string;
  readonly maxRetries: number;
}

/**
 * Creates an SDK client that uses only what it is given. Passing the key and the base URL
 * explicitly keeps the SDK from reading `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`,
 * `ANTHROPIC_BASE_URL` or a credential profile; retries are set explicitly because the SDK
 * retries only before a response arrives, which is exactly the adapter's retry rule. Logging is
 * off: the SDK would otherwise print unparsable stream chunks to the console, and every failure
 * reaches the caller as a typed error anyway. Constructing it opens no connection.
 */
export function createClient(settings: ClientSettings): Anthropic {
  return new Anthropic({
    apiKey: settings.apiKey,
    baseURL: settings.baseURL,
    maxRetries: settings.maxRetries,
    logLevel: "off",
  });
}
