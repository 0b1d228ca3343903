import { Group, Paper, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { M } from '../../../../common/messages';
import { messageOf } from '../../../api/client';
import { PLATFORM_LOG, useAdminAudit } from '../../../api/audit';
import { AuditLogTable } from './AuditLogTable';
import { MessageBar } from './MessageBar';
import { TenantSelect } from './TenantSelect';

const PLATFORM_OPTION = [{ value: PLATFORM_LOG, label: 'Platform (no tenant)' }];

/**
 * The audit log of any tenant, archived ones included, or of the platform (sign-ins and deletions
 * that belong to no tenant). The tenant is found by a search on the server; the entries carry
 * their tenant's name.
 */
export function AdminAuditLog() {
  const [choice, setChoice] = useState<string | null>(null);
  const audit = useAdminAudit(choice);
  const [dismissed, setDismissed] = useState(false);
  const error = audit.isError && !dismissed ? messageOf(audit.error, M.failedLoadData) : null;
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
          onChange={(v) => {
            setDismissed(false);
            setChoice(v);
          }}
          allowDeselect={false}
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
