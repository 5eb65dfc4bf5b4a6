// The byte arithmetic of observations, on seeded random texts: every block within its budget,
// never splitting a UTF-8 character, and the pages reading the whole bounded text in order.
import { describe, expect, it } from "vitest";
import { maxPageBytes, observationPage } from "../src/capabilities/browser/observation-pages.js";
import { boundObservation, storeObservation } from "../src/capabilities/browser/observation-store.js";
import { mulberry32 } from "./support/index.ts";

const alphabet = ["a", "b", " ", "é", "😀", "中", "\n", "[ref=e1]"];

function randomText(random: () => number, bytes: number): string {
  let text = "";
  while (Buffer.byteLength(text) < bytes) {
    // Mostly short lines, sometimes one very long line.
    const long = random() < 0.05;
    const length = long ? 20_000 : Math.floor(random() * 120);
    for (let index = 0; index < length; index++) text += alphabet[Math.floor(random() * (alphabet.length - 1))];
    text += "\n";
  }
  return text;
}

const continuation = /\[continue: call browser_snapshot with (\{[^\n]*\})\]\n$/;

describe("observation bytes", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("seed %i: bounded, paged within the budget, whole characters only", (seed) => {
    const random = mulberry32(seed);
    const max = [1_024, 4_096, 16_384, 65_536][seed % 4] as number;
    const text = randomText(random, Math.floor(random() * 3 * max));
    const stored = storeObservation("oseed", text, max);
    expect(stored.bytes.length).toBeLessThanOrEqual(max);
    expect(Buffer.from(stored.bytes).toString("utf8")).not.toContain("\uFFFD");
    const pageBytes = Math.min(max, maxPageBytes);
    let offset = 0;
    let pages = 0;
    for (;;) {
      const page = observationPage(stored, offset, pageBytes);
      expect(Buffer.byteLength(page)).toBeLessThanOrEqual(pageBytes);
      expect(page).not.toContain("\uFFFD");
      expect(observationPage(stored, offset, pageBytes)).toBe(page);
      pages++;
      const next = page.match(continuation);
      if (!next) break;
      const args = JSON.parse(next[1] as string) as { observationId: string; offset: number };
      expect(args.observationId).toBe("oseed");
      expect(args.offset).toBeGreaterThan(offset);
      offset = args.offset;
    }
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(stored.bytes.length / pageBytes));
  });

  it("keeps a text within the limit as it is, and cuts a longer one with the count line", () => {
    expect(Buffer.from(boundObservation("a\nb\n", 1_024)).toString()).toBe("a\nb\n");
    const cut = Buffer.from(boundObservation("line\n".repeat(1_000), 1_024)).toString();
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(1_024);
    expect(cut).toMatch(/^(line\n)+\[observation cut at a line: \d+ of 5000 bytes shown\]\n$/);
  });
});
