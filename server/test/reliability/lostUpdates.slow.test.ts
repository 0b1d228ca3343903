import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_MESSAGES as C } from '../../../common/schemas/catalog';
import { aspects as aspectsTable, availabilities } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../app';
import { createAspect, createCategory, createService, createUser, createWorld, signIn, type World } from '../factories';
import { recordFigure } from '../security/figures';
import { defaultTimeline } from '../../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

/**
 * Suite 10, lost updates: two editors change the same aspect (PUT with `version`) or the same
 * availability (POST with `expectedValue`) from the same stale copy, at the same moment. Exactly
 * one wins; the other gets a 409 carrying the current value; the stored value is the winner's.
 * Trials run in concurrent batches on one app.
 */
const TRIALS = Number(process.env.LOST_UPDATE_TRIALS ?? 1000);
const PER_ROUND = 20;
const QUARTER = TIMELINE[0];

let t: TestApp;
let world: World;
let tokens: [string, string];
const aspectIds: string[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  world = await createWorld(t.app, t.db);
  const second = await createUser(t.db, world.tenant.id, { role: 'editor' });
  tokens = [world.tokens.editor, await signIn(t.app, second.email)];
  const service = await createService(t.db, world.tenant.id);
  const category = await createCategory(t.db, world.tenant.id, service.id);
  for (let i = 0; i < PER_ROUND / 2; i++) aspectIds.push((await createAspect(t.db, world.tenant.id, service.id, category.id)).id);
});

afterAll(() => t?.close());

interface Outcome {
  silentOverwrite: boolean;
}

const as = (i: 0 | 1) => ({ token: tokens[i], tenant: world.tenant.slug });

/** Both editors save the aspect from the version they loaded. */
async function aspectTrial(aspectId: string, round: number): Promise<Outcome> {
  const loaded = await call(t.app, 'GET', `/api/aspects/${aspectId}`, as(0));
  const version = loaded.json().aspect.version as number;
  const titles = [`Round ${round} by first editor`, `Round ${round} by second editor`];
  const answers = await Promise.all(
    ([0, 1] as const).map((i) =>
      call(t.app, 'PUT', `/api/aspects/${aspectId}`, { ...as(i), body: { title: titles[i], description: `<p>${titles[i]}</p>`, version } }),
    ),
  );
  const statuses = answers.map((a) => a.statusCode).sort();
  const [row] = await t.db.select().from(aspectsTable).where(eq(aspectsTable.id, aspectId));
  if (statuses[0] === 200 && statuses[1] === 200) return { silentOverwrite: true };
  expect(statuses).toEqual([200, 409]);
  const winner = answers.findIndex((a) => a.statusCode === 200);
  const loser = answers[1 - winner].json();
  expect(loser).toMatchObject({ code: 'conflict', error: C.aspectChanged, current: { title: titles[winner], version: version + 1 } });
  expect(row.title).toBe(titles[winner]);
  expect(row.version).toBe(version + 1);
  return { silentOverwrite: false };
}

/** Both editors save the same quarter's text from the value they loaded. */
async function availabilityTrial(aspectId: string, round: number): Promise<Outcome> {
  const loaded = await call(t.app, 'GET', `/api/availabilities/aspect/${aspectId}`, as(0));
  const stale = (loaded.json().availabilities as Array<{ time_bucket: string; value: string }>).find((a) => a.time_bucket === QUARTER)?.value ?? null;
  const values = [`Round ${round} first`, `Round ${round} second`];
  const answers = await Promise.all(
    ([0, 1] as const).map((i) =>
      call(t.app, 'POST', '/api/availabilities', { ...as(i), body: { aspectId, timeBucket: QUARTER, value: values[i], expectedValue: stale } }),
    ),
  );
  const statuses = answers.map((a) => a.statusCode).sort();
  const [row] = await t.db
    .select()
    .from(availabilities)
    .where(and(eq(availabilities.aspectId, aspectId), eq(availabilities.timeBucket, QUARTER)));
  if (statuses[0] === 200 && statuses[1] === 200) return { silentOverwrite: true };
  expect(statuses).toEqual([200, 409]);
  const winner = answers.findIndex((a) => a.statusCode === 200);
  expect(answers[1 - winner].json()).toMatchObject({ code: 'conflict', error: C.availabilityChanged, current: values[winner] });
  expect(row.value).toBe(values[winner]);
  return { silentOverwrite: false };
}

describe('lost updates', () => {
  it(`lets exactly one of two concurrent editors win in each of ${TRIALS} trials, the other gets 409 with the current value`, async () => {
    let trials = 0;
    let silent = 0;
    const started = Date.now();
    for (let round = 0; trials < TRIALS; round++) {
      const batch = aspectIds.flatMap((id) => [aspectTrial(id, round), availabilityTrial(id, round)]).slice(0, TRIALS - trials);
      const outcomes = await Promise.all(batch);
      trials += outcomes.length;
      silent += outcomes.filter((o) => o.silentOverwrite).length;
    }
    recordFigure('lost-updates', `${silent} silent overwrites in ${trials} concurrent trials (${Math.round((Date.now() - started) / 1000)} s)`, {
      trials,
      silentOverwrites: silent,
    });
    expect(silent).toBe(0);
    expect(trials).toBe(TRIALS);
  }, 600_000);
});
