import { describe, expect, it } from "vitest";
import { sniffImage } from "./sniff.js";

const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === "string" ? [...part].map((c) => c.charCodeAt(0)) : part)));

describe("sniffImage", () => {
  it.each([
    ["png", bytes([0x89], "PNG", [0x0d, 0x0a, 0x1a, 0x0a], [0, 0, 0, 13]), "image/png"],
    ["jpeg", bytes([0xff, 0xd8, 0xff, 0xe0]), "image/jpeg"],
    ["gif87a", bytes("GIF87a", [1, 0]), "image/gif"],
    ["gif89a", bytes("GIF89a", [1, 0]), "image/gif"],
    ["webp", bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 "), "image/webp"],
  ])("knows %s by its magic bytes", (_name, data, mediaType) => {
    expect(sniffImage(data)).toEqual({ image: true, mediaType });
  });

  it.each([
    ["an svg", bytes('<?xml version="1.0"?>\n<!-- logo -->\n<svg xmlns="http://www.w3.org/2000/svg">'), "svg"],
    ["a pdf", bytes("%PDF-1.7"), "pdf"],
    ["a bmp", bytes("BM", [0, 0, 0, 0]), "bmp"],
    ["a tiff", bytes([0x49, 0x49, 0x2a, 0x00]), "tiff"],
    ["an avif", bytes([0, 0, 0, 0x1c], "ftypavif"), "avif"],
    ["text", bytes("hello.png is not a png"), "text"],
    ["a binary", bytes([1, 2, 0, 3]), "binary"],
    ["an empty file", bytes(), "empty"],
    ["a RIFF that is not WebP", bytes("RIFF", [0, 0, 0, 0], "WAVEfmt "), "binary"],
    ["a truncated png signature", bytes([0x89], "PNG"), "text"],
  ])("names %s as %s, not an image", (_name, data, kind) => {
    expect(sniffImage(data)).toEqual({ image: false, kind });
  });
});
