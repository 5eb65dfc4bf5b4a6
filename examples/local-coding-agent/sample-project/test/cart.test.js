import assert from "node:assert/strict";
import { test } from "node:test";
import { cartTotal, itemCount } from "../src/cart.js";

const cart = [
  { name: "notebook", price: 450, quantity: 2 },
  { name: "pen", price: 120, quantity: 3 },
];

test("cartTotal counts every unit of a line item", () => {
  assert.equal(cartTotal(cart), 1260);
});

test("cartTotal of an empty cart is 0", () => {
  assert.equal(cartTotal([]), 0);
});

test("itemCount adds the quantities", () => {
  assert.equal(itemCount(cart), 5);
});
