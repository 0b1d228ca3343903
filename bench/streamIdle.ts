/**
 * Section 3 of the change-stream step (bench/stream.ts), idle streams: the configured number of idle
 * GET /api/events streams (10,000 at full scale) held by the second process, its resident memory
 * before and after (/proc/<pid>/status), and the time a write through the first process takes to
 * reach every one of them.
 */
import { median, percentile } from './http';
import { rssOf } from './server';
import type { StreamRun } from './stream';
import { fmt, openStream, sleep, type LightStream } from './streamClient';

const MB = 1024 * 1024;

/**
 * Measures the idle streams and adds their figures and note to the run. `listeners` (the streams
 * section 1 left open) are closed first; the idle streams then take their place in the run's
 * `streams`, which holds every one opened, and are left open.
 */
export async function measureIdleStreams(run: StreamRun, listeners: LightStream[]): Promise<void> {
  const { o, servers, tokens, slug, stamp, figures, notes, streams, write } = run;
  const section3 = `${o.streams.toLocaleString('en')} idle streams on one process`;
  for (const s of listeners) s.close();
  streams.length = 0;
  const target = servers[1]!;
  await sleep(2000);
  const rssBefore = rssOf(target.pid);
  o.log(`stream: opening ${o.streams} idle streams on process 2 (RSS ${fmt(rssBefore / MB)} MB)`);
  const openStarted = performance.now();
  const BATCH = 200;
  let refused = 0;
  for (let opened = 0; opened < o.streams; opened += BATCH) {
    const batch = await Promise.all(Array.from({ length: Math.min(BATCH, o.streams - opened) }, () => openStream(target.url, tokens.reader, slug)));
    for (const s of batch) {
      if (s.status === 200) streams.push(s);
      else refused++;
    }
  }
  const openSeconds = (performance.now() - openStarted) / 1000;
  if (refused) throw new Error(`${refused} streams were refused`);
  await sleep(3000);
  const rssAfter = rssOf(target.pid);
  const added = (rssAfter - rssBefore) / MB;
  figures.push({
    section: section3,
    name: `Server RSS added by ${o.streams.toLocaleString('en')} idle streams (MB)`,
    value: added,
    unit: 'MB',
    target: { value: (300 * o.streams) / 10_000, atMost: true },
  });
  figures.push({ section: section3, name: 'Server RSS added per stream (KB)', value: (added * 1024) / o.streams, unit: 'KB' });
  o.log(`stream: ${streams.length} open in ${openSeconds.toFixed(1)} s; RSS ${fmt(rssBefore / MB)} -> ${fmt(rssAfter / MB)} MB (+${fmt(added)})`);

  // A write through another process while they are all open: the time to each of them.
  const deliveries: number[] = [];
  const lasts: number[] = [];
  const WRITES = 3;
  for (let w = 0; w < WRITES; w++) {
    const marks = streams.map((s) => s.arrivals.length);
    const wrote = await write(0, 1000 + w, `Fan-out ${stamp} ${w}`);
    const answered = performance.now();
    if (wrote.status !== 200) throw new Error(`the fan-out write answered ${wrote.status}`);
    const start = performance.now();
    while (streams.some((s, i) => s.arrivals.length <= marks[i]!)) {
      if (performance.now() - start > 30_000)
        throw new Error(`fan-out write ${w}: ${streams.filter((s, i) => s.arrivals.length <= marks[i]!).length} streams got nothing within 30 s`);
      await sleep(5);
    }
    const times = streams.map((s, i) => Math.max(0, s.arrivals[marks[i]!]! - answered));
    deliveries.push(...times);
    lasts.push(Math.max(...times));
    o.log(`stream: fan-out write ${w}: p50 ${fmt(percentile(times, 50))} ms, p99 ${fmt(percentile(times, 99))}, last ${fmt(Math.max(...times))}`);
    await sleep(500);
  }
  const rssAfterWrites = rssOf(target.pid);
  figures.push({
    section: section3,
    name: `Server RSS added, after ${WRITES} writes reached every stream (MB)`,
    value: (rssAfterWrites - rssBefore) / MB,
    unit: 'MB',
    target: { value: (300 * o.streams) / 10_000, atMost: true },
  });
  figures.push({
    section: section3,
    name: `A write through another process to each of the ${o.streams.toLocaleString('en')} streams, p50 (ms)`,
    value: percentile(deliveries, 50),
    unit: 'ms',
  });
  figures.push({
    section: section3,
    name: `A write through another process to each of the ${o.streams.toLocaleString('en')} streams, p99 (ms)`,
    value: percentile(deliveries, 99),
    unit: 'ms',
  });
  figures.push({
    section: section3,
    name: 'A write through another process to the last of the streams (ms; median of 3 writes)',
    value: median(lasts),
    unit: 'ms',
  });
  notes.push(
    `Idle streams: ${o.streams.toLocaleString('en')} GET /api/events streams (the reader, one connection each, no agent, over loopback from one client process) opened on the second process in batches of ${BATCH} ` +
      `(${openSeconds.toFixed(1)} s in all); its resident memory read from /proc/<pid>/status before (${fmt(rssBefore / MB)} MB) and 3 s after the last one opened (${fmt(rssAfter / MB)} MB), ` +
      `${fmt(rssAfterWrites / MB)} MB after the writes below. Then ${WRITES} writes through the first process, each timed from its answer to the catalog event's arrival on every stream; ` +
      `the client process reading all the streams is part of that time (every figure counted: ${deliveries.length}).`,
  );
}
