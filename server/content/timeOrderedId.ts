import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

/**
 * A UUID version 7 (RFC 9562): the time in milliseconds, then a counter within the millisecond
 * (method 1, 12 bits), then random bits. Ids made one after another sort in the order they were
 * made, so rows written in that order go to the end of their indexes instead of all over them.
 */
export function timeOrderedId(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    ms = lastMs;
    counter++;
    // The counter ran out within this millisecond: the next one is borrowed.
    if (counter > 0xfff) {
      ms = ++lastMs;
      counter = 0;
    }
  } else {
    counter = 0;
  }
  lastMs = ms;
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
