/**
 * A small seeded generator for tests that compare two implementations on many made-up values: a
 * failure names a value that can be made again. `pick` chooses one of a list; `below` an integer
 * from 0 to n - 1.
 */
export function generator(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s ^ (s >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    s = Math.imul(s ^ (s >>> 13), 3266489909) >>> 0;
    return (s ^ (s >>> 16)) >>> 0;
  };
  const pick = <T>(xs: readonly T[]): T => xs[next() % xs.length]!;
  return Object.assign(pick, { below: (n: number) => next() % n });
}
