import { type Message, type ModelBinding, type ModelRequest, type ModelStreamEvent, textOf } from "@castellan/harness";

/** Options of `offline`. */
export interface OfflineModelOptions {
  /** Default `offline/echo`. */
  readonly specifier?: string;
  /** The window compaction budgets against, in tokens. Default: none (the echo model has no limit). */
  readonly contextWindow?: number;
  /** Longest excerpt of any one message or section in the reply, in characters. Default 240. */
  readonly excerptLength?: number;
}

/**
 * A model that needs no credentials and no network: it answers every request by describing the
 * context it was given (instructions, tools and the conversation so far). Useful for demos and
 * for checking what a Session sends, e.g. that a reopened Session still has its history.
 */
export function offline(options: OfflineModelOptions = {}): ModelBinding {
  const excerptLength = options.excerptLength ?? 240;
  return {
    specifier: options.specifier ?? "offline/echo",
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    async *stream(request, { signal }): AsyncGenerator<ModelStreamEvent> {
      const reply = describe(request, excerptLength);
      for (const line of reply.split(/(?<=\n)/)) {
        if (signal.aborted) {
          yield { type: "error", error: signal.reason instanceof Error ? signal.reason : new Error("aborted") };
          return;
        }
        yield { type: "text-delta", text: line };
      }
      yield {
        type: "usage",
        usage: { inputTokens: estimateTokens(request), outputTokens: Math.ceil(reply.length / 4) },
      };
      yield { type: "finish", stopReason: "end" };
    },
  };
}

function describe(request: ModelRequest, excerptLength: number): string {
  const excerpt = (value: string) => {
    const flat = value.replace(/\s+/g, " ").trim();
    return flat.length > excerptLength ? `${flat.slice(0, excerptLength)}…` : flat;
  };
  const userTurns = request.messages.filter((message) => message.role === "user");
  const lines = [`Offline echo: I received ${request.messages.length} message(s), ${userTurns.length} from you.`];
  if (request.system) lines.push(`Instructions: ${excerpt(request.system)}`);
  if (request.context) lines.push(`Context: ${excerpt(request.context)}`);
  if (request.tools.length > 0) lines.push(`Tools: ${request.tools.map((tool) => tool.name).join(", ")}`);
  if (userTurns.length > 1) {
    lines.push("Earlier in this conversation you said:");
    for (const message of userTurns.slice(0, -1)) lines.push(`- ${excerpt(textOf(message.content))}`);
  }
  const last = request.messages.at(-1);
  if (last) lines.push(`Latest ${roleName(last)}: ${excerpt(textOf(last.content))}`);
  return `${lines.join("\n")}\n`;
}

function roleName(message: Message): string {
  return message.role === "tool" ? `result of ${message.toolName}` : `${message.role} message`;
}

function estimateTokens(request: ModelRequest): number {
  let characters = request.system.length + request.context.length;
  for (const message of request.messages) characters += textOf(message.content).length;
  return Math.ceil(characters / 4);
}
