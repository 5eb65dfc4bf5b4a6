// The package builds without Node's types, so bytes are encoded with the web platform's btoa.

/** Base64 of bytes, in slices so a large file does not overflow the argument list. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  const slice = 0x8000;
  for (let index = 0; index < bytes.length; index += slice) {
    binary += String.fromCharCode(...bytes.subarray(index, index + slice));
  }
  return btoa(binary);
}
