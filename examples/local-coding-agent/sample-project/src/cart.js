// The cart of the sample shop: line items with a unit price (in cents) and a quantity.

/** The total of the cart's line items, in cents. */
export function cartTotal(items) {
  return items.reduce((sum, item) => sum + item.price, 0);
}

/** The number of units in the cart. */
export function itemCount(items) {
  return items.reduce((count, item) => count + item.quantity, 0);
}
