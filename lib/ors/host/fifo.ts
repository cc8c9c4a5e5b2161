// A first-in first-out queue on an array with a moving head, O(1) at both ends: how the host keeps
// ended sessions and kept results in the order they came and forgets the oldest first. (A Map or a Set
// emptied from its front is slow to read there: deleted entries stay in place until the table is
// rebuilt, so finding the oldest cost more the more had gone.)
export class Fifo<T> {
  private items: Array<T | undefined> = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, left in place. */
  peek(): T | undefined {
    return this.items[this.head];
  }

  /** Removes and returns the oldest item. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    // Drop the consumed front once it is half the array: amortised O(1), bounded memory.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
