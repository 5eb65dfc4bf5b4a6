// The floor of a provider agent loop: plain fetch to the same endpoint, a hand-built body,
// a minimal streaming SSE reader, the tool run inline. No SDK, persistence, events,
// permissions or validation. The same loop with each request sent through the provider's
// official SDK instead of fetch is the floor of an adapter built on that SDK.
import { tick, tickTool } from "../instant-model.ts";
import { durationsFromStarts, type TurnTimings } from "../stats.ts";
import { finalText, type WireFormat, wirePaths } from "./answers.ts";
import { type BareWire, bareWire, type WireAnswer } from "./bare-wire.ts";

/** The system prompt and first message every loop of the bench sends. */
export const benchSystem = "Tick until done.";
export const benchPrompt = (turns: number) => `Tick ${turns} times.`;

/** Sends one request, given as its JSON value and as the body text; resolves with the streamed response. */
export type WireSender = (params: Record<string, unknown>, body: string) => Promise<Response>;

/** Reads one streamed answer as it arrives. */
async function readAnswer(response: Response, wire: BareWire): Promise<WireAnswer> {
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const reader = wire.reader();
  const decoder = new TextDecoder();
  let buffer = "";
  const drain = () => {
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      for (const line of buffer.slice(0, end).split("\n")) {
        if (line.startsWith("data: ")) reader.accept(line.slice(6));
      }
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
    }
  };
  const stream = response.body.getReader();
  for (let chunk = await stream.read(); !chunk.done; chunk = await stream.read()) {
    buffer += decoder.decode(chunk.value, { stream: true });
    drain();
  }
  buffer += decoder.decode();
  drain();
  return reader.result();
}

/** What a wire loop talks to. */
export interface WireLoopOptions {
  readonly root: string;
  readonly format: WireFormat;
  readonly model: string;
  readonly key: string;
  readonly turns: number;
}

/** Plain fetch of the body text, with the hand-written client's headers. */
function fetchSender(url: string, wire: BareWire): WireSender {
  return (_params, body) => fetch(url, { method: "POST", headers: wire.headers, body });
}

/**
 * Runs `turns` turns by hand against the fixture at `root`: send the conversation, read the
 * answer, append the assistant's call and the tool's result, repeat until a text answer. Times
 * each turn from its start to the next turn's start. Requests go out with plain fetch, or
 * through `sender(root)` (an SDK's request path) when given; only the sender builds the body
 * text it needs, so an SDK is not charged for a JSON text it never sends.
 */
export async function runBareLoop(
  options: WireLoopOptions & { readonly sender?: (root: string) => WireSender },
): Promise<TurnTimings & { readonly text: string }> {
  const { root, format, turns } = options;
  const wire = bareWire(format, {
    model: options.model,
    key: options.key,
    system: benchSystem,
    prompt: benchPrompt(turns),
    tool: tickTool,
  });
  const sdk = options.sender?.(root);
  const send = sdk ?? fetchSender(`${root}${wirePaths[format]}`, wire);
  const messages = wire.initial();
  const starts: number[] = [];
  let text = "";
  const begin = performance.now();
  while (true) {
    starts.push(performance.now());
    const params = wire.params(messages);
    const answer = await readAnswer(await send(params, sdk ? "" : JSON.stringify(params)), wire);
    text = answer.text;
    if (answer.toolCalls.length === 0) break;
    for (const toolCall of answer.toolCalls) {
      const input = JSON.parse(toolCall.json) as { n: number };
      messages.push(...wire.turn(toolCall, input, tick(input)));
    }
  }
  const end = performance.now();
  starts.push(end);
  if (starts.length !== turns + 1 || text !== finalText(turns)) {
    throw new Error(`The bare loop ran ${starts.length - 1} turns and ended with "${text}", not ${turns}.`);
  }
  return { durations: durationsFromStarts(starts), totalMs: end - begin, text };
}
