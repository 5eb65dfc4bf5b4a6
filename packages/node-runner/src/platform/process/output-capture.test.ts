import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../test/support/random.ts";
import { type BoundedOutput, OutputCapture } from "./output-capture.js";

const encoder = new TextEncoder();

/** `text` written in chunks of the given byte lengths (the rest in one). */
function writeIn(capture: OutputCapture, bytes: Uint8Array, sizes: readonly number[] = []): void {
  let offset = 0;
  for (const size of sizes) {
    capture.write(bytes.subarray(offset, offset + size));
    offset += size;
  }
  capture.write(bytes.subarray(offset));
}

/** The UTF-8 length of `text`. */
const byteLength = (text: string) => encoder.encode(text).length;

/**
 * What a bounded view of valid UTF-8 `bytes` must be: all of it within `bound`, else the first
 * half cut back to a character boundary and the last half cut forward to one.
 */
function expectedView(bytes: Uint8Array, bound: number): BoundedOutput {
  const text = new TextDecoder().decode(bytes);
  if (bytes.length <= bound) return { text, bytes: bytes.length, droppedBytes: 0, droppedAt: null };
  const isBoundary = (position: number) => position >= bytes.length || ((bytes[position] as number) & 0xc0) !== 0x80;
  let headEnd = Math.floor(bound / 2);
  while (!isBoundary(headEnd)) headEnd--;
  let tailStart = bytes.length - (bound - Math.floor(bound / 2));
  while (!isBoundary(tailStart)) tailStart++;
  const head = new TextDecoder().decode(bytes.subarray(0, headEnd));
  return {
    text: head + new TextDecoder().decode(bytes.subarray(tailStart)),
    bytes: bytes.length,
    droppedBytes: tailStart - headEnd,
    droppedAt: head.length,
  };
}

describe("an output capture", () => {
  it("keeps output within the bound whole, in both views", () => {
    const capture = new OutputCapture(1024);
    writeIn(capture, encoder.encode("hello, wörld\n"), [3, 5]);
    expect(capture.whole()).toEqual({ text: "hello, wörld\n", bytes: 14, droppedBytes: 0, droppedAt: null });
    expect(capture.readDelta()).toEqual({ text: "hello, wörld\n", bytes: 14, droppedBytes: 0, droppedAt: null });
    expect(capture.readDelta()).toEqual({ text: "", bytes: 0, droppedBytes: 0, droppedAt: null });
    capture.write(encoder.encode("more"));
    expect(capture.readDelta().text).toBe("more");
    expect(capture.whole().text).toBe("hello, wörld\nmore");
  });

  it("keeps the first and the last half of longer output, and counts what it drops", () => {
    const capture = new OutputCapture(1024);
    const text = Array.from({ length: 3000 }, (_, index) => String.fromCharCode(97 + (index % 26))).join("");
    writeIn(capture, encoder.encode(text), [100, 1000, 7]);
    const whole = capture.whole();
    expect(whole).toEqual({
      text: text.slice(0, 512) + text.slice(-512),
      bytes: 3000,
      droppedBytes: 1976,
      droppedAt: 512,
    });
  });

  it("cuts between characters: a character split by a cut is dropped whole", () => {
    // 1 byte of padding, then 4-byte characters: position 512 falls inside one, as does the tail's start.
    const text = `a${"😀".repeat(1000)}`;
    const bytes = encoder.encode(text);
    const capture = new OutputCapture(1024);
    writeIn(capture, bytes, [511, 2, 1]);
    capture.end();
    const whole = capture.whole();
    expect(whole).toEqual(expectedView(bytes, 1024));
    expect(whole.text).not.toContain("\uFFFD");
    const head = whole.text.slice(0, whole.droppedAt ?? 0);
    expect(byteLength(head)).toBe(509);
    expect(byteLength(whole.text) + whole.droppedBytes).toBe(bytes.length);
  });

  it("matches the expected views for random text, chunking and reading points", () => {
    const random = mulberry32(20_240_611);
    const alphabet = ["a", "\n", "é", "€", "😀", "ß", "字"];
    for (let round = 0; round < 60; round++) {
      const bound = 1024 + Math.floor(random() * 64);
      const capture = new OutputCapture(bound);
      const written: number[] = [];
      let unread: number[] = [];
      for (let step = 0; step < 30; step++) {
        let piece = "";
        const length = Math.floor(random() * (random() < 0.2 ? 4000 : 300));
        for (let index = 0; index < length; index++) piece += alphabet[Math.floor(random() * alphabet.length)];
        const bytes = encoder.encode(piece);
        // Chunks of any size, splitting characters anywhere.
        for (let offset = 0; offset < bytes.length; ) {
          const size = 1 + Math.floor(random() * 700);
          capture.write(bytes.subarray(offset, offset + size));
          offset += size;
        }
        written.push(...bytes);
        unread.push(...bytes);
        if (random() < 0.5) {
          expect(capture.readDelta()).toEqual(expectedView(Uint8Array.from(unread), bound));
          unread = [];
        }
        expect(capture.retainedBytes).toBeLessThanOrEqual(bound + 3 + Math.floor(bound / 2));
      }
      expect(capture.whole()).toEqual(expectedView(Uint8Array.from(written), bound));
      capture.end();
      expect(capture.readDelta()).toEqual(expectedView(Uint8Array.from(unread), bound));
    }
  });

  it("holds back a character whose last bytes have not arrived, until they do or the stream ends", () => {
    const capture = new OutputCapture(1024);
    const euro = encoder.encode("€");
    capture.write(Uint8Array.of(0x41, ...euro.subarray(0, 2)));
    expect(capture.unreadBytes).toBe(1);
    expect(capture.readDelta().text).toBe("A");
    expect(capture.whole().text).toBe("A");
    capture.write(euro.subarray(2));
    expect(capture.readDelta()).toEqual({ text: "€", bytes: 3, droppedBytes: 0, droppedAt: null });
    capture.write(Uint8Array.of(0xe2, 0x82));
    expect(capture.unreadBytes).toBe(0);
    capture.end();
    expect(capture.readDelta().text).toBe("\uFFFD");
    expect(capture.whole().text).toBe("A€\uFFFD");
  });

  it("reads invalid bytes as U+FFFD", () => {
    const capture = new OutputCapture(1024);
    capture.write(Uint8Array.of(0xff, 0x41, 0x80, 0x80, 0x42, 0xc0, 0xaf));
    capture.end();
    expect(capture.whole().text).toBe("\uFFFDA\uFFFD\uFFFDB\uFFFD\uFFFD");
  });

  it("bounds each delta like the whole run, and the next delta holds only what came after", () => {
    const capture = new OutputCapture(1024);
    capture.write(encoder.encode("x".repeat(5000)));
    const first = capture.readDelta();
    expect(first).toMatchObject({ bytes: 5000, droppedBytes: 3976, droppedAt: 512 });
    capture.write(encoder.encode(`${"b".repeat(600)}${"e".repeat(600)}`));
    const second = capture.readDelta();
    expect(second).toEqual({ text: "b".repeat(512) + "e".repeat(512), bytes: 1200, droppedBytes: 176, droppedAt: 512 });
    capture.write(encoder.encode("tail"));
    expect(capture.readDelta().text).toBe("tail");
    expect(capture.whole()).toMatchObject({ bytes: 6204, droppedBytes: 6204 - 1024 });
    expect(capture.whole().text.endsWith(`${"e".repeat(508)}tail`)).toBe(true);
  });

  it("retains at most the bound until a read, and half a bound more after one", () => {
    const capture = new OutputCapture(4096);
    for (let index = 0; index < 100; index++) capture.write(new Uint8Array(1000).fill(0x61));
    expect(capture.retainedBytes).toBeLessThanOrEqual(4096 + 3);
    capture.readDelta();
    for (let index = 0; index < 100; index++) capture.write(new Uint8Array(1000).fill(0x62));
    expect(capture.retainedBytes).toBeLessThanOrEqual(4096 + 3 + 2048);
    capture.end();
    // Ended: only the final views are kept, as text.
    expect(capture.retainedBytes).toBe(0);
    expect(capture.readDelta()).toMatchObject({ bytes: 100_000, droppedBytes: 100_000 - 4096 });
    expect(capture.readDelta().bytes).toBe(0);
    expect(capture.whole().bytes).toBe(200_000);
  });

  it("retains its bound, not the output, while a real process prints 200 MB", async () => {
    const bound = 65_536;
    const capture = new OutputCapture(bound);
    let largestRetained = 0;
    let largestChunk = 0;
    let chunks = 0;
    const child = spawn("/bin/sh", ["-c", "yes | head -c 200000000"], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk: Buffer) => {
      capture.write(chunk);
      // Poll now and then, as the tools do, so the delta's own first half is kept too.
      if (++chunks % 500 === 0) capture.readDelta();
      largestRetained = Math.max(largestRetained, capture.retainedBytes);
      largestChunk = Math.max(largestChunk, chunk.length);
    });
    await new Promise((resolve) => child.once("close", resolve));
    capture.end();
    expect(capture.totalBytes).toBe(200_000_000);
    expect(largestRetained).toBeLessThanOrEqual(bound + 3 + bound / 2);
    expect(largestChunk).toBeLessThanOrEqual(bound * 4);
    expect(capture.whole()).toMatchObject({ bytes: 200_000_000, droppedBytes: 200_000_000 - bound });
    expect(capture.whole().text).toBe("y\n".repeat(bound / 4).repeat(2));
  });
});
