/**
 * A binary min-heap of (key, two int payloads), ties broken first-in first-out. After pop(), the
 * popped entry's payloads are in `a` and `b` and its key in `key`.
 */
export class OpenList {
  #keys = new Float64Array(1024);
  #seqs = new Float64Array(1024);
  #as = new Int32Array(1024);
  #bs = new Int32Array(1024);
  #seq = 0;
  size = 0;
  key = 0;
  a = 0;
  b = 0;

  get bytes(): number {
    return this.#keys.length * 24;
  }

  #less(i: number, key: number, seq: number): boolean {
    return this.#keys[i]! < key || (this.#keys[i] === key && this.#seqs[i]! < seq);
  }

  push(key: number, a: number, b = 0): void {
    if (this.size === this.#keys.length) this.#grow();
    const seq = this.#seq++;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#less(parent, key, seq)) break;
      this.#move(parent, i);
      i = parent;
    }
    this.#set(i, key, seq, a, b);
  }

  pop(): void {
    this.key = this.#keys[0]!;
    this.a = this.#as[0]!;
    this.b = this.#bs[0]!;
    const n = --this.size;
    const key = this.#keys[n]!;
    const seq = this.#seqs[n]!;
    const a = this.#as[n]!;
    const b = this.#bs[n]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.#less(child + 1, this.#keys[child]!, this.#seqs[child]!)) child++;
      if (!this.#less(child, key, seq)) break;
      this.#move(child, i);
      i = child;
    }
    this.#set(i, key, seq, a, b);
  }

  #move(from: number, to: number): void {
    this.#set(to, this.#keys[from]!, this.#seqs[from]!, this.#as[from]!, this.#bs[from]!);
  }

  #set(i: number, key: number, seq: number, a: number, b: number): void {
    this.#keys[i] = key;
    this.#seqs[i] = seq;
    this.#as[i] = a;
    this.#bs[i] = b;
  }

  #grow(): void {
    const n = this.#keys.length * 2;
    const keys = new Float64Array(n);
    keys.set(this.#keys);
    const seqs = new Float64Array(n);
    seqs.set(this.#seqs);
    const as = new Int32Array(n);
    as.set(this.#as);
    const bs = new Int32Array(n);
    bs.set(this.#bs);
    this.#keys = keys;
    this.#seqs = seqs;
    this.#as = as;
    this.#bs = bs;
  }
}
