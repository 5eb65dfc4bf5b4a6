/** An image format `read_workspace_image` returns, by its media type. */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** What the first bytes of a file say it is: one of the images, or another kind by name. */
export type SniffedKind =
  | { readonly image: true; readonly mediaType: ImageMediaType }
  | { readonly image: false; readonly kind: string };

/** How many leading bytes `sniffImage` needs to decide. */
export const sniffBytes = 512;

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((byte, index) => bytes[at + index] === byte);

const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));

/**
 * Decides a file's format from its magic bytes, never its name: PNG, JPEG, GIF (87a and 89a)
 * and WebP (a RIFF container holding `WEBP`) are images. Anything else is named as well as
 * the first bytes allow (`svg`, `pdf`, `bmp`, `tiff`, `ico`, `avif`, `heic`, `text`,
 * `binary`, `empty`), so a refusal can say what the file is. Reads at most `sniffBytes`.
 */
export function sniffImage(bytes: Uint8Array): SniffedKind {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return image("image/png");
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return image("image/jpeg");
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return image("image/gif");
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return image("image/webp");
  return { image: false, kind: otherKind(bytes) };
}

function image(mediaType: ImageMediaType): SniffedKind {
  return { image: true, mediaType };
}

function otherKind(bytes: Uint8Array): string {
  if (bytes.length === 0) return "empty";
  if (startsWith(bytes, ascii("%PDF-"))) return "pdf";
  if (startsWith(bytes, ascii("BM"))) return "bmp";
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return "tiff";
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00])) return "ico";
  if (startsWith(bytes, ascii("ftyp"), 4)) {
    const brand = String.fromCharCode(...bytes.subarray(8, 12));
    if (brand === "avif" || brand === "avis") return "avif";
    if (brand.startsWith("hei") || brand === "mif1") return "heic";
    return "mp4";
  }
  if (bytes.includes(0)) return "binary";
  // Text: an SVG is XML whose root element is <svg>, possibly after a prolog and comments.
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, sniffBytes)).toLowerCase();
  if (/<svg[\s>]/.test(head)) return "svg";
  return "text";
}
