import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { RegisteredRoute } from '../../routeDoc';
import { services, tenants } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../app';
import { assignServiceRole, createTenant } from '../factories';
import { recordFigure } from '../security/figures';
import { AUDITED_REFUSALS, EXAMPLES, QUERIES, ROUTE_RULES, fillPath, type Example, type ExampleContext } from './routeTable';
import { expectation, headerFor, HEADERS, TOKEN_HEADERS, type Cell, type Target } from './probes';
import {
  ACTORS,
  buildIsolationWorld,
  fingerprinter,
  missingDataset,
  seedDataset,
  tokenActor,
  type Dataset,
  type IsolationWorld,
  type TokenActorName,
} from './world';

/**
 * Suite 1, the isolation matrix: every registered /api route x every actor x own / another
 * tenant's / missing target x tenant header (own, other, missing, unknown), generated from
 * app.registeredRoutes. Each cell asserts the status the rules give and, for every refusal, that
 * the database did not change.
 */
let t: TestApp;
let w: IsolationWorld;
let routes: RegisteredRoute[];
let catalogFile: Buffer;
let counter = 0;

const keyOf = (r: RegisteredRoute) => `${r.method} ${r.url}`;

beforeAll(async () => {
  // Thousands of sign-ins from one address, failed ones included: the matrix tests the routes, not the throttle.
  t = await buildTestApp({ LOGIN_THROTTLE: 'false' });
  w = await buildIsolationWorld(t.app, t.db);
  routes = t.app.registeredRoutes.filter((r) => r.url.startsWith('/api/'));
  const exported = await call(t.app, 'GET', `/api/services/${w.A.service.id}/export`, { token: w.actors.superAdmin.token, tenant: w.tenantA.slug });
  catalogFile = exported.rawPayload;
}, 120_000);
afterAll(() => t.close());

function context(d: Dataset): ExampleContext {
  counter += 1;
  return {
    otherTenantId: d.tenantId === w.tenantA.id ? w.tenantB.id : w.tenantA.id,
    unique: `iso${counter}x${process.pid}`,
    catalogFile,
  };
}

function datasetOf(target: Target, home: 'A' | 'B'): Dataset {
  if (target === 'missing') return missingDataset();
  const tenant = target === 'foreign' ? (home === 'A' ? 'B' : 'A') : home;
  return tenant === 'A' ? w.A : w.B;
}

function hasTarget(route: RegisteredRoute): boolean {
  if (route.url.includes(':') || QUERIES[keyOf(route)]) return true;
  const example = EXAMPLES[keyOf(route)];
  if (!example) return false;
  const c = { otherTenantId: 'x', unique: 'same', catalogFile: Buffer.alloc(0) };
  return JSON.stringify(example(w.A, c)) !== JSON.stringify(example(missingDataset(), c));
}

async function send(route: RegisteredRoute, d: Dataset, token: string | null, tenant: string | null) {
  const url = fillPath(route.url, d);
  if (!url) throw new Error(`no entity for the parameters of ${keyOf(route)}`);
  const example: Example = EXAMPLES[keyOf(route)]?.(d, context(d)) ?? {};
  if (example.raw) {
    return call(t.app, route.method as 'POST', url, { token, tenant, body: example.raw.payload, headers: { 'content-type': example.raw.contentType } });
  }
  return call(t.app, route.method as 'POST', url, { token, tenant, body: example.body, query: QUERIES[keyOf(route)]?.(d) });
}

/** Sets up what a successful write needs on a fresh dataset. */
async function prepare(key: string, d: Dataset, cell: Cell) {
  const assigned = w.actors[cell.actor].assigned;
  if (assigned && cell.target === 'own') await assignServiceRole(t.db, d.tenantId, d.service.id, w.actors[cell.actor].userId!, assigned);
  if (key === 'POST /api/impersonation/stop' && cell.actor === 'superAdmin') {
    const started = await call(t.app, 'POST', '/api/impersonation/start', {
      token: w.actors.superAdmin.token,
      body: { userId: d.user.id, tenantId: d.tenantId },
    });
    if (started.statusCode !== 200) throw new Error(`impersonation did not start: ${started.body}`);
  }
  if (key === 'DELETE /api/tenants/:id' || key === 'PATCH /api/tenants/:id/unarchive') {
    await t.db.update(tenants).set({ archived: true }).where(eq(tenants.id, d.tenant.id));
  }
  if (key === 'DELETE /api/services/:id/hard-delete' || key === 'PATCH /api/services/:id/unarchive') {
    await t.db.update(services).set({ archived: true }).where(eq(services.id, d.service.id));
  }
}

/**
 * A fresh token for the actor, so that a successful logout or impersonation stop leaves the shared
 * ones alive; an API token's is a new token of its tenant (a limited one, limited to the dataset's service).
 */
async function mint(actor: keyof IsolationWorld['actors'], d: Dataset) {
  const a = w.actors[actor];
  if (!a.userId) return null;
  if (a.apiToken) return (await tokenActor(t.db, actor as TokenActorName, d.tenantId, d.service.id)).token;
  if (actor === 'impersonation') {
    const superAdmin = w.actors.superAdmin.userId as string;
    const session = await t.app.tokens.sign({ sub: superAdmin, ttlSeconds: 600 });
    return (await t.app.tokens.sign({ sub: a.userId, imp: superAdmin, tid: w.tenantA.id, sid: session.jti, ttlSeconds: 600 })).token;
  }
  return (await t.app.tokens.sign({ sub: a.userId, ttlSeconds: 600 })).token;
}

describe('isolation matrix', () => {
  it('has a rule, a parameter map and (for bodies) an example for every registered route', () => {
    const problems: string[] = [];
    for (const route of routes) {
      const key = keyOf(route);
      if (!ROUTE_RULES[key]) problems.push(`${key}: no rule in ROUTE_RULES`);
      if (fillPath(route.url, w.A) === null) problems.push(`${key}: a path parameter the map cannot fill`);
      if (['POST', 'PUT', 'PATCH'].includes(route.method) && !EXAMPLES[key]) problems.push(`${key}: no example body`);
      if (ROUTE_RULES[key] === 'public' && !route.config.public) problems.push(`${key}: listed public but needs a session`);
      if (route.config.public && ROUTE_RULES[key] !== 'public') problems.push(`${key}: public but listed as ${ROUTE_RULES[key]}`);
    }
    expect(problems).toEqual([]);
  });

  it('notices a write in its database fingerprint', async () => {
    const fingerprint = await fingerprinter(t.db);
    const before = await fingerprint();
    await t.db.update(services).set({ name: 'Fingerprint check' }).where(eq(services.id, w.B.archivedService.id));
    const after = await fingerprint();
    expect(Object.keys(after).filter((k) => after[k] !== before[k])).toEqual(['services']);
  });

  it('answers every cell as the rules say and changes nothing on a refusal', async () => {
    const fingerprint = await fingerprinter(t.db);
    const leaks: string[] = [];
    let probes = 0;
    const covered = new Set<string>();
    const writes: { route: RegisteredRoute; cell: Cell }[] = [];
    // Refusals by route, actor and header: another tenant's record must be answered as a missing one.
    const refusals = new Map<string, Partial<Record<Target, number>>>();

    for (const route of routes) {
      const key = keyOf(route);
      const rule = ROUTE_RULES[key];
      if (!rule || fillPath(route.url, w.A) === null) continue;
      const targets: Target[] = hasTarget(route) ? ['own', 'foreign', 'missing'] : ['none'];
      let publicStatus: number | null = null;
      for (const actor of ACTORS) {
        const a = w.actors[actor];
        const cells = targets.flatMap((target) => (a.headers ?? (a.apiToken ? TOKEN_HEADERS : HEADERS)).map((header): Cell => ({ actor, target, header })));
        const probe = (cell: Cell) => {
          const d = cell.target === 'none' ? (a.home === 'A' ? w.A : w.B) : datasetOf(cell.target, a.home);
          probes += 1;
          return send(route, d, a.token, headerFor(w, actor, cell.header));
        };
        const label = (cell: Cell) => `${key} ${actor} target=${cell.target} header=${cell.header}`;
        // The refusals of this route and actor run together between two fingerprints of the database.
        const before = await fingerprint();
        let refused = 0;
        const reads: Cell[] = [];
        for (const cell of cells) {
          if (rule === 'public') {
            const res = await probe(cell);
            publicStatus ??= res.statusCode;
            if (res.statusCode !== publicStatus || res.statusCode >= 500) {
              leaks.push(`${label(cell)}: ${res.statusCode}, expected ${publicStatus} as for every caller of a public route`);
            }
            if (res.statusCode >= 400) refused += 1;
            continue;
          }
          const exp = expectation(route, rule, w, cell);
          if (exp.ok) {
            if (route.method === 'GET') reads.push(cell);
            else writes.push({ route, cell });
            continue;
          }
          const res = await probe(cell);
          refused += 1;
          if (!exp.statuses.includes(res.statusCode))
            leaks.push(`${label(cell)}: ${res.statusCode}, expected ${exp.statuses.join(' or ')} (${res.body.slice(0, 100)})`);
          const k = `${key} ${actor} header=${cell.header}`;
          refusals.set(k, { ...refusals.get(k), [cell.target]: res.statusCode });
        }
        if (refused > 0) {
          const after = await fingerprint();
          const changed = Object.keys(after).filter((k) => after[k] !== before[k] && !(AUDITED_REFUSALS.has(key) && k === 'audit_log'));
          if (changed.length) leaks.push(`${key} ${actor}: ${refused} refused calls changed ${changed.join(', ')}`);
        }
        for (const cell of reads) {
          const res = await probe(cell);
          if (res.statusCode < 200 || res.statusCode > 299) leaks.push(`${label(cell)}: ${res.statusCode}, expected 2xx (${res.body.slice(0, 100)})`);
        }
      }
      covered.add(key);
    }

    for (const [k, byTarget] of refusals) {
      if (byTarget.foreign !== undefined && byTarget.missing !== undefined && byTarget.foreign !== byTarget.missing) {
        leaks.push(`${k}: another tenant's record answered ${byTarget.foreign}, a missing one ${byTarget.missing}`);
      }
    }

    // The successful writes, last, each on a fresh dataset of the tenant the call works in.
    for (const { route, cell } of writes) {
      const key = keyOf(route);
      const a = w.actors[cell.actor];
      const away = a.home === 'A' ? 'B' : 'A';
      const tenantName = cell.header === 'other' || cell.target === 'foreign' ? away : a.home;
      const tenant = tenantName === 'A' ? w.tenantA : w.tenantB;
      const scratch = route.url.startsWith('/api/tenants/:id') ? (await createTenant(t.db)).id : undefined;
      const d = await seedDataset(t.db, tenant.id, tenant.slug, scratch);
      await prepare(key, d, cell);
      const res = await send(route, d, await mint(cell.actor, d), headerFor(w, cell.actor, cell.header));
      probes += 1;
      if (res.statusCode < 200 || res.statusCode > 299) {
        leaks.push(`${key} ${cell.actor} target=${cell.target} header=${cell.header}: ${res.statusCode}, expected 2xx (${res.body.slice(0, 120)})`);
      }
    }

    const summary = `${leaks.length} leaks in ${probes} probes, ${covered.size} routes covered of ${routes.length}`;
    console.log(`[isolation matrix] ${summary}`);
    recordFigure('isolation-matrix', summary, { probes, routes: routes.length, covered: covered.size, leaks });
    expect(leaks).toEqual([]);
    expect(covered.size).toBe(routes.length);
  }, 900_000);
});
