import { Paper, Title } from '@mantine/core';
import { useState } from 'react';
import { M } from '../../../common/messages';
import { messageOf } from '../../api/client';
import { useTenantAudit } from '../../api/audit';
import { AuditLogTable } from '../SuperAdmin/components/AuditLogTable';
import { MessageBar } from '../SuperAdmin/components/MessageBar';

/** The tenant's own audit log, for its admins. */
export function TenantAuditLog() {
  const audit = useTenantAudit();
  const [dismissed, setDismissed] = useState(false);
  const error = audit.isError && !dismissed ? messageOf(audit.error, M.failedLoadData) : null;
  return (
    <Paper withBorder p="md" radius="md" mt="md" component="section" aria-labelledby="tenant-audit-log">
      <Title order={2} size="h3" id="tenant-audit-log" mb="md">
        Audit Log
      </Title>
      <MessageBar message={error} onClose={() => setDismissed(true)} />
      <AuditLogTable
        entries={audit.data?.pages.flatMap((p) => p.entries) ?? []}
        loading={audit.isLoading}
        hasMore={Boolean(audit.hasNextPage)}
        loadingMore={audit.isFetchingNextPage}
        onLoadMore={() => void audit.fetchNextPage()}
      />
    </Paper>
  );
}
