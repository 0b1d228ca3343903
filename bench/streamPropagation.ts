/**
 * Section 1 of the change-stream step (bench/stream.ts), propagation: writes of an availability
 * cell of the large service through each process in turn; after each, the other two are polled
 * (GET /full, a reader's token) until the new value shows, and, in a second series, the time the SSE
 * `catalog` event reaches a stream opened on each of the other two is taken.
 */
import { percentile } from './http';
import type { StreamRun } from './stream';
import { fmt, openStream, PROCESSES, sleep, type LightStream } from './streamClient';

/** A process that was never told would never show the value: fails the bench rather than wait. */
const BOUND_MS = 5000;

/**
 * Measures the propagation and adds its figures and note to the run. Returns the streams it opened
 * on each process, one per process in the order of the run's urls; they are in the run's `streams`
 * too, and stay open.
 */
export async function measurePropagation(run: StreamRun): Promise<LightStream[]> {
  const { o, urls, tokens, slug, stamp, figures, notes, streams, read, write } = run;
  const section1 = 'Propagation across three processes';
  for (let i = 0; i < PROCESSES; i++) if ((await read(i)).status !== 200) throw new Error('the reader could not read /full');
  // A few writes not counted warm every process's write and rebuild paths.
  for (let n = 0; n < 6; n++) {
    const value = `Warm-up ${stamp} ${n}`;
    if ((await write(n % PROCESSES, n, value)).status !== 200) throw new Error('a warm-up write failed');
    for (let i = 0; i < PROCESSES; i++) {
      const start = performance.now();
      while (!(await read(i)).text.includes(value)) if (performance.now() - start > BOUND_MS) throw new Error('warm-up write not seen');
    }
  }
  o.log(`stream: propagation, ${o.writes} writes polled through /full`);
  const polled: number[] = [];
  const rebuilt: number[] = [];
  for (let n = 0; n < o.writes; n++) {
    const via = n % PROCESSES;
    const value = `Polled ${stamp} ${n}`;
    const wrote = await write(via, n, value);
    if (wrote.status !== 200) throw new Error(`write ${n} answered ${wrote.status}`);
    const answered = performance.now();
    await Promise.all(
      [0, 1, 2]
        .filter((i) => i !== via)
        .map(async (i) => {
          for (;;) {
            const reply = await read(i);
            if (reply.text.includes(value)) {
              rebuilt.push(reply.serverMs);
              return polled.push(performance.now() - answered);
            }
            if (performance.now() - answered > BOUND_MS)
              throw new Error(`write ${n} through process ${via} not seen through process ${i} within ${BOUND_MS} ms`);
            await sleep(1);
          }
        }),
    );
  }
  figures.push({
    section: section1,
    name: `Write through one process to its value in /full through the other two, p50 (ms; ${polled.length} reads)`,
    value: percentile(polled, 50),
    unit: 'ms',
  });
  figures.push({
    section: section1,
    name: 'Write through one process to its value in /full through the other two, p99 (ms)',
    value: percentile(polled, 99),
    unit: 'ms',
    target: { value: 100, atMost: true },
  });
  figures.push({
    section: section1,
    name: 'Server time of the first /full that showed the value (its body built again), p50 (ms)',
    value: percentile(rebuilt, 50),
    unit: 'ms',
  });
  figures.push({ section: section1, name: 'Server time of the first /full that showed the value, p99 (ms)', value: percentile(rebuilt, 99), unit: 'ms' });
  o.log(`stream: rebuild server time p50 ${fmt(percentile(rebuilt, 50))} ms, p99 ${fmt(percentile(rebuilt, 99))}`);
  o.log(`stream: /full p50 ${fmt(percentile(polled, 50))} ms, p99 ${fmt(percentile(polled, 99))} ms, max ${fmt(Math.max(...polled))}`);

  o.log(`stream: propagation, ${o.writes} writes heard on SSE streams`);
  const listeners = await Promise.all(urls.map((u) => openStream(u, tokens.reader, slug)));
  streams.push(...listeners);
  if (listeners.some((s) => s.status !== 200)) throw new Error(`GET /api/events answered ${listeners.map((s) => s.status).join(', ')}`);
  await sleep(200);
  const fromAnswer: number[] = [];
  const fromSent: number[] = [];
  let before = 0;
  for (let n = 0; n < o.writes; n++) {
    const via = n % PROCESSES;
    const others = listeners.filter((_, i) => i !== via);
    const marks = others.map((s) => s.arrivals.length);
    const ownMark = listeners[via]!.arrivals.length;
    const sent = performance.now();
    const wrote = await write(via, n, `Streamed ${stamp} ${n}`);
    const answered = performance.now();
    if (wrote.status !== 200) throw new Error(`write ${n} answered ${wrote.status}`);
    await Promise.all(
      others.map(async (s, k) => {
        const start = performance.now();
        while (s.arrivals.length <= marks[k]!) {
          if (performance.now() - start > BOUND_MS) throw new Error(`write ${n}: no catalog event within ${BOUND_MS} ms`);
          await sleep(1);
        }
        const at = s.arrivals[marks[k]!]!;
        if (at < answered) before++;
        fromAnswer.push(Math.max(0, at - answered));
        fromSent.push(at - sent);
      }),
    );
    // The stream of the process written through hears its own write too: not counted, but awaited,
    // so that it is not taken for the next write's event.
    const own = listeners[via]!;
    const start = performance.now();
    while (own.arrivals.length <= ownMark) {
      if (performance.now() - start > BOUND_MS) throw new Error(`write ${n}: its own process sent no catalog event`);
      await sleep(1);
    }
  }
  figures.push({
    section: section1,
    name: `Write's answer to the SSE catalog event on the other two processes, p50 (ms; ${fromAnswer.length} events)`,
    value: percentile(fromAnswer, 50),
    unit: 'ms',
  });
  figures.push({
    section: section1,
    name: "Write's answer to the SSE catalog event on the other two processes, p99 (ms)",
    value: percentile(fromAnswer, 99),
    unit: 'ms',
    target: { value: 100, atMost: true },
  });
  figures.push({
    section: section1,
    name: 'Write sent to the SSE catalog event on the other two processes, p99 (ms)',
    value: percentile(fromSent, 99),
    unit: 'ms',
  });
  notes.push(
    `Propagation: ${o.writes} writes of a cell of the large service (each its own aspect and quarter and text), through the three processes in turn, each after the previous one was seen; ` +
      `the reader's GET /full (as fetch sends it, gzip accepted) on the other two is polled from the write's answer until it holds the new text: that includes building the body again ` +
      `(another process's write: one statement builds it whole) and the transfer. Then ${o.writes} more writes, each heard on a stream (GET /api/events, the reader) open on each of the ` +
      `other two processes, timed from the write's answer to the event's arrival (${before} of ${fromAnswer.length} events arrived before the write's answer: counted as 0 ms); ` +
      `from the write being sent, p50 ${fmt(percentile(fromSent, 50))} ms. Six writes before these, not counted, warm every process's paths.`,
  );
  o.log(`stream: SSE p50 ${fmt(percentile(fromAnswer, 50))} ms, p99 ${fmt(percentile(fromAnswer, 99))} ms (from the answer)`);
  return listeners;
}
