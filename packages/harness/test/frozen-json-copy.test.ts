import { describe, expect, it } from "vitest";
import { deepFreeze, frozenJsonCopy, type JsonValue } from "../src/index.js";

function everyObjectFrozen(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(everyObjectFrozen);
}

describe("frozenJsonCopy", () => {
  it("copies a JSON value into new, deeply frozen objects", () => {
    const source = { a: [1, { b: "x", c: null }], d: { e: true, f: [] } };
    const copy = frozenJsonCopy(source as JsonValue);
    expect(copy).toEqual(source);
    expect(copy).not.toBe(source);
    expect((copy as { a: unknown[] }).a).not.toBe(source.a);
    expect(everyObjectFrozen(copy)).toBe(true);
    // The source is untouched and still writable.
    expect(Object.isFrozen(source)).toBe(false);
    source.d.e = false;
    expect((copy as { d: { e: boolean } }).d.e).toBe(true);
  });

  it("returns primitives as they are", () => {
    expect(frozenJsonCopy("text")).toBe("text");
    expect(frozenJsonCopy(3)).toBe(3);
    expect(frozenJsonCopy(null)).toBe(null);
  });

  it("gives deepFreeze a value it returns as it is", () => {
    const copy = frozenJsonCopy({ list: [1] }) as { list: number[] };
    expect(deepFreeze(copy)).toBe(copy);
    expect(Object.isFrozen(copy.list)).toBe(true);
  });

  it("falls back to structuredClone for what is not plain JSON: class instances, cycles, deep nesting", () => {
    const date = new Date(0);
    const withDate = frozenJsonCopy({ when: date } as unknown as JsonValue) as unknown as { when: Date };
    expect(withDate.when).toBeInstanceOf(Date);
    expect(withDate.when).not.toBe(date);
    expect(Object.isFrozen(withDate)).toBe(true);

    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const copied = frozenJsonCopy(cyclic as unknown as JsonValue) as unknown as Record<string, unknown>;
    expect(copied.self).toBe(copied);
    expect(copied).not.toBe(cyclic);

    let deep: JsonValue = "bottom";
    for (let level = 0; level < 200; level++) deep = [deep];
    const deepCopy = frozenJsonCopy(deep);
    expect(deepCopy).toEqual(deep);
    expect(everyObjectFrozen(deepCopy)).toBe(true);
  });

  it("refuses a function the way structuredClone does", () => {
    expect(() => frozenJsonCopy({ run: () => 1 } as unknown as JsonValue)).toThrow(/could not be cloned/);
  });
});

describe("deepFreeze", () => {
  it("freezes what a shallow freeze left writable, every time it is called", () => {
    const inner = { list: [1] };
    const outer = Object.freeze({ inner });
    deepFreeze(outer);
    expect(Object.isFrozen(inner.list)).toBe(true);
    const later = { added: [2] };
    const holder = Object.freeze({ later });
    deepFreeze(holder);
    expect(Object.isFrozen(later.added)).toBe(true);
  });

  it("stops at a cycle and freezes deep nesting", () => {
    const cyclic: Record<string, unknown> = { list: [] };
    cyclic.self = cyclic;
    (cyclic.list as unknown[]).push(cyclic);
    expect(deepFreeze(cyclic)).toBe(cyclic);
    expect(Object.isFrozen(cyclic)).toBe(true);
    expect(Object.isFrozen(cyclic.list)).toBe(true);

    const root: { next?: unknown } = {};
    let node = root;
    for (let level = 0; level < 500; level++) {
      const next = {};
      node.next = next;
      node = next;
    }
    deepFreeze(root);
    expect(Object.isFrozen(node)).toBe(true);
  });
});

describe("shared parts", () => {
  it("are walked and copied once, not once per path to them", () => {
    // Each level refers to the one below twice: 2^40 paths, 41 objects.
    let shared: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 40; level++) shared = { left: shared, right: shared };
    expect(deepFreeze(shared)).toBe(shared);
    expect(Object.isFrozen(shared.left)).toBe(true);
    const copy = frozenJsonCopy(shared as unknown as JsonValue) as unknown as Record<string, unknown>;
    expect(copy.left).toBe(copy.right);
    expect(Object.isFrozen(copy)).toBe(true);
  });
});
