// The SDK client behind both adapters, configured so nothing from the environment leaks into a
// request to a third-party server.
import type { OpenAI } from "openai";
import { onFirstUse } from "../shared/lazy-module.js";
import { openaiSdk } from "./sdk.js";

/** Connection settings of a Chat Completions client. */
export interface ChatClientOptions {
  readonly apiKey: string;
  readonly baseURL: string;
  readonly headers: Readonly<Record<string, string>> | undefined;
}

/**
 * A client that never retries by itself (the adapter's bounded retry loop does, and only before
 * anything was streamed), never logs, and ignores OPENAI_ORG_ID, OPENAI_PROJECT_ID and the other
 * OpenAI account variables, which mean nothing to another provider. It is made, and the SDK
 * loaded, on the first call of the returned function.
 */
export function createChatClient(options: ChatClientOptions): () => Promise<OpenAI> {
  return onFirstUse(async () => {
    const { OpenAI } = await openaiSdk.load();
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
  });
}
