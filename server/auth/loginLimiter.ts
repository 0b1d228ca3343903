/**
 * Counts failed sign-ins per account and per address in a sliding window. Successful sign-ins
 * never count, and one account's failures never block another account.
 */
export class LoginLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxPerAccount: number,
    private readonly maxPerAddress: number,
    private readonly windowMs = 15 * 60 * 1000,
  ) {}

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** True while both the account and the address are under their limits. */
  allowed(email: string, address: string, now = Date.now()): boolean {
    return (
      this.recent(`a:${email}`, now).length < this.maxPerAccount &&
      this.recent(`ip:${address}`, now).length < this.maxPerAddress
    );
  }

  recordFailure(email: string, address: string, now = Date.now()): void {
    for (const key of [`a:${email}`, `ip:${address}`]) {
      const list = this.recent(key, now);
      list.push(now);
      this.failures.set(key, list);
    }
    if (this.failures.size > 100_000) this.prune(now);
  }

  /** A successful sign-in clears that account's failures (not the address's). */
  recordSuccess(email: string): void {
    this.failures.delete(`a:${email}`);
  }

  private prune(now: number): void {
    for (const key of this.failures.keys()) this.recent(key, now);
  }
}
