import { Group, Paper, Select, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { M } from '../../../../common/messages';
import { messageOf } from '../../../api/client';
import { PLATFORM_LOG, useAdminAudit } from '../../../api/audit';
import type { Tenant } from '../../../api/tenants';
import { AuditLogTable } from './AuditLogTable';
import { MessageBar } from './MessageBar';

/** The audit log of any tenant, or of the platform (sign-ins and deletions that belong to no tenant). */
export function AdminAuditLog({ tenants }: { tenants: Tenant[] }) {
  const [choice, setChoice] = useState<string | null>(null);
  const audit = useAdminAudit(choice);
  const [dismissed, setDismissed] = useState(false);
  const error = audit.isError && !dismissed ? messageOf(audit.error, M.failedLoadData) : null;
  const options = [
    ...tenants.map((t) => ({ value: t.id, label: t.archived ? `${t.name} (archived)` : t.name })),
    { value: PLATFORM_LOG, label: 'Platform (no tenant)' },
  ];
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="admin-audit-log">
      <Group justify="space-between" mb="md" wrap="wrap">
        <Title order={2} size="h3" id="admin-audit-log">
          Audit Log
        </Title>
        <Select
          label="Audit log of"
          data={options}
          placeholder="Choose a tenant"
          value={choice}
          onChange={(v) => {
            setDismissed(false);
            setChoice(v);
          }}
          allowDeselect={false}
          searchable
          w={280}
        />
      </Group>
      <MessageBar message={error} onClose={() => setDismissed(true)} />
      {choice === null ? (
        <Text c="dimmed">Choose a tenant, or the platform, to read its audit log.</Text>
      ) : (
        <AuditLogTable
          entries={audit.data?.pages.flatMap((p) => p.entries) ?? []}
          loading={audit.isLoading}
          hasMore={Boolean(audit.hasNextPage)}
          loadingMore={audit.isFetchingNextPage}
          onLoadMore={() => void audit.fetchNextPage()}
        />
      )}
    </Paper>
  );
}
