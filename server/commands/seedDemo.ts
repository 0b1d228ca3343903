import { defaultTimeline } from '../../common/quarters';
import type { Executor } from '../db';
import { actorRoles, aspects, availabilities, categories, quickTemplates, services } from '../db/schema';

interface DemoAspect {
  title: string;
  description: string;
  isPublic: boolean;
  /** Availability per timeline index. */
  plan: Record<number, string>;
}

const DEMO: { category: string; aspects: DemoAspect[] }[] = [
  {
    category: 'Core Features',
    aspects: [
      {
        title: 'Single sign-on',
        description: '<p>Sign in with your organisation account. <strong>SAML</strong> and <em>OpenID Connect</em>.</p>',
        isPublic: true,
        plan: { 0: 'Pilot', 1: 'Available', 2: 'Available', 3: 'Available', 4: 'Available', 5: 'Available', 6: 'Available', 7: 'Available' },
      },
      {
        title: 'Self-service portal',
        description: '<p>Request, change and cancel subscriptions without a ticket.</p>',
        isPublic: true,
        plan: { 1: 'Design', 2: 'Beta', 3: 'General availability', 4: 'General availability' },
      },
      {
        title: 'Usage reports',
        description: '<ul><li>Monthly consumption</li><li>Cost per department</li></ul>',
        isPublic: true,
        plan: { 2: 'Preview', 4: 'Available' },
      },
    ],
  },
  {
    category: 'Operations',
    aspects: [
      {
        title: '24/7 support',
        description: '<p>Around-the-clock support for priority 1 incidents.</p>',
        isPublic: true,
        plan: { 0: 'Business hours', 1: 'Business hours', 2: 'Extended hours', 3: '24/7', 4: '24/7' },
      },
      {
        title: 'Disaster recovery drill',
        description: '<p>Internal: yearly failover test of the secondary site.</p>',
        isPublic: false,
        plan: { 3: 'Planned', 7: 'Planned' },
      },
    ],
  },
];

/** The Demo example service: categories, public and private aspects, availabilities across the timeline. */
export async function seedDemoService(db: Executor, tenantId: string, changedBy: string): Promise<string> {
  const timeline = defaultTimeline();
  const [service] = await db
    .insert(services)
    .values({
      tenantId,
      name: 'Demo',
      slug: 'demo',
      // A service description is plain text (docs/decisions/0113-plain-service-descriptions.md).
      description: 'An example service showing how a roadmap is planned quarter by quarter.',
      serviceOwner: changedBy,
      subscriptionModel: 'Included for every department; premium support on request.',
      timeline,
    })
    .onConflictDoNothing()
    .returning();
  if (!service) return '';
  for (const [ci, group] of DEMO.entries()) {
    const [category] = await db.insert(categories).values({ tenantId, serviceId: service.id, name: group.category, position: ci }).returning();
    for (const [ai, a] of group.aspects.entries()) {
      const [aspect] = await db
        .insert(aspects)
        .values({ tenantId, serviceId: service.id, categoryId: category.id, title: a.title, description: a.description, isPublic: a.isPublic, position: ai })
        .returning();
      const rows = Object.entries(a.plan)
        .filter(([i]) => timeline[Number(i)])
        .map(([i, value]) => ({ tenantId, serviceId: service.id, aspectId: aspect.id, timeBucket: timeline[Number(i)], value }));
      if (rows.length) await db.insert(availabilities).values(rows);
    }
  }
  await db
    .insert(actorRoles)
    .values(['Service owner', 'Product manager', 'Support engineer'].map((roleName, position) => ({ tenantId, serviceId: service.id, roleName, position })));
  await db
    .insert(quickTemplates)
    .values(['Available', 'Planned', 'Beta', 'Not available'].map((templateText, position) => ({ tenantId, serviceId: service.id, templateText, position })));
  return service.id;
}
