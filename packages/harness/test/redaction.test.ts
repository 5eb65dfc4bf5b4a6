// The one redactor: every registered secret replaced wherever it occurs, whatever its length,
// in text, JSON-like values and errors (message, stack, fields, cause chains, AggregateError),
// and util.inspect of a Castellan error never printing one.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { CastellanError, createRedactor, REDACTED } from "../src/index.js";

const token = "tok-reflected-0123";

/** A Castellan error of a code that exists, with a field of its own. */
class FieldError extends CastellanError {
  readonly detail: string;
  constructor(message: string, detail: string, options?: { cause?: unknown }) {
    super("resource_failed", message, options);
    this.detail = detail;
  }
}

describe("createRedactor().scrub", () => {
  it("replaces a secret wherever it occurs, inside words too", () => {
    const scrub = createRedactor([token]).scrub;
    expect(scrub(`key ${token}, Bearer${token}; ?k=${token}x`)).toBe(
      `key ${REDACTED}, Bearer${REDACTED}; ?k=${REDACTED}x`,
    );
  });

  it("replaces secrets of one and two characters everywhere, and never rewrites a marker it wrote", () => {
    const redactor = createRedactor(["x", "ab"]);
    const clean = redactor.scrub("max_x: xab-abx");
    expect(clean).toBe(`ma${REDACTED}_${REDACTED}: ${REDACTED}${REDACTED}-${REDACTED}${REDACTED}`);
    expect(clean.split(REDACTED).join("")).not.toMatch(/x|ab/);
    // "d" and "e" are letters of the marker: scrubbing again changes nothing.
    const letters = createRedactor(["d", "e"]);
    const once = letters.scrub("dead end");
    expect(once.split(REDACTED).join("")).not.toMatch(/[de]/);
    expect(letters.scrub(once)).toBe(once);
  });

  it("replaces the longer of two overlapping secrets whole, and takes metacharacters literally", () => {
    const redactor = createRedactor(["abc", "abcdefghij", undefined, "", "a.b*", "$&"]);
    expect(redactor.size).toBe(4);
    expect(redactor.scrub("abcdefghij abc abcd axb* a.b* $&")).toBe(
      `${REDACTED} ${REDACTED} ${REDACTED}d axb* ${REDACTED} ${REDACTED}`,
    );
  });

  it("takes secrets added later, and leaves text alone with none", () => {
    const redactor = createRedactor();
    expect(redactor.scrub("nothing to hide")).toBe("nothing to hide");
    redactor.add("hide");
    expect(redactor.scrub("nothing to hide")).toBe(`nothing to ${REDACTED}`);
  });
});

describe("createRedactor().scrubJson", () => {
  it("copies arrays and objects with every string scrubbed, and scrubs an error inside in place", () => {
    const redactor = createRedactor([token]);
    const error = new Error(`failed: ${token}`);
    const value = { a: [token, 1, { b: `x${token}` }], c: null, error };
    const clean = redactor.scrubJson(value);
    expect(clean).toEqual({ a: [REDACTED, 1, { b: `x${REDACTED}` }], c: null, error });
    expect(value.a[0]).toBe(token);
    expect(clean.error).toBe(error);
    expect(error.message).toBe(`failed: ${REDACTED}`);
  });
});

describe("createRedactor().scrubError", () => {
  function tangled() {
    const leaf = new Error(`leaf ${token}`);
    const aggregate = new AggregateError([leaf, `plain ${token}`], `several ${token}`);
    const middle = Object.assign(new Error(`middle ${token}`, { cause: aggregate }), {
      body: { header: `Bearer ${token}`, list: [token] },
      status: 500,
    });
    const top = new FieldError(`top ${token}`, `field ${token}`, { cause: middle });
    return { top, middle, aggregate, leaf };
  }

  it("scrubs message, stack, fields, nested plain values, the cause chain and AggregateError.errors", () => {
    const { top, middle, aggregate, leaf } = tangled();
    expect(createRedactor([token]).scrubError(top)).toBe(top);
    for (const error of [top, middle, aggregate, leaf]) {
      expect(error.message).not.toContain(token);
      expect(error.stack ?? "").not.toContain(token);
    }
    expect(top.detail).toBe(`field ${REDACTED}`);
    expect(middle.body).toEqual({ header: `Bearer ${REDACTED}`, list: [REDACTED] });
    expect(aggregate.errors[1]).toBe(`plain ${REDACTED}`);
  });

  it("survives a cycle and a frozen error", () => {
    const looped = new Error(`loop ${token}`);
    (looped as { cause?: unknown }).cause = looped;
    createRedactor([token]).scrubError(looped);
    expect(looped.message).toBe(`loop ${REDACTED}`);
    const frozen = Object.freeze(new FieldError(`frozen ${token}`, token));
    expect(() => createRedactor([token]).scrubError(frozen)).not.toThrow();
    // Nothing could be written; printing it is still scrubbed.
    expect(inspect(frozen)).not.toContain(token);
  });

  it("makes util.inspect of a Castellan error print no secret: its own, a wrapper's around it, at any depth", () => {
    const { top } = tangled();
    // A field no in-place pass can reach: an instance of another class.
    (top as unknown as { headers: Map<string, string> }).headers = new Map([["authorization", `Bearer ${token}`]]);
    createRedactor([token]).scrubError(top);
    const wrapper = new FieldError("the open failed", "no secret here", { cause: top });
    for (const printed of [
      inspect(top, { depth: 20 }),
      inspect(top, { depth: 20, showHidden: true }),
      inspect(wrapper, { depth: 20 }),
      inspect({ nested: [wrapper] }, { depth: 20 }),
    ]) {
      expect(printed).toContain(REDACTED);
      expect(printed).not.toContain(token);
    }
  });

  it("leaves the printing of an error no redactor saw as Node prints it", () => {
    const error = new FieldError("plain", "value");
    const printed = inspect(error);
    expect(printed).toContain("FieldError: plain");
    expect(printed).toContain("detail: 'value'");
  });
});
