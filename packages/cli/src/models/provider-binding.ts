import type { ModelBinding } from "@castellan/harness";
import type { ProviderChoice } from "./choose-provider.js";

/**
 * The adapter binding of a choice. Each adapter is imported only here, when a Run needs it, so
 * `--help`, `sessions` and `doctor` load none of them.
 */
export async function providerBinding(choice: ProviderChoice): Promise<ModelBinding> {
  const baseURL = choice.baseURL === undefined ? {} : { baseURL: choice.baseURL };
  switch (choice.provider) {
    case "anthropic": {
      const { anthropic } = await import("@castellan/models/anthropic");
      return anthropic({ apiKey: choice.key, model: choice.model, ...baseURL });
    }
    case "codex": {
      const { codex } = await import("@castellan/models/codex");
      return codex({ accessToken: choice.key, model: choice.model, ...baseURL });
    }
    case "openai": {
      const { openaiCompatible } = await import("@castellan/models/openai-compatible");
      return openaiCompatible({
        apiKey: choice.key,
        model: choice.model,
        baseURL: choice.baseURL ?? "https://api.openai.com/v1",
      });
    }
    case "openrouter": {
      const { openrouter } = await import("@castellan/models/openrouter");
      return openrouter({ apiKey: choice.key, model: choice.model, ...baseURL });
    }
  }
}
