/**
 * Bench data: .catalog documents of any size (the import format of CONTRACT section 3) and a
 * tenant built through the product's own HTTP API: many small services, imported large ones.
 */
import { gzipSync } from 'node:zlib';
import { addQuarters, quarterOf } from '../common/quarters';
import type { Client } from './http';

const WORDS = 'catalogue service students staff access available pilot review network storage secure report support campus teaching research'.split(' ');

function words(seed: number, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += (i ? ' ' : '') + WORDS[(seed * 7 + i * 13) % WORDS.length];
  return out;
}

/** About 300 characters of formatted text: a paragraph with bold, a link and a short list. */
export function richDescription(seed: number): string {
  return (
    `<p>${words(seed, 8)} <strong>${words(seed + 1, 3)}</strong> ${words(seed + 2, 6)}.</p>` +
    `<ul><li>${words(seed + 3, 5)}</li><li><em>${words(seed + 4, 4)}</em></li></ul>` +
    `<p><a href="https://example.org/help/${seed}">${words(seed + 5, 3)}</a> ${words(seed + 6, 5)}.</p>`
  );
}

export interface CatalogShape {
  name: string;
  categories: number;
  aspects: number;
  quarters: number;
}

/** A .catalog document with every quarter of every aspect filled. */
export function catalogDocument(shape: CatalogShape) {
  const first = quarterOf(new Date());
  const timeline = Array.from({ length: shape.quarters }, (_, i) => addQuarters(first, i));
  const categories = Array.from({ length: shape.categories }, (_, i) => ({ id: `c${i}`, name: `Category ${i + 1}`, position: i }));
  const aspects = Array.from({ length: shape.aspects }, (_, i) => ({
    id: `a${i}`,
    category_id: `c${i % shape.categories}`,
    title: `Aspect ${i + 1}: ${words(i, 3)}`,
    description: richDescription(i),
    is_public: i % 4 !== 0,
    position: Math.floor(i / shape.categories),
  }));
  const availabilities = aspects.flatMap((a, i) => timeline.map((q, j) => ({ aspect_id: a.id, time_bucket: q, value: `${words(i + j, 4)} (${q})` })));
  return {
    format: 'service-catalog',
    version: 1,
    service: { name: shape.name, description: `<p>${shape.name}</p>`, service_owner: 'Bench', subscription_model: 'Included', timeline },
    categories,
    aspects,
    availabilities,
    roles: [
      { role_name: 'Student', position: 0 },
      { role_name: 'Staff', position: 1 },
    ],
    templates: [
      { template_text: 'Available', position: 0 },
      { template_text: 'Planned', position: 1 },
    ],
  };
}

export function catalogFile(shape: CatalogShape): Buffer {
  return gzipSync(JSON.stringify(catalogDocument(shape)));
}

/** Imports a .catalog file through POST /api/services/import; answers the new service and the time taken. */
export async function importCatalog(client: Client, file: Buffer, name = 'bench.catalog'): Promise<{ id: string; ms: number }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file)]), name);
  const started = performance.now();
  const res = await client.fetch('/api/services/import', { method: 'POST', body: form });
  const ms = performance.now() - started;
  if (res.status !== 201) throw new Error(`import answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { service: { id: string } };
  return { id: body.service.id, ms };
}

export interface BenchScale {
  services: number;
  large: CatalogShape;
  curve: number[];
  importAspects: number;
}

export const SCALES: Record<'small' | 'full', BenchScale> = {
  small: { services: 20, large: { name: 'Large service', categories: 6, aspects: 60, quarters: 12 }, curve: [6, 60, 600], importAspects: 1_000 },
  full: { services: 200, large: { name: 'Large service', categories: 30, aspects: 600, quarters: 12 }, curve: [60, 600, 6_000], importAspects: 10_000 },
};

export interface BenchTenant {
  largeId: string;
  curve: { aspects: number; id: string }[];
}

/** The bench tenant: small services created one by one through the API, the large ones imported. */
export async function buildTenant(client: Client, scale: BenchScale): Promise<BenchTenant> {
  const large = await importCatalog(client, catalogFile(scale.large));
  for (let i = 1; i < scale.services; i++) {
    const res = await client.json('POST', '/api/services', {
      name: `Service ${String(i).padStart(3, '0')}`,
      slug: `service-${i}`,
      description: `<p>${words(i, 12)}</p>`,
      serviceOwner: 'Bench',
      subscriptionModel: 'Included',
    });
    if (res.status !== 201) throw new Error(`creating a service answered ${res.status}`);
  }
  const curve = [];
  for (const aspects of scale.curve) {
    const categories = Math.max(1, Math.round(aspects / 20));
    const { id } = await importCatalog(client, catalogFile({ name: `Curve ${aspects}`, categories, aspects, quarters: 12 }));
    curve.push({ aspects, id });
  }
  return { largeId: large.id, curve };
}
