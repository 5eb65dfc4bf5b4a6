// The browser bench: navigate, snapshot and click through the browser tools in a Session
// (tool-start to tool-end on the scripted path, `full-access`), beside the same action in raw
// playwright-core on the same Chromium, each followed by the same AI snapshot call so both do
// the same browser work. The two sides alternate: the model's next turn runs the raw action
// for the step the tool just took, then asks for the next tool call.

import { browser } from "@castellan/connectors/browser";
import {
  defineAgent,
  type JsonObject,
  type ModelBinding,
  type ModelRequest,
  type ModelStreamEvent,
} from "@castellan/harness";
import { createNodeRunner } from "@castellan/node-runner";
import { chromium, type Page } from "playwright-core";
import { servePage } from "./page.ts";

/** The Chromium both sides drive unless `executablePath` names another: Debian's. */
export const benchExecutable = "/usr/bin/chromium";

/** The measured actions. */
export const browserBenchActions = ["navigate", "snapshot", "click"] as const;
type Action = (typeof browserBenchActions)[number];

/** The bench's size. */
export interface BrowserBenchOptions {
  /** Measured rounds per action and side. Default 50. */
  readonly rounds: number;
  /** Unmeasured rounds first. Default 5. */
  readonly warmups: number;
  /** Rows of the page (three elements each). Default 100. */
  readonly rows: number;
  /** The Chromium both sides drive (an absolute path). Default {@link benchExecutable}. */
  readonly executablePath?: string;
  readonly progress?: (message: string) => void;
}

export const defaultBrowserBenchOptions = { rounds: 50, warmups: 5, rows: 100 } as const;

/** Median and p95 of one side of one action, ms. */
export interface SideFigures {
  readonly median: number;
  readonly p95: number;
}

/** What one run measured, per action. */
export interface BrowserBenchReport {
  readonly rounds: number;
  readonly rows: number;
  readonly actions: Readonly<Record<Action, { readonly castellan: SideFigures; readonly raw: SideFigures }>>;
}

const launchArgs = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
];

function figures(values: readonly number[]): SideFigures {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return { median: at(0.5), p95: at(0.95) };
}

/** The raw side of one step: the same browser work the tool does, by hand. */
async function rawStep(page: Page, action: Action, url: string, row: number): Promise<number> {
  const started = performance.now();
  if (action === "navigate") await page.goto(url);
  if (action === "click") await page.getByRole("button", { name: `Toggle ${row}`, exact: true }).click();
  await page.ariaSnapshot({ mode: "ai" });
  return performance.now() - started;
}

/** The tool call of one step. */
function toolCall(
  action: Action,
  url: string,
  row: number,
  id: string,
): { id: string; name: string; input: JsonObject } {
  if (action === "navigate") return { id, name: "browser_navigate", input: { url } };
  if (action === "snapshot") return { id, name: "browser_snapshot", input: {} };
  return { id, name: "browser_click", input: { role: "button", name: `Toggle ${row}`, exact: true } };
}

/** Runs the bench: one Session on one managed browser, one raw browser beside it. */
export async function runBrowserBench(options: BrowserBenchOptions): Promise<BrowserBenchReport> {
  const served = await servePage(options.rows);
  const executablePath = options.executablePath ?? benchExecutable;
  const raw = await chromium.launch({ executablePath, headless: true, args: launchArgs });
  try {
    const page = await (await raw.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    const steps: { action: Action; row: number; measured: boolean }[] = [];
    for (let round = 0; round < options.warmups + options.rounds; round++) {
      for (const action of browserBenchActions) {
        steps.push({ action, row: round % options.rows, measured: round >= options.warmups });
      }
    }
    const times = {
      castellan: { navigate: [] as number[], snapshot: [] as number[], click: [] as number[] },
      raw: { navigate: [] as number[], snapshot: [] as number[], click: [] as number[] },
    };
    const usage = { inputTokens: 1, outputTokens: 1 } as const;
    const model: ModelBinding = {
      specifier: "bench/browser",
      contextWindow: 1_000_000_000,
      async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
        const turn = (request.messages.length + 1) / 2;
        // The raw side of the step the tool just took, so the two sides alternate.
        const previous = steps[turn - 2];
        if (previous) {
          const ms = await rawStep(page, previous.action, served.url, previous.row);
          if (previous.measured) times.raw[previous.action].push(ms);
        }
        const step = steps[turn - 1];
        if (step) {
          yield { type: "tool-call", toolCall: toolCall(step.action, served.url, step.row, `call_${turn}`) };
          yield { type: "usage", usage };
          yield { type: "finish", stopReason: "tool-calls" };
        } else {
          yield { type: "text-delta", text: "done" };
          yield { type: "usage", usage };
          yield { type: "finish", stopReason: "end" };
        }
      },
    };
    const agent = defineAgent("bench.browser", {
      model,
      capabilities: [
        browser({
          mode: "managed",
          executablePath,
          origins: [new URL(served.url).origin],
          viewport: { width: 1280, height: 720 },
        }),
      ],
    });
    const runner = await createNodeRunner({
      agent,
      permissions: "full-access",
      limits: { maxTurns: steps.length + 5 },
    });
    try {
      const session = await runner.createSession();
      const starts = new Map<string, number>();
      let index = 0;
      for await (const event of session.run("bench")) {
        if (event.kind === "tool-start") starts.set(event.toolCallId, performance.now());
        if (event.kind === "tool-end") {
          const ms = performance.now() - (starts.get(event.toolCallId) ?? Number.NaN);
          const step = steps[index++];
          if (event.result.isError) throw new Error(`${step?.action} failed: ${JSON.stringify(event.result.content)}`);
          if (step?.measured) times.castellan[step.action].push(ms);
          if (index % 30 === 0) options.progress?.(`${index} of ${steps.length} steps`);
        }
      }
      await session.close();
    } finally {
      await runner.close();
    }
    const actions = Object.fromEntries(
      browserBenchActions.map((action) => [
        action,
        { castellan: figures(times.castellan[action]), raw: figures(times.raw[action]) },
      ]),
    ) as BrowserBenchReport["actions"];
    return { rounds: options.rounds, rows: options.rows, actions };
  } finally {
    await raw.close();
    await served.close();
  }
}

/** The target: each action's median at most 1.5x raw playwright-core's. */
export const browserBenchTarget = 1.5;

/** The report as printed: per action both sides' median and p95, and the ratio of medians. */
export function formatBrowserBenchReport(report: BrowserBenchReport): string {
  const ms = (value: number) => `${value.toFixed(2)} ms`.padStart(10);
  const lines = [
    `browser bench: ${report.rounds} rounds per action, a page of ${report.rows * 3} elements, /usr/bin/chromium`,
  ];
  for (const action of browserBenchActions) {
    const { castellan, raw } = report.actions[action];
    const ratio = castellan.median / raw.median;
    lines.push(
      `${action}`,
      `  browser tool       median ${ms(castellan.median)}  p95 ${ms(castellan.p95)}`,
      `  raw playwright     median ${ms(raw.median)}  p95 ${ms(raw.p95)}  (baseline)`,
      `  ratio of medians   ${ratio.toFixed(2)}x  (<= ${browserBenchTarget}) ${ratio <= browserBenchTarget ? "PASS" : "MISS"}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
