// A Playwright key expression (`Enter`, `Shift+Tab`, `Control+a`, `ArrowRight`) as the
// Input.dispatchKeyEvent sequence a US keyboard produces: modifiers down, the key down and
// up, modifiers up.
import { BrowserToolError } from "@castellan/node-runner";
import type { PageSession } from "./operation.js";

interface KeyDefinition {
  readonly key: string;
  readonly code: string;
  readonly keyCode: number;
  /** The text typed, for printable keys. */
  readonly text?: string;
  /** The text typed with Shift, for printable keys. */
  readonly shiftText?: string;
}

/** CDP modifier bits. */
const modifierBits: Record<string, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };
const modifierKeys: Record<string, KeyDefinition> = {
  Alt: { key: "Alt", code: "AltLeft", keyCode: 18 },
  Control: { key: "Control", code: "ControlLeft", keyCode: 17 },
  Meta: { key: "Meta", code: "MetaLeft", keyCode: 91 },
  Shift: { key: "Shift", code: "ShiftLeft", keyCode: 16 },
};

const named: Record<string, KeyDefinition> = {
  Enter: { key: "Enter", code: "Enter", keyCode: 13, text: "\r" },
  Tab: { key: "Tab", code: "Tab", keyCode: 9 },
  Backspace: { key: "Backspace", code: "Backspace", keyCode: 8 },
  Escape: { key: "Escape", code: "Escape", keyCode: 27 },
  Delete: { key: "Delete", code: "Delete", keyCode: 46 },
  Insert: { key: "Insert", code: "Insert", keyCode: 45 },
  Home: { key: "Home", code: "Home", keyCode: 36 },
  End: { key: "End", code: "End", keyCode: 35 },
  PageUp: { key: "PageUp", code: "PageUp", keyCode: 33 },
  PageDown: { key: "PageDown", code: "PageDown", keyCode: 34 },
  ArrowLeft: { key: "ArrowLeft", code: "ArrowLeft", keyCode: 37 },
  ArrowUp: { key: "ArrowUp", code: "ArrowUp", keyCode: 38 },
  ArrowRight: { key: "ArrowRight", code: "ArrowRight", keyCode: 39 },
  ArrowDown: { key: "ArrowDown", code: "ArrowDown", keyCode: 40 },
  Space: { key: " ", code: "Space", keyCode: 32, text: " " },
  " ": { key: " ", code: "Space", keyCode: 32, text: " " },
  ...modifierKeys,
};

/** US punctuation keys: unshifted, shifted, code, keyCode. */
const punctuation: readonly [string, string, string, number][] = [
  ["`", "~", "Backquote", 192],
  ["-", "_", "Minus", 189],
  ["=", "+", "Equal", 187],
  ["[", "{", "BracketLeft", 219],
  ["]", "}", "BracketRight", 221],
  ["\\", "|", "Backslash", 220],
  [";", ":", "Semicolon", 186],
  ["'", '"', "Quote", 222],
  [",", "<", "Comma", 188],
  [".", ">", "Period", 190],
  ["/", "?", "Slash", 191],
];
const digitShifted = ")!@#$%^&*(";

function definition(name: string): KeyDefinition | undefined {
  const known = named[name];
  if (known) return known;
  const fn = /^F([1-9]|1[0-2])$/.exec(name);
  if (fn) return { key: name, code: name, keyCode: 111 + Number(fn[1]) };
  if (/^[a-z]$/.test(name))
    return {
      key: name,
      code: `Key${name.toUpperCase()}`,
      keyCode: name.toUpperCase().charCodeAt(0),
      text: name,
      shiftText: name.toUpperCase(),
    };
  if (/^[A-Z]$/.test(name))
    return { key: name, code: `Key${name}`, keyCode: name.charCodeAt(0), text: name, shiftText: name };
  if (/^Key[A-Z]$/.test(name)) return definition(name.slice(3).toLowerCase());
  if (/^[0-9]$/.test(name))
    return {
      key: name,
      code: `Digit${name}`,
      keyCode: name.charCodeAt(0),
      text: name,
      shiftText: digitShifted[Number(name)]!,
    };
  if (/^Digit[0-9]$/.test(name)) return definition(name.slice(5));
  for (const [plain, shifted, code, keyCode] of punctuation) {
    if (name === plain || name === code) return { key: plain, code, keyCode, text: plain, shiftText: shifted };
    if (name === shifted) return { key: shifted, code, keyCode, text: shifted, shiftText: shifted };
  }
  return undefined;
}

/** A parsed key expression: its modifiers and its key. */
export interface KeyPress {
  readonly modifiers: readonly string[];
  readonly key: KeyDefinition;
}

/** Parses `expression`; `browser_action_failed` names what is not a key. */
export function parseKey(expression: string): KeyPress {
  const parts = expression.endsWith("++") ? [...expression.slice(0, -2).split("+"), "+"] : expression.split("+");
  const last = parts.pop() ?? "";
  const modifiers = parts.map((part) =>
    part === "ControlOrMeta" ? (process.platform === "darwin" ? "Meta" : "Control") : part,
  );
  for (const modifier of modifiers) {
    if (!(modifier in modifierBits)) {
      throw new BrowserToolError(
        "browser_action_failed",
        `${JSON.stringify(modifier)} is not a modifier; use Shift, Control, Alt, Meta or ControlOrMeta.`,
      );
    }
  }
  const key = definition(last);
  if (!key) {
    throw new BrowserToolError(
      "browser_action_failed",
      `${JSON.stringify(last)} is not a key name; use a Playwright key such as Enter, Tab, ArrowRight, a or Shift+Tab.`,
    );
  }
  return { modifiers, key };
}

/** Presses `expression` on the focused element of the attached page. */
export async function pressKey(page: PageSession, expression: string): Promise<void> {
  const { modifiers, key } = parseKey(expression);
  let bits = 0;
  for (const modifier of modifiers) {
    const held = modifierKeys[modifier]!;
    bits |= modifierBits[modifier]!;
    await page.send("Input.dispatchKeyEvent", {
      type: "rawKeyDown",
      key: held.key,
      code: held.code,
      windowsVirtualKeyCode: held.keyCode,
      modifiers: bits,
    });
  }
  const shifted = (bits & modifierBits.Shift!) !== 0;
  const text = (bits & ~modifierBits.Shift!) === 0 ? (shifted ? (key.shiftText ?? key.text) : key.text) : undefined;
  const keyName = shifted && key.shiftText !== undefined ? key.shiftText : key.key;
  const common = { key: keyName, code: key.code, windowsVirtualKeyCode: key.keyCode, modifiers: bits };
  await page.send(
    "Input.dispatchKeyEvent",
    text === undefined ? { type: "rawKeyDown", ...common } : { type: "keyDown", ...common, text, unmodifiedText: text },
  );
  await page.send("Input.dispatchKeyEvent", { type: "keyUp", ...common });
  for (const modifier of [...modifiers].reverse()) {
    const held = modifierKeys[modifier]!;
    bits &= ~modifierBits[modifier]!;
    await page.send("Input.dispatchKeyEvent", {
      type: "keyUp",
      key: held.key,
      code: held.code,
      windowsVirtualKeyCode: held.keyCode,
      modifiers: bits,
    });
  }
}
