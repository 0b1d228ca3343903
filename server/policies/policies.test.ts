import { describe, expect, it } from 'vitest';
import { can, authorize, PERMISSIONS, RUNGS, servicePermissions, tenantPermissions, type Capability, type PolicyActor, type Rung } from './index';
import { AppError } from '../errors';

/**
 * The permission table of spec section 6 (with CONTRACT section 4), restated here as the spec
 * writes it, and checked row by row and role by role against the policies.
 */
const SPEC_TABLE: Record<Capability, Record<Rung, boolean>> = {
  'catalog.view': { reader: true, editor: true, admin: true, superAdmin: true },
  'catalog.viewPrivate': { reader: false, editor: true, admin: true, superAdmin: true },
  'catalog.edit': { reader: false, editor: true, admin: true, superAdmin: true },
  'service.settings': { reader: false, editor: true, admin: true, superAdmin: true },
  'service.admin': { reader: false, editor: false, admin: true, superAdmin: true },
  'tenant.services': { reader: false, editor: false, admin: true, superAdmin: true },
  'services.showArchived': { reader: false, editor: false, admin: true, superAdmin: true },
  'services.hardDelete': { reader: false, editor: false, admin: false, superAdmin: true },
  'tenantSettings.page': { reader: false, editor: false, admin: true, superAdmin: false },
  'tenant.users': { reader: false, editor: false, admin: true, superAdmin: true },
  'tenant.publishing': { reader: false, editor: false, admin: true, superAdmin: true },
  'platform.manage': { reader: false, editor: false, admin: false, superAdmin: true },
};

const actorFor = (rung: Rung): PolicyActor =>
  rung === 'superAdmin' ? { userId: 'u', role: 'admin', superAdmin: true } : { userId: 'u', role: rung, superAdmin: false };

describe('permission table', () => {
  it('covers exactly the capabilities of the spec table', () => {
    expect(Object.keys(PERMISSIONS).sort()).toEqual(Object.keys(SPEC_TABLE).sort());
  });

  for (const capability of Object.keys(SPEC_TABLE) as Capability[]) {
    for (const rung of RUNGS) {
      const expected = SPEC_TABLE[capability][rung];
      it(`${capability}: ${rung} ${expected ? 'may' : 'may not'}`, () => {
        expect(can(actorFor(rung), capability, { tenantId: 't' })).toBe(expected);
        if (expected) expect(() => authorize(actorFor(rung), capability, { tenantId: 't' })).not.toThrow();
        else expect(() => authorize(actorFor(rung), capability, { tenantId: 't' })).toThrow(expect.objectContaining({ statusCode: 403 }));
      });
    }
  }
});

describe('service role assignments', () => {
  it('raise a reader to editor on that service', () => {
    const reader = actorFor('reader');
    expect(can(reader, 'catalog.edit', { tenantId: 't' })).toBe(false);
    expect(can(reader, 'catalog.edit', { tenantId: 't', serviceRole: 'editor' })).toBe(true);
    expect(can(reader, 'service.admin', { tenantId: 't', serviceRole: 'admin' })).toBe(true);
  });

  it('never lower a role', () => {
    expect(can(actorFor('admin'), 'service.admin', { tenantId: 't', serviceRole: 'reader' })).toBe(true);
  });

  it('never grant super admin powers', () => {
    expect(can(actorFor('reader'), 'services.hardDelete', { tenantId: 't', serviceRole: 'admin' })).toBe(false);
    expect(can(actorFor('reader'), 'platform.manage', { tenantId: 't', serviceRole: 'admin' })).toBe(false);
  });

  it('never reach past their service: no tenant capability comes from an assignment', () => {
    const tenantWide = (Object.keys(PERMISSIONS) as Capability[]).filter((c) => PERMISSIONS[c].scope !== 'service');
    expect(tenantWide).toEqual(expect.arrayContaining(['tenant.users', 'tenant.services', 'services.showArchived', 'tenantSettings.page']));
    for (const role of ['reader', 'editor'] as const) {
      for (const capability of tenantWide) {
        expect(can(actorFor(role), capability, { tenantId: 't', serviceRole: 'admin' }), `${role} raised to admin: ${capability}`).toBe(false);
      }
    }
  });

  it('are told to the web app as the same rights the server decides with', () => {
    const raised = servicePermissions(actorFor('reader'), 'admin');
    expect(raised).toMatchObject({ canEdit: true, canViewPrivate: true, canAdmin: true, canManageUsers: false, canMove: false, canHardDelete: false });
    expect(tenantPermissions(actorFor('admin'))).toEqual({
      canCreateServices: true,
      canShowArchived: true,
      canManageUsers: true,
      canOpenTenantSettings: true,
      canManagePlatform: false,
    });
    expect(tenantPermissions(actorFor('superAdmin'))).toMatchObject({ canOpenTenantSettings: false, canManagePlatform: true });
  });
});

describe('same tenant', () => {
  it('answers a record of another tenant as not found, whatever the role', () => {
    for (const rung of RUNGS) {
      expect(can(actorFor(rung), 'catalog.view', { tenantId: 'a', recordTenantId: 'b' })).toBe(false);
      try {
        authorize(actorFor(rung), 'catalog.view', { tenantId: 'a', recordTenantId: 'b' });
        throw new Error('expected a 404');
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).statusCode).toBe(404);
      }
    }
  });
});
