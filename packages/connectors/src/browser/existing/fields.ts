// Form controls: fill replaces a field's value through native editing input (focus, select
// all, insert); select picks a native <select> option by its visible label and fires
// `input` and `change`, as a user's choice does.
import { BrowserToolError } from "@castellan/node-runner";
import type { AxNode } from "./ax-tree.js";
import type { PageSession } from "./operation.js";

const editableRoles = new Set(["textbox", "searchbox", "combobox", "spinbutton"]);

function isEditable(node: AxNode): boolean {
  const editable = node.properties.get("editable");
  return (typeof editable === "string" && editable !== "") || editableRoles.has(node.role);
}

/** Replaces the value of the editable `node` with `value`. */
export async function fill(page: PageSession, node: AxNode, value: string): Promise<void> {
  if (node.backendId === undefined || !isEditable(node)) {
    throw new BrowserToolError(
      "browser_action_failed",
      `The ${node.role} ${JSON.stringify(node.name)} is not an editable field; fill a textbox.`,
    );
  }
  if (node.properties.get("disabled") === true || node.properties.get("readonly") === true) {
    throw new BrowserToolError(
      "browser_action_failed",
      `The ${node.role} ${JSON.stringify(node.name)} is disabled or read-only.`,
    );
  }
  await page.send("DOM.focus", { backendNodeId: node.backendId });
  const selectAll = { key: "a", code: "KeyA", windowsVirtualKeyCode: 65, modifiers: 2 };
  await page.send("Input.dispatchKeyEvent", { type: "rawKeyDown", ...selectAll, commands: ["selectAll"] });
  await page.send("Input.dispatchKeyEvent", { type: "keyUp", ...selectAll });
  if (value === "") {
    const remove = { key: "Delete", code: "Delete", windowsVirtualKeyCode: 46 };
    await page.send("Input.dispatchKeyEvent", { type: "rawKeyDown", ...remove });
    await page.send("Input.dispatchKeyEvent", { type: "keyUp", ...remove });
  } else {
    await page.send("Input.insertText", { text: value });
  }
}

// A fixed function, never the model's: it chooses the option and fires what a user's choice fires.
const chooseOption = `function (label) {
  const options = Array.from(this.options);
  const option = options.find((candidate) => candidate.label === label || candidate.textContent.trim() === label);
  if (!option) return { found: false, labels: options.map((candidate) => candidate.label).slice(0, 20) };
  if (this.disabled || option.disabled) return { found: true, disabled: true };
  for (const candidate of options) candidate.selected = candidate === option;
  this.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  this.dispatchEvent(new Event("change", { bubbles: true }));
  return { found: true, disabled: false };
}`;

/** Selects the option labelled `label` of the native `<select>` behind `node`. */
export async function selectOption(page: PageSession, node: AxNode, label: string): Promise<void> {
  if (node.backendId === undefined) {
    throw new BrowserToolError(
      "browser_not_native_select",
      "The element is not a native <select>; use browser_click for custom menus.",
    );
  }
  const { node: described } = await page.send<{ node: { nodeName: string } }>("DOM.describeNode", {
    backendNodeId: node.backendId,
  });
  if (described.nodeName.toUpperCase() !== "SELECT") {
    throw new BrowserToolError(
      "browser_not_native_select",
      `The ${node.role} ${JSON.stringify(node.name)} is not a native <select>; use browser_click to open a custom menu and pick its option.`,
    );
  }
  const { object } = await page.send<{ object: { objectId: string } }>("DOM.resolveNode", {
    backendNodeId: node.backendId,
    objectGroup: "castellan",
  });
  const { result } = await page.send<{ result: { value?: { found: boolean; disabled?: boolean; labels?: string[] } } }>(
    "Runtime.callFunctionOn",
    {
      functionDeclaration: chooseOption,
      objectId: object.objectId,
      arguments: [{ value: label }],
      returnByValue: true,
      userGesture: true,
    },
  );
  const outcome = result.value;
  if (!outcome?.found) {
    throw new BrowserToolError(
      "browser_option_not_found",
      `The ${node.role} ${JSON.stringify(node.name)} has no option labelled ${JSON.stringify(label)}; its options are ${JSON.stringify(outcome?.labels ?? [])}.`,
    );
  }
  if (outcome.disabled) {
    throw new BrowserToolError(
      "browser_action_failed",
      `The option ${JSON.stringify(label)} or its <select> is disabled.`,
    );
  }
}
