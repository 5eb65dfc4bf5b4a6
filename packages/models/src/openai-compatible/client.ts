// The SDK client behind both adapters, configured so nothing from the environment leaks into a
// request to a third-party server.
import { OpenAI } from "openai";

/** Connection settings of a Chat Completions client. */
export interface ChatClientOptions {
  readonly apiKey: string;
  readonly baseURL: string;
  readonly headers: Readonly<Record<string, string>> | undefined;
}

/**
 * A client that never retries by itself (the adapter's bounded retry loop does, and only before
 * anything was streamed), never logs, and ignores OPENAI_ORG_ID, OPENAI_PROJECT_ID and the other
 * OpenAI account variables, which mean nothing to another provider.
 */
export function createChatClient(options: ChatClientOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    maxRetries: 0,
    logLevel: "off",
    ...(options.headers ? { defaultHeaders: { ...options.headers } } : {}),
  });
}
