import { Group, Paper, Text, Title } from '@mantine/core';
import { memo, useState } from 'react';
import { PLATFORM_LOG, useAdminAudit, type AuditFilters } from '../../../api/audit';
import { AuditFilterBar } from '../../../components/AuditFilterBar';
import { AuditLogTable } from '../../../components/AuditLogTable';
import { TenantSelect } from '../../../components/TenantSelect';

const PLATFORM_OPTION = [{ value: PLATFORM_LOG, label: 'Platform (no tenant)' }];

/**
 * The audit log of any tenant, archived ones included, or of the platform (sign-ins and deletions
 * that belong to no tenant). The tenant is found by a search on the server; the entries carry
 * their tenant's name.
 */
export const AdminAuditLog = memo(function AdminAuditLog() {
  const [choice, setChoice] = useState<string | null>(null);
  const [filters, setFilters] = useState<AuditFilters>({});
  const audit = useAdminAudit(choice, filters);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="admin-audit-log">
      <Group justify="space-between" mb="md" wrap="wrap">
        <Title order={2} size="h3" id="admin-audit-log">
          Audit Log
        </Title>
        <TenantSelect
          label="Audit log of"
          placeholder="Choose a tenant"
          includeArchived
          extra={PLATFORM_OPTION}
          value={choice}
          onChange={setChoice}
          allowDeselect={false}
          w={280}
        />
      </Group>
      {choice === null ? (
        <Text c="dimmed">Choose a tenant, or the platform, to read its audit log.</Text>
      ) : (
        <>
          <AuditFilterBar filters={filters} onChange={setFilters} panel={{ tenantId: choice === PLATFORM_LOG ? null : choice }} />
          {/* Another log chosen: a failure dismissed for the last one does not hide this one's. */}
          <AuditLogTable key={choice} audit={audit} panel />
        </>
      )}
    </Paper>
  );
});
