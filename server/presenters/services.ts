import type { ServiceRow } from '../db/queries/services';

export function presentService(s: ServiceRow) {
  return {
    id: s.id,
    name: s.name,
    slug: s.slug,
    description: s.description,
    service_owner: s.serviceOwner,
    subscription_model: s.subscriptionModel,
    icon_url: s.iconUrl,
    archived: s.archived,
    published: s.published,
    tenant_id: s.tenantId,
    timeline: s.timeline,
    version: s.version,
    last_updated: s.lastUpdated.toISOString(),
    created_at: s.createdAt.toISOString(),
  };
}
export type PresentedService = ReturnType<typeof presentService>;
