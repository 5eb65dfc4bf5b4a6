// Credential redaction shared by the adapters: long secrets wherever they occur, short ones
// (a local server's "x") only as whole tokens, so error messages stay readable.
import { describe, expect, it } from "vitest";
import { REDACTED, redact, redactor } from "../../src/shared/redact.js";

describe("redactor", () => {
  it("replaces a secret of 8 or more characters wherever it occurs, even inside a word", () => {
    const key = "sk-test-0123456789";
    const text = `Incorrect API key provided: ${key}. Header was Bearer${key}; url ?key=${key}x`;
    const clean = redactor(key)(text);
    expect(clean).not.toContain(key);
    expect(clean).toBe(`Incorrect API key provided: ${REDACTED}. Header was Bearer${REDACTED}; url ?key=${REDACTED}x`);
  });

  it("replaces a short secret only where it stands as a whole token", () => {
    const clean = redactor("x")("Invalid key x for model x-large at max_x: expected 'x', got x");
    expect(clean).toBe(`Invalid key ${REDACTED} for model x-large at max_x: expected '${REDACTED}', got ${REDACTED}`);
  });

  it("counts start and end of the text, and any character outside [A-Za-z0-9_-], as token bounds", () => {
    const apply = redactor("local");
    expect(apply("local")).toBe(REDACTED);
    expect(apply("key=local&x=1")).toBe(`key=${REDACTED}&x=1`);
    expect(apply("(local)\nlocal.")).toBe(`(${REDACTED})\n${REDACTED}.`);
    expect(apply("localhost, locally, nonlocal, local_key, local-key, local1")).toBe(
      "localhost, locally, nonlocal, local_key, local-key, local1",
    );
  });

  it("takes a secret containing regular-expression metacharacters literally", () => {
    expect(redactor("a.b*")("a.b* and axb* and a.bbb")).toBe(`${REDACTED} and axb* and a.bbb`);
    expect(redactor("(x)|y")("got (x)|y, not x or y")).toBe(`got ${REDACTED}, not x or y`);
    expect(redactor("$&\\d")("raw $&\\d here")).toBe(`raw ${REDACTED} here`);
    const long = "k3y.+?[a-z]{2}$^|\\()";
    expect(redactor(long)(`echo:${long}:echo and k3yyyyab`)).toBe(`echo:${REDACTED}:echo and k3yyyyab`);
  });

  it("replaces every credential it was made for, the longer first", () => {
    const apply = redactor("abc", "abcdefghij", undefined, "");
    expect(apply("abcdefghij abc abcd")).toBe(`${REDACTED} ${REDACTED} abcd`);
  });

  it("leaves the text alone without a credential", () => {
    expect(redactor()("nothing to hide")).toBe("nothing to hide");
    expect(redactor("")("nothing to hide")).toBe("nothing to hide");
    expect(redact("nothing to hide", undefined)).toBe("nothing to hide");
  });

  it("is the same rule as a one-off redact", () => {
    const text = "x marks the spot; sk-long-secret-value leaked";
    expect(redact(text, "x")).toBe(redactor("x")(text));
    expect(redact(text, "sk-long-secret-value")).toBe(`x marks the spot; ${REDACTED} leaked`);
  });
});
