import { BrowserToolError } from "./errors.js";

const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The pixel size a PNG's IHDR chunk declares; `browser_action_failed` when `png` is not a PNG. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const isPng =
    png.byteLength >= 24 &&
    signature.every((byte, index) => png[index] === byte) &&
    Buffer.from(png.subarray(12, 16)).toString("latin1") === "IHDR";
  if (!isPng) {
    throw new BrowserToolError(
      "browser_action_failed",
      "The browser returned a capture that is not a PNG; call browser_capture again.",
    );
  }
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
