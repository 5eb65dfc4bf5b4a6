// Every adapter the conformance suite runs. A new adapter adds its driver here.
import type { ConformanceDriver } from "../driver.ts";
import { aiSdkDriver } from "./ai-sdk.ts";
import { aiSdkChatDriver } from "./ai-sdk-chat.ts";
import { anthropicDriver } from "./anthropic.ts";
import { codexDriver } from "./codex.ts";
import { openaiCompatibleDriver } from "./openai-compatible.ts";
import { openrouterDriver } from "./openrouter.ts";

export const drivers: readonly ConformanceDriver[] = [
  anthropicDriver,
  openaiCompatibleDriver,
  openrouterDriver,
  codexDriver,
  aiSdkDriver,
  aiSdkChatDriver,
];
