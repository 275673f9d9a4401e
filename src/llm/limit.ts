/**
 * A counting semaphore: at most `limit` holders at once, the rest wait in arrival order. One per
 * LLM server, so extraction, judges and answers together never flood a local llama.cpp.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next waiter (active stays the same), else free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
