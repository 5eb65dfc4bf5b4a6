// Language models of the previous specification (LanguageModelV3, the AI SDK 6 generation of
// provider packages) behind the V4 interface the rest of the adapter speaks: prompts are
// converted down, stream parts up. The two differ only in file data (V3 uses bare bytes,
// base64 strings and URLs where V4 tags them) and in parts V3 lacks (custom and reasoning-file
// prompt parts are left out; V3 streams never send them).
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  LanguageModelV3ToolResultOutput,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultOutput,
  SharedV4FileData,
} from "@ai-sdk/provider";

type V3Part<Role extends LanguageModelV3Message["role"]> = Extract<
  LanguageModelV3Message,
  { role: Role }
>["content"][number];
type V3ContentValue = Extract<LanguageModelV3ToolResultOutput, { type: "content" }>["value"][number];

/** The V3 model as a V4 model; only `doStream` is used. */
export function fromV3(model: LanguageModelV3): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate() {
      throw new Error("The aiSdk adapter streams; doGenerate is not bridged.");
    },
    async doStream(options) {
      const result = await model.doStream(toV3Options(options));
      const stream = result.stream.pipeThrough(
        new TransformStream<unknown, LanguageModelV4StreamPart>({
          transform(part, controller) {
            controller.enqueue(toV4Part(part));
          },
        }),
      );
      return { ...result, stream };
    },
  };
}

function toV3Options(options: LanguageModelV4CallOptions): LanguageModelV3CallOptions {
  // `reasoning` is V4's; V3 providers take reasoning settings in their provider options.
  const { prompt, reasoning: _reasoning, ...rest } = options;
  return { ...(rest as Omit<LanguageModelV3CallOptions, "prompt">), prompt: prompt.map(toV3Message) };
}

function toV3Message(message: LanguageModelV4Message): LanguageModelV3Message {
  const { providerOptions } = message;
  const options = providerOptions ? { providerOptions } : {};
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content, ...options };
    case "user":
      return {
        role: "user",
        content: message.content.flatMap((part): V3Part<"user">[] => {
          if (part.type === "text") return [part];
          const data = v3Data(part.data);
          return data === undefined ? [] : [{ ...part, data }];
        }),
        ...options,
      };
    case "assistant":
      return {
        role: "assistant",
        content: message.content.flatMap((part): V3Part<"assistant">[] => {
          switch (part.type) {
            case "text":
            case "reasoning":
            case "tool-call":
              return [part];
            case "tool-result":
              return [{ ...part, output: toV3Output(part.output) }];
            case "file": {
              const data = v3Data(part.data);
              return data === undefined ? [] : [{ ...part, data }];
            }
            default:
              return [];
          }
        }),
        ...options,
      };
    case "tool":
      return {
        role: "tool",
        content: message.content.map(
          (part): V3Part<"tool"> => (part.type === "tool-result" ? { ...part, output: toV3Output(part.output) } : part),
        ),
        ...options,
      };
  }
}

function toV3Output(output: LanguageModelV4ToolResultOutput): LanguageModelV3ToolResultOutput {
  if (output.type !== "content") return output;
  const value = output.value.flatMap((part): V3ContentValue[] => {
    if (part.type === "text") return [part];
    if (part.type !== "file") return [];
    const image = part.mediaType.startsWith("image/");
    if (part.data.type === "url") return [{ type: image ? "image-url" : "file-url", url: part.data.url.toString() }];
    if (part.data.type !== "data" || typeof part.data.data !== "string") return [];
    return image
      ? [{ type: "image-data", data: part.data.data, mediaType: part.mediaType }]
      : [{ type: "file-data", data: part.data.data, mediaType: part.mediaType }];
  });
  return { type: "content", value };
}

function v3Data(data: SharedV4FileData): Uint8Array | string | URL | undefined {
  if (data.type === "data") return data.data;
  if (data.type === "url") return data.url;
  return undefined;
}

/** V3 parts are V4 parts, except a generated file's data, which V4 tags. */
function toV4Part(part: unknown): LanguageModelV4StreamPart {
  const candidate = part as { type?: unknown; data?: unknown };
  if (candidate.type === "file" && (typeof candidate.data === "string" || candidate.data instanceof Uint8Array)) {
    return { ...(part as object), data: { type: "data", data: candidate.data } } as LanguageModelV4StreamPart;
  }
  return part as LanguageModelV4StreamPart;
}
